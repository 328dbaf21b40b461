/*
 * early_reduce -- injects an Early Reduce.
 *
 * In each iteration the root (rank 0) enters MPI_Reduce (in reduce_to_root())
 * at once, while every other rank first computes for `delay` in
 * compute_contribution(). The root waits for the first contribution.
 *
 * Injected wait : Early Reduce (Scalasca metric mpi_earlyreduce)
 * Call path     : main/reduce_to_root/MPI_Reduce
 * Ranks         : rank 0 (the root) only
 * Size          : iterations x delay; defaults 5 x 200 ms = 1.0 s on rank 0.
 *
 * Usage: example_early_reduce [iterations [delay_ms]]
 */
#include "ws_example.h"

#define VALUES 128

static WS_NOINLINE void compute_contribution(double delay_ms, double* part, int rank) {
    ws_spin_ms(delay_ms);
    for (int i = 0; i < VALUES; ++i)
        part[i] = rank * i;
}

static WS_NOINLINE void reduce_to_root(const double* part, double* total) {
    MPI_Reduce(part, total, VALUES, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
}

int main(int argc, char** argv) {
    int rank = 0, size = 0;
    ws_params par;
    double part[VALUES] = {0.0}, total[VALUES] = {0.0};

    WS_START(argc, argv, "example_early_reduce", 2, 5, 200.0, rank, size, par);

    start_together();
    for (int it = 0; it < par.iterations; ++it) {
        if (rank != 0)
            compute_contribution(par.delay_ms, part, rank);
        reduce_to_root(part, total);
    }

    if (rank == 0)
        printf("early_reduce: %d ranks, %d iterations, delay %g ms, checksum %g\n", size,
               par.iterations, par.delay_ms, total[1]);
    MPI_Finalize();
    return 0;
}
