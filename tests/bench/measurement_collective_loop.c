/* Barrier/Bcast stress loop (like osu_barrier): the per-call cost the measurement adds; "ring":
 * a nonblocking ring (MPI_Irecv from the left, MPI_Isend to the right, MPI_Waitall: 3 calls per
 * iteration); and "test": MPI_Test polls of a receive that completes only after the loop (how
 * hpcc's RandomAccess polls), whose cost an unrecorded poll adds.
 * Usage: measurement_collective_loop [barrier|bcast|ring|test] [iterations]
 * Prints "op=<op> ranks=<n> iterations=<n> usec_per_call=<t> cpu_usec_per_call=<c>" on rank 0
 * (medians of 5 runs): wall time per MPI call, and the CPU time of rank 0's thread per MPI call,
 * which a loaded machine does not inflate by time spent waiting for a core. After MPI_Finalize,
 * rank 0 prints "init_s=<a> main_s=<b> loops_s=<c> finalize_s=<d>": the wall seconds of MPI_Init,
 * of everything between MPI_Init and MPI_Finalize, of the five timed loops alone (within main_s;
 * the rest of it is mostly the first barrier, where the ranks connect) and of MPI_Finalize: the
 * parts of the whole process's time the program itself sees. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double threadCpuSeconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double monotonicSeconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int compare(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

int main(int argc, char** argv) {
    const double initStart = monotonicSeconds();
    MPI_Init(&argc, &argv);
    const double loopsStart = monotonicSeconds();
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char* op = argc > 1 ? argv[1] : "barrier";
    long iterations = argc > 2 ? atol(argv[2]) : 200000;
    int bcast = strcmp(op, "bcast") == 0, test = strcmp(op, "test") == 0;
    int ring = strcmp(op, "ring") == 0;
    double value = 1.0, runs[5], cpu[5], in = 0, loops = 0;
    MPI_Request requests[2];
    MPI_Request pending = MPI_REQUEST_NULL;
    if (test) /* a message nobody sends before the loops end */
        MPI_Irecv(&value, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 77, MPI_COMM_WORLD, &pending);
    for (int r = 0; r < 5; ++r) {
        MPI_Barrier(MPI_COMM_WORLD);
        double start = MPI_Wtime(), cpuStart = threadCpuSeconds();
        for (long i = 0; i < iterations; ++i) {
            if (ring) {
                MPI_Irecv(&in, 1, MPI_DOUBLE, (rank + size - 1) % size, 9, MPI_COMM_WORLD,
                          &requests[0]);
                MPI_Isend(&value, 1, MPI_DOUBLE, (rank + 1) % size, 9, MPI_COMM_WORLD,
                          &requests[1]);
                MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
            } else if (test) {
                int done = 0;
                MPI_Test(&pending, &done, MPI_STATUS_IGNORE);
            } else if (bcast)
                MPI_Bcast(&value, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
            else
                MPI_Barrier(MPI_COMM_WORLD);
        }
        const double calls = (double)iterations * (ring ? 3 : 1);
        loops += MPI_Wtime() - start;
        runs[r] = (MPI_Wtime() - start) / calls * 1e6;
        cpu[r] = (threadCpuSeconds() - cpuStart) / calls * 1e6;
    }
    if (test) {
        MPI_Cancel(&pending);
        MPI_Wait(&pending, MPI_STATUS_IGNORE);
    }
    qsort(runs, 5, sizeof(double), compare);
    qsort(cpu, 5, sizeof(double), compare);
    if (rank == 0)
        printf("op=%s ranks=%d iterations=%ld usec_per_call=%.4f cpu_usec_per_call=%.4f\n", op,
               size, iterations, runs[2], cpu[2]);
    fflush(stdout);
    const double finalizeStart = monotonicSeconds();
    MPI_Finalize();
    const double finalizeEnd = monotonicSeconds();
    if (rank == 0)
        printf("init_s=%.6f main_s=%.6f loops_s=%.6f finalize_s=%.6f\n", loopsStart - initStart,
               finalizeStart - loopsStart, loops, finalizeEnd - finalizeStart);
    return 0;
}
