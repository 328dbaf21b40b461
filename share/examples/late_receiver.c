/*
 * late_receiver -- injects a Late Receiver wait.
 *
 * Ranks are paired (0->1, 2->3, ...). In each iteration the even rank posts a
 * synchronous MPI_Ssend at once (in send_synchronously()); it cannot complete
 * before the receive is posted. The odd rank first computes for `delay` in
 * compute_before_receive() and only then calls MPI_Recv (in receive_block()).
 * An unpaired last rank (odd rank count) only idles.
 *
 * Injected wait : Late Receiver (Scalasca metric mpi_latereceiver)
 * Call path     : main/send_synchronously/MPI_Ssend
 * Ranks         : the even ranks with a partner (0 and 2 for 4 ranks)
 * Size          : iterations x delay per sending rank; defaults 5 x 200 ms
 *                 = 1.0 s on rank 0 and on rank 2 (2.0 s in total for 4 ranks).
 *
 * Usage: example_late_receiver [iterations [delay_ms]]
 */
#include "ws_example.h"

#define MSG_DOUBLES 1024
#define TAG_BLOCK 12

static WS_NOINLINE void send_synchronously(const double* block, int partner) {
    MPI_Ssend(block, MSG_DOUBLES, MPI_DOUBLE, partner, TAG_BLOCK, MPI_COMM_WORLD);
}

static WS_NOINLINE void compute_before_receive(double delay_ms, double* block) {
    ws_spin_ms(delay_ms);
    block[0] += 1.0;
}

static WS_NOINLINE void receive_block(double* block, int partner) {
    MPI_Recv(block, MSG_DOUBLES, MPI_DOUBLE, partner, TAG_BLOCK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

int main(int argc, char** argv) {
    int rank = 0, size = 0;
    ws_params par;
    static double block[MSG_DOUBLES];

    WS_START(argc, argv, "example_late_receiver", 2, 5, 200.0, rank, size, par);

    const int is_sender = (rank % 2 == 0);
    const int partner = is_sender ? rank + 1 : rank - 1;
    start_together();
    if (partner < size) {
        for (int it = 0; it < par.iterations; ++it) {
            if (is_sender) {
                send_synchronously(block, partner);
            } else {
                compute_before_receive(par.delay_ms, block);
                receive_block(block, partner);
            }
        }
    }

    if (rank == 0)
        printf("late_receiver: %d ranks, %d iterations, delay %g ms\n", size, par.iterations,
               par.delay_ms);
    MPI_Finalize();
    return 0;
}
