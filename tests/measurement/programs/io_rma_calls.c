/*
 * io_rma_calls -- MPI file I/O, one-sided communication and a few calls the measurement does
 * not record, each a known number of times per rank, so the trace's Enter counts and the
 * self-measurement's "not recorded" counts can be checked exactly.
 *
 * Per rank (any number of ranks, 2 or more):
 *   file I/O   MPI_File_open 1, MPI_File_set_view 1, MPI_File_write_at 2, MPI_File_write_all 1,
 *              MPI_File_iwrite_at 1 (completed by MPI_Wait 1), MPI_File_sync 1,
 *              MPI_File_read_at_all 1, MPI_File_iread (completed by MPI_Wait 1),
 *              MPI_File_seek 1 (to the collective block), MPI_File_seek_shared 1 (to 5),
 *              MPI_File_close 1; rank 0: MPI_File_delete 1
 *   one-sided  MPI_Win_create 1, MPI_Win_fence 3, MPI_Put 2, MPI_Get 1, MPI_Accumulate 1,
 *              MPI_Win_lock 1, MPI_Win_unlock 1, MPI_Rput 1 (MPI_Wait 1), MPI_Win_free 1,
 *              MPI_Win_allocate 1, MPI_Win_lock_all 1, MPI_Fetch_and_op 2, MPI_Win_flush_all 1,
 *              MPI_Win_unlock_all 1, MPI_Win_free 1 (2 in all)
 *   unrecorded MPI_Get_processor_name 2, MPI_Comm_set_name 1, MPI_Type_dup 3, MPI_Pack 2
 *
 * Usage: measure_io_rma_calls FILE
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv) {
    int rank = 0, size = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 2) {
        if (rank == 0)
            fprintf(stderr, "usage: measure_io_rma_calls FILE\n");
        MPI_Finalize();
        return 2;
    }

    /* Calls the measurement only counts. */
    char host[MPI_MAX_PROCESSOR_NAME];
    int length = 0;
    MPI_Get_processor_name(host, &length);
    MPI_Get_processor_name(host, &length);
    MPI_Comm_set_name(MPI_COMM_WORLD, "world");
    MPI_Datatype copies[3];
    for (int i = 0; i < 3; ++i)
        MPI_Type_dup(MPI_INT, &copies[i]);
    for (int i = 0; i < 3; ++i)
        MPI_Type_free(&copies[i]);
    char packed[64];
    int position = 0;
    for (int i = 0; i < 2; ++i)
        MPI_Pack(&rank, 1, MPI_INT, packed, (int)sizeof packed, &position, MPI_COMM_WORLD);

    /* File I/O: each rank owns 16 ints at rank * 64 bytes, then a collective block after. */
    int data[16];
    for (int i = 0; i < 16; ++i)
        data[i] = rank * 100 + i;
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
    MPI_Status status;
    MPI_File_write_at(fh, rank * 16, data, 8, MPI_INT, &status);
    MPI_File_write_at(fh, rank * 16 + 8, data + 8, 8, MPI_INT, MPI_STATUS_IGNORE);
    MPI_File_seek(fh, (MPI_Offset)(size * 16 + rank * 16), MPI_SEEK_SET);
    MPI_File_write_all(fh, data, 16, MPI_INT, &status);
    MPI_Request request;
    MPI_File_iwrite_at(fh, (MPI_Offset)(2 * size * 16 + rank), data, 1, MPI_INT, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    MPI_File_sync(fh);
    int back[16];
    MPI_File_read_at_all(fh, rank * 16, back, 16, MPI_INT, &status);
    int first = -1;
    MPI_File_iread(fh, &first, 1, MPI_INT, &request);
    MPI_Wait(&request, &status);
    MPI_File_seek_shared(fh, 5, MPI_SEEK_SET);
    MPI_File_close(&fh);
    int bad = memcmp(back, data, sizeof data) != 0;

    /* One-sided: a window of one int per rank, fence epochs, a lock, a request-based put. */
    int exposed[4] = {0, 0, 0, 0};
    MPI_Win win;
    MPI_Win_create(exposed, sizeof exposed, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    const int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Win_fence(0, win);
    MPI_Put(&rank, 1, MPI_INT, right, 0, 1, MPI_INT, win);
    MPI_Put(&rank, 1, MPI_INT, right, 1, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    int got = -1;
    MPI_Get(&got, 1, MPI_INT, left, 0, 1, MPI_INT, win);
    MPI_Accumulate(&rank, 1, MPI_INT, right, 2, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_fence(0, win);
    bad |= got != (left + size - 1) % size || exposed[0] != left;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win);
    MPI_Rput(&rank, 1, MPI_INT, right, 3, 1, MPI_INT, win, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    MPI_Win_unlock(right, win);
    MPI_Win_free(&win);

    int* counter = NULL;
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &counter, &win);
    *counter = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    const int one = 1;
    int old = 0;
    MPI_Fetch_and_op(&one, &old, MPI_INT, 0, 0, MPI_SUM, win);
    MPI_Fetch_and_op(&one, &old, MPI_INT, 0, 0, MPI_SUM, win);
    MPI_Win_flush_all(win);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        bad |= *counter != 2 * size;
    MPI_Win_free(&win);

    if (rank == 0)
        MPI_File_delete(argv[1], MPI_INFO_NULL);
    int anyBad = 0;
    MPI_Allreduce(&bad, &anyBad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        printf("io_rma_calls: %d ranks, %s\n", size, anyBad ? "WRONG DATA" : "data as written");
    MPI_Finalize();
    return anyBad ? 1 : 0;
}
