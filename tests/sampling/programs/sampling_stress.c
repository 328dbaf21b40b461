/*
 * Many MPI calls between short bursts of computation that allocates, at a high sampling
 * rate: the signal handler must neither crash, deadlock nor corrupt the record stream.
 * Usage: sampling_stress [iterations]
 */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

static volatile double g_sink;

/* Recursion of varying depth, with malloc/free, so samples land at many depths and inside
 * the allocator. */
__attribute__((noinline)) static double churn(int depth) {
    double* block = malloc(2048 * sizeof(double));
    double sum = 0;
    for (int i = 0; i < 2048; ++i)
        block[i] = i * 0.5 + depth;
    for (int i = 0; i < 2048; ++i)
        sum += block[i];
    free(block);
    return depth > 0 ? sum + churn(depth - 1) : sum;
}

__attribute__((noinline)) static void exchange(int rank, int size, double* value) {
    int peer = (rank + 1) % size, from = (rank + size - 1) % size;
    double in = 0;
    MPI_Sendrecv(value, 1, MPI_DOUBLE, peer, 3, &in, 1, MPI_DOUBLE, from, 3, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    *value += in;
}

__attribute__((noinline)) static void nonblocking(int rank, int size) {
    int peer = (rank + 1) % size, from = (rank + size - 1) % size;
    double out = rank, in = 0;
    MPI_Request requests[2];
    MPI_Irecv(&in, 1, MPI_DOUBLE, from, 4, MPI_COMM_WORLD, &requests[0]);
    MPI_Isend(&out, 1, MPI_DOUBLE, peer, 4, MPI_COMM_WORLD, &requests[1]);
    MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int iterations = argc > 1 ? atoi(argv[1]) : 20000;
    double value = rank;
    for (int it = 0; it < iterations; ++it) {
        int me = 0;
        MPI_Comm_rank(MPI_COMM_WORLD, &me); /* counted, not unwound */
        g_sink = churn(it % 7);
        exchange(rank, size, &value);
        if (it % 3 == 0)
            nonblocking(rank, size);
        if (it % 10 == 0)
            MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
