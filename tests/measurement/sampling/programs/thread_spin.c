/* Threads that compute for known times between MPI_Init and MPI_Finalize, for the per-thread
 * sampling tests: two pthreads run worker_main, which spins in worker_spin for argv[1] and
 * argv[2] seconds (wall clock), while the main thread spins argv[3] seconds; then all join. */
#include "worker_spin.h"

#include <mpi.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) void* worker_main(void* argument) {
    volatile double sink = worker_spin(*(const double*)argument);
    (void)sink;
    return NULL;
}

__attribute__((noinline)) double main_compute(double seconds) {
    volatile double result = worker_spin(seconds); /* not a tail call: keeps this frame */
    return result;
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    double durations[2] = {argc > 1 ? atof(argv[1]) : 0.4, argc > 2 ? atof(argv[2]) : 0.8};
    double mainSeconds = argc > 3 ? atof(argv[3]) : 0.3;
    pthread_t threads[2];
    for (int i = 0; i < 2; ++i)
        if (pthread_create(&threads[i], NULL, worker_main, &durations[i]) != 0)
            MPI_Abort(MPI_COMM_WORLD, 1);
    volatile double sink = main_compute(mainSeconds);
    (void)sink;
    for (int i = 0; i < 2; ++i)
        pthread_join(threads[i], NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
