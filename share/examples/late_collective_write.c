/*
 * late_collective_write -- one rank arrives late at a collective file write.
 *
 * In each iteration the last rank prepares its data for delay ms in prepare_data(); then all
 * ranks write their block of a shared file with MPI_File_write_at_all in write_checkpoint().
 * The other ranks wait for the last one inside the collective write.
 *
 * Injected wait : time in collective MPI file I/O (Scalasca metric mpi_io_collective), all of
 *                 it Wait at Collective I/O (Waitscope's mpi_io_wait_collective)
 * Call path     : main/write_checkpoint/MPI_File_write_at_all
 * Ranks         : all but the last; each waits iterations x delay
 * Size          : defaults 5 iterations x 400 ms, 4 ranks: ranks 0-2 2.0 s each (the delay
 *                 is long, so the write itself, tens of ms, stays within a few per cent).
 * Counts        : per rank iterations collective writes of 4 KiB (mpi_file_cwops; bytes:
 *                 io_bytes_written, iterations x 4096).
 *
 * The file (late_collective_write.dat in the working directory) is deleted at the end.
 *
 * Usage: example_late_collective_write [iterations [delay_ms]]
 */
#include "ws_example.h"

#define BLOCK_INTS 1024 /* 4 KiB per rank and iteration */

static WS_NOINLINE void prepare_data(int rank, int size, double delay_ms, int* block, int it) {
    if (rank == size - 1)
        ws_spin_ms(delay_ms);
    for (int i = 0; i < BLOCK_INTS; ++i)
        block[i] = it * 1000000 + rank * 10000 + i;
}

static WS_NOINLINE void write_checkpoint(MPI_File fh, int rank, int size, int it,
                                         const int* block) {
    const MPI_Offset offset = ((MPI_Offset)it * size + rank) * BLOCK_INTS * (MPI_Offset)sizeof(int);
    MPI_File_write_at_all(fh, offset, block, BLOCK_INTS, MPI_INT, MPI_STATUS_IGNORE);
}

int main(int argc, char** argv) {
    int rank = 0, size = 0;
    ws_params par;
    static int block[BLOCK_INTS];

    WS_START(argc, argv, "example_late_collective_write", 2, 5, 400.0, rank, size, par);

    MPI_File fh;
    if (MPI_File_open(MPI_COMM_WORLD, "late_collective_write.dat",
                      MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh) != MPI_SUCCESS) {
        if (rank == 0)
            fprintf(stderr,
                    "example_late_collective_write: cannot open late_collective_write.dat\n");
        MPI_Finalize();
        return 1;
    }
    start_together();
    for (int it = 0; it < par.iterations; ++it) {
        prepare_data(rank, size, par.delay_ms, block, it);
        write_checkpoint(fh, rank, size, it, block);
    }
    MPI_File_close(&fh);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_File_delete("late_collective_write.dat", MPI_INFO_NULL);
        printf("late_collective_write: %d ranks, %d iterations, delay %g ms\n", size,
               par.iterations, par.delay_ms);
    }
    MPI_Finalize();
    return 0;
}
