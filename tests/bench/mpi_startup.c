// The baseline of tests/bench/weak_scaling.sh: an MPI program that only starts and ends MPI as
// waitscope-replay does (MPI_Init_thread, MPI_THREAD_SERIALIZED), so that the CPU time MPI spends
// there can be taken off the analysis's.
#include <mpi.h>

int main(int argc, char** argv) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
