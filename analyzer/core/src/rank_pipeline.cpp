// The analysis of one rank, stage by stage: the pipeline every driver runs on each rank.
//
// Stages, in order (each a function of the rank's state and the transport, RankStage in
// rank_state.h, in a file of its own):
//   1. correct clocks     clock_correction_stage.cpp  --time-correct only: the controlled
//                                                      logical clock moves receives after their
//                                                      sends, collective exits after the enters
//                                                      that bind them
//   2. profile            profile_stage.cpp           call tree, time and count metrics, the
//                                                      communication operations and their calls
//   3. check consistency  consistency_stage.cpp       all ranks refuse a trace whose sends and
//                                                      receives or collectives do not match
//   4. forward replay     forward_replay_stage.cpp    Late Sender, the collective patterns
//   5. backward replay    backward_replay_stage.cpp   Late Receiver
//   6. critical path      critical_path_stage.cpp     unless --no-root-cause
//   7. root causes        root_cause_stage.cpp        unless --no-root-cause: delay costs and
//                                                      the wait-state classification
//   8. thread profiles    thread_profile_stage.cpp    archives only: the rank's further threads
// Then the driver gathers the ranks' results in rank order and merges them
// (AnalysisResult::merge(), analysis_result.cpp), and on the merged values runs
//   9. derived metrics    derived_metrics.cpp         imbalance; with a critical path, the
//                                                      critical path's imbalance and the
//                                                      performance impact
// With RankInput::windows (traces larger than memory, without clock correction): without root
// causes stages 2 to 5 are one windowed pass instead (windowed_replay.cpp): the events are read
// in windows, profiled and replayed forward and backward in bulk-synchronous steps, and the
// consistency is checked at the end; with root causes stage 2 reads the events in windows and
// keeps only the communication events (windowed_profile_stage.cpp), and stages 3 to 7 run as
// above on them, the replays exchanging in steps of a window's size (replay_steps.h).
// The drivers, serial_analysis.cpp (a thread per rank over the in-process transport) and
// analyzer/mpi/src/parallel_analysis.cpp (a rank per traced rank over MPI), differ only in
// the transport, in the hooks of RankInput and in how they gather the results.
#include "waitscope/analysis/rank_pipeline.h"

#include "rank_state.h"

#include <array>
#include <utility>

namespace waitscope::analysis {
namespace {

// Stages 2 to 7: after the first failure the rest are skipped.
constexpr std::array<RankStage, 6> kReplayStages = {
    profileStage,        checkConsistencyStage, forwardReplayStage,
    backwardReplayStage, criticalPathStage,     rootCauseStage,
};

} // namespace

Result<RankResult> analyzeRank(const RankInput& input, Transport& transport) {
    RankState state(input, transport);
    Status replayed = Status::success();
    if (input.windows != nullptr && input.options.correction) {
        return Error("rank " + std::to_string(transport.rank()) +
                     ": the windowed replay runs without timestamp correction only");
    }
    if (input.windows != nullptr && input.options.rootCause) {
        // Profiled in windows; the later stages read only the operations it keeps.
        replayed = windowedProfileStage(state, transport);
        if (!replayed) {
            if (input.readFailed) {
                input.readFailed(replayed.error());
            }
            // The others stop at the consistency check, which finds this rank without events.
            state.events = nullptr;
            (void)checkConsistencyStage(state, transport);
        }
        for (size_t s = 1; replayed && s < kReplayStages.size(); ++s) {
            replayed = kReplayStages[s](state, transport);
        }
        // A block of the time profile or the partners' calls that could not be read back left
        // the passes short.
        if (replayed && state.scratch && !state.scratch->error().empty()) {
            replayed =
                Error("rank " + std::to_string(state.result.rank) + ": " + state.scratch->error());
        }
    } else if (input.windows != nullptr) {
        replayed = windowedReplayStage(state, transport);
    } else {
        // The events as read, before the correction moves any of them.
        if (input.options.observer != nullptr && input.events != nullptr) {
            if (const trace::Location* main = input.definitions.locationOfRank(transport.rank())) {
                input.options.observer->observe(input.definitions, *main, *input.events, 0,
                                                input.events->size());
            }
        }
        if (Status status = correctClocksStage(state, transport); !status) {
            return status.error();
        }
        for (RankStage stage : kReplayStages) {
            replayed = stage(state, transport);
            if (!replayed) {
                break;
            }
        }
    }
    // The instances still buffered go to the scratch files (a write that fails fails the rank).
    if (replayed && state.spill) {
        replayed = state.spill->finish(state.result);
    }
    // Every rank stops here together when one failed (with the hook), before the thread
    // profiles read more files.
    if (input.anyFailed && input.anyFailed(!replayed) && replayed) {
        return Error("rank " + std::to_string(state.result.rank) +
                     ": analysis stopped because another rank failed");
    }
    if (!replayed) {
        return replayed.error();
    }
    if (Status status = threadProfileStage(state, transport); !status) {
        return status.error();
    }
    return std::move(state.result);
}

} // namespace waitscope::analysis
