// A random but valid MPI program for the differential oracle: every rank draws the same sequence
// of steps from the seed, so all agree on who sends what; only the computation delays differ.
// Covers blocking, nonblocking, persistent, synchronous, buffered and ready sends (each also
// nonblocking and persistent), ANY_SOURCE, Probe/Mprobe, every Wait*/Test* completion,
// Sendrecv, every blocking collective on world and derived communicators and message sizes on
// both sides of the eager limit.
// Usage: mpirun -np N random_mpi SEED [STEPS [agreeable]]
// "agreeable" leaves out what Waitscope and Scalasca 2.6 are known to treat apart (see
// docs/fidelity.md, "Differential oracle findings"): nonblocking sends and receives, Sendrecv,
// buffered and ready sends and MPI_Exscan; what remains must agree exactly.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { kSmall = 64, kLarge = 256 * 1024, kMaxMessages = 16 };

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

static int message_size(void) {
    return pick(2) == 0 ? 1 + pick(kSmall) : kLarge / 2 + pick(kLarge / 2);
}

// Completes `count` requests in the way `how` names (0..7: Wait loop, Waitall, Waitany,
// Waitsome, Test loop, Testall, Testany, Testsome).
static void complete(int how, int count, MPI_Request* req) {
    int done = 0, index, flag, outcount, indices[kMaxMessages];
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
static void point_to_point(MPI_Comm comm, int me, int from, int to, int tag) {
    const int size = message_size();
    int send_mode = pick(11);
    int recv_mode = pick(9);
    const int any_source = pick(4) == 0;
    const int delay_sender = pick(2);
    const double delay = (double)pick(60) / 10.0;
    const int send_completion = pick(8), recv_completion = pick(8);
    if (g_agreeable) { // blocking sends (standard, synchronous) and receives
        static const int sends[3] = {0, 1, 2}, receives[5] = {0, 1, 4, 5, 6};
        send_mode = sends[send_mode % 3];
        recv_mode = receives[recv_mode % 5];
    }
    MPI_Request req;
    MPI_Status status;
    if (me == from) {
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
            MPI_Send(g_send, size, MPI_CHAR, to, tag, comm);
            break;
        case 2:
            MPI_Ssend(g_send, size, MPI_CHAR, to, tag, comm);
            break;
        case 3:
            MPI_Bsend(g_send, size, MPI_CHAR, to, tag, comm);
            break;
        case 4:
            MPI_Isend(g_send, size, MPI_CHAR, to, tag, comm, &req);
            complete(send_completion, 1, &req);
            break;
        case 5:
            MPI_Rsend(g_send, size, MPI_CHAR, to, tag, comm);
            break;
        case 6:
            MPI_Issend(g_send, size, MPI_CHAR, to, tag, comm, &req);
            complete(send_completion, 1, &req);
            break;
        case 7:
            MPI_Send_init(g_send, size, MPI_CHAR, to, tag, comm, &req);
            MPI_Start(&req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
            MPI_Request_free(&req);
            break;
        case 8:
            MPI_Ibsend(g_send, size, MPI_CHAR, to, tag, comm, &req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
            break;
        case 9:
            MPI_Irsend(g_send, size, MPI_CHAR, to, tag, comm, &req);
            complete(send_completion, 1, &req);
            break;
        default: // persistent synchronous, buffered or ready send (by the size: both ends know it)
            if (size % 4 == 1) {
                MPI_Ssend_init(g_send, size, MPI_CHAR, to, tag, comm, &req);
            } else if (size % 4 == 3) {
                MPI_Rsend_init(g_send, size, MPI_CHAR, to, tag, comm, &req);
            } else {
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
        if (send_mode == 5 || send_mode == 9 || (send_mode == 10 && size % 4 == 3)) {
            // ready mode: post first, then tell the sender
            MPI_Irecv(g_recv[0], kLarge, MPI_CHAR, source, tag, comm, &req);
            MPI_Send(NULL, 0, MPI_CHAR, from, tag + 1, comm);
            complete(recv_completion, 1, &req);
            return;
        }
        int flag = 0;
        MPI_Message message;
        switch (recv_mode) {
        case 0:
        case 1:
            MPI_Recv(g_recv[0], kLarge, MPI_CHAR, source, tag, comm, &status);
            break;
        case 2:
        case 3:
            MPI_Irecv(g_recv[0], kLarge, MPI_CHAR, source, tag, comm, &req);
            complete(recv_completion, 1, &req);
            break;
        case 4:
            MPI_Probe(source, tag, comm, &status);
            MPI_Recv(g_recv[0], kLarge, MPI_CHAR, status.MPI_SOURCE, tag, comm, &status);
            break;
        case 5:
            MPI_Mprobe(source, tag, comm, &message, &status);
            MPI_Mrecv(g_recv[0], kLarge, MPI_CHAR, &message, &status);
            break;
        case 6:
            while (!flag) {
                MPI_Iprobe(source, tag, comm, &flag, &status);
            }
            MPI_Recv(g_recv[0], kLarge, MPI_CHAR, status.MPI_SOURCE, tag, comm, &status);
            break;
        case 7:
            while (!flag) {
                MPI_Improbe(source, tag, comm, &flag, &message, &status);
            }
            MPI_Imrecv(g_recv[0], kLarge, MPI_CHAR, &message, &req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
            break;
        default:
            MPI_Recv_init(g_recv[0], kLarge, MPI_CHAR, from, tag, comm, &req);
            MPI_Start(&req);
            complete(recv_completion % 2, 1, &req);
            MPI_Request_free(&req);
            break;
        }
    }
}

// Every other rank sends one message to `root`, which receives them all with nonblocking
// receives in a random order and completes them together (latest sender, wrong order).
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
    if (me == root) {
        MPI_Request req[kMaxMessages];
        int n = 0;
        if (root_computes) {
            compute_ms(delays[root]);
        }
        for (int i = 0; i < ranks; ++i) {
            if (order[i] != root) {
                MPI_Irecv(g_recv[n], kLarge, MPI_CHAR, order[i], tag, comm, &req[n]);
                ++n;
            }
        }
        complete(how, n, req);
    } else {
        compute_ms(delays[me]);
        if (nonblocking_sends) {
            MPI_Request req;
            MPI_Isend(g_send, sizes[me], MPI_CHAR, root, tag, comm, &req);
            complete(how, 1, &req);
        } else {
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
        MPI_Isend(g_send, size, MPI_CHAR, to, tag, comm, &req[0]);
        compute_ms(delay);
        MPI_Isend(g_send, size, MPI_CHAR, to, tag + 1, comm, &req[1]);
        MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    } else if (me == to) {
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
    if (replace) {
        MPI_Sendrecv_replace(g_recv[0], size, MPI_CHAR, right, tag, left, tag, comm,
                             MPI_STATUS_IGNORE);
    } else {
        MPI_Sendrecv(g_send, size, MPI_CHAR, right, tag, g_recv[0], size, MPI_CHAR, left, tag, comm,
                     MPI_STATUS_IGNORE);
    }
}

// One collective on `comm`, after random delays.
static void collective(MPI_Comm comm, int world_rank, int world_size) {
    int me, ranks;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &ranks);
    int kind = pick(17);
    if (g_agreeable && kind == 9) {
        kind = 8; // MPI_Scan instead of MPI_Exscan
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

int main(int argc, char** argv) {
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
    g_state = strtoull(argv[1], NULL, 10);
    const int steps = argc > 2 ? atoi(argv[2]) : 24;
    g_agreeable = argc > 3 && strcmp(argv[3], "agreeable") == 0;
    g_send = calloc(kLarge, 1);
    for (int i = 0; i < kMaxMessages; ++i) {
        g_recv[i] = calloc(kLarge, 1);
    }
    const int attached = 2 * kLarge + 4 * MPI_BSEND_OVERHEAD;
    char* bsend_buffer = malloc(attached);
    MPI_Buffer_attach(bsend_buffer, attached);

    // Derived communicators: halves by parity, a reversed duplicate of the world.
    MPI_Comm halves, reversed, dup;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &halves);
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &reversed);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);

    for (int step = 0; step < steps; ++step) {
        const int c = pick(4);
        MPI_Comm comm = c == 0 ? halves : c == 1 ? reversed : c == 2 ? dup : MPI_COMM_WORLD;
        if (c == 0 && (size % 2 != 0 || pick(2) == 0)) {
            comm = MPI_COMM_WORLD; // the halves differ in size: the draws would too
        }
        int me, ranks;
        MPI_Comm_rank(comm, &me);
        MPI_Comm_size(comm, &ranks);
        const int tag = 10 * step;
        int what = pick(10);
        if (g_agreeable && (what == 3 || what == 4 || what == 5)) {
            what = 0; // a blocking message instead of nonblocking ones or a Sendrecv
        }
        if (ranks < 2 && what < 7) {
            comm = MPI_COMM_WORLD;
            MPI_Comm_rank(comm, &me);
            ranks = size;
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
        } else {
            collective(comm, rank, size);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Comm_free(&halves);
    MPI_Comm_free(&reversed);
    MPI_Comm_free(&dup);
    int detached_size;
    MPI_Buffer_detach(&bsend_buffer, &detached_size);
    free(bsend_buffer);
    for (int i = 0; i < kMaxMessages; ++i) {
        free(g_recv[i]);
    }
    free(g_send);
    MPI_Finalize();
    return 0;
}
