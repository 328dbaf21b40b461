/* The spinning function of the thread sampling programs: worker_spin() computes for a given
 * wall-clock time, in a function of its own (not inlined) that samples can name. */
#ifndef WAITSCOPE_TEST_WORKER_SPIN_H
#define WAITSCOPE_TEST_WORKER_SPIN_H

#include <time.h>

static double seconds_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

__attribute__((noinline)) double worker_spin(double seconds) {
    double end = seconds_now() + seconds;
    double x = 0;
    while (seconds_now() < end)
        for (int i = 0; i < 1000; ++i)
            x += (double)i * 1e-9;
    return x;
}

#endif
