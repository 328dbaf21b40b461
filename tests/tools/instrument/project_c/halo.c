#include "halo.h"

#include <mpi.h>

double compute_interior(int cells) {
    double sum = 0;
    for (int i = 0; i < cells; ++i)
        sum += i * 0.25;
    return sum;
}

void exchange_halo(int rank, int size, double* left, double* right) {
    int next = (rank + 1) % size, previous = (rank + size - 1) % size;
    MPI_Sendrecv(right, 1, MPI_DOUBLE, next, 1, left, 1, MPI_DOUBLE, previous, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
}

double check_residual(double local) {
    double global = 0;
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return global;
}
