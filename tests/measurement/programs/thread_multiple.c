/* Asks for MPI_THREAD_MULTIPLE; the main thread communicates, and a second thread calls MPI
 * too (rank/size queries on a duplicate communicator and a barrier on it). */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

static MPI_Comm g_dup;

static void* worker(void* arg) {
    (void)arg;
    int r = 0;
    MPI_Comm_rank(g_dup, &r);
    MPI_Barrier(g_dup);
    return NULL;
}

int main(int argc, char** argv) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_dup(MPI_COMM_WORLD, &g_dup);
    pthread_t t;
    if (provided == MPI_THREAD_MULTIPLE)
        pthread_create(&t, NULL, worker, NULL);
    double v = 1, w = 0;
    MPI_Allreduce(&v, &w, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (provided == MPI_THREAD_MULTIPLE)
        pthread_join(t, NULL);
    else
        MPI_Barrier(g_dup);
    MPI_Comm_free(&g_dup);
    if (rank == 0)
        printf("thread_multiple: provided=%d\n", provided);
    MPI_Finalize();
    return 0;
}
