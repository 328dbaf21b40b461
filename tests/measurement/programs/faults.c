/* Rank 1 ends the job early after a few barriers: "abort" calls MPI_Abort, "segv" raises
 * SIGSEGV, "exit3" returns 3 after MPI_Finalize. The other ranks wait in a receive that never
 * completes (abort, segv) so the job ends only through the fault. */
#include <mpi.h>
#include <signal.h>
#include <string.h>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char* mode = argc > 1 ? argv[1] : "abort";
    for (int i = 0; i < 10; ++i)
        MPI_Barrier(MPI_COMM_WORLD);
    if (strcmp(mode, "exit3") == 0) {
        MPI_Finalize();
        return 3;
    }
    if (rank == 1) {
        if (strcmp(mode, "abort") == 0)
            MPI_Abort(MPI_COMM_WORLD, 7);
        raise(SIGSEGV);
    }
    int x = 0;
    MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
