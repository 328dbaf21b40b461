// Annotated with Waitscope's manual regions; builds and runs unchanged without Waitscope.
#include "grid.h"

#include <mpi.h>
#include <waitscope/user.h>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    halo::Grid grid(rank, size);
    for (int it = 0; it < 2; ++it) {
        WAITSCOPE_SCOPE("timestep");
        grid.relax(100);
        WAITSCOPE_REGION_BEGIN("communicate");
        grid.exchange();
        WAITSCOPE_REGION_END("communicate");
    }
    MPI_Finalize();
    return 0;
}
