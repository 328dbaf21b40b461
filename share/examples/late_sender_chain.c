/*
 * late_sender_chain -- a Late Sender that propagates along a chain of ranks.
 *
 * Rank 0 computes for `delay` in compute_ahead() and then sends a token to rank 1
 * (pass_token()); every other rank waits for the token from its left neighbour in
 * receive_token() and passes it on to its right neighbour at once. Rank 0's delay makes
 * rank 1 wait, rank 1 is therefore late for rank 2, and so on: the waiting on ranks 2..P-1
 * is propagated, and its root cause is rank 0's computation.
 *
 * Injected wait : Late Sender (mpi_latesender) at main/receive_token/MPI_Recv
 * Ranks         : 1 .. P-1, each iterations x delay (defaults 5 x 200 ms = 1.0 s)
 * Root causes   : delay_latesender (short-term) on rank 0's main/compute_ahead: 1.0 s;
 *                 delay_latesender_longterm there: (P-2) x 1.0 s (2.0 s for 4 ranks);
 *                 the waits of ranks 1 .. P-2 propagate (mpi_wait_propagating_ls), the
 *                 last rank's is terminal; the waits of ranks 2 .. P-1 are indirect
 *                 (mpi_wait_indirect_latesender), rank 1's is direct.
 *
 * Usage: example_late_sender_chain [iterations [delay_ms]]
 */
#include "ws_example.h"

#define TOKEN_DOUBLES 64
#define TAG_TOKEN 21

/* The busy loop is written out here (rather than calling ws_spin_ms()) so that all of the
 * delay is exclusive time of compute_ahead, where the root-cause metrics are checked. */
static WS_NOINLINE void compute_ahead(double delay_ms, double* token) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    const double deadline = (double)now.tv_sec + (double)now.tv_nsec * 1e-9 + delay_ms * 1e-3;
    double acc = 0.5;
    do {
        for (int k = 0; k < 256; ++k)
            acc = acc * 0.999999 + 1e-7;
        clock_gettime(CLOCK_MONOTONIC, &now);
    } while ((double)now.tv_sec + (double)now.tv_nsec * 1e-9 < deadline);
    for (int i = 0; i < TOKEN_DOUBLES; ++i)
        token[i] += acc;
}

static WS_NOINLINE void pass_token(const double* token, int to) {
    MPI_Send(token, TOKEN_DOUBLES, MPI_DOUBLE, to, TAG_TOKEN, MPI_COMM_WORLD);
}

static WS_NOINLINE void receive_token(double* token, int from) {
    MPI_Recv(token, TOKEN_DOUBLES, MPI_DOUBLE, from, TAG_TOKEN, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

int main(int argc, char** argv) {
    int rank = 0, size = 0;
    ws_params par;
    double token[TOKEN_DOUBLES] = {0.0};

    WS_START(argc, argv, "example_late_sender_chain", 3, 5, 200.0, rank, size, par);

    start_together();
    for (int it = 0; it < par.iterations; ++it) {
        if (rank == 0) {
            compute_ahead(par.delay_ms, token);
        } else {
            receive_token(token, rank - 1);
        }
        if (rank + 1 < size)
            pass_token(token, rank + 1);
    }

    if (rank == 0)
        printf("late_sender_chain: %d ranks, %d iterations, delay %g ms\n", size, par.iterations,
               par.delay_ms);
    MPI_Finalize();
    return 0;
}
