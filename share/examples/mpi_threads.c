/*
 * mpi_threads -- MPI from four threads of every rank at once (MPI_THREAD_MULTIPLE), one
 * thread's partner late.
 *
 * Two ranks. After MPI_Init_thread, every rank's main thread starts four threads; thread t of
 * rank 0 sends WS_ITERATIONS messages (default 3) to thread t of rank 1, each thread on its own
 * tag t, and waits for the reply before the next one:
 *
 *   thread 0   MPI_Send / MPI_Recv on MPI_COMM_WORLD, tag 0
 *   thread 1   MPI_Isend + MPI_Wait / MPI_Irecv + MPI_Wait on MPI_COMM_WORLD, tag 1
 *   thread 2   as thread 0 on tag 2, but rank 0's thread sleeps D (WS_DELAY_MS, default
 *              200 ms) before each send: rank 1's thread 2 waits about D in MPI_Recv per
 *              message (Late Sender, iterations x D in all), the other threads do not
 *   thread 3   as thread 0 on tag 3, on a communicator the main thread duplicated for it
 *              (MPI_Comm_dup), and at the end an MPI_Barrier on that communicator
 *
 * Each thread of each rank thus sends and receives WS_ITERATIONS messages; rank 1's threads
 * answer every message at once. The main thread joins the threads and ends with an
 * MPI_Barrier on MPI_COMM_WORLD. Sleeping (not spinning) keeps the delay exact when ranks and
 * threads share few cores. If the library grants less than MPI_THREAD_MULTIPLE the program
 * says so and exits.
 * Usage: mpirun -np 2 example_mpi_threads
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define WS_NOINLINE __attribute__((noinline))
#define WS_THREADS 4

static double g_delay_ms = 200.0;
static int g_iterations = 3;
static int g_rank = 0;
static MPI_Comm g_thread3_comm = MPI_COMM_NULL;
static pthread_barrier_t g_start;

static void sleep_ms(double ms) {
    struct timespec t;
    t.tv_sec = (time_t)(ms / 1000.0);
    t.tv_nsec = (long)((ms - (double)t.tv_sec * 1000.0) * 1e6);
    while (nanosleep(&t, &t) != 0) {
    }
}

/* Thread 2's sender: the late one. */
static WS_NOINLINE void late_work(void) {
    sleep_ms(g_delay_ms);
}

static WS_NOINLINE void blocking_exchange(int tag, MPI_Comm comm) {
    double value = (double)tag;
    for (int i = 0; i < g_iterations; ++i) {
        if (g_rank == 0) {
            if (tag == 2)
                late_work();
            MPI_Send(&value, 1, MPI_DOUBLE, 1, tag, comm);
            MPI_Recv(&value, 1, MPI_DOUBLE, 1, tag, comm, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&value, 1, MPI_DOUBLE, 0, tag, comm, MPI_STATUS_IGNORE);
            MPI_Send(&value, 1, MPI_DOUBLE, 0, tag, comm);
        }
    }
}

static WS_NOINLINE void nonblocking_exchange(int tag) {
    double value = (double)tag;
    const int partner = 1 - g_rank;
    for (int i = 0; i < g_iterations; ++i) {
        MPI_Request request;
        if (g_rank == 0) {
            MPI_Isend(&value, 1, MPI_DOUBLE, partner, tag, MPI_COMM_WORLD, &request);
            MPI_Wait(&request, MPI_STATUS_IGNORE);
            MPI_Irecv(&value, 1, MPI_DOUBLE, partner, tag, MPI_COMM_WORLD, &request);
            MPI_Wait(&request, MPI_STATUS_IGNORE);
        } else {
            MPI_Irecv(&value, 1, MPI_DOUBLE, partner, tag, MPI_COMM_WORLD, &request);
            MPI_Wait(&request, MPI_STATUS_IGNORE);
            MPI_Isend(&value, 1, MPI_DOUBLE, partner, tag, MPI_COMM_WORLD, &request);
            MPI_Wait(&request, MPI_STATUS_IGNORE);
        }
    }
}

static WS_NOINLINE void* exchange(void* argument) {
    const int tag = (int)(size_t)argument;
    pthread_barrier_wait(&g_start);
    if (tag == 1) {
        nonblocking_exchange(tag);
    } else if (tag == 3) {
        blocking_exchange(tag, g_thread3_comm);
        MPI_Barrier(g_thread3_comm);
    } else {
        blocking_exchange(tag, MPI_COMM_WORLD);
    }
    return NULL;
}

int main(int argc, char** argv) {
    int provided = MPI_THREAD_SINGLE;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    int size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE || size != 2) {
        if (g_rank == 0)
            fprintf(stderr,
                    "mpi_threads: needs 2 ranks and MPI_THREAD_MULTIPLE (got %d ranks, "
                    "thread level %d)\n",
                    size, provided);
        MPI_Finalize();
        return 1;
    }
    const char* delay = getenv("WS_DELAY_MS");
    if (delay != NULL && atof(delay) > 0.0)
        g_delay_ms = atof(delay);
    const char* iterations = getenv("WS_ITERATIONS");
    if (iterations != NULL && atoi(iterations) > 0)
        g_iterations = atoi(iterations);
    MPI_Comm_dup(MPI_COMM_WORLD, &g_thread3_comm);
    pthread_barrier_init(&g_start, NULL, WS_THREADS);
    MPI_Barrier(MPI_COMM_WORLD);
    pthread_t threads[WS_THREADS];
    for (size_t t = 0; t < WS_THREADS; ++t)
        pthread_create(&threads[t], NULL, exchange, (void*)t);
    for (size_t t = 0; t < WS_THREADS; ++t)
        pthread_join(threads[t], NULL);
    pthread_barrier_destroy(&g_start);
    MPI_Comm_free(&g_thread3_comm);
    MPI_Barrier(MPI_COMM_WORLD);
    if (g_rank == 0)
        printf("mpi_threads: %d threads x %d messages each way, thread 2 late by %.0f ms\n",
               WS_THREADS, g_iterations, g_delay_ms);
    MPI_Finalize();
    return 0;
}
