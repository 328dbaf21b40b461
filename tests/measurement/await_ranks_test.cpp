// awaitEveryRank (measurement/runtime/unification.h), run on 2 ranks by ctest: rank 1 arrives
// 300 ms after rank 0, which must wait for it (wall time) and sleep meanwhile (its thread's CPU
// time a small share of the wait, where a barrier spinning in MPI's progress loop takes most of
// it on an idle core). Exits 1 with a message when either fails.
#include "unification.h"

#include <cstdio>
#include <ctime>
#include <mpi.h>

namespace {

double seconds(clockid_t clock) {
    timespec t{};
    clock_gettime(clock, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

} // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int failed = 0;
    // Without a communicator (a run without MPI) it returns at once.
    waitscope::measure::awaitEveryRank(MPI_COMM_NULL);
    if (size != 2) {
        std::fprintf(stderr, "await_ranks_test: needs 2 ranks, has %d\n", size);
        failed = 1;
    } else if (rank == 1) {
        timespec late{0, 300 * 1000 * 1000};
        nanosleep(&late, nullptr);
        waitscope::measure::awaitEveryRank(MPI_COMM_WORLD);
    } else {
        const double wall = seconds(CLOCK_MONOTONIC);
        const double cpu = seconds(CLOCK_THREAD_CPUTIME_ID);
        waitscope::measure::awaitEveryRank(MPI_COMM_WORLD);
        const double waited = seconds(CLOCK_MONOTONIC) - wall;
        const double used = seconds(CLOCK_THREAD_CPUTIME_ID) - cpu;
        std::printf("rank 0 waited %.3f s, using %.3f s of CPU\n", waited, used);
        if (waited < 0.25) {
            std::fprintf(stderr, "await_ranks_test: returned after %.3f s, before rank 1 came\n",
                         waited);
            failed = 1;
        }
        if (used > 0.25 * waited) {
            std::fprintf(stderr, "await_ranks_test: %.3f s of CPU in a wait of %.3f s: it spins\n",
                         used, waited);
            failed = 1;
        }
    }
    int anyFailed = 0;
    MPI_Allreduce(&failed, &anyFailed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return anyFailed;
}
