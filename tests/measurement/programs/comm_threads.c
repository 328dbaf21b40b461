/* Asks for MPI_THREAD_MULTIPLE; four threads each duplicate an intercommunicator of their own
 * (made by the main thread) 25 times, all at once, so that the identities derived from the
 * parents are counted from several threads at the same time. Run with 2 ranks. */
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

enum { kThreads = 4, kDups = 25 };

static MPI_Comm g_inter[kThreads];
static int g_dups[kThreads];

static void* worker(void* arg) {
    const int t = (int)(intptr_t)arg;
    for (int i = 0; i < kDups; ++i) {
        MPI_Comm dup;
        MPI_Comm_dup(g_inter[t], &dup);
        int remote = 0;
        MPI_Comm_remote_size(dup, &remote);
        g_dups[t] += remote == 1;
        MPI_Comm_free(&dup);
    }
    return NULL;
}

int main(int argc, char** argv) {
    int provided = 0, rank = 0, size = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided != MPI_THREAD_MULTIPLE || size != 2) {
        if (rank == 0)
            printf("comm_threads: provided=%d size=%d, skipped\n", provided, size);
        MPI_Finalize();
        return 0;
    }
    MPI_Comm alone;
    MPI_Comm_split(MPI_COMM_WORLD, rank, 0, &alone);
    for (int t = 0; t < kThreads; ++t)
        MPI_Intercomm_create(alone, 0, MPI_COMM_WORLD, 1 - rank, 100 + t, &g_inter[t]);
    pthread_t threads[kThreads];
    for (int t = 0; t < kThreads; ++t)
        pthread_create(&threads[t], NULL, worker, (void*)(intptr_t)t);
    int dups = 0;
    for (int t = 0; t < kThreads; ++t) {
        pthread_join(threads[t], NULL);
        dups += g_dups[t];
    }
    for (int t = 0; t < kThreads; ++t)
        MPI_Comm_free(&g_inter[t]);
    MPI_Comm_free(&alone);
    if (rank == 0)
        printf("comm_threads: provided=%d dups=%d\n", provided, dups);
    MPI_Finalize();
    return 0;
}
