/*
 * pscw_late_post -- an access epoch that waits for a late exposure (Late Post).
 *
 * Rank 0 exposes a window of one int per rank with general active-target synchronization:
 * in each iteration it computes for delay ms in prepare_window(), then opens the exposure with
 * MPI_Win_post and waits for the accesses with MPI_Win_wait. Every other rank at once starts
 * an access epoch on rank 0 in access_epoch() (MPI_Win_start, MPI_Put of its rank,
 * MPI_Win_complete) and waits there until rank 0 has posted.
 *
 * Injected wait : time in one-sided synchronization (mpi_rma_synchronization; Scalasca's Late
 *                 Post) in the access epoch, in MPI_Win_start or MPI_Win_complete as the MPI
 *                 library decides
 * Call path     : main/access_epoch and below
 * Ranks         : all but 0; each waits iterations x delay
 * Size          : defaults 5 iterations x 200 ms, 4 ranks: ranks 1-3 1.0 s each.
 *
 * Usage: example_pscw_late_post [iterations [delay_ms]]
 */
#include "ws_example.h"

static WS_NOINLINE void prepare_window(double delay_ms) {
    ws_spin_ms(delay_ms);
}

static WS_NOINLINE void expose(MPI_Win win, MPI_Group origins) {
    MPI_Win_post(origins, 0, win);
    MPI_Win_wait(win);
}

static WS_NOINLINE void access_epoch(MPI_Win win, MPI_Group target, int rank) {
    MPI_Win_start(target, 0, win);
    MPI_Put(&rank, 1, MPI_INT, 0, rank, 1, MPI_INT, win);
    MPI_Win_complete(win);
}

int main(int argc, char** argv) {
    int rank = 0, size = 0;
    ws_params par;

    WS_START(argc, argv, "example_pscw_late_post", 2, 5, 200.0, rank, size, par);

    int* slots = calloc((size_t)size, sizeof(int));
    MPI_Win win;
    MPI_Win_create(slots, (MPI_Aint)(size * sizeof(int)), sizeof(int), MPI_INFO_NULL,
                   MPI_COMM_WORLD, &win);
    MPI_Group world, others, target;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    const int zero = 0;
    MPI_Group_excl(world, 1, &zero, &others);
    MPI_Group_incl(world, 1, &zero, &target);
    start_together();
    for (int it = 0; it < par.iterations; ++it) {
        if (rank == 0) {
            prepare_window(par.delay_ms);
            expose(win, others);
        } else {
            access_epoch(win, target, rank);
        }
    }
    int ok = 1;
    if (rank == 0)
        for (int r = 1; r < size; ++r)
            ok &= slots[r] == r;
    MPI_Group_free(&target);
    MPI_Group_free(&others);
    MPI_Group_free(&world);
    MPI_Win_free(&win);
    free(slots);

    if (rank == 0)
        printf("pscw_late_post: %d ranks, %d iterations, delay %g ms%s\n", size, par.iterations,
               par.delay_ms, ok ? "" : " (WRONG DATA)");
    MPI_Finalize();
    return ok ? 0 : 1;
}
