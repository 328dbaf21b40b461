/*
 * MPI calls whose call paths change from one call to the next: one MPI_Sendrecv reached from two
 * callers that are the same code, four frames out (so every frame inside lies at the same stack
 * address whichever called it), and an
 * MPI_Allreduce at the bottom of a recursion of depth 1 to 4. A call path taken from a stack
 * remembered by where its return addresses lie must still tell them apart.
 * Usage: changing_paths [iterations]; iteration i calls left() when i is even, else right(),
 * then descend(1 + i % 4).
 */
#include <mpi.h>
#include <stdlib.h>

static volatile double g_sink;

__attribute__((noinline)) static void exchange(double* value) {
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double in = 0;
    MPI_Sendrecv(value, 1, MPI_DOUBLE, (rank + 1) % size, 5, &in, 1, MPI_DOUBLE,
                 (rank + size - 1) % size, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    *value += in;
    g_sink = *value; /* no tail call: exchange stays on the stack */
}

/* Three frames between the callers and exchange: the stacks differ only far out. */
__attribute__((noinline)) static void relay(int hops, double* value) {
    if (hops > 0)
        relay(hops - 1, value);
    else
        exchange(value);
    g_sink = *value;
}

/* Two callers with the same body: the same frame size, so the frames inside are at the same
 * addresses whichever called them. */
__attribute__((noinline)) void left(double* value) {
    relay(3, value);
    g_sink = *value;
}

__attribute__((noinline)) void right(double* value) {
    relay(3, value);
    g_sink = *value;
}

__attribute__((noinline)) static double descend(int depth) {
    double value = depth, sum = 0;
    if (depth > 1)
        sum = descend(depth - 1);
    else
        MPI_Allreduce(&value, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    g_sink = sum;
    return sum + 1;
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    const int iterations = argc > 1 ? atoi(argv[1]) : 40;
    double value = 1;
    for (int i = 0; i < iterations; ++i) {
        if (i % 2 == 0)
            left(&value);
        else
            right(&value);
        g_sink = descend(1 + i % 4);
    }
    MPI_Finalize();
    return 0;
}
