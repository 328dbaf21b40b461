/* Threads whose pthread_t the C library hands out again: in each of argv[1] rounds (default
 * 4) a detached thread runs and ends (detached at creation in even rounds, by pthread_detach
 * in odd ones), then a joinable thread is created, which glibc gives the ended thread's
 * descriptor and so its pthread_t, and joined. Prints per rank how many joinable threads got a
 * detached one's pthread_t. */
#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static atomic_int g_detachedDone;

static void* detached_main(void* argument) {
    (void)argument;
    atomic_store(&g_detachedDone, 1);
    return NULL;
}

static void* joined_main(void* argument) {
    (void)argument;
    return NULL;
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const int rounds = argc > 1 ? atoi(argv[1]) : 4;
    int reused = 0;
    for (int round = 0; round < rounds; ++round) {
        pthread_t detached, joined;
        atomic_store(&g_detachedDone, 0);
        pthread_attr_t attributes;
        pthread_attr_init(&attributes);
        if (round % 2 == 0)
            pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
        if (pthread_create(&detached, &attributes, detached_main, NULL) != 0)
            MPI_Abort(MPI_COMM_WORLD, 1);
        pthread_attr_destroy(&attributes);
        if (round % 2 == 1)
            pthread_detach(detached);
        while (!atomic_load(&g_detachedDone))
            sched_yield();
        /* The thread's exit after its routine returned gives its descriptor back. */
        const struct timespec pause = {0, 30 * 1000 * 1000};
        nanosleep(&pause, NULL);
        if (pthread_create(&joined, NULL, joined_main, NULL) != 0)
            MPI_Abort(MPI_COMM_WORLD, 1);
        reused += pthread_equal(detached, joined) != 0;
        pthread_join(joined, NULL);
    }
    printf("rank %d: %d of %d joinable threads reused a detached thread's pthread_t\n", rank,
           reused, rounds);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
