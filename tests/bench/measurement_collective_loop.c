/* Barrier/Bcast stress loop (like osu_barrier): the per-call cost the measurement adds; and
 * "test": MPI_Test polls of a receive that completes only after the loop (how hpcc's
 * RandomAccess polls), whose cost an unrecorded poll adds.
 * Usage: measurement_collective_loop [barrier|bcast|test] [iterations]
 * Prints "op=<op> ranks=<n> iterations=<n> usec_per_call=<t>" on rank 0 (median of 5 runs). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int compare(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char* op = argc > 1 ? argv[1] : "barrier";
    long iterations = argc > 2 ? atol(argv[2]) : 200000;
    int bcast = strcmp(op, "bcast") == 0, test = strcmp(op, "test") == 0;
    double value = 1.0, runs[5];
    MPI_Request pending = MPI_REQUEST_NULL;
    if (test) /* a message nobody sends before the loops end */
        MPI_Irecv(&value, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 77, MPI_COMM_WORLD, &pending);
    for (int r = 0; r < 5; ++r) {
        MPI_Barrier(MPI_COMM_WORLD);
        double start = MPI_Wtime();
        for (long i = 0; i < iterations; ++i) {
            if (test) {
                int done = 0;
                MPI_Test(&pending, &done, MPI_STATUS_IGNORE);
            } else if (bcast)
                MPI_Bcast(&value, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
            else
                MPI_Barrier(MPI_COMM_WORLD);
        }
        runs[r] = (MPI_Wtime() - start) / (double)iterations * 1e6;
    }
    if (test) {
        MPI_Cancel(&pending);
        MPI_Wait(&pending, MPI_STATUS_IGNORE);
    }
    qsort(runs, 5, sizeof(double), compare);
    if (rank == 0)
        printf("op=%s ranks=%d iterations=%ld usec_per_call=%.4f\n", op, size, iterations, runs[2]);
    MPI_Finalize();
    return 0;
}
