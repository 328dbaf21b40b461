/*
 * late_broadcast -- injects a Late Broadcast.
 *
 * In each iteration the root (rank 0) computes for `delay` in
 * prepare_input_on_root() before it calls MPI_Bcast (in distribute_input());
 * all other ranks enter MPI_Bcast at once and wait for the root.
 *
 * Injected wait : Late Broadcast (Scalasca metric mpi_latebroadcast)
 * Call path     : main/distribute_input/MPI_Bcast
 * Ranks         : all non-root ranks (1, 2, 3 for 4 ranks)
 * Size          : iterations x delay per non-root rank; defaults 5 x 200 ms
 *                 = 1.0 s on each of ranks 1..3 (3.0 s in total for 4 ranks).
 *
 * Usage: example_late_broadcast [iterations [delay_ms]]
 */
#include "ws_example.h"

#define VALUES 128

static WS_NOINLINE void prepare_input_on_root(double delay_ms, double* input, int it) {
    ws_spin_ms(delay_ms);
    for (int i = 0; i < VALUES; ++i)
        input[i] = it + i;
}

static WS_NOINLINE void distribute_input(double* input) {
    MPI_Bcast(input, VALUES, MPI_DOUBLE, 0, MPI_COMM_WORLD);
}

int main(int argc, char** argv) {
    int rank = 0, size = 0;
    ws_params par;
    double input[VALUES] = {0.0};

    WS_START(argc, argv, "example_late_broadcast", 2, 5, 200.0, rank, size, par);

    start_together();
    for (int it = 0; it < par.iterations; ++it) {
        if (rank == 0)
            prepare_input_on_root(par.delay_ms, input, it);
        distribute_input(input);
    }

    if (rank == 0)
        printf("late_broadcast: %d ranks, %d iterations, delay %g ms\n", size, par.iterations,
               par.delay_ms);
    MPI_Finalize();
    return 0;
}
