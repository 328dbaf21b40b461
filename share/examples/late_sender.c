/*
 * late_sender -- injects a Late Sender wait.
 *
 * Ranks are paired (0->1, 2->3, ...). In each iteration the even rank of a
 * pair computes for `delay` in compute_before_send() and then calls MPI_Send
 * (in send_block()); the odd rank is already blocked in MPI_Recv (in
 * receive_block()). An unpaired last rank (odd rank count) only idles.
 *
 * Injected wait : Late Sender (Scalasca metric mpi_latesender)
 * Call path     : main/receive_block/MPI_Recv
 * Ranks         : the odd ranks (1 and 3 for 4 ranks)
 * Size          : iterations x delay per odd rank; defaults 5 x 200 ms
 *                 = 1.0 s on rank 1 and on rank 3 (2.0 s in total for 4 ranks).
 *
 * Usage: example_late_sender [iterations [delay_ms]]
 */
#include "ws_example.h"

#define MSG_DOUBLES 256
#define TAG_BLOCK 11

static WS_NOINLINE void compute_before_send(double delay_ms, double* block) {
    ws_spin_ms(delay_ms);
    for (int i = 0; i < MSG_DOUBLES; ++i)
        block[i] += 1.0;
}

static WS_NOINLINE void send_block(const double* block, int partner) {
    MPI_Send(block, MSG_DOUBLES, MPI_DOUBLE, partner, TAG_BLOCK, MPI_COMM_WORLD);
}

static WS_NOINLINE void receive_block(double* block, int partner) {
    MPI_Recv(block, MSG_DOUBLES, MPI_DOUBLE, partner, TAG_BLOCK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

int main(int argc, char** argv) {
    int rank = 0, size = 0;
    ws_params par;
    double block[MSG_DOUBLES] = {0.0};

    WS_START(argc, argv, "example_late_sender", 2, 5, 200.0, rank, size, par);

    const int is_sender = (rank % 2 == 0);
    const int partner = is_sender ? rank + 1 : rank - 1;
    start_together();
    if (partner < size) {
        for (int it = 0; it < par.iterations; ++it) {
            if (is_sender) {
                compute_before_send(par.delay_ms, block);
                send_block(block, partner);
            } else {
                receive_block(block, partner);
            }
        }
    }

    if (rank == 0)
        printf("late_sender: %d ranks, %d iterations, delay %g ms\n", size, par.iterations,
               par.delay_ms);
    MPI_Finalize();
    return 0;
}
