// The frame of the co-located transport's checks run under mpirun: MPI started and ended, a
// world of traced ranks over the processes, one thread per traced rank of this process, and the
// exit status agreed over all processes.
#pragma once

#include "waitscope/analysis/co_located_transport.h"

#include <cstdint>
#include <cstdio>
#include <functional>
#include <mpi.h>
#include <thread>
#include <vector>

namespace waitscope::testing {

/// Runs `check` on a co-located world of `ranks` traced ranks over this program's processes,
/// between MPI_Init_thread (MPI_THREAD_SERIALIZED) and MPI_Finalize. Returns the highest exit
/// status of all processes: 1 where the world could not be made (printed), else what `check`
/// returned.
inline int runCoLocatedCheck(int& argc, char**& argv, uint32_t ranks,
                             const std::function<int(analysis::CoLocatedWorld&)>& check) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    int status = 0;
    {
        trace::Definitions defs;
        auto world = analysis::CoLocatedWorld::create(defs, ranks);
        if (!world) {
            std::fprintf(stderr, "error: %s\n", world.error().message().c_str());
            status = 1;
        } else {
            status = check(**world);
        }
    }
    int worst = 0;
    MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return worst;
}

/// Runs `pass(k)` for each traced rank first + k of this process on a thread of its own, each
/// followed by the world's finish() of that rank; returns when all threads have ended.
inline void onEachLocalRank(analysis::CoLocatedWorld& world,
                            const std::function<void(uint32_t k)>& pass) {
    const uint32_t first = world.firstRank();
    std::vector<std::thread> threads;
    for (uint32_t k = 0; k < world.endRank() - first; ++k) {
        threads.emplace_back([&world, &pass, first, k] {
            pass(k);
            world.finish(first + k);
        });
    }
    for (std::thread& thread : threads) {
        thread.join();
    }
}

} // namespace waitscope::testing
