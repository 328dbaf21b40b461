/* N barriers (argv[1], default 20000): enough events to overflow a small buffer. */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    long n = argc > 1 ? atol(argv[1]) : 20000;
    for (long i = 0; i < n; ++i)
        MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
