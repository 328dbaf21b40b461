/*
 * Many MPI calls between short bursts of computation that allocates, at a high sampling
 * rate: the signal handler must neither crash, deadlock nor corrupt the record stream.
 * Usage: sampling_stress [iterations] [helper]
 * With "helper" (the TSan run), MPI runs with MPI_THREAD_MULTIPLE and a second thread calls
 * MPI and computes meanwhile: the measurement counts its calls from that thread while the
 * main thread records and is sampled; the helper, created after MPI_Init, is sampled too.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static volatile double g_sink;
static atomic_int g_done;

/* Recursion of varying depth, with malloc/free, so samples land at many depths and inside
 * the allocator. */
__attribute__((noinline)) static double churn(int depth) {
    double* block = malloc(2048 * sizeof(double));
    double sum = 0;
    for (int i = 0; i < 2048; ++i)
        block[i] = i * 0.5 + depth;
    for (int i = 0; i < 2048; ++i)
        sum += block[i];
    free(block);
    return depth > 0 ? sum + churn(depth - 1) : sum;
}

__attribute__((noinline)) static void exchange(int rank, int size, double* value) {
    int peer = (rank + 1) % size, from = (rank + size - 1) % size;
    double in = 0;
    MPI_Sendrecv(value, 1, MPI_DOUBLE, peer, 3, &in, 1, MPI_DOUBLE, from, 3, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    *value += in;
}

__attribute__((noinline)) static void nonblocking(int rank, int size) {
    int peer = (rank + 1) % size, from = (rank + size - 1) % size;
    double out = rank, in = 0;
    MPI_Request requests[2];
    MPI_Irecv(&in, 1, MPI_DOUBLE, from, 4, MPI_COMM_WORLD, &requests[0]);
    MPI_Isend(&out, 1, MPI_DOUBLE, peer, 4, MPI_COMM_WORLD, &requests[1]);
    MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
}

/* The helper thread: MPI calls from a thread other than the measured one, until main is done. */
static void* helper(void* unused) {
    (void)unused;
    double sum = 0;
    while (!atomic_load(&g_done)) {
        int rank = 0;
        double out = 1, in = 0;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank); /* counted */
        /* A recorded call: the measurement counts it as a foreign thread's. */
        MPI_Sendrecv(&out, 1, MPI_DOUBLE, 0, 5, &in, 1, MPI_DOUBLE, 0, 5, MPI_COMM_SELF,
                     MPI_STATUS_IGNORE);
        sum += in;
        for (int i = 0; i < 10000; ++i)
            sum += i * 1e-9 + rank;
    }
    g_sink = sum;
    return NULL;
}

int main(int argc, char** argv) {
    int withHelper = argc > 2 && strcmp(argv[2], "helper") == 0, provided = 0;
    if (withHelper) {
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
        withHelper = provided == MPI_THREAD_MULTIPLE;
    } else {
        MPI_Init(&argc, &argv);
    }
    pthread_t thread;
    if (withHelper && pthread_create(&thread, NULL, helper, NULL) != 0)
        withHelper = 0;
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int iterations = argc > 1 ? atoi(argv[1]) : 20000;
    double value = rank;
    for (int it = 0; it < iterations; ++it) {
        int me = 0;
        MPI_Comm_rank(MPI_COMM_WORLD, &me); /* counted, not unwound */
        g_sink = churn(it % 7);
        exchange(rank, size, &value);
        if (it % 3 == 0)
            nonblocking(rank, size);
        if (it % 10 == 0)
            MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }
    if (withHelper) {
        atomic_store(&g_done, 1);
        pthread_join(thread, NULL);
    }
    MPI_Finalize();
    return 0;
}
