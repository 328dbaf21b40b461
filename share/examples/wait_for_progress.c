/*
 * wait_for_progress -- one-sided accesses to a rank that computes outside MPI.
 *
 * In each iteration rank 1 computes for delay ms without calling MPI (compute_outside_mpi()).
 * Meanwhile ranks 0 and 2 pause for a tenth of the delay (asleep, so that a busy machine does
 * not stretch it: pause_ms()), then rank 0 puts a value into rank 1's window under a shared
 * lock (put_remote()), and rank 2 into the windows of ranks 1 and 3 in an MPI_Win_lock_all
 * epoch (put_all()).
 * An MPI library without asynchronous progress (Open MPI's pt2pt one-sided component: the test
 * runs with OMPI_MCA_osc=sm,pt2pt) serves the lock and the put on rank 1 only when rank 1 next
 * enters MPI, so both origins wait in their epoch until rank 1 reaches the barrier that ends the
 * iteration. Rank 3 waits at that barrier. With a library that progresses on its own (Open MPI's
 * default rdma component over shared memory) the origins do not wait, and neither does the
 * report.
 *
 * Injected wait : Wait for Progress (mpi_rma_sync_wait_for_progress; in MPI_Win_unlock or
 *                 MPI_Win_unlock_all, where the library blocks) and Wait at Barrier on rank 3
 * Call path     : below main/put_remote (rank 0) and main/put_all (rank 2),
 *                 main/MPI_Barrier (rank 3)
 * Ranks         : 0 and 2; each waits iterations x 0.9 x delay (rank 3 iterations x delay)
 * Size          : defaults 5 iterations x 200 ms, 4 ranks: ranks 0 and 2 0.9 s each.
 *
 * Usage: example_wait_for_progress [iterations [delay_ms]]
 */
#include "ws_example.h"

static WS_NOINLINE void compute_outside_mpi(double delay_ms) {
    ws_spin_ms(delay_ms);
}

/* Sleeps `ms` milliseconds (outside MPI, as the computation of rank 1). */
static WS_NOINLINE void pause_ms(double ms) {
    struct timespec t = {(time_t)(ms / 1000.0), (long)((ms - 1000.0 * (long)(ms / 1000.0)) * 1e6)};
    while (nanosleep(&t, &t) != 0 && errno == EINTR) {
    }
}

static WS_NOINLINE void put_remote(MPI_Win win, int value) {
    MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
    MPI_Put(&value, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Win_unlock(1, win);
}

static WS_NOINLINE void put_all(MPI_Win win, int value) {
    MPI_Win_lock_all(0, win);
    MPI_Put(&value, 1, MPI_INT, 1, 2, 1, MPI_INT, win);
    MPI_Put(&value, 1, MPI_INT, 3, 2, 1, MPI_INT, win);
    MPI_Win_unlock_all(win);
}

int main(int argc, char** argv) {
    int rank = 0, size = 0;
    ws_params par;
    int slots[4] = {0, 0, 0, 0};

    WS_START(argc, argv, "example_wait_for_progress", 4, 5, 200.0, rank, size, par);

    MPI_Win win;
    MPI_Win_create(slots, sizeof slots, sizeof slots[0], MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    start_together();
    for (int it = 1; it <= par.iterations; ++it) {
        if (rank == 1) {
            compute_outside_mpi(par.delay_ms);
        } else if (rank == 0) {
            pause_ms(0.1 * par.delay_ms);
            put_remote(win, it);
        } else if (rank == 2) {
            pause_ms(0.1 * par.delay_ms);
            put_all(win, it);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    /* Rank 1 holds the last value of rank 0 in slot 0 and of rank 2 in slot 2, rank 3 rank 2's. */
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
    int ok = 1;
    if (rank == 1)
        ok = slots[0] == par.iterations && slots[2] == par.iterations;
    else if (rank == 3)
        ok = slots[2] == par.iterations;
    MPI_Win_unlock(rank, win);
    int all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    MPI_Win_free(&win);

    if (rank == 0)
        printf("wait_for_progress: %d ranks, %d iterations, delay %g ms%s\n", size, par.iterations,
               par.delay_ms, all_ok ? "" : " (WRONG DATA)");
    MPI_Finalize();
    return all_ok ? 0 : 1;
}
