/*
 * mixed -- touches many kinds of MPI calls, for measurement tests.
 *
 * Injected wait : none on purpose (only small incidental waits). Its job is
 *                 to exercise many wrapper kinds with exactly known call counts.
 * Ranks         : 2 or more (counts in mixed_calls.txt are for 4 ranks).
 *
 * Structure (all call paths start at main):
 *   main/setup_communicators   MPI_Comm_split (two halves), MPI_Comm_dup of the half,
 *                              MPI_Comm_dup of MPI_COMM_WORLD ("inbox"), half rank/size
 *   main/run_round/...         repeated `rounds` times (default 2):
 *     half_collectives         MPI_Bcast on the long-lived duplicate, MPI_Allreduce on the half;
 *                              MPI_Comm_dup + MPI_Barrier + MPI_Comm_free of a scratch copy
 *     ring_sendrecv            MPI_Sendrecv right/left on MPI_COMM_WORLD
 *     persistent_ring          MPI_Send_init/MPI_Recv_init, 3 x (MPI_Startall + MPI_Waitall),
 *                              MPI_Request_free x 2
 *     collect_any_source       non-roots MPI_Send to 0 on the inbox communicator; rank 0
 *                              MPI_Recv with MPI_ANY_SOURCE/MPI_ANY_TAG, MPI_STATUS_IGNORE
 *                              (a communicator of its own, so the wildcards cannot match
 *                              other messages)
 *     strided_message          MPI_Type_vector + MPI_Type_commit, rank 0 sends one strided
 *                              element to rank 1 (contiguous receive), MPI_Type_free
 *     poll_for_control         rank 1 MPI_Send to rank 0; rank 0 computes in POLLS chunks of
 *                              `delay` ms and calls MPI_Iprobe after each (a fixed number of
 *                              polls, so the count is deterministic), then MPI_Recv
 *     cancel_pending_receive   MPI_Irecv that is never matched, MPI_Cancel, MPI_Wait,
 *                              MPI_Test_cancelled (every rank)
 *     buffered_ring            MPI_Pack_size, MPI_Buffer_attach, MPI_Bsend right,
 *                              MPI_Recv left, MPI_Buffer_detach
 *     ready_pairs              odd ranks MPI_Irecv; MPI_Barrier (guarantees the receive is
 *                              posted); even ranks MPI_Rsend; odd ranks MPI_Wait
 *     world_collectives        MPI_Gatherv, MPI_Scatterv, MPI_Alltoallv, MPI_Allgather,
 *                              MPI_Scan, MPI_Exscan, MPI_Reduce_scatter_block,
 *                              MPI_Ibarrier + MPI_Wait
 *     cartesian_rows           MPI_Dims_create, MPI_Cart_create, MPI_Cart_sub,
 *                              MPI_Allreduce on a row, MPI_Comm_free x 2
 *   main/release_communicators MPI_Comm_free x 3
 *   main/report_counts         MPI_Gather of the per-rank tallies; rank 0 prints them
 *
 * Output on rank 0 (deterministic for a given rank count and round count):
 *   mixed: ranks=<P> rounds=<R>
 *   mixed: rank=<r> sends=<n> recvs=<n> collectives=<n>     (one line per rank)
 *   mixed: total sends=<n> recvs=<n> collectives=<n>
 * where
 *   sends       = point-to-point messages sent: MPI_Send, MPI_Bsend, MPI_Rsend, the send
 *                 half of MPI_Sendrecv, and each start of a persistent send request;
 *   recvs       = point-to-point messages received: MPI_Recv, the receive half of
 *                 MPI_Sendrecv, completed MPI_Irecv, each start of a persistent receive
 *                 request (the cancelled MPI_Irecv is not counted);
 *   collectives = collective operations (blocking or not) on any communicator, including
 *                 start_together's MPI_Barrier and report_counts' MPI_Gather; communicator
 *                 construction/destruction (split, dup, cart_create/sub, free) is NOT
 *                 counted.
 * The exact number of calls of every MPI function per rank (for 4 ranks) is listed in
 * mixed_calls.txt as fixed + rounds x per_round.
 *
 * Usage: example_mixed [rounds (default 2) [delay_ms per poll chunk (default 2)]]
 */
#include "ws_example.h"

#define TAG_ANY_SOURCE 200
#define TAG_STRIDED 300
#define TAG_CONTROL 400
#define TAG_NEVER 500
#define TAG_BUFFERED 600
#define TAG_READY 700
#define TAG_RING 800
#define TAG_PERSISTENT 900
#define PERSISTENT_STARTS 3
#define POLLS 8
#define STRIDE_COUNT 4
#define STRIDE_BLOCK 2
#define STRIDE_STEP 8

typedef struct tally {
    int sends;
    int recvs;
    int collectives;
} tally;

static tally counts; /* this rank's tallies, see the header comment */

typedef struct world {
    int rank, size;
    MPI_Comm half;     /* lower or upper half of MPI_COMM_WORLD */
    MPI_Comm half_dup; /* a long-lived duplicate of it */
    MPI_Comm inbox;    /* duplicate of MPI_COMM_WORLD, only for collect_any_source */
    int half_rank, half_size;
} world;

static int failures; /* consistency checks that did not hold */

static void check(int ok, const char* what, int rank) {
    if (!ok) {
        ++failures;
        fprintf(stderr, "mixed: rank %d: check failed: %s\n", rank, what);
    }
}

static WS_NOINLINE void setup_communicators(world* w) {
    const int color = w->rank < w->size / 2 ? 0 : 1;
    MPI_Comm_split(MPI_COMM_WORLD, color, w->rank, &w->half);
    MPI_Comm_dup(w->half, &w->half_dup);
    MPI_Comm_dup(MPI_COMM_WORLD, &w->inbox);
    MPI_Comm_rank(w->half, &w->half_rank);
    MPI_Comm_size(w->half, &w->half_size);
}

static WS_NOINLINE void half_collectives(const world* w) {
    int token = (w->half_rank == 0) ? 1000 + w->rank : -1;
    MPI_Bcast(&token, 1, MPI_INT, 0, w->half_dup);
    int one = 1, members = 0;
    MPI_Allreduce(&one, &members, 1, MPI_INT, MPI_SUM, w->half);
    counts.collectives += 2;
    check(members == w->half_size, "half allreduce", w->rank);
    check(token >= 1000, "half bcast", w->rank);

    MPI_Comm scratch;
    MPI_Comm_dup(w->half, &scratch);
    MPI_Barrier(scratch);
    counts.collectives += 1;
    MPI_Comm_free(&scratch);
}

static WS_NOINLINE void ring_sendrecv(const world* w) {
    const int right = (w->rank + 1) % w->size, left = (w->rank + w->size - 1) % w->size;
    int out = w->rank, in = -1;
    MPI_Sendrecv(&out, 1, MPI_INT, right, TAG_RING, &in, 1, MPI_INT, left, TAG_RING, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    counts.sends += 1;
    counts.recvs += 1;
    check(in == left, "sendrecv ring", w->rank);
}

static WS_NOINLINE void persistent_ring(const world* w) {
    const int right = (w->rank + 1) % w->size, left = (w->rank + w->size - 1) % w->size;
    int out = 0, in = -1;
    MPI_Request req[2];
    MPI_Send_init(&out, 1, MPI_INT, right, TAG_PERSISTENT, MPI_COMM_WORLD, &req[0]);
    MPI_Recv_init(&in, 1, MPI_INT, left, TAG_PERSISTENT, MPI_COMM_WORLD, &req[1]);
    for (int k = 0; k < PERSISTENT_STARTS; ++k) {
        out = w->rank * 10 + k;
        MPI_Startall(2, req);
        MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
        counts.sends += 1;
        counts.recvs += 1;
        check(in == left * 10 + k, "persistent ring", w->rank);
    }
    MPI_Request_free(&req[0]);
    MPI_Request_free(&req[1]);
}

static WS_NOINLINE void collect_any_source(const world* w) {
    if (w->rank != 0) {
        MPI_Send(&w->rank, 1, MPI_INT, 0, TAG_ANY_SOURCE + w->rank, w->inbox);
        counts.sends += 1;
        return;
    }
    int sum = 0;
    for (int k = 1; k < w->size; ++k) {
        int value = 0;
        MPI_Recv(&value, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, w->inbox, MPI_STATUS_IGNORE);
        counts.recvs += 1;
        sum += value;
    }
    check(sum == w->size * (w->size - 1) / 2, "any-source sum", w->rank);
}

static WS_NOINLINE void strided_message(const world* w) {
    MPI_Datatype strided;
    MPI_Type_vector(STRIDE_COUNT, STRIDE_BLOCK, STRIDE_STEP, MPI_DOUBLE, &strided);
    MPI_Type_commit(&strided);
    if (w->rank == 0) {
        double matrix[STRIDE_COUNT * STRIDE_STEP];
        for (int i = 0; i < STRIDE_COUNT * STRIDE_STEP; ++i)
            matrix[i] = i;
        MPI_Send(matrix, 1, strided, 1, TAG_STRIDED, MPI_COMM_WORLD);
        counts.sends += 1;
    } else if (w->rank == 1) {
        double packed[STRIDE_COUNT * STRIDE_BLOCK];
        MPI_Recv(packed, STRIDE_COUNT * STRIDE_BLOCK, MPI_DOUBLE, 0, TAG_STRIDED, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        counts.recvs += 1;
        /* element k of block b is matrix[b*STRIDE_STEP + k] */
        check(packed[STRIDE_BLOCK * 3 + 1] == 3 * STRIDE_STEP + 1, "strided payload", w->rank);
    }
    MPI_Type_free(&strided);
}

static WS_NOINLINE void compute_between_polls(double delay_ms) {
    ws_spin_ms(delay_ms);
}

static WS_NOINLINE void poll_for_control(const world* w, double delay_ms) {
    if (w->rank == 1) {
        int command = 42;
        MPI_Send(&command, 1, MPI_INT, 0, TAG_CONTROL, MPI_COMM_WORLD);
        counts.sends += 1;
    } else if (w->rank == 0) {
        int seen_at = -1;
        for (int k = 0; k < POLLS; ++k) {
            int flag = 0;
            compute_between_polls(delay_ms);
            MPI_Iprobe(1, TAG_CONTROL, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
            if (flag && seen_at < 0)
                seen_at = k;
        }
        int command = 0;
        MPI_Recv(&command, 1, MPI_INT, 1, TAG_CONTROL, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        counts.recvs += 1;
        check(command == 42, "control message", w->rank);
        (void)seen_at; /* when it showed up varies from run to run; the call count does not */
    }
}

static WS_NOINLINE void cancel_pending_receive(const world* w) {
    int never = 0, cancelled = 0;
    MPI_Request req;
    MPI_Status status;
    /* Nobody ever sends TAG_NEVER, so this receive stays pending until cancelled. */
    MPI_Irecv(&never, 1, MPI_INT, w->rank, TAG_NEVER, MPI_COMM_WORLD, &req);
    MPI_Cancel(&req);
    MPI_Wait(&req, &status);
    MPI_Test_cancelled(&status, &cancelled);
    check(cancelled, "receive cancelled", w->rank);
}

static WS_NOINLINE void buffered_ring(const world* w) {
    const int right = (w->rank + 1) % w->size, left = (w->rank + w->size - 1) % w->size;
    int bytes = 0;
    MPI_Pack_size(1, MPI_INT, MPI_COMM_WORLD, &bytes);
    const int buffer_size = bytes + MPI_BSEND_OVERHEAD;
    char* buffer = malloc((size_t)buffer_size);
    if (buffer == NULL)
        MPI_Abort(MPI_COMM_WORLD, 3);
    MPI_Buffer_attach(buffer, buffer_size);

    int out = 7 * w->rank, in = -1;
    MPI_Bsend(&out, 1, MPI_INT, right, TAG_BUFFERED, MPI_COMM_WORLD);
    MPI_Recv(&in, 1, MPI_INT, left, TAG_BUFFERED, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    counts.sends += 1;
    counts.recvs += 1;
    check(in == 7 * left, "buffered ring", w->rank);

    void* detached = NULL;
    int detached_size = 0;
    MPI_Buffer_detach(&detached, &detached_size); /* waits until the Bsend has left */
    free(detached);
}

static WS_NOINLINE void ready_pairs(const world* w) {
    const int is_receiver = (w->rank % 2 == 1);
    const int has_partner = is_receiver || w->rank + 1 < w->size;
    int value = -1;
    MPI_Request req = MPI_REQUEST_NULL;
    if (is_receiver)
        MPI_Irecv(&value, 1, MPI_INT, w->rank - 1, TAG_READY, MPI_COMM_WORLD, &req);
    /* After this barrier every receive above is posted, so MPI_Rsend is legal. */
    MPI_Barrier(MPI_COMM_WORLD);
    counts.collectives += 1;
    if (is_receiver) {
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        counts.recvs += 1;
        check(value == 100 + w->rank - 1, "ready send payload", w->rank);
    } else if (has_partner) {
        value = 100 + w->rank;
        MPI_Rsend(&value, 1, MPI_INT, w->rank + 1, TAG_READY, MPI_COMM_WORLD);
        counts.sends += 1;
    }
}

static WS_NOINLINE void world_collectives(const world* w) {
    const int p = w->size, r = w->rank;
    int *cnt = calloc((size_t)p, sizeof(int)), *dsp = calloc((size_t)p, sizeof(int));
    int *rcnt = calloc((size_t)p, sizeof(int)), *rdsp = calloc((size_t)p, sizeof(int));
    int* big = calloc((size_t)(p * (2 * p + 1)), sizeof(int));
    int* mine = calloc((size_t)(3 * p + 1), sizeof(int));
    if (!cnt || !dsp || !rcnt || !rdsp || !big || !mine)
        MPI_Abort(MPI_COMM_WORLD, 3);

    /* Gatherv: rank j contributes j+1 ints to rank 0. */
    for (int j = 0, off = 0; j < p; ++j) {
        cnt[j] = j + 1;
        dsp[j] = off;
        off += j + 1;
    }
    for (int i = 0; i <= r; ++i)
        mine[i] = r;
    MPI_Gatherv(mine, r + 1, MPI_INT, big, cnt, dsp, MPI_INT, 0, MPI_COMM_WORLD);
    if (r == 0)
        check(big[dsp[p - 1]] == p - 1, "gatherv", r);

    /* Scatterv: rank 0 hands those blocks back. */
    MPI_Scatterv(big, cnt, dsp, MPI_INT, mine, r + 1, MPI_INT, 0, MPI_COMM_WORLD);
    check(mine[r] == r, "scatterv", r);

    /* Alltoallv: rank r sends r+j+1 ints to rank j (symmetric counts). */
    for (int j = 0, off = 0, roff = 0; j < p; ++j) {
        cnt[j] = r + j + 1;
        dsp[j] = off;
        off += cnt[j];
        rcnt[j] = j + r + 1;
        rdsp[j] = roff;
        roff += rcnt[j];
    }
    int* sendv = calloc((size_t)(p * (2 * p + 1)), sizeof(int));
    if (!sendv)
        MPI_Abort(MPI_COMM_WORLD, 3);
    for (int j = 0; j < p; ++j)
        for (int i = 0; i < cnt[j]; ++i)
            sendv[dsp[j] + i] = r;
    MPI_Alltoallv(sendv, cnt, dsp, MPI_INT, big, rcnt, rdsp, MPI_INT, MPI_COMM_WORLD);
    check(big[rdsp[p - 1]] == p - 1, "alltoallv", r);
    free(sendv);

    /* Allgather, Scan, Exscan of one int each. */
    MPI_Allgather(&r, 1, MPI_INT, big, 1, MPI_INT, MPI_COMM_WORLD);
    check(big[p - 1] == p - 1, "allgather", r);
    int one = 1, prefix = 0, exprefix = 0;
    MPI_Scan(&one, &prefix, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    check(prefix == r + 1, "scan", r);
    MPI_Exscan(&one, &exprefix, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    check(r == 0 || exprefix == r, "exscan", r); /* undefined on rank 0 */

    /* Reduce_scatter_block: 2 ints per rank. */
    for (int i = 0; i < 2 * p; ++i)
        mine[i] = i;
    int block[2] = {0, 0};
    MPI_Reduce_scatter_block(mine, block, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    check(block[1] == p * (2 * r + 1), "reduce_scatter_block", r);

    /* A nonblocking barrier completed with MPI_Wait. */
    MPI_Request req;
    MPI_Ibarrier(MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    counts.collectives += 8;

    free(cnt);
    free(dsp);
    free(rcnt);
    free(rdsp);
    free(big);
    free(mine);
}

static WS_NOINLINE void cartesian_rows(const world* w) {
    int dims[2] = {0, 0}, periods[2] = {1, 0}, keep_columns[2] = {0, 1};
    MPI_Comm grid, row;
    MPI_Dims_create(w->size, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
    MPI_Cart_sub(grid, keep_columns, &row);
    int one = 1, row_members = 0;
    MPI_Allreduce(&one, &row_members, 1, MPI_INT, MPI_SUM, row);
    counts.collectives += 1;
    check(row_members == dims[1], "cartesian row size", w->rank);
    MPI_Comm_free(&row);
    MPI_Comm_free(&grid);
}

static WS_NOINLINE void run_round(const world* w, double delay_ms) {
    half_collectives(w);
    ring_sendrecv(w);
    persistent_ring(w);
    collect_any_source(w);
    strided_message(w);
    poll_for_control(w, delay_ms);
    cancel_pending_receive(w);
    buffered_ring(w);
    ready_pairs(w);
    world_collectives(w);
    cartesian_rows(w);
}

static WS_NOINLINE void release_communicators(world* w) {
    MPI_Comm_free(&w->inbox);
    MPI_Comm_free(&w->half_dup);
    MPI_Comm_free(&w->half);
}

static WS_NOINLINE void report_counts(const world* w, int rounds) {
    counts.collectives += 1; /* the MPI_Gather below */
    int mine[3] = {counts.sends, counts.recvs, counts.collectives};
    int* all = NULL;
    if (w->rank == 0) {
        all = calloc((size_t)(3 * w->size), sizeof(int));
        if (all == NULL)
            MPI_Abort(MPI_COMM_WORLD, 3);
    }
    MPI_Gather(mine, 3, MPI_INT, all, 3, MPI_INT, 0, MPI_COMM_WORLD);
    if (w->rank != 0)
        return;
    long total[3] = {0, 0, 0};
    printf("mixed: ranks=%d rounds=%d\n", w->size, rounds);
    for (int r = 0; r < w->size; ++r) {
        printf("mixed: rank=%d sends=%d recvs=%d collectives=%d\n", r, all[3 * r], all[3 * r + 1],
               all[3 * r + 2]);
        for (int k = 0; k < 3; ++k)
            total[k] += all[3 * r + k];
    }
    printf("mixed: total sends=%ld recvs=%ld collectives=%ld\n", total[0], total[1], total[2]);
    free(all);
}

int main(int argc, char** argv) {
    world w;
    ws_params par;

    WS_START(argc, argv, "example_mixed", 2, 2, 2.0, w.rank, w.size, par);

    start_together();
    counts.collectives += 1;
    setup_communicators(&w);
    for (int round = 0; round < par.iterations; ++round)
        run_round(&w, par.delay_ms);
    release_communicators(&w);
    report_counts(&w, par.iterations);

    if (failures != 0)
        fprintf(stderr, "mixed: rank %d: %d checks failed\n", w.rank, failures);
    MPI_Finalize();
    return failures == 0 ? 0 : 1;
}
