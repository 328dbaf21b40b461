/* Rank 1 ends the job early: "abort" calls MPI_Abort, "segv" raises SIGSEGV, "kill" is killed
 * by rank 0 with SIGKILL (from outside its process), "exit3" returns 3 after MPI_Finalize,
 * "block_archive" puts a file where the OTF2 archive's folder goes and finalizes normally,
 * "segv_split" first passes nonblocking messages and allreduces in halves of the world (a
 * derived communicator) and then segfaults on rank 1, "segv_rma_io" first writes its block
 * of FILE (the third argument) collectively and puts into its right neighbour's window in
 * fence epochs, `iterations` times each, and segfaults on rank 1 with the file open and the
 * window not freed, "segv_encoded" waits on rank 1 until its spill writer kept chunks as OTF2
 * events (the experiment's ranks/1.records.encoded names some, WAITSCOPE_EXPERIMENT_DIRECTORY),
 * then passes `iterations` rings and barriers more and segfaults on rank 1.
 * Before that the ranks pass a ring of messages and barriers (`iterations`, default 10), and
 * the others then wait in a receive that never completes, so the job ends only through the
 * fault. Rank 0 prints one line, so tests see the program's output. */
#include <mpi.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Waits (at most a minute) until the measurement's mark of the events it kept encoded (five
 * 64-bit words: magic, event file bytes, ...) names some bytes of the event file. */
static void waitForEncodedEvents(int rank) {
    const char* dir = getenv("WAITSCOPE_EXPERIMENT_DIRECTORY");
    if (!dir)
        return;
    char path[4096];
    snprintf(path, sizeof(path), "%s/ranks/%d.records.encoded", dir, rank);
    for (int tries = 0; tries < 6000; ++tries) {
        uint64_t mark[5] = {0, 0, 0, 0, 0};
        FILE* f = fopen(path, "rb");
        if (f) {
            size_t n = fread(mark, sizeof(mark), 1, f);
            fclose(f);
            if (n == 1 && mark[1] > 0)
                return;
        }
        struct timespec pause = {0, 10 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char* mode = argc > 1 ? argv[1] : "abort";
    const int iterations = argc > 2 ? atoi(argv[2]) : 10;
    if (rank == 0) {
        printf("faults: %s\n", mode);
        fflush(stdout);
    }
    for (int i = 0; i < iterations; ++i) {
        int token = i;
        MPI_Sendrecv_replace(&token, 1, MPI_INT, (rank + 1) % size, 1, (rank + size - 1) % size, 1,
                             MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (strcmp(mode, "segv_split") == 0) {
        MPI_Comm half;
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
        int hrank = 0, hsize = 1;
        MPI_Comm_rank(half, &hrank);
        MPI_Comm_size(half, &hsize);
        for (int i = 0; i < iterations; ++i) {
            int out = i, in = 0, sum = 0;
            MPI_Request requests[2];
            MPI_Irecv(&in, 1, MPI_INT, (hrank + hsize - 1) % hsize, 3, half, &requests[0]);
            MPI_Isend(&out, 1, MPI_INT, (hrank + 1) % hsize, 3, half, &requests[1]);
            MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
            MPI_Allreduce(&in, &sum, 1, MPI_INT, MPI_SUM, half);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 1)
            raise(SIGSEGV);
    }
    if (strcmp(mode, "segv_rma_io") == 0 && argc > 3) {
        MPI_File file;
        MPI_File_open(MPI_COMM_WORLD, argv[3], MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL,
                      &file);
        int exposed = 0;
        MPI_Win win;
        MPI_Win_create(&exposed, sizeof exposed, sizeof exposed, MPI_INFO_NULL, MPI_COMM_WORLD,
                       &win);
        MPI_Win_fence(0, win);
        for (int i = 0; i < iterations; ++i) {
            int block[4] = {rank, i, rank, i};
            MPI_File_write_at_all(file, (MPI_Offset)((i * size + rank) * (int)sizeof block), block,
                                  4, MPI_INT, MPI_STATUS_IGNORE);
            MPI_Put(&i, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, win);
            MPI_Win_fence(0, win);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 1)
            raise(SIGSEGV);
    }
    if (strcmp(mode, "segv_encoded") == 0) {
        if (rank == 1)
            waitForEncodedEvents(rank);
        for (int i = 0; i < iterations; ++i) {
            int token = i;
            MPI_Sendrecv_replace(&token, 1, MPI_INT, (rank + 1) % size, 1, (rank + size - 1) % size,
                                 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Barrier(MPI_COMM_WORLD);
        }
        if (rank == 1)
            raise(SIGSEGV);
    }
    if (strcmp(mode, "block_archive") == 0) {
        const char* dir = getenv("WAITSCOPE_EXPERIMENT_DIRECTORY");
        if (rank == 0 && dir) {
            char path[4096];
            snprintf(path, sizeof(path), "%s/traces", dir);
            FILE* f = fopen(path, "w");
            if (f)
                fclose(f);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Finalize();
        return 0;
    }
    if (strcmp(mode, "exit3") == 0) {
        MPI_Finalize();
        return 3;
    }
    if (strcmp(mode, "kill") == 0) {
        int pid = (int)getpid();
        if (rank == 1)
            MPI_Send(&pid, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
        if (rank == 0) {
            MPI_Recv(&pid, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            kill((pid_t)pid, SIGKILL);
        }
    } else if (rank == 1) {
        if (strcmp(mode, "abort") == 0)
            MPI_Abort(MPI_COMM_WORLD, 7);
        raise(SIGSEGV);
    }
    int x = 0;
    MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
