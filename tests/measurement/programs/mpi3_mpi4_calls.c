/*
 * mpi3_mpi4_calls -- the MPI 3 and MPI 4 calls of issue 26, each a known number of times per
 * rank, so the trace's counts can be checked exactly, and one Late Sender on a communicator
 * made by MPI_Comm_idup, so the analysis must know that communicator.
 *
 * Per rank (4 ranks or any even number):
 *   nonblocking  MPI_Ireduce_scatter 1, MPI_Ialltoallw 1 (each completed by MPI_Wait)
 *   idup         MPI_Comm_idup 1 (MPI_Wait), then on the new communicator: MPI_Barrier 1,
 *                MPI_Send 1 (even ranks) or MPI_Recv 1 (odd ranks: the even rank computes
 *                DELAY_MS first: a Late Sender of DELAY_MS on each odd rank), MPI_Comm_free 1
 *   neighbours   on a periodic ring (MPI_Cart_create 1): MPI_Neighbor_allgather,
 *                _allgatherv, _alltoall, _alltoallv, _alltoallw 1 each; MPI_Ineighbor_ the
 *                same five, completed together by MPI_Waitall 1
 *   persistent   MPIX_Allreduce_init 1 started 3 times, MPIX_Barrier_init 1 started 2 times,
 *                MPIX_Neighbor_alltoall_init 1 started 2 times (each start completed by
 *                MPI_Wait), MPI_Request_free 3
 *   inter        MPI_Comm_split 1 (even and odd ranks), MPI_Intercomm_create 1, then
 *                MPI_Comm_dup 1 and MPI_Comm_idup 1 (MPI_Wait) of the intercommunicator, an
 *                MPI_Sendrecv 1 with the partner (rank ^ 1) on each, MPI_Comm_free 4
 *   unrecorded   MPI_Comm_get_name 2
 *
 * Usage: measure_mpi3_mpi4_calls [DELAY_MS]   (default 300)
 */
#include <mpi.h>
/* Open MPI's extensions need mpi.h first. */
#include <mpi-ext.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void spin_ms(double ms) {
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    do
        clock_gettime(CLOCK_MONOTONIC, &now);
    while ((double)(now.tv_sec - start.tv_sec) * 1e3 + (double)(now.tv_nsec - start.tv_nsec) / 1e6 <
           ms);
}

static int check(int ok, const char* what) {
    if (!ok)
        fprintf(stderr, "mpi3_mpi4_calls: wrong result of %s\n", what);
    return ok ? 0 : 1;
}

int main(int argc, char** argv) {
    int rank = 0, size = 0, errors = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const double delay_ms = argc > 1 ? atof(argv[1]) : 300.0;
    if (size % 2 != 0 || size > 16) {
        if (rank == 0)
            fprintf(stderr,
                    "usage: measure_mpi3_mpi4_calls [DELAY_MS] (an even number of ranks)\n");
        MPI_Finalize();
        return 2;
    }
    MPI_Request request;

    /* The two nonblocking collectives wrapped last. */
    int ones[16], counts[16], displs[16], in[16], out[16];
    MPI_Datatype types[16];
    for (int i = 0; i < size; ++i) {
        ones[i] = 1;
        counts[i] = 1;
        displs[i] = i * (int)sizeof(int);
        types[i] = MPI_INT;
        in[i] = rank + i;
    }
    int reduced = 0;
    MPI_Ireduce_scatter(in, &reduced, ones, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    errors += check(reduced == size * (size - 1) / 2 + size * rank, "MPI_Ireduce_scatter");
    MPI_Ialltoallw(in, counts, displs, types, out, counts, displs, types, MPI_COMM_WORLD, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    errors += check(out[size - 1] == size - 1 + rank, "MPI_Ialltoallw");

    /* A communicator from MPI_Comm_idup, defined when its request completes. */
    MPI_Comm dup;
    MPI_Comm_idup(MPI_COMM_WORLD, &dup, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    MPI_Barrier(dup);
    double block[64] = {0};
    if (rank % 2 == 0) {
        spin_ms(delay_ms);
        MPI_Send(block, 64, MPI_DOUBLE, rank + 1, 5, dup);
    } else {
        MPI_Recv(block, 64, MPI_DOUBLE, rank - 1, 5, dup, MPI_STATUS_IGNORE);
    }
    MPI_Comm_free(&dup);

    /* Neighbourhood collectives on a periodic ring: two neighbours each. */
    MPI_Comm ring;
    int dims[1] = {size}, periods[1] = {1};
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    int send2[2] = {rank, rank}, recv2[2] = {-1, -1}, two[2] = {1, 1}, at[2] = {0, 1};
    MPI_Aint wat[2] = {0, sizeof(int)};
    MPI_Datatype ints[2] = {MPI_INT, MPI_INT};
    const int left = (rank + size - 1) % size, right = (rank + 1) % size;
    MPI_Neighbor_allgather(&rank, 1, MPI_INT, recv2, 1, MPI_INT, ring);
    errors += check(recv2[0] == left && recv2[1] == right, "MPI_Neighbor_allgather");
    MPI_Neighbor_allgatherv(&rank, 1, MPI_INT, recv2, two, at, MPI_INT, ring);
    MPI_Neighbor_alltoall(send2, 1, MPI_INT, recv2, 1, MPI_INT, ring);
    MPI_Neighbor_alltoallv(send2, two, at, MPI_INT, recv2, two, at, MPI_INT, ring);
    MPI_Neighbor_alltoallw(send2, two, wat, ints, recv2, two, wat, ints, ring);
    MPI_Request five[5];
    int r5[5][2];
    MPI_Ineighbor_allgather(&rank, 1, MPI_INT, r5[0], 1, MPI_INT, ring, &five[0]);
    MPI_Ineighbor_allgatherv(&rank, 1, MPI_INT, r5[1], two, at, MPI_INT, ring, &five[1]);
    MPI_Ineighbor_alltoall(send2, 1, MPI_INT, r5[2], 1, MPI_INT, ring, &five[2]);
    MPI_Ineighbor_alltoallv(send2, two, at, MPI_INT, r5[3], two, at, MPI_INT, ring, &five[3]);
    MPI_Ineighbor_alltoallw(send2, two, wat, ints, r5[4], two, wat, ints, ring, &five[4]);
    MPI_Waitall(5, five, MPI_STATUSES_IGNORE);
    errors += check(r5[4][0] == left && r5[4][1] == right, "MPI_Ineighbor_alltoallw");

    /* Persistent collectives (MPI 4.0, Open MPI's MPIX_ extension). */
    MPI_Request sum, barrier, exchange;
    int mine = rank + 1, total = 0;
    MPIX_Allreduce_init(&mine, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &sum);
    MPIX_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &barrier);
    MPIX_Neighbor_alltoall_init(send2, 1, MPI_INT, recv2, 1, MPI_INT, ring, MPI_INFO_NULL,
                                &exchange);
    for (int i = 0; i < 3; ++i) {
        MPI_Start(&sum);
        MPI_Wait(&sum, MPI_STATUS_IGNORE);
        errors += check(total == size * (size + 1) / 2, "MPIX_Allreduce_init");
    }
    for (int i = 0; i < 2; ++i) {
        MPI_Start(&barrier);
        MPI_Wait(&barrier, MPI_STATUS_IGNORE);
        MPI_Start(&exchange);
        MPI_Wait(&exchange, MPI_STATUS_IGNORE);
    }
    MPI_Request_free(&sum);
    MPI_Request_free(&barrier);
    MPI_Request_free(&exchange);
    MPI_Comm_free(&ring);

    /* Intercommunicators made from an intercommunicator: their identities are derived. */
    MPI_Comm half, inter, inter_dup, inter_idup;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 == 0 ? 1 : 0, 8, &inter);
    MPI_Comm_dup(inter, &inter_dup);
    MPI_Comm_idup(inter, &inter_idup, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    int local = 0, token = rank, back = -1;
    MPI_Comm_rank(half, &local);
    MPI_Sendrecv(&token, 1, MPI_INT, local, 3, &back, 1, MPI_INT, local, 3, inter_dup,
                 MPI_STATUS_IGNORE);
    errors += check(back == (rank ^ 1), "MPI_Sendrecv on a dup of an intercommunicator");
    back = -1;
    MPI_Sendrecv(&token, 1, MPI_INT, local, 4, &back, 1, MPI_INT, local, 4, inter_idup,
                 MPI_STATUS_IGNORE);
    errors += check(back == (rank ^ 1), "MPI_Sendrecv on an idup of an intercommunicator");
    MPI_Comm_free(&inter_idup);
    MPI_Comm_free(&inter_dup);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);

    /* Calls without a wrapper: counted by name. */
    char name[MPI_MAX_OBJECT_NAME];
    int length = 0;
    MPI_Comm_get_name(MPI_COMM_WORLD, name, &length);
    MPI_Comm_get_name(MPI_COMM_SELF, name, &length);

    if (rank == 0 && errors == 0)
        printf("mpi3_mpi4_calls ok\n");
    MPI_Finalize();
    return errors == 0 ? 0 : 1;
}
