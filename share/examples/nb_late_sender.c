/*
 * nb_late_sender -- injects a Late Sender with nonblocking communication.
 *
 * Ranks are paired (0->1, 2->3, ...). In each iteration the odd rank posts
 * MPI_Irecv and immediately waits in MPI_Waitall (both in receive_nonblocking());
 * the even rank first computes for `delay` in compute_before_send() and then
 * calls MPI_Isend + MPI_Wait (in send_nonblocking()). An unpaired last rank
 * (odd rank count) only idles.
 *
 * Injected wait : Late Sender (Scalasca metric mpi_latesender)
 * Call path     : main/receive_nonblocking/MPI_Waitall
 * Ranks         : the odd ranks (1 and 3 for 4 ranks)
 * Size          : iterations x delay per odd rank; defaults 5 x 200 ms
 *                 = 1.0 s on rank 1 and on rank 3 (2.0 s in total for 4 ranks).
 *
 * Usage: example_nb_late_sender [iterations [delay_ms]]
 */
#include "ws_example.h"

#define MSG_DOUBLES 256
#define TAG_BLOCK 17

static WS_NOINLINE void compute_before_send(double delay_ms, double* block) {
    ws_spin_ms(delay_ms);
    block[0] += 1.0;
}

static WS_NOINLINE void send_nonblocking(const double* block, int partner) {
    MPI_Request req;
    MPI_Isend(block, MSG_DOUBLES, MPI_DOUBLE, partner, TAG_BLOCK, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
}

static WS_NOINLINE void receive_nonblocking(double* block, int partner) {
    MPI_Request req[1];
    MPI_Irecv(block, MSG_DOUBLES, MPI_DOUBLE, partner, TAG_BLOCK, MPI_COMM_WORLD, &req[0]);
    MPI_Waitall(1, req, MPI_STATUSES_IGNORE);
}

int main(int argc, char** argv) {
    int rank = 0, size = 0;
    ws_params par;
    double block[MSG_DOUBLES] = {0.0};

    WS_START(argc, argv, "example_nb_late_sender", 2, 5, 200.0, rank, size, par);

    const int is_sender = (rank % 2 == 0);
    const int partner = is_sender ? rank + 1 : rank - 1;
    start_together();
    if (partner < size) {
        for (int it = 0; it < par.iterations; ++it) {
            if (is_sender) {
                compute_before_send(par.delay_ms, block);
                send_nonblocking(block, partner);
            } else {
                receive_nonblocking(block, partner);
            }
        }
    }

    if (rank == 0)
        printf("nb_late_sender: %d ranks, %d iterations, delay %g ms\n", size, par.iterations,
               par.delay_ms);
    MPI_Finalize();
    return 0;
}
