/*
 * openmp_waits -- injects OpenMP wait states inside every rank (MPI + OpenMP).
 *
 * With T threads per rank (OMP_NUM_THREADS) and a delay D (WS_DELAY_MS, default 100 ms),
 * each rank runs, one after the other:
 *
 *   imbalanced_loop     a parallel loop of T iterations, schedule(static, 1): thread i
 *                       sleeps i x D, so it waits (T-1-i) x D in the loop's implicit
 *                       barrier (omp_ibarrier_wait); thread 0 waits (T-1) x D.
 *   contended_critical  after an explicit barrier, every thread enters one critical
 *                       section and holds it D: the k-th to get in waits k x D
 *                       (omp_lock_contention_critical, D x T(T-1)/2 over the team).
 *   serial_section      thread 0 alone sleeps 3 x D between parallel regions: every other
 *                       thread is idle 3 x D there (omp_idle_threads).
 *   uneven_tasks        one thread creates T tasks (task i sleeps (i+1) x D), then works
 *                       2 x D itself. The other threads run the tasks meanwhile in the
 *                       barrier that ends the single construct: that is work, not waiting,
 *                       so the barrier shows (almost) no wait although they sat in it first.
 *
 * Sleeping (not spinning) keeps the sizes exact when ranks and threads share few cores.
 * Build: mpicc -fopenmp with an OMPT runtime (clang's libomp) to record the OpenMP events.
 * Usage: OMP_NUM_THREADS=3 mpirun -np 2 example_openmp_waits
 */
#include <mpi.h>
#include <omp.h>
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

static WS_NOINLINE void imbalanced_loop(void) {
    int n = omp_get_max_threads();
#pragma omp parallel for schedule(static, 1)
    for (int i = 0; i < n; ++i)
        sleep_ms(i * g_delay_ms);
}

static WS_NOINLINE void contended_critical(void) {
#pragma omp parallel
    {
#pragma omp barrier
#pragma omp critical
        sleep_ms(g_delay_ms);
    }
}

static WS_NOINLINE void serial_section(void) {
    sleep_ms(3 * g_delay_ms);
}

static WS_NOINLINE void uneven_tasks(void) {
    int n = omp_get_max_threads();
#pragma omp parallel
#pragma omp single
    {
        for (int i = 0; i < n; ++i) {
#pragma omp task firstprivate(i)
            sleep_ms((i + 1) * g_delay_ms);
        }
        sleep_ms(2 * g_delay_ms);
    }
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    const char* delay = getenv("WS_DELAY_MS");
    if (delay != NULL && atof(delay) > 0)
        g_delay_ms = atof(delay);
    MPI_Barrier(MPI_COMM_WORLD);
    imbalanced_loop();
    contended_critical();
    serial_section();
    uneven_tasks();
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
