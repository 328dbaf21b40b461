/* Three iterations of compute, halo exchange and a residual check. */
#include "halo.h"

#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double left = 0, right = rank, residual = 0;
    for (int it = 0; it < 3; ++it) {
        right += compute_interior(1000);
        exchange_halo(rank, size, &left, &right);
        residual = check_residual(left);
    }
    if (rank == 0)
        printf("halo: residual %.1f\n", residual);
    MPI_Finalize();
    return 0;
}
