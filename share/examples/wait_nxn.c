/*
 * wait_nxn -- injects a Wait at NxN (all-to-all collective).
 *
 * In each iteration rank r computes for r x delay in imbalanced_work() and then
 * enters MPI_Allreduce (in combine_results()). Rank r therefore waits
 * (size - 1 - r) x delay per iteration for the last rank.
 *
 * Injected wait : Wait at NxN (Scalasca metric mpi_wait_nxn)
 * Call path     : main/combine_results/MPI_Allreduce
 * Ranks         : all but the last; rank r waits iterations x (size-1-r) x delay
 * Size          : defaults 5 iterations x 100 ms, 4 ranks:
 *                 rank 0 1.5 s, rank 1 1.0 s, rank 2 0.5 s, rank 3 0 (3.0 s total).
 *
 * Usage: example_wait_nxn [iterations [delay_ms]]
 */
#include "ws_example.h"

#define VALUES 64

static WS_NOINLINE void imbalanced_work(int rank, double delay_ms, double* local) {
    ws_spin_ms(rank * delay_ms);
    for (int i = 0; i < VALUES; ++i)
        local[i] = rank + i;
}

static WS_NOINLINE void combine_results(const double* local, double* global) {
    MPI_Allreduce(local, global, VALUES, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

int main(int argc, char** argv) {
    int rank = 0, size = 0;
    ws_params par;
    double local[VALUES], global[VALUES];

    WS_START(argc, argv, "example_wait_nxn", 2, 5, 100.0, rank, size, par);

    start_together();
    for (int it = 0; it < par.iterations; ++it) {
        imbalanced_work(rank, par.delay_ms, local);
        combine_results(local, global);
    }

    if (rank == 0)
        printf("wait_nxn: %d ranks, %d iterations, delay %g ms, checksum %g\n", size,
               par.iterations, par.delay_ms, global[0]);
    MPI_Finalize();
    return 0;
}
