// A random but valid MPI program for the differential oracle: every rank draws the same sequence
// of steps from the seed, so all agree on who sends what; only the computation delays differ.
// Covers blocking, nonblocking, persistent, synchronous, buffered and ready sends (each also
// nonblocking and persistent), ANY_SOURCE and ANY_TAG, Probe/Iprobe/Mprobe/Improbe, every
// Wait*/Test* completion (also on mixes of send, receive and collective requests), Sendrecv,
// every blocking and every recorded nonblocking collective on world and derived communicators
// (Comm_split, Comm_dup, Comm_create, Cart_create, Graph_create) and message sizes on both sides
// of the eager limit. Each step draws from its own seed, so that ranks outside a step's
// communicator skip it and stay in step.
// Usage: mpirun -np N random_mpi SEED [STEPS [agreeable]]
// With RANDOM_MPI_FEATURES=PREFIX in the environment, every rank writes the features it used,
// one name per line, to PREFIX.RANK (differential.sh's coverage table).
// "agreeable" leaves out what Waitscope and Scalasca 2.6 are known to treat apart (see
// docs/fidelity.md, "Differential oracle findings"): nonblocking sends and receives, Sendrecv,
// buffered and ready sends, MPI_Exscan and the blocking probes before a receive (whose Late
// Sender Waitscope finds in the probe, "Late Sender at blocking probes"); what remains must agree
// exactly.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { kSmall = 64, kEager = 4096, kLarge = 256 * 1024, kMaxMessages = 16 };

// The features a run used (the coverage table of differential.sh).
enum Feature {
    F_SEND,
    F_SSEND,
    F_BSEND,
    F_RSEND,
    F_ISEND,
    F_ISSEND,
    F_IBSEND,
    F_IRSEND,
    F_SEND_INIT,
    F_SSEND_INIT,
    F_BSEND_INIT,
    F_RSEND_INIT,
    F_RECV,
    F_IRECV,
    F_RECV_INIT,
    F_START,
    F_PROBE,
    F_IPROBE,
    F_MPROBE,
    F_MRECV,
    F_IMPROBE,
    F_IMRECV,
    F_SENDRECV,
    F_SENDRECV_REPLACE,
    F_ANY_SOURCE,
    F_ANY_TAG,
    F_WAIT,
    F_WAITALL,
    F_WAITANY,
    F_WAITSOME,
    F_TEST,
    F_TESTALL,
    F_TESTANY,
    F_TESTSOME,
    F_MIXED_COMPLETION,
    F_SMALL,
    F_BELOW_EAGER,
    F_ABOVE_EAGER,
    F_LARGE,
    F_COMM_WORLD,
    F_COMM_SPLIT,
    F_COMM_DUP,
    F_COMM_CREATE,
    F_CART,
    F_GRAPH,
    F_P2P_DERIVED,
    F_COLLECTIVE_DERIVED,
    F_NB_COLLECTIVE_DERIVED,
    F_COLLECTIVES
};
enum { kCollectives = 17, kNbCollectives = 17 };
static const char* const kFeatureNames[F_COLLECTIVES] = {
    "MPI_Send",
    "MPI_Ssend",
    "MPI_Bsend",
    "MPI_Rsend",
    "MPI_Isend",
    "MPI_Issend",
    "MPI_Ibsend",
    "MPI_Irsend",
    "MPI_Send_init",
    "MPI_Ssend_init",
    "MPI_Bsend_init",
    "MPI_Rsend_init",
    "MPI_Recv",
    "MPI_Irecv",
    "MPI_Recv_init",
    "MPI_Start",
    "MPI_Probe",
    "MPI_Iprobe",
    "MPI_Mprobe",
    "MPI_Mrecv",
    "MPI_Improbe",
    "MPI_Imrecv",
    "MPI_Sendrecv",
    "MPI_Sendrecv_replace",
    "MPI_ANY_SOURCE",
    "MPI_ANY_TAG",
    "MPI_Wait",
    "MPI_Waitall",
    "MPI_Waitany",
    "MPI_Waitsome",
    "MPI_Test",
    "MPI_Testall",
    "MPI_Testany",
    "MPI_Testsome",
    "completion of mixed requests (send, receive, collective)",
    "message <= 64 B",
    "message below the eager limit (4000-4095 B)",
    "message above the eager limit (4096-4200 B)",
    "message >= 128 KiB",
    "on MPI_COMM_WORLD",
    "on a Comm_split communicator",
    "on a Comm_dup communicator",
    "on a Comm_create communicator",
    "on a Cart_create communicator",
    "on a Graph_create communicator",
    "point-to-point on a derived communicator",
    "collective on a derived communicator",
    "nonblocking collective on a derived communicator"};
static const char* const kCollectiveNames[kCollectives] = {"MPI_Barrier",
                                                           "MPI_Bcast",
                                                           "MPI_Reduce",
                                                           "MPI_Allreduce",
                                                           "MPI_Gather",
                                                           "MPI_Scatter",
                                                           "MPI_Allgather",
                                                           "MPI_Alltoall",
                                                           "MPI_Scan",
                                                           "MPI_Exscan",
                                                           "MPI_Reduce_scatter_block",
                                                           "MPI_Gatherv",
                                                           "MPI_Scatterv",
                                                           "MPI_Allgatherv",
                                                           "MPI_Alltoallv",
                                                           "MPI_Reduce_scatter",
                                                           "MPI_Alltoallw"};
static const char* const kNbCollectiveNames[kNbCollectives] = {"MPI_Ibarrier",
                                                               "MPI_Ibcast",
                                                               "MPI_Ireduce",
                                                               "MPI_Iallreduce",
                                                               "MPI_Igather",
                                                               "MPI_Iscatter",
                                                               "MPI_Iallgather",
                                                               "MPI_Ialltoall",
                                                               "MPI_Iscan",
                                                               "MPI_Iexscan",
                                                               "MPI_Ireduce_scatter_block",
                                                               "MPI_Igatherv",
                                                               "MPI_Iscatterv",
                                                               "MPI_Iallgatherv",
                                                               "MPI_Ialltoallv",
                                                               "MPI_Ireduce_scatter",
                                                               "MPI_Ialltoallw"};
static unsigned char g_used[F_COLLECTIVES + kCollectives + kNbCollectives];
#define USE(feature) (g_used[feature] = 1)

// Writes the used features to PREFIX.RANK when RANDOM_MPI_FEATURES=PREFIX is set.
// (rank -1: to the standard output).
static void write_features(int rank) {
    const char* prefix = getenv("RANDOM_MPI_FEATURES");
    FILE* out = stdout;
    if (rank >= 0) {
        if (prefix == NULL || *prefix == 0) {
            return;
        }
        char path[4096];
        snprintf(path, sizeof path, "%s.%d", prefix, rank);
        out = fopen(path, "w");
        if (out == NULL) {
            return;
        }
    }
    for (int f = 0; f < F_COLLECTIVES + kCollectives + kNbCollectives; ++f) {
        if (g_used[f]) {
            fprintf(out, "%s\n",
                    f < F_COLLECTIVES ? kFeatureNames[f]
                    : f < F_COLLECTIVES + kCollectives
                        ? kCollectiveNames[f - F_COLLECTIVES]
                        : kNbCollectiveNames[f - F_COLLECTIVES - kCollectives]);
        }
    }
    if (out != stdout) {
        fclose(out);
    }
}

static unsigned long long g_state;

// The shared random sequence (splitmix64): the same on every rank.
static unsigned long long next_random(void) {
    unsigned long long z = (g_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static int pick(int n) {
    return (int)(next_random() % (unsigned long long)n);
}

static void compute_ms(double ms) {
    const double end = MPI_Wtime() + ms / 1000.0;
    while (MPI_Wtime() < end) {
    }
}

// A delay of 0-8 ms drawn for every rank; only `rank`'s is spent (all ranks draw alike).
static void random_delays(int ranks, int rank) {
    double mine = 0.0;
    for (int r = 0; r < ranks; ++r) {
        const double d = pick(3) == 0 ? 0.0 : (double)pick(80) / 10.0;
        if (r == rank) {
            mine = d;
        }
    }
    compute_ms(mine);
}

static int g_agreeable; // leave out the known differences

static char* g_send;
static char* g_recv[kMaxMessages];

// Small, either side of the eager limit (Open MPI's shared memory: 4096 B with the header), or
// large (rendezvous).
static int message_size(void) {
    const int kind = pick(5);
    return kind < 2    ? 1 + pick(kSmall)
           : kind == 2 ? kEager - 96 + pick(200)
                       : kLarge / 2 + pick(kLarge / 2);
}

static void use_size(int size) {
    USE(size <= kSmall      ? F_SMALL
        : size < kEager     ? F_BELOW_EAGER
        : size < kLarge / 2 ? F_ABOVE_EAGER
                            : F_LARGE);
}

// Completes `count` requests in the way `how` names (0..7: Wait loop, Waitall, Waitany,
// Waitsome, Test loop, Testall, Testany, Testsome).
static void complete(int how, int count, MPI_Request* req) {
    int done = 0, index, flag, outcount, indices[kMaxMessages];
    static const int used[8] = {F_WAIT, F_WAITALL, F_WAITANY, F_WAITSOME,
                                F_TEST, F_TESTALL, F_TESTANY, F_TESTSOME};
    USE(used[how]);
    switch (how) {
    case 0:
        for (int i = 0; i < count; ++i) {
            MPI_Wait(&req[i], MPI_STATUS_IGNORE);
        }
        break;
    case 1:
        MPI_Waitall(count, req, MPI_STATUSES_IGNORE);
        break;
    case 2:
        for (int i = 0; i < count; ++i) {
            MPI_Waitany(count, req, &index, MPI_STATUS_IGNORE);
        }
        break;
    case 3:
        while (done < count) {
            MPI_Waitsome(count, req, &outcount, indices, MPI_STATUSES_IGNORE);
            done += outcount;
        }
        break;
    case 4:
        for (int i = 0; i < count; ++i) {
            do {
                MPI_Test(&req[i], &flag, MPI_STATUS_IGNORE);
            } while (!flag);
        }
        break;
    case 5:
        do {
            MPI_Testall(count, req, &flag, MPI_STATUSES_IGNORE);
        } while (!flag);
        break;
    case 6:
        while (done < count) {
            MPI_Testany(count, req, &index, &flag, MPI_STATUS_IGNORE);
            if (flag && index != MPI_UNDEFINED) {
                ++done;
            }
        }
        break;
    default:
        while (done < count) {
            MPI_Testsome(count, req, &outcount, indices, MPI_STATUSES_IGNORE);
            if (outcount != MPI_UNDEFINED) {
                done += outcount;
            }
        }
        break;
    }
}

// One message from `from` to `to` on `comm` (communicator ranks), every send and receive mode.
// ANY_TAG only with a named source: a later step's message from another rank could match
// ANY_SOURCE with ANY_TAG, never one from the same source (messages do not overtake).
static void point_to_point(MPI_Comm comm, int me, int from, int to, int tag) {
    const int size = message_size();
    int send_mode = pick(11);
    int recv_mode = pick(9);
    const int any_source = pick(4) == 0;
    const int any_tag = !any_source && pick(4) == 0;
    const int delay_sender = pick(2);
    const double delay = (double)pick(60) / 10.0;
    const int send_completion = pick(8), recv_completion = pick(8);
    if (g_agreeable) { // blocking sends (standard, synchronous) and receives, MPI_Iprobe polls
        static const int sends[3] = {0, 1, 2}, receives[3] = {0, 1, 6};
        send_mode = sends[send_mode % 3];
        recv_mode = receives[recv_mode % 3];
    }
    MPI_Request req;
    MPI_Status status;
    if (me == from) {
        use_size(size);
        if (delay_sender) {
            compute_ms(delay);
        }
        const int ready = send_mode == 5 || send_mode == 9 || (send_mode == 10 && size % 4 == 3);
        if (ready) { // ready mode: the receiver tells when its receive is posted
            MPI_Recv(NULL, 0, MPI_CHAR, to, tag + 1, comm, MPI_STATUS_IGNORE);
        }
        switch (send_mode) {
        case 0:
        case 1:
            USE(F_SEND);
            MPI_Send(g_send, size, MPI_CHAR, to, tag, comm);
            break;
        case 2:
            USE(F_SSEND);
            MPI_Ssend(g_send, size, MPI_CHAR, to, tag, comm);
            break;
        case 3:
            USE(F_BSEND);
            MPI_Bsend(g_send, size, MPI_CHAR, to, tag, comm);
            break;
        case 4:
            USE(F_ISEND);
            MPI_Isend(g_send, size, MPI_CHAR, to, tag, comm, &req);
            complete(send_completion, 1, &req);
            break;
        case 5:
            USE(F_RSEND);
            MPI_Rsend(g_send, size, MPI_CHAR, to, tag, comm);
            break;
        case 6:
            USE(F_ISSEND);
            MPI_Issend(g_send, size, MPI_CHAR, to, tag, comm, &req);
            complete(send_completion, 1, &req);
            break;
        case 7:
            USE(F_SEND_INIT);
            USE(F_START);
            USE(F_WAIT);
            MPI_Send_init(g_send, size, MPI_CHAR, to, tag, comm, &req);
            MPI_Start(&req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
            MPI_Request_free(&req);
            break;
        case 8:
            USE(F_IBSEND);
            USE(F_WAIT);
            MPI_Ibsend(g_send, size, MPI_CHAR, to, tag, comm, &req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
            break;
        case 9:
            USE(F_IRSEND);
            MPI_Irsend(g_send, size, MPI_CHAR, to, tag, comm, &req);
            complete(send_completion, 1, &req);
            break;
        default: // persistent synchronous, buffered or ready send (by the size: both ends know it)
            USE(F_START);
            if (size % 4 == 1) {
                USE(F_SSEND_INIT);
                MPI_Ssend_init(g_send, size, MPI_CHAR, to, tag, comm, &req);
            } else if (size % 4 == 3) {
                USE(F_RSEND_INIT);
                MPI_Rsend_init(g_send, size, MPI_CHAR, to, tag, comm, &req);
            } else {
                USE(F_BSEND_INIT);
                MPI_Bsend_init(g_send, size, MPI_CHAR, to, tag, comm, &req);
            }
            MPI_Start(&req);
            complete(send_completion % 4, 1, &req);
            MPI_Request_free(&req);
            break;
        }
    } else if (me == to) {
        if (!delay_sender) {
            compute_ms(delay);
        }
        const int source = any_source ? MPI_ANY_SOURCE : from;
        const int match = any_tag ? MPI_ANY_TAG : tag;
        if (any_source) {
            USE(F_ANY_SOURCE);
        }
        if (any_tag) {
            USE(F_ANY_TAG);
        }
        if (send_mode == 5 || send_mode == 9 || (send_mode == 10 && size % 4 == 3)) {
            // ready mode: post first, then tell the sender
            USE(F_IRECV);
            MPI_Irecv(g_recv[0], kLarge, MPI_CHAR, source, match, comm, &req);
            MPI_Send(NULL, 0, MPI_CHAR, from, tag + 1, comm);
            complete(recv_completion, 1, &req);
            return;
        }
        int flag = 0;
        MPI_Message message;
        switch (recv_mode) {
        case 0:
        case 1:
            USE(F_RECV);
            MPI_Recv(g_recv[0], kLarge, MPI_CHAR, source, match, comm, &status);
            break;
        case 2:
        case 3:
            USE(F_IRECV);
            MPI_Irecv(g_recv[0], kLarge, MPI_CHAR, source, match, comm, &req);
            complete(recv_completion, 1, &req);
            break;
        case 4:
            USE(F_PROBE);
            USE(F_RECV);
            MPI_Probe(source, match, comm, &status);
            MPI_Recv(g_recv[0], kLarge, MPI_CHAR, status.MPI_SOURCE, status.MPI_TAG, comm, &status);
            break;
        case 5:
            USE(F_MPROBE);
            USE(F_MRECV);
            MPI_Mprobe(source, match, comm, &message, &status);
            MPI_Mrecv(g_recv[0], kLarge, MPI_CHAR, &message, &status);
            break;
        case 6:
            USE(F_IPROBE);
            USE(F_RECV);
            while (!flag) {
                MPI_Iprobe(source, match, comm, &flag, &status);
            }
            MPI_Recv(g_recv[0], kLarge, MPI_CHAR, status.MPI_SOURCE, status.MPI_TAG, comm, &status);
            break;
        case 7:
            USE(F_IMPROBE);
            USE(F_IMRECV);
            while (!flag) {
                MPI_Improbe(source, match, comm, &flag, &message, &status);
            }
            MPI_Imrecv(g_recv[0], kLarge, MPI_CHAR, &message, &req);
            complete(recv_completion, 1, &req);
            break;
        default:
            USE(F_RECV_INIT);
            USE(F_START);
            MPI_Recv_init(g_recv[0], kLarge, MPI_CHAR, from, match, comm, &req);
            MPI_Start(&req);
            complete(recv_completion % 2, 1, &req);
            MPI_Request_free(&req);
            break;
        }
    }
}

// Every other rank sends one message to `root`, which receives them all with nonblocking
// receives in a random order (or from ANY_SOURCE) and completes them together (latest sender,
// wrong order).
static void gather_messages(MPI_Comm comm, int me, int ranks, int root, int tag) {
    int sizes[kMaxMessages], order[kMaxMessages];
    double delays[kMaxMessages];
    for (int r = 0; r < ranks; ++r) {
        sizes[r] = pick(3) == 0 ? kLarge / 2 : 1 + pick(kSmall);
        delays[r] = (double)pick(60) / 10.0;
        order[r] = r;
    }
    for (int r = ranks - 1; r > 0; --r) {
        const int j = pick(r + 1), t = order[r];
        order[r] = order[j];
        order[j] = t;
    }
    const int how = pick(8);
    const int nonblocking_sends = pick(2);
    const int root_computes = pick(2) == 0;
    const int any_source = pick(4) == 0;
    if (me == root) {
        MPI_Request req[kMaxMessages];
        int n = 0;
        if (root_computes) {
            compute_ms(delays[root]);
        }
        USE(F_IRECV);
        if (any_source) {
            USE(F_ANY_SOURCE);
        }
        for (int i = 0; i < ranks; ++i) {
            if (order[i] != root) {
                MPI_Irecv(g_recv[n], kLarge, MPI_CHAR, any_source ? MPI_ANY_SOURCE : order[i], tag,
                          comm, &req[n]);
                ++n;
            }
        }
        complete(how, n, req);
    } else {
        compute_ms(delays[me]);
        use_size(sizes[me]);
        if (nonblocking_sends) {
            MPI_Request req;
            USE(F_ISEND);
            MPI_Isend(g_send, sizes[me], MPI_CHAR, root, tag, comm, &req);
            complete(how, 1, &req);
        } else {
            USE(F_SEND);
            MPI_Send(g_send, sizes[me], MPI_CHAR, root, tag, comm);
        }
    }
}

// Two messages from `from` to `to`, received in the reverse order of sending.
static void reverse_order(MPI_Comm comm, int me, int from, int to, int tag) {
    const int size = pick(2) == 0 ? 1 + pick(kSmall) : kLarge / 2;
    const double delay = (double)pick(60) / 10.0;
    if (me == from) {
        MPI_Request req[2];
        USE(F_ISEND);
        USE(F_WAITALL);
        use_size(size);
        MPI_Isend(g_send, size, MPI_CHAR, to, tag, comm, &req[0]);
        compute_ms(delay);
        MPI_Isend(g_send, size, MPI_CHAR, to, tag + 1, comm, &req[1]);
        MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    } else if (me == to) {
        USE(F_RECV);
        MPI_Recv(g_recv[0], kLarge, MPI_CHAR, from, tag + 1, comm, MPI_STATUS_IGNORE);
        MPI_Recv(g_recv[1], kLarge, MPI_CHAR, from, tag, comm, MPI_STATUS_IGNORE);
    }
}

// A ring exchange with MPI_Sendrecv (or Sendrecv_replace).
static void ring(MPI_Comm comm, int me, int ranks, int tag) {
    const int size = message_size();
    const int replace = pick(4) == 0;
    random_delays(ranks, me);
    const int right = (me + 1) % ranks, left = (me + ranks - 1) % ranks;
    use_size(size);
    USE(replace ? F_SENDRECV_REPLACE : F_SENDRECV);
    if (replace) {
        MPI_Sendrecv_replace(g_recv[0], size, MPI_CHAR, right, tag, left, tag, comm,
                             MPI_STATUS_IGNORE);
    } else {
        MPI_Sendrecv(g_send, size, MPI_CHAR, right, tag, g_recv[0], size, MPI_CHAR, left, tag, comm,
                     MPI_STATUS_IGNORE);
    }
}

// One collective on `comm`, after random delays.
static void collective(MPI_Comm comm, int derived, int world_rank, int world_size) {
    int me, ranks;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &ranks);
    int kind = pick(kCollectives);
    if (g_agreeable && kind == 9) {
        kind = 8; // MPI_Scan instead of MPI_Exscan
    }
    USE(F_COLLECTIVES + kind);
    if (derived) {
        USE(F_COLLECTIVE_DERIVED);
    }
    const int root = pick(ranks);
    const int count = pick(2) == 0 ? 1 + pick(8) : kLarge / 8 / ranks;
    int counts[kMaxMessages], displs[kMaxMessages];
    for (int r = 0; r < ranks; ++r) {
        counts[r] = count;
        displs[r] = r * count;
    }
    random_delays(world_size, world_rank);
    double* in = (double*)g_send;
    double* out = (double*)g_recv[0];
    switch (kind) {
    case 0:
        MPI_Barrier(comm);
        break;
    case 1:
        MPI_Bcast(in, count, MPI_DOUBLE, root, comm);
        break;
    case 2:
        MPI_Reduce(in, out, count, MPI_DOUBLE, MPI_SUM, root, comm);
        break;
    case 3:
        MPI_Allreduce(in, out, count, MPI_DOUBLE, MPI_SUM, comm);
        break;
    case 4:
        MPI_Gather(in, count, MPI_DOUBLE, out, count, MPI_DOUBLE, root, comm);
        break;
    case 5:
        MPI_Scatter(in, count, MPI_DOUBLE, out, count, MPI_DOUBLE, root, comm);
        break;
    case 6:
        MPI_Allgather(in, count, MPI_DOUBLE, out, count, MPI_DOUBLE, comm);
        break;
    case 7:
        MPI_Alltoall(in, count, MPI_DOUBLE, out, count, MPI_DOUBLE, comm);
        break;
    case 8:
        MPI_Scan(in, out, count, MPI_DOUBLE, MPI_SUM, comm);
        break;
    case 9:
        MPI_Exscan(in, out, count, MPI_DOUBLE, MPI_SUM, comm);
        break;
    case 10:
        MPI_Reduce_scatter_block(in, out, count, MPI_DOUBLE, MPI_SUM, comm);
        break;
    case 11:
        MPI_Gatherv(in, count, MPI_DOUBLE, out, counts, displs, MPI_DOUBLE, root, comm);
        break;
    case 12:
        MPI_Scatterv(in, counts, displs, MPI_DOUBLE, out, count, MPI_DOUBLE, root, comm);
        break;
    case 13:
        MPI_Allgatherv(in, count, MPI_DOUBLE, out, counts, displs, MPI_DOUBLE, comm);
        break;
    case 14:
        MPI_Alltoallv(in, counts, displs, MPI_DOUBLE, out, counts, displs, MPI_DOUBLE, comm);
        break;
    case 15:
        MPI_Reduce_scatter(in, out, counts, MPI_DOUBLE, MPI_SUM, comm);
        break;
    default: {
        int bytes[kMaxMessages], offsets[kMaxMessages];
        MPI_Datatype types[kMaxMessages];
        for (int r = 0; r < ranks; ++r) {
            bytes[r] = count;
            offsets[r] = r * count * (int)sizeof(double);
            types[r] = MPI_DOUBLE;
        }
        MPI_Alltoallw(in, bytes, offsets, types, out, bytes, offsets, types, comm);
        break;
    }
    }
}

// Starts nonblocking collective `kind` (kNbCollectiveNames) on `comm`; every buffer but the
// Ibcast's (g_recv[2]) is either read only (g_send) or written by this request alone
// (g_recv[0]), so that point-to-point requests on g_send and g_recv[1] may run beside it.
static void start_nb_collective(int kind, MPI_Comm comm, int ranks, int root, int count,
                                MPI_Request* req) {
    static int counts[kMaxMessages], displs[kMaxMessages]; // live until the request completes
    for (int r = 0; r < ranks; ++r) {
        counts[r] = count;
        displs[r] = r * count;
    }
    const double* in = (const double*)g_send;
    double* out = (double*)g_recv[0];
    switch (kind) {
    case 0:
        MPI_Ibarrier(comm, req);
        break;
    case 1:
        MPI_Ibcast(g_recv[2], count, MPI_DOUBLE, root, comm, req);
        break;
    case 2:
        MPI_Ireduce(in, out, count, MPI_DOUBLE, MPI_SUM, root, comm, req);
        break;
    case 3:
        MPI_Iallreduce(in, out, count, MPI_DOUBLE, MPI_SUM, comm, req);
        break;
    case 4:
        MPI_Igather(in, count, MPI_DOUBLE, out, count, MPI_DOUBLE, root, comm, req);
        break;
    case 5:
        MPI_Iscatter(in, count, MPI_DOUBLE, out, count, MPI_DOUBLE, root, comm, req);
        break;
    case 6:
        MPI_Iallgather(in, count, MPI_DOUBLE, out, count, MPI_DOUBLE, comm, req);
        break;
    case 7:
        MPI_Ialltoall(in, count, MPI_DOUBLE, out, count, MPI_DOUBLE, comm, req);
        break;
    case 8:
        MPI_Iscan(in, out, count, MPI_DOUBLE, MPI_SUM, comm, req);
        break;
    case 9:
        MPI_Iexscan(in, out, count, MPI_DOUBLE, MPI_SUM, comm, req);
        break;
    case 10:
        MPI_Ireduce_scatter_block(in, out, count, MPI_DOUBLE, MPI_SUM, comm, req);
        break;
    case 11:
        MPI_Igatherv(in, count, MPI_DOUBLE, out, counts, displs, MPI_DOUBLE, root, comm, req);
        break;
    case 12:
        MPI_Iscatterv(in, counts, displs, MPI_DOUBLE, out, count, MPI_DOUBLE, root, comm, req);
        break;
    case 13:
        MPI_Iallgatherv(in, count, MPI_DOUBLE, out, counts, displs, MPI_DOUBLE, comm, req);
        break;
    case 14:
        MPI_Ialltoallv(in, counts, displs, MPI_DOUBLE, out, counts, displs, MPI_DOUBLE, comm, req);
        break;
    case 15:
        MPI_Ireduce_scatter(in, out, counts, MPI_DOUBLE, MPI_SUM, comm, req);
        break;
    default: {
        static int bytes[kMaxMessages], offsets[kMaxMessages];
        static MPI_Datatype types[kMaxMessages];
        for (int r = 0; r < ranks; ++r) {
            bytes[r] = count;
            offsets[r] = r * count * (int)sizeof(double);
            types[r] = MPI_DOUBLE;
        }
        MPI_Ialltoallw(in, bytes, offsets, types, out, bytes, offsets, types, comm, req);
        break;
    }
    }
}

// One nonblocking collective on `comm` (every one libwaitscope.so records), started after
// random delays, overlapped with computation and
// completed in a random way, sometimes together with a ring exchange's Isend and Irecv
// (a completion call over send, receive and collective requests at once).
static void nb_collective(MPI_Comm comm, int derived, int world_rank, int world_size, int tag) {
    int me, ranks;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &ranks);
    const int kind = pick(kNbCollectives);
    const int root = pick(ranks);
    const int count = pick(2) == 0 ? 1 + pick(8) : kLarge / 8 / ranks;
    const int how = pick(8);
    const int with_ring = ranks > 1 && pick(2) == 0;
    const int size = message_size();
    const int any_source = pick(4) == 0;
    USE(F_COLLECTIVES + kCollectives + kind);
    if (derived) {
        USE(F_NB_COLLECTIVE_DERIVED);
    }
    random_delays(world_size, world_rank);
    MPI_Request req[3];
    int n = 0;
    if (with_ring) { // receive from the left, send to the right, beside the collective
        const int right = (me + 1) % ranks, left = (me + ranks - 1) % ranks;
        USE(F_IRECV);
        USE(F_ISEND);
        USE(F_MIXED_COMPLETION);
        use_size(size);
        if (any_source) {
            USE(F_ANY_SOURCE);
        }
        MPI_Irecv(g_recv[1], kLarge, MPI_CHAR, any_source ? MPI_ANY_SOURCE : left, tag, comm,
                  &req[n++]);
        start_nb_collective(kind, comm, ranks, root, count, &req[n++]);
        MPI_Isend(g_send, size, MPI_CHAR, right, tag, comm, &req[n++]);
    } else {
        start_nb_collective(kind, comm, ranks, root, count, &req[n++]);
    }
    random_delays(world_size, world_rank); // overlap
    complete(how, n, req);
}

int main(int argc, char** argv) {
    if (argc == 2 && strcmp(argv[1], "--features") == 0) { // the coverage table's rows
        for (int f = 0; f < F_COLLECTIVES + kCollectives + kNbCollectives; ++f) {
            g_used[f] = 1;
        }
        write_features(-1);
        return 0;
    }
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2 || size > kMaxMessages) {
        if (rank == 0) {
            fprintf(stderr, "usage: mpirun -np N (N <= %d) random_mpi SEED [STEPS]\n",
                    kMaxMessages);
        }
        MPI_Finalize();
        return 2;
    }
    const unsigned long long seed = strtoull(argv[1], NULL, 10);
    const int steps = argc > 2 ? atoi(argv[2]) : 24;
    g_agreeable = argc > 3 && strcmp(argv[3], "agreeable") == 0;
    g_send = calloc(kLarge, 1);
    for (int i = 0; i < kMaxMessages; ++i) {
        g_recv[i] = calloc(kLarge, 1);
    }
    const int attached = 2 * kLarge + 4 * MPI_BSEND_OVERHEAD;
    char* bsend_buffer = malloc(attached);
    MPI_Buffer_attach(bsend_buffer, attached);

    // Derived communicators: halves by parity, a reversed split of the world, a duplicate, all
    // ranks but the last (Comm_create; the last rank is outside it), a periodic 1-D Cartesian
    // grid and a directed ring graph.
    enum { kWorld, kHalves, kReversed, kDup, kCreated, kCart, kGraph, kComms };
    static const int comm_features[kComms] = {F_COMM_WORLD,  F_COMM_SPLIT, F_COMM_SPLIT, F_COMM_DUP,
                                              F_COMM_CREATE, F_CART,       F_GRAPH};
    MPI_Comm comms[kComms];
    int comm_sizes[kComms] = {size, size / 2, size, size, size - 1, size, size};
    comms[kWorld] = MPI_COMM_WORLD;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &comms[kHalves]);
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &comms[kReversed]);
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[kDup]);
    MPI_Group world_group, created_group;
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    int last = size - 1;
    MPI_Group_excl(world_group, 1, &last, &created_group);
    MPI_Comm_create(MPI_COMM_WORLD, created_group, &comms[kCreated]);
    MPI_Group_free(&created_group);
    MPI_Group_free(&world_group);
    int dims[1] = {size}, periods[1] = {1};
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &comms[kCart]);
    int index[kMaxMessages], edges[kMaxMessages];
    for (int r = 0; r < size; ++r) {
        index[r] = r + 1;
        edges[r] = (r + 1) % size;
    }
    MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &comms[kGraph]);

    for (int step = 0; step < steps; ++step) {
        g_state = seed << 32 ^ (unsigned long long)step; // every step from its own seed
        int c = pick(kComms + 1) % kComms;               // the world twice as often
        if (c == kHalves && (size % 2 != 0 || pick(2) == 0)) {
            c = kWorld; // the halves differ in size: the draws would too
        }
        const int tag = 10 * step;
        int what = pick(12);
        if (g_agreeable && (what == 3 || what == 4 || what == 5)) {
            what = 0; // a blocking message instead of nonblocking ones or a Sendrecv
        }
        if (comm_sizes[c] < 2 && what < 6) {
            c = kWorld; // messages need two ranks
        }
        MPI_Comm comm = comms[c];
        if (comm == MPI_COMM_NULL) {
            continue; // this rank is outside the step's communicator
        }
        int me, ranks;
        MPI_Comm_rank(comm, &me);
        MPI_Comm_size(comm, &ranks);
        USE(comm_features[c]);
        if (c != kWorld && what < 6) {
            USE(F_P2P_DERIVED);
        }
        if (what < 3) {
            const int from = pick(ranks), to = (from + 1 + pick(ranks - 1)) % ranks;
            point_to_point(comm, me, from, to, tag);
        } else if (what == 3) {
            gather_messages(comm, me, ranks, pick(ranks), tag);
        } else if (what == 4) {
            const int from = pick(ranks), to = (from + 1 + pick(ranks - 1)) % ranks;
            reverse_order(comm, me, from, to, tag);
        } else if (what == 5) {
            ring(comm, me, ranks, tag);
        } else if (what < 9) {
            collective(comm, c != kWorld, rank, size);
        } else {
            nb_collective(comm, c != kWorld, rank, size, tag);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int c = kHalves; c < kComms; ++c) {
        if (comms[c] != MPI_COMM_NULL) {
            MPI_Comm_free(&comms[c]);
        }
    }
    int detached_size;
    MPI_Buffer_detach(&bsend_buffer, &detached_size);
    free(bsend_buffer);
    for (int i = 0; i < kMaxMessages; ++i) {
        free(g_recv[i]);
    }
    free(g_send);
    write_features(rank);
    MPI_Finalize();
    return 0;
}
