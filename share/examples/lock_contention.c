/*
 * lock_contention -- an exclusive window lock held long while another rank wants it.
 *
 * Rank 0 keeps a counter in a window. In each iteration rank 1 takes the exclusive lock on
 * it, updates the counter and holds the lock for delay ms (slow_update()); rank 2 asks for the
 * same lock a tenth of the delay later (in bump_counter()) and waits until rank 1 releases it.
 * The other ranks only meet them at the barrier that ends the iteration.
 *
 * Injected wait : time in one-sided synchronization (mpi_rma_synchronization; Scalasca's
 *                 Lock Contention) inside the locked update, anywhere below
 * Call path     : main/bump_counter (where the MPI library waits: MPI_Win_lock or
 *                 MPI_Win_unlock)
 * Ranks         : 2; waits iterations x 0.9 x delay
 * Size          : defaults 5 iterations x 200 ms, 4 ranks: rank 2 0.9 s.
 *
 * Usage: example_lock_contention [iterations [delay_ms]]
 */
#include "ws_example.h"

static WS_NOINLINE void slow_update(MPI_Win win, double delay_ms) {
    const int one = 1;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    MPI_Accumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_flush(0, win);
    ws_spin_ms(delay_ms);
    MPI_Win_unlock(0, win);
}

static WS_NOINLINE void bump_counter(MPI_Win win) {
    const int one = 1;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    MPI_Accumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_unlock(0, win);
}

int main(int argc, char** argv) {
    int rank = 0, size = 0;
    ws_params par;
    int counter = 0;

    WS_START(argc, argv, "example_lock_contention", 3, 5, 200.0, rank, size, par);

    MPI_Win win;
    MPI_Win_create(&counter, sizeof counter, sizeof counter, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    start_together();
    for (int it = 0; it < par.iterations; ++it) {
        if (rank == 1) {
            slow_update(win, par.delay_ms);
        } else if (rank == 2) {
            ws_spin_ms(0.1 * par.delay_ms);
            bump_counter(win);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    int total = -1;
    MPI_Get(&total, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
    MPI_Win_unlock(0, win);
    const int ok = total == 2 * par.iterations;
    MPI_Win_free(&win);

    if (rank == 0)
        printf("lock_contention: %d ranks, %d iterations, delay %g ms%s\n", size, par.iterations,
               par.delay_ms, ok ? "" : " (WRONG DATA)");
    MPI_Finalize();
    return ok ? 0 : 1;
}
