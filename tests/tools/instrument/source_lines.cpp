// Instrumented C++ functions at known source lines: the instrument tests check that each
// region carries its first and last line (the signature and the closing brace).
#include <mpi.h>

namespace lines {

double spread(double value, int steps) {
    double result = value;
    for (int i = 0; i < steps; ++i)
        result = 0.5 * (result + i);
    return result;
}

} // namespace lines

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    volatile double kept = lines::spread(1.0, 10);
    (void)kept;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
