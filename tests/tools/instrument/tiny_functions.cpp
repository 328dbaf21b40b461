// Many tiny, frequently called C++ functions: what `waitscope score` should propose to filter.
#include <cstdio>
#include <cstdlib>
#include <mpi.h>

__attribute__((noinline)) double tiny_add(double a, double b) {
    return a + b;
}
__attribute__((noinline)) double tiny_scale(double a) {
    return tiny_add(a, a) * 0.5;
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    long iterations = argc > 1 ? std::atol(argv[1]) : 10000;
    double sink = 0;
    for (long i = 0; i < iterations; ++i)
        sink += tiny_scale(static_cast<double>(i));
    std::printf("tiny: %.0f\n", sink);
    MPI_Finalize();
    return 0;
}
