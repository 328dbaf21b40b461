/*
 * openmp_late_sender -- an OpenMP team waits at its barrier while its master waits in MPI for
 * a late rank (MPI + OpenMP, 2 ranks).
 *
 * With T threads per rank (OMP_NUM_THREADS), N iterations (WS_ITERATIONS, default 3) and a
 * delay D (WS_DELAY_MS, default 200 ms), each iteration, after an MPI_Barrier:
 *
 *   rank 1  compute_late     computes D, then sends a message to rank 0.
 *   rank 0  receive_in_team  opens a parallel region; its master thread at once receives the
 *                            message (MPI_Recv: a Late Sender of about D), while the other
 *                            threads reach the region's implicit barrier and wait there for
 *                            the master (omp_ibarrier_wait, about D each).
 *
 * Scalasca's long-term OpenMP barrier delay costs: the workers' barrier waits are caused by
 * the master's MPI wait, whose cause is rank 1's compute_late. So rank 1's compute_late
 * carries delay_ompbarrier_longterm of (T-1) x N x D and delay_latesender of N x D; the
 * master's MPI_Recv carries no delay_ompbarrier (its waiting is not work).
 *
 * Sleeping (not spinning) keeps the sizes exact when ranks and threads share few cores.
 * Build: mpicc -fopenmp with an OMPT runtime (clang's libomp) to record the OpenMP events.
 * Usage: OMP_NUM_THREADS=3 mpirun -np 2 example_openmp_late_sender [iterations [delay_ms]]
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define WS_NOINLINE __attribute__((noinline))

static void sleep_ms(double ms) {
    struct timespec t;
    t.tv_sec = (time_t)(ms / 1000.0);
    t.tv_nsec = (long)((ms - (double)t.tv_sec * 1000.0) * 1e6);
    while (nanosleep(&t, &t) != 0) {
    }
}

static WS_NOINLINE void compute_late(double delay_ms) {
    sleep_ms(delay_ms);
}

static WS_NOINLINE void receive_in_team(int* value) {
#pragma omp parallel
    {
        /* The master alone calls MPI (MPI_THREAD_FUNNELED); the others go on to the barrier. */
        if (omp_get_thread_num() == 0)
            MPI_Recv(value, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
}

static double parameter(int argc, char** argv, int index, const char* name, double fallback) {
    const char* text = argc > index ? argv[index] : getenv(name);
    return text != NULL && atof(text) > 0 ? atof(text) : fallback;
}

int main(int argc, char** argv) {
    int provided = 0;
    int rank = 0;
    int size = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int iterations = (int)parameter(argc, argv, 1, "WS_ITERATIONS", 3);
    const double delay_ms = parameter(argc, argv, 2, "WS_DELAY_MS", 200.0);
    if (provided < MPI_THREAD_FUNNELED && rank == 0)
        fprintf(stderr, "openmp_late_sender: MPI offers no MPI_THREAD_FUNNELED\n");
    for (int i = 0; i < iterations && size >= 2; ++i) {
        int value = i;
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 1) {
            compute_late(delay_ms);
            MPI_Send(&value, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
        } else if (rank == 0) {
            receive_in_team(&value);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
