// A synthetic OTF2 trace for the analyzer's tests and benchmarks: R ranks, about N events per
// rank of computation, point-to-point messages with Late Senders, and periodic barriers.
//
// Each iteration (1000 ticks of a 1 GHz clock) every rank computes (the even ranks 100 ticks
// longer); even rank r sends to r + 1, which waits for it in MPI_Recv (Late Sender). Every
// `barrierEvery` iterations the ranks arrive at an MPI_Barrier one after the other (rank r at
// 10 r ticks, spread over the 90 ticks before the barrier ends when there are more than 10
// ranks), which ends for all at tick 399.
#pragma once

#include "waitscope/base/result.h"

#include <cstdint>
#include <string>
#include <vector>

namespace waitscope::testing {

/// What the generated trace holds.
struct GeneratedTraceOptions {
    uint32_t ranks = 4;
    /// Events the busiest rank writes, about.
    uint64_t eventsPerRank = 1000;
    /// A barrier every that many iterations (0: none).
    uint32_t barrierEvery = 8;
    /// The odd ranks also reduce on a communicator of their own (communicator 1) where the
    /// even ranks synchronize in the barrier, to exercise derived communicators.
    bool derived = false;
    /// The clocks of the even ranks other than 0 run this many ticks ahead (their sends then
    /// seem to happen after the receives: clock condition violations).
    uint64_t clockOffset = 0;
    /// Rank 0 records its barriers as all-to-all collectives (MPI_Alltoallv in an all-to-all
    /// call): a damaged trace whose ranks disagree about who waits for whom.
    bool mismatch = false;
    /// With `mismatch`: rank 0's MPI_Alltoallv sits inside MPI_Barrier (as a wrong region
    /// mapping would show it).
    bool misplaced = false;
    /// The computation of iteration i runs in function `path<i mod paths>` (0: in main
    /// directly): 2 `paths` more call paths, for benchmarks of large call trees.
    uint32_t paths = 0;
    /// One-sided communication on a window of MPI_COMM_WORLD, as Score-P records it: every
    /// iteration a fence epoch (each rank puts into the next; arrivals 5 ticks apart: Wait at
    /// Fence), a PSCW epoch with rank 0 as target posting late (Late Post in MPI_Win_start,
    /// Early Wait), and with 3 ranks or more an exclusive lock epoch of ranks 1 and 2 on rank 0
    /// (Lock Contention of rank 2 in MPI_Win_unlock), with 4 ranks or more an MPI_Win_lock_all
    /// epoch of rank 3 (Lock Contention on rank 0 and Wait for Progress on rank 1, which polls
    /// MPI once after its epoch, both in MPI_Win_unlock_all).
    bool rma = false;
};

/// Writes the trace into `dir` (an archive there is replaced). Returns the events written for
/// each rank, or an error naming the directory when the writer fails.
Result<std::vector<uint64_t>> writeGeneratedTrace(const std::string& dir,
                                                  const GeneratedTraceOptions& options);

} // namespace waitscope::testing
