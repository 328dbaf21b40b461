/*
 * fence_imbalance -- fence epochs closed by ranks that arrive at different times.
 *
 * A window of one int per rank; in each iteration rank r computes for r x delay in
 * imbalanced_work(), puts its rank into its right neighbour's window and closes the epoch
 * with MPI_Win_fence in end_epoch(). Rank r waits (size - 1 - r) x delay per iteration for
 * the last rank inside the fence.
 *
 * Injected wait : time in one-sided synchronization (Scalasca metric mpi_rma_synchronization)
 * Call path     : main/end_epoch/MPI_Win_fence
 * Ranks         : all but the last; rank r waits iterations x (size-1-r) x delay
 * Size          : defaults 5 iterations x 100 ms, 4 ranks:
 *                 rank 0 1.5 s, rank 1 1.0 s, rank 2 0.5 s, rank 3 0.
 *
 * Usage: example_fence_imbalance [iterations [delay_ms]]
 */
#include "ws_example.h"

static WS_NOINLINE void imbalanced_work(int rank, double delay_ms) {
    ws_spin_ms(rank * delay_ms);
}

static WS_NOINLINE void open_epoch(MPI_Win win) {
    MPI_Win_fence(0, win);
}

static WS_NOINLINE void end_epoch(MPI_Win win) {
    MPI_Win_fence(0, win);
}

int main(int argc, char** argv) {
    int rank = 0, size = 0;
    ws_params par;
    int exposed = -1;

    WS_START(argc, argv, "example_fence_imbalance", 2, 5, 100.0, rank, size, par);

    MPI_Win win;
    MPI_Win_create(&exposed, sizeof exposed, sizeof exposed, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    start_together();
    open_epoch(win);
    const int right = (rank + 1) % size;
    for (int it = 0; it < par.iterations; ++it) {
        imbalanced_work(rank, par.delay_ms);
        MPI_Put(&rank, 1, MPI_INT, right, 0, 1, MPI_INT, win);
        end_epoch(win);
    }
    const int left = (rank + size - 1) % size;
    const int ok = exposed == left;
    MPI_Win_free(&win);

    if (rank == 0)
        printf("fence_imbalance: %d ranks, %d iterations, delay %g ms%s\n", size, par.iterations,
               par.delay_ms, ok ? "" : " (WRONG DATA)");
    MPI_Finalize();
    return ok ? 0 : 1;
}
