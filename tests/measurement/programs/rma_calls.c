/*
 * rma_calls -- every kind of one-sided call once or more, for the exact check of the RMA
 * records in the trace (docs/rma_records.md). Run with 3 ranks; right = rank + 1, left =
 * rank - 1 (mod size).
 *
 * Window A (MPI_Win_create, 8 ints per rank):
 *   fence; Put right, Put right (one pending transfer), Get left, Put MPI_PROC_NULL; fence;
 *   Accumulate right (1 int), Get_accumulate right (2 ints, 2 back), Compare_and_swap right;
 *   fence.
 *   PSCW: rank 0 posts to the others and waits; the others start on rank 0, Put to 0, Rget
 *   from 0, complete, then MPI_Wait on the Rget (Open MPI's pt2pt component completes a
 *   request-based transfer in an access epoch only at its end). Then again with MPI_Win_test
 *   polled at rank 0.
 *   Lock epoch: lock right exclusive; Raccumulate and Rget_accumulate right completed by
 *   MPI_Waitall; flush_local right; Put right; flush right; unlock right.
 * Window B (MPI_Win_create_dynamic): lock_all; flush_local_all; unlock_all; free.
 * Window C (MPI_Win_allocate_shared, 1 int): fence; Fetch_and_op on 0; fence; free.
 * Window A freed last.
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int bad = 0;

    int exposed[8] = {0};
    MPI_Win a;
    MPI_Win_create(exposed, sizeof exposed, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &a);
    MPI_Win_fence(0, a);
    MPI_Put(&rank, 1, MPI_INT, right, 0, 1, MPI_INT, a);
    MPI_Put(&rank, 1, MPI_INT, right, 1, 1, MPI_INT, a);
    int got = -1;
    MPI_Get(&got, 1, MPI_INT, left, 7, 1, MPI_INT, a);
    MPI_Put(&rank, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, a);
    MPI_Win_fence(0, a);
    bad |= exposed[0] != left || got != 0;
    int two[2] = {1, 1}, back[2] = {0, 0}, swapped = -1;
    MPI_Accumulate(&rank, 1, MPI_INT, right, 2, 1, MPI_INT, MPI_SUM, a);
    MPI_Get_accumulate(two, 2, MPI_INT, back, 2, MPI_INT, right, 3, 2, MPI_INT, MPI_SUM, a);
    MPI_Compare_and_swap(&rank, &rank, &swapped, MPI_INT, right, 6, a);
    MPI_Win_fence(0, a);

    MPI_Group world, others, zero;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    const int first = 0;
    MPI_Group_excl(world, 1, &first, &others);
    MPI_Group_incl(world, 1, &first, &zero);
    for (int round = 0; round < 2; ++round) {
        if (rank == 0) {
            MPI_Win_post(others, 0, a);
            if (round == 0) {
                MPI_Win_wait(a);
            } else {
                int done = 0;
                while (!done)
                    MPI_Win_test(a, &done);
            }
        } else {
            MPI_Request request;
            int value = -1;
            MPI_Win_start(zero, 0, a);
            MPI_Put(&rank, 1, MPI_INT, 0, rank, 1, MPI_INT, a);
            MPI_Rget(&value, 1, MPI_INT, 0, 7, 1, MPI_INT, a, &request);
            MPI_Win_complete(a);
            MPI_Wait(&request, MPI_STATUS_IGNORE); /* completed by the epoch's end already */
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Request requests[2];
    const int one = 1;
    int fetched = 0;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, a);
    MPI_Raccumulate(&one, 1, MPI_INT, right, 4, 1, MPI_INT, MPI_SUM, a, &requests[0]);
    MPI_Rget_accumulate(&one, 1, MPI_INT, &fetched, 1, MPI_INT, right, 5, 1, MPI_INT, MPI_SUM, a,
                        &requests[1]);
    MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
    MPI_Win_flush_local(right, a);
    MPI_Put(&one, 1, MPI_INT, right, 7, 1, MPI_INT, a);
    MPI_Win_flush(right, a);
    MPI_Win_unlock(right, a);
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Win b;
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &b);
    MPI_Win_lock_all(0, b);
    MPI_Win_flush_local_all(b);
    MPI_Win_unlock_all(b);
    MPI_Win_free(&b);

    int* shared = NULL;
    MPI_Win c;
    MPI_Win_allocate_shared(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &shared, &c);
    *shared = 0;
    MPI_Win_fence(0, c);
    int old = 0;
    MPI_Fetch_and_op(&one, &old, MPI_INT, 0, 0, MPI_SUM, c);
    MPI_Win_fence(0, c);
    if (rank == 0)
        bad |= *shared != size;
    MPI_Win_free(&c);

    MPI_Group_free(&zero);
    MPI_Group_free(&others);
    MPI_Group_free(&world);
    MPI_Win_free(&a);
    int anyBad = 0;
    MPI_Allreduce(&bad, &anyBad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        printf("rma_calls: %d ranks%s\n", size, anyBad ? " (WRONG DATA)" : ", data as expected");
    MPI_Finalize();
    return anyBad;
}
