/*
 * probe_late_sender -- injects a Late Sender wait in blocking probes.
 *
 * Ranks are paired (0->1, 2->3, ...). In each iteration of each of three
 * phases the even rank of a pair computes for `delay` in compute_before_send()
 * and then sends a message whose size changes from one iteration to the next
 * (send_sized()). The odd rank learns the size first, as programs that receive
 * messages of unknown size do:
 *
 *   1. probe_message(): MPI_Probe + MPI_Get_count, then receive_probed():
 *      MPI_Recv of the message the probe found;
 *   2. mprobe_message(): MPI_Mprobe + MPI_Get_count, then receive_matched():
 *      MPI_Mrecv of the matched message (what mpi4py's comm.recv does);
 *   3. poll_for_message(): MPI_Iprobe until the message is there (computing
 *      1 ms between polls), then receive_polled(): MPI_Recv.
 *
 * The odd rank waits in the blocking probes, not in the receives (the message
 * is there by then); polling is no wait. An unpaired last rank only idles.
 *
 * Injected wait : Late Sender (Scalasca metric mpi_latesender)
 * Call paths    : main/probe_message/MPI_Probe and main/mprobe_message/MPI_Mprobe
 * Ranks         : the odd ranks (1 and 3 for 4 ranks)
 * Size          : iterations x delay per odd rank and probe; defaults 5 x 200 ms
 *                 = 1.0 s in MPI_Probe and 1.0 s in MPI_Mprobe on rank 1 and on
 *                 rank 3; none in MPI_Recv, MPI_Mrecv or MPI_Iprobe.
 *
 * Usage: example_probe_late_sender [iterations [delay_ms]]
 */
#include "ws_example.h"

#define MAX_DOUBLES 1024
#define TAG_PROBE 31
#define TAG_MPROBE 32
#define TAG_POLL 33

static WS_NOINLINE int compute_before_send(double delay_ms, double* block, int iteration) {
    ws_spin_ms(delay_ms);
    const int count = 64 + 128 * (iteration % 8);
    for (int i = 0; i < count; ++i)
        block[i] += 1.0;
    return count;
}

static WS_NOINLINE void send_sized(const double* block, int count, int partner, int tag) {
    MPI_Send(block, count, MPI_DOUBLE, partner, tag, MPI_COMM_WORLD);
}

static WS_NOINLINE int probe_message(int partner, MPI_Status* status) {
    int count = 0;
    MPI_Probe(partner, TAG_PROBE, MPI_COMM_WORLD, status);
    MPI_Get_count(status, MPI_DOUBLE, &count);
    return count;
}

static WS_NOINLINE void receive_probed(double* block, int count, const MPI_Status* probed) {
    MPI_Recv(block, count, MPI_DOUBLE, probed->MPI_SOURCE, probed->MPI_TAG, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
}

static WS_NOINLINE int mprobe_message(int partner, MPI_Message* message) {
    MPI_Status status;
    int count = 0;
    MPI_Mprobe(partner, TAG_MPROBE, MPI_COMM_WORLD, message, &status);
    MPI_Get_count(&status, MPI_DOUBLE, &count);
    return count;
}

static WS_NOINLINE void receive_matched(double* block, int count, MPI_Message* message) {
    MPI_Mrecv(block, count, MPI_DOUBLE, message, MPI_STATUS_IGNORE);
}

static WS_NOINLINE int poll_for_message(int partner) {
    MPI_Status status;
    int found = 0, count = 0;
    for (;;) {
        MPI_Iprobe(partner, TAG_POLL, MPI_COMM_WORLD, &found, &status);
        if (found)
            break;
        ws_spin_ms(1.0);
    }
    MPI_Get_count(&status, MPI_DOUBLE, &count);
    return count;
}

static WS_NOINLINE void receive_polled(double* block, int count, int partner) {
    MPI_Recv(block, count, MPI_DOUBLE, partner, TAG_POLL, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* Checks a received size against the one sent in `iteration`; 0 when it matches. */
static int check_size(int count, int iteration, int tag) {
    const int sent = 64 + 128 * (iteration % 8);
    if (count == sent)
        return 0;
    fprintf(stderr, "probe_late_sender: tag %d iteration %d: %d doubles, sent %d\n", tag, iteration,
            count, sent);
    return 1;
}

int main(int argc, char** argv) {
    int rank = 0, size = 0;
    ws_params par;
    static double block[MAX_DOUBLES];

    WS_START(argc, argv, "example_probe_late_sender", 2, 5, 200.0, rank, size, par);

    const int is_sender = (rank % 2 == 0);
    const int partner = is_sender ? rank + 1 : rank - 1;
    const int tags[3] = {TAG_PROBE, TAG_MPROBE, TAG_POLL};
    int errors = 0;
    start_together();
    if (partner < size) {
        for (int phase = 0; phase < 3; ++phase) {
            for (int it = 0; it < par.iterations; ++it) {
                if (is_sender) {
                    const int count = compute_before_send(par.delay_ms, block, it);
                    send_sized(block, count, partner, tags[phase]);
                } else if (phase == 0) {
                    MPI_Status status;
                    const int count = probe_message(partner, &status);
                    errors += check_size(count, it, tags[phase]);
                    receive_probed(block, count, &status);
                } else if (phase == 1) {
                    MPI_Message message;
                    const int count = mprobe_message(partner, &message);
                    errors += check_size(count, it, tags[phase]);
                    receive_matched(block, count, &message);
                } else {
                    const int count = poll_for_message(partner);
                    errors += check_size(count, it, tags[phase]);
                    receive_polled(block, count, partner);
                }
            }
        }
    }

    if (rank == 0)
        printf("probe_late_sender: %d ranks, %d iterations, delay %g ms\n", size, par.iterations,
               par.delay_ms);
    MPI_Finalize();
    return errors == 0 ? 0 : 1;
}
