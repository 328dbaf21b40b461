/*
 * pthread_waits -- injects POSIX threads wait states inside every rank (MPI + pthreads).
 *
 * With a delay D (WS_DELAY_MS, default 100 ms), every rank's main thread starts two threads
 * after MPI_Init and runs, one after the other:
 *
 *   hold_mutex       the main thread locks a mutex, lets thread "wait_for_mutex" go on (a
 *                    pthread barrier), and holds the mutex 5 x D: that thread waits about
 *                    5 x D in pthread_mutex_lock (pthread_lock_contention_mutex_lock).
 *   prepare_signal   the main thread works 4 x D more, then signals a condition variable
 *                    while holding its mutex. Thread "wait_for_signal" has waited on it since
 *                    the barrier: about 9 x D in pthread_cond_wait, through hold_mutex and
 *                    prepare_signal (pthread_lock_contention_conditional).
 *
 * Then the main thread joins both threads (pthread_join) and the ranks meet in MPI_Barrier.
 * Sleeping (not spinning) keeps the sizes exact when ranks and threads share few cores.
 * Usage: mpirun -np 2 example_pthread_waits
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define WS_NOINLINE __attribute__((noinline))

static double g_delay_ms = 100.0;

static pthread_mutex_t g_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t g_condition_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_condition = PTHREAD_COND_INITIALIZER;
static int g_ready = 0;
static pthread_barrier_t g_start;

static void sleep_ms(double ms) {
    struct timespec t;
    t.tv_sec = (time_t)(ms / 1000.0);
    t.tv_nsec = (long)((ms - (double)t.tv_sec * 1000.0) * 1e6);
    while (nanosleep(&t, &t) != 0) {
    }
}

/* Thread 1: waits for the mutex the main thread holds. */
static WS_NOINLINE void* wait_for_mutex(void* argument) {
    (void)argument;
    pthread_barrier_wait(&g_start);
    pthread_mutex_lock(&g_mutex);
    pthread_mutex_unlock(&g_mutex);
    return NULL;
}

/* Thread 2: waits until the main thread signals the condition. */
static WS_NOINLINE void* wait_for_signal(void* argument) {
    (void)argument;
    pthread_mutex_lock(&g_condition_mutex);
    pthread_barrier_wait(&g_start);
    while (!g_ready)
        pthread_cond_wait(&g_condition, &g_condition_mutex);
    pthread_mutex_unlock(&g_condition_mutex);
    return NULL;
}

static WS_NOINLINE void hold_mutex(void) {
    sleep_ms(5 * g_delay_ms);
    pthread_mutex_unlock(&g_mutex);
}

static WS_NOINLINE void prepare_signal(void) {
    sleep_ms(4 * g_delay_ms);
    pthread_mutex_lock(&g_condition_mutex);
    g_ready = 1;
    pthread_cond_signal(&g_condition);
    pthread_mutex_unlock(&g_condition_mutex);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    const char* delay = getenv("WS_DELAY_MS");
    if (delay != NULL && atof(delay) > 0.0)
        g_delay_ms = atof(delay);
    pthread_t threads[2];
    /* Three parties: the main thread and both threads, which then each wait as planned. */
    pthread_barrier_init(&g_start, NULL, 3);
    pthread_mutex_lock(&g_mutex);
    if (pthread_create(&threads[0], NULL, wait_for_mutex, NULL) != 0 ||
        pthread_create(&threads[1], NULL, wait_for_signal, NULL) != 0) {
        fprintf(stderr, "pthread_waits: cannot create the threads\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    pthread_barrier_wait(&g_start);
    /* Both threads wait now: one for g_mutex, the other on the condition (it released
     * g_condition_mutex in pthread_cond_wait, or is about to). */
    hold_mutex();
    prepare_signal();
    pthread_join(threads[0], NULL);
    pthread_join(threads[1], NULL);
    pthread_barrier_destroy(&g_start);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
