/*
 * wait_at_barrier -- injects a Wait at Barrier.
 *
 * In each iteration rank r computes for r x delay in imbalanced_work() and then
 * enters MPI_Barrier (in reach_barrier()). Rank r therefore waits
 * (size - 1 - r) x delay per iteration for the last rank.
 *
 * Injected wait : Wait at Barrier (Scalasca metric mpi_barrier_wait)
 * Call path     : main/reach_barrier/MPI_Barrier
 * Ranks         : all but the last; rank r waits iterations x (size-1-r) x delay
 * Size          : defaults 5 iterations x 100 ms, 4 ranks:
 *                 rank 0 1.5 s, rank 1 1.0 s, rank 2 0.5 s, rank 3 0 (3.0 s total).
 *
 * Usage: example_wait_at_barrier [iterations [delay_ms]]
 */
#include "ws_example.h"

static WS_NOINLINE void imbalanced_work(int rank, double delay_ms) {
    ws_spin_ms(rank * delay_ms);
}

static WS_NOINLINE void reach_barrier(void) {
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char** argv) {
    int rank = 0, size = 0;
    ws_params par;

    WS_START(argc, argv, "example_wait_at_barrier", 2, 5, 100.0, rank, size, par);

    start_together();
    for (int it = 0; it < par.iterations; ++it) {
        imbalanced_work(rank, par.delay_ms);
        reach_barrier();
    }

    if (rank == 0)
        printf("wait_at_barrier: %d ranks, %d iterations, delay %g ms\n", size, par.iterations,
               par.delay_ms);
    MPI_Finalize();
    return 0;
}
