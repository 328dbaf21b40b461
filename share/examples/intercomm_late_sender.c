/*
 * intercomm_late_sender -- injects a Late Sender on an intercommunicator.
 *
 * The even and the odd world ranks form two halves (MPI_Comm_split), joined by
 * MPI_Intercomm_create. In each iteration rank i of the even half computes for `delay`
 * in compute_before_send() and then sends a block to rank i of the odd half over the
 * intercommunicator (ping, in send_to_other_half()); the odd rank is already blocked in
 * MPI_Recv (in receive_from_other_half()) and answers at once (pong), which the even rank
 * receives without waiting. Afterwards, on the intercommunicator: MPI_Barrier, an
 * MPI_Allreduce, an MPI_Bcast from the even half's rank 0 (MPI_ROOT), then
 * MPI_Intercomm_merge and MPI_Comm_free.
 *
 * Injected wait : Late Sender (Scalasca metric mpi_latesender)
 * Call path     : main/receive_from_other_half/MPI_Recv
 * Ranks         : the odd world ranks (1 and 3 for 4 ranks)
 * Size          : iterations x delay per odd rank; defaults 5 x 200 ms = 1.0 s each
 *
 * Usage: example_intercomm_late_sender [iterations [delay_ms]]  (an even number of ranks)
 */
#include "ws_example.h"

#define MSG_DOUBLES 256
#define TAG_PING 21
#define TAG_PONG 22

static WS_NOINLINE void compute_before_send(double delay_ms, double* block) {
    ws_spin_ms(delay_ms);
    for (int i = 0; i < MSG_DOUBLES; ++i)
        block[i] += 1.0;
}

static WS_NOINLINE void send_to_other_half(double* block, int partner, MPI_Comm inter) {
    MPI_Send(block, MSG_DOUBLES, MPI_DOUBLE, partner, TAG_PING, inter);
    MPI_Recv(block, MSG_DOUBLES, MPI_DOUBLE, partner, TAG_PONG, inter, MPI_STATUS_IGNORE);
}

static WS_NOINLINE void receive_from_other_half(double* block, int partner, MPI_Comm inter) {
    MPI_Status status;
    MPI_Recv(block, MSG_DOUBLES, MPI_DOUBLE, MPI_ANY_SOURCE, TAG_PING, inter, &status);
    if (status.MPI_SOURCE != partner)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Send(block, MSG_DOUBLES, MPI_DOUBLE, partner, TAG_PONG, inter);
}

int main(int argc, char** argv) {
    int rank = 0, size = 0;
    ws_params par;
    double block[MSG_DOUBLES] = {0.0};

    WS_START(argc, argv, "example_intercomm_late_sender", 2, 5, 200.0, rank, size, par);
    if (size % 2 != 0) {
        if (rank == 0)
            fprintf(stderr, "example_intercomm_late_sender: needs an even number of ranks\n");
        MPI_Finalize();
        return 2;
    }

    const int even = rank % 2 == 0;
    MPI_Comm half, inter, merged;
    MPI_Comm_split(MPI_COMM_WORLD, even ? 0 : 1, rank, &half);
    int local = 0;
    MPI_Comm_rank(half, &local);
    /* The other half's leader: world rank 1 for the even half, 0 for the odd one. */
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, even ? 1 : 0, 7, &inter);

    start_together();
    for (int it = 0; it < par.iterations; ++it) {
        if (even) {
            compute_before_send(par.delay_ms, block);
            send_to_other_half(block, local, inter);
        } else {
            receive_from_other_half(block, local, inter);
        }
    }

    MPI_Barrier(inter);
    int mine = 1, theirs = 0;
    MPI_Allreduce(&mine, &theirs, 1, MPI_INT, MPI_SUM, inter);
    int value = even ? 42 : 0;
    MPI_Bcast(&value, 1, MPI_INT, even ? (local == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0, inter);
    MPI_Intercomm_merge(inter, even ? 0 : 1, &merged);
    MPI_Comm_free(&merged);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);

    if (theirs != size / 2 || (!even && value != 42))
        MPI_Abort(MPI_COMM_WORLD, 1);
    if (rank == 0)
        printf("intercomm_late_sender: %d ranks, %d iterations, delay %g ms\n", size,
               par.iterations, par.delay_ms);
    MPI_Finalize();
    return 0;
}
