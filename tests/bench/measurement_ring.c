/* A ring of MPI_Sendrecv (each rank sends to the next and receives from the previous), the
 * shape on which issue 22 measured the analysis's memory per event: 1.6 million calls per rank
 * make about 66 MB of events per rank.
 * Usage: measurement_ring [iterations] (default 1,600,000) */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const long iterations = argc > 1 ? atol(argv[1]) : 1600000;
    double out = rank, in = 0.0;
    for (long i = 0; i < iterations; ++i) {
        MPI_Sendrecv(&out, 1, MPI_DOUBLE, (rank + 1) % size, 1, &in, 1, MPI_DOUBLE,
                     (rank + size - 1) % size, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
