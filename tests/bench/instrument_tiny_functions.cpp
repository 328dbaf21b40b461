// Many tiny, frequently called functions: the dilation compiler instrumentation causes.
// Usage: instrument_tiny_functions [calls]; prints "calls=<n> ns_per_call=<t>" (median of 5).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mpi.h>

__attribute__((noinline)) double tiny_add(double a, double b) { return a + b; }
__attribute__((noinline)) double tiny_scale(double a) { return tiny_add(a, a) * 0.5; }

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    long calls = argc > 1 ? std::atol(argv[1]) : 20000000;
    double runs[5], sink = 0;
    for (double& run : runs) {
        auto start = std::chrono::steady_clock::now();
        for (long i = 0; i < calls / 2; ++i)
            sink += tiny_scale(static_cast<double>(i)); // two calls per iteration
        run = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count() /
              static_cast<double>(calls);
    }
    std::sort(runs, runs + 5);
    std::printf("calls=%ld ns_per_call=%.2f (%g)\n", calls, runs[2], sink > 0 ? 1.0 : 0.0);
    MPI_Finalize();
    return 0;
}
