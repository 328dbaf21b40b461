/*
 * thread_join_path -- a POSIX thread's extra work on the critical path: the main thread joins
 * it and only then calls MPI.
 *
 * Two ranks, a delay D (WS_DELAY_MS, default 100 ms). After MPI_Init and an MPI_Barrier, every
 * rank's main thread creates one thread, works D itself (main_part) and joins the thread; then
 * the ranks meet in MPI_Barrier:
 *
 *   rank 0   its thread works D (slow_part): the join hardly waits
 *   rank 1   its thread works 3 x D (slow_part): the main thread waits about 2 x D in
 *            pthread_join (the injected extra work), and rank 1 enters the final MPI_Barrier
 *            about 2 x D after rank 0
 *
 * So the run's critical path passes from the final barrier to rank 1's main thread, at its join
 * to the thread, through the thread's slow_part (3 x D) and back to the main thread where it
 * created the thread: rank 1's main_part is off the path, and the join's wait (2 x D) is the
 * thread's delay cost on slow_part (delay_pthread_join). Sleeping (not spinning) keeps the
 * sizes exact when ranks and threads share few cores.
 * Usage: mpirun -np 2 example_thread_join_path
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define WS_NOINLINE __attribute__((noinline))

static double g_delay_ms = 100.0;

static void sleep_ms(double ms) {
    struct timespec t;
    t.tv_sec = (time_t)(ms / 1000.0);
    t.tv_nsec = (long)((ms - (double)t.tv_sec * 1000.0) * 1e6);
    while (nanosleep(&t, &t) != 0) {
    }
}

/* The thread's work: D on rank 0, 3 x D on rank 1. */
static WS_NOINLINE void slow_part(double ms) {
    sleep_ms(ms);
}

static WS_NOINLINE void* worker(void* argument) {
    slow_part(*(const double*)argument);
    return NULL;
}

/* The main thread's work while its thread runs. */
static WS_NOINLINE void main_part(void) {
    sleep_ms(g_delay_ms);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char* delay = getenv("WS_DELAY_MS");
    if (delay != NULL && atof(delay) > 0.0)
        g_delay_ms = atof(delay);
    double work = (rank == 1 ? 3.0 : 1.0) * g_delay_ms;
    MPI_Barrier(MPI_COMM_WORLD);
    pthread_t thread;
    if (pthread_create(&thread, NULL, worker, &work) != 0) {
        fprintf(stderr, "thread_join_path: cannot create a thread\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    main_part();
    pthread_join(thread, NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("thread_join_path: %d ranks, rank 1's thread works %.0f ms more than its main "
               "thread\n",
               size, 2.0 * g_delay_ms);
    MPI_Finalize();
    return 0;
}
