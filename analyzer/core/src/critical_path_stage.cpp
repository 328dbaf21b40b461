// The critical-path stage (a root-cause stage): this rank's share of the critical path, traced
// from the end of the run by joining per-rank links (see critical_path.cpp), from the time
// profile of the profile stage and what the replays told each end of a message.
#include "critical_path_lanes.h"
#include "rank_state.h"

#include <string>

namespace waitscope::analysis {

Status criticalPathStage(RankState& state, Transport& transport) {
    if (!state.delay) {
        return Status::success(); // --no-root-cause
    }
    // Threads call MPI (see RankState::lanesAnywhere): the walk back follows their order where
    // the main thread created and joined them; else no rank's share is charged, and the ranks
    // whose threads cannot be followed say why.
    std::string unsupported;
    if (!state.lanes.empty()) {
        unsupported = laneWalkUnsupported(state.result.rank, state.laneResults, state.threadJoins);
        if (!unsupported.empty()) {
            state.result.warnings.push_back(unsupported + "; the critical path is not analyzed");
        }
    }
    state.report("critical path", 0, 1);
    const bool lanes = !state.lanes.empty();
    if (Status status = traceCriticalPath(
            {state.defs, *state.events, state.result.tree, state.spans, state.operations,
             state.profile, state.end, state.partnerCalls, state.partnerWaited, state.pairedOf,
             state.pathCollectives->collectives(), lanes ? &state.laneResults : nullptr,
             lanes ? &state.threadJoins : nullptr, !unsupported.empty()},
            transport, state.sink);
        !status) {
        return status;
    }
    state.pathCollectives->clear();
    state.report("critical path", 1, 1);
    return Status::success();
}

} // namespace waitscope::analysis
