/* An OpenMP parallel region of two threads between MPI_Init and MPI_Finalize, each spinning
 * in worker_spin for argv[1] seconds (wall clock): libgomp's worker thread is sampled. */
#include "worker_spin.h"

#include <mpi.h>
#include <omp.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char** argv) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    double seconds = argc > 1 ? atof(argv[1]) : 0.5;
    double total = 0;
#pragma omp parallel num_threads(2) reduction(+ : total)
    total += worker_spin(seconds);
    volatile double sink = total;
    (void)sink;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
