// Many tiny, frequently called functions: the dilation compiler instrumentation causes.
// Usage: instrument_tiny_functions [calls]; prints "calls=<n> ns_per_call=<t> cpu_per_call_ns=<c>"
// (medians of 5): wall time, and the thread's CPU time (samples' handlers included), which
// waiting for a core on a loaded machine does not inflate.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <mpi.h>

__attribute__((noinline)) double tiny_add(double a, double b) {
    return a + b;
}
__attribute__((noinline)) double tiny_scale(double a) {
    return tiny_add(a, a) * 0.5;
}

namespace {

double threadCpuNs() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_nsec);
}

} // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    long calls = argc > 1 ? std::atol(argv[1]) : 20000000;
    double runs[5], cpu[5], sink = 0;
    for (int r = 0; r < 5; ++r) {
        auto start = std::chrono::steady_clock::now();
        const double cpuStart = threadCpuNs();
        for (long i = 0; i < calls / 2; ++i)
            sink += tiny_scale(static_cast<double>(i)); // two calls per iteration
        runs[r] = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start)
                      .count() /
                  static_cast<double>(calls);
        cpu[r] = (threadCpuNs() - cpuStart) / static_cast<double>(calls);
    }
    std::sort(runs, runs + 5);
    std::sort(cpu, cpu + 5);
    std::printf("calls=%ld ns_per_call=%.2f cpu_per_call_ns=%.2f (%g)\n", calls, runs[2], cpu[2],
                sink > 0 ? 1.0 : 0.0);
    MPI_Finalize();
    return 0;
}
