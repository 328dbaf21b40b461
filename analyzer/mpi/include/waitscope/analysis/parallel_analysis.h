// The analysis of a trace by as many MPI ranks as it has traced ranks.
#pragma once

#include "waitscope/analysis/analysis_result.h"
#include "waitscope/analysis/clock_correction.h"
#include "waitscope/analysis/rank_pipeline.h"
#include "waitscope/base/result.h"
#include "waitscope/trace/definitions.h"

#include <mpi.h>
#include <optional>
#include <string>

namespace waitscope::analysis {

/// What rank 0 ends up with; the other ranks get an empty `result`.
struct ParallelAnalysis {
    trace::Definitions definitions;
    std::optional<AnalysisResult> result;
};

/// Reads the global definitions and this rank's events, replays them over MPI and merges all
/// ranks' results on rank 0. Collective over MPI_COMM_WORLD; fails on every rank alike (for
/// example when the job has more processes than the trace has ranks). With fewer processes
/// than traced ranks (M:N), process k replays the block of ranks [k·N/M, (k+1)·N/M) as
/// threads (needs MPI_THREAD_SERIALIZED); the result is the same as with N processes. With
/// `options.correction`, the timestamps are corrected first (correctClocks()).
Result<ParallelAnalysis> analyzeWithMpi(const std::string& path,
                                        const ProgressCallback& progress = {},
                                        const ReplayOptions& options = {});

/// The largest of every process's `status`, known to all. Collective over MPI_COMM_WORLD; waits
/// without holding on to a core, so that the processes that wait for process 0 (writing the
/// report) do not spin in MPI meanwhile as MPI's blocking collectives do.
int worstStatus(int status);

/// Returns once every process has called it, waiting without holding on to a core: the first
/// collective after MPI_Init absorbs the processes' start-up skew, which MPI's blocking calls
/// (MPI_Comm_split_type, MPI_Comm_dup) would spend polling, on the core the late process needs.
/// Collective over MPI_COMM_WORLD; returns MPI's error code.
int awaitAllProcesses();

/// Completes `request` without holding on to a core: tests, then sleeps between tests for
/// longer the longer the wait lasts (up to 10 ms once it lasted a second), so that processes
/// waiting seconds for process 0 cost next to no CPU. Returns MPI's error code.
int awaitRequest(MPI_Request& request);

} // namespace waitscope::analysis
