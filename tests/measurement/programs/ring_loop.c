/* N rounds (argv[1], default 20000) of a nonblocking ring exchange, an allreduce every 10th:
 * point-to-point and collective records enough to fill a small buffer many times over. */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    long n = argc > 1 ? atol(argv[1]) : 20000;
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    long out = rank, in = 0, sum = 0;
    for (long i = 0; i < n; ++i) {
        MPI_Request requests[2];
        MPI_Irecv(&in, 1, MPI_LONG, left, (int)(i % 7), MPI_COMM_WORLD, &requests[0]);
        MPI_Isend(&out, 1, MPI_LONG, right, (int)(i % 7), MPI_COMM_WORLD, &requests[1]);
        MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
        if (i % 10 == 9)
            MPI_Allreduce(&in, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
