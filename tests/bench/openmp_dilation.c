/*
 * openmp_dilation -- an OpenMP loop of 10^6 tiny iterations, schedule(static), repeated, for
 * the measurement's dilation of OpenMP code (openmp_dilation.sh runs it plain and measured).
 * Prints the mean seconds per loop of rank 0.
 * Usage: mpirun -np R openmp_dilation [repetitions]
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

enum { kIterations = 1000000 };
static double g_data[kIterations];

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int repetitions = argc > 1 ? atoi(argv[1]) : 200;
    for (int i = 0; i < kIterations; ++i)
        g_data[i] = i;
    MPI_Barrier(MPI_COMM_WORLD);
    double start = omp_get_wtime();
    for (int r = 0; r < repetitions; ++r) {
#pragma omp parallel for schedule(static)
        for (int i = 0; i < kIterations; ++i)
            g_data[i] = g_data[i] * 1.000001 + 1.0;
    }
    double seconds = omp_get_wtime() - start;
    if (rank == 0)
        printf("%.9f %g\n", seconds / repetitions, g_data[kIterations / 2]);
    MPI_Finalize();
    return 0;
}
