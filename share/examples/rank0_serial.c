/*
 * rank0_serial -- injects "rank-0 serialization": a Wait at NxN caused by
 * serial work that only rank 0 does.
 *
 * In each iteration every rank computes for delay/4 in compute_step() (equal
 * work, no wait). Then rank 0 alone spends `delay` in write_output() (think:
 * writing a checkpoint), while all other ranks are already in MPI_Allreduce
 * (in global_sum()) waiting for it.
 *
 * Injected wait : Wait at NxN (Scalasca metric mpi_wait_nxn)
 * Call path     : main/global_sum/MPI_Allreduce
 * Ranks         : all ranks except 0 (1, 2, 3 for 4 ranks)
 * Size          : iterations x delay per waiting rank; defaults 5 x 200 ms
 *                 = 1.0 s on each of ranks 1..3 (3.0 s in total for 4 ranks).
 *
 * Usage: example_rank0_serial [iterations [delay_ms]]
 */
#include "ws_example.h"

static WS_NOINLINE double compute_step(double delay_ms, int rank, int it) {
    ws_spin_ms(delay_ms / 4.0);
    return (double)(rank + it);
}

static WS_NOINLINE void write_output(double delay_ms, double value) {
    /* Stands in for serial I/O on the root; nothing is actually written. */
    ws_spin_ms(delay_ms);
    ws_spin_sink += value;
}

static WS_NOINLINE double global_sum(double local) {
    double sum = 0.0;
    MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return sum;
}

int main(int argc, char** argv) {
    int rank = 0, size = 0;
    ws_params par;
    double sum = 0.0;

    WS_START(argc, argv, "example_rank0_serial", 2, 5, 200.0, rank, size, par);

    start_together();
    for (int it = 0; it < par.iterations; ++it) {
        const double local = compute_step(par.delay_ms, rank, it);
        if (rank == 0)
            write_output(par.delay_ms, sum);
        sum = global_sum(local);
    }

    if (rank == 0)
        printf("rank0_serial: %d ranks, %d iterations, delay %g ms, last sum %g\n", size,
               par.iterations, par.delay_ms, sum);
    MPI_Finalize();
    return 0;
}
