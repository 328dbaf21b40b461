/* Asks for MPI_THREAD_MULTIPLE; on rank 0 a thread starts a nonblocking send of 4 MiB (sent by
 * rendezvous) and exits, and the main thread completes it with MPI_Wait. Rank 1 posts the
 * receive 1 s after both left a barrier, so rank 0's MPI_Wait waits about 1 s for it (a Late
 * Receiver, found only when the send and its completion on two threads are paired). Run with
 * 2 ranks. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { kCount = 1 << 19 }; /* doubles: 4 MiB */

static double* g_buffer;
static MPI_Request g_request = MPI_REQUEST_NULL;

static void* start_send(void* arg) {
    (void)arg;
    MPI_Isend(g_buffer, kCount, MPI_DOUBLE, 1, 7, MPI_COMM_WORLD, &g_request);
    return NULL;
}

int main(int argc, char** argv) {
    int provided = 0, rank = 0, size = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided != MPI_THREAD_MULTIPLE || size != 2) {
        if (rank == 0)
            printf("request_threads: provided=%d size=%d, skipped\n", provided, size);
        MPI_Finalize();
        return 0;
    }
    g_buffer = calloc(kCount, sizeof(double));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        pthread_t thread;
        pthread_create(&thread, NULL, start_send, NULL);
        pthread_join(thread, NULL);
        MPI_Wait(&g_request, MPI_STATUS_IGNORE);
    } else {
        struct timespec late = {1, 0};
        while (nanosleep(&late, &late) != 0) {
        }
        MPI_Recv(g_buffer, kCount, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    free(g_buffer);
    if (rank == 0)
        printf("request_threads: provided=%d done\n", provided);
    MPI_Finalize();
    return 0;
}
