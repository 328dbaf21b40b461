// Hot spots made of many tiny C++ functions: hot_loop() does three times the work of
// warm_loop(). Built twice: plain (measured by sampling) and with -finstrument-functions.
// Usage: tiny_hotspots [calls per unit of work]
#include <cstdlib>
#include <mpi.h>

namespace {

struct Accumulator {
    double total = 0;
    __attribute__((noinline)) void add(double v) { total += v * 0.5 + 1e-9; }
};

__attribute__((noinline)) double square(double v) {
    return v * v;
}

__attribute__((noinline)) void work(Accumulator& a, long calls) {
    for (long i = 0; i < calls; ++i)
        a.add(square(static_cast<double>(i & 1023)));
}

} // namespace

// Each loop does something after its call, so the call is not a tail call (a jump that would
// leave the loop off the stack, where unwinding cannot see it).
__attribute__((noinline)) void hot_loop(Accumulator& a, long calls) {
    work(a, 3 * calls);
    a.total += 1;
}

__attribute__((noinline)) void warm_loop(Accumulator& a, long calls) {
    work(a, calls);
    a.total += 1;
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    long calls = argc > 1 ? std::atol(argv[1]) : 2000000;
    Accumulator a;
    for (int round = 0; round < 4; ++round) {
        hot_loop(a, calls);
        warm_loop(a, calls);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return a.total > 0 ? 0 : 1;
}
