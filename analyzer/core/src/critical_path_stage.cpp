// The critical-path stage (a root-cause stage): this rank's share of the critical path, traced
// from the end of the run by joining per-rank links (see critical_path.cpp), from the time
// profile of the profile stage and what the replays told each end of a message.
#include "rank_state.h"

namespace waitscope::analysis {

Status criticalPathStage(RankState& state, Transport& transport) {
    if (!state.delay) {
        return Status::success(); // --no-root-cause
    }
    if (state.lanesAnywhere) {
        // Threads call MPI (see RankState::lanesAnywhere): said once, by the ranks with them.
        if (!state.lanes.empty()) {
            state.result.warnings.push_back(
                "rank " + std::to_string(state.result.rank) +
                ": further threads call MPI; the critical path is not analyzed");
        }
        return Status::success();
    }
    state.report("critical path", 0, 1);
    if (Status status = traceCriticalPath({state.defs, *state.events, state.result.tree,
                                           state.spans, state.operations, state.profile, state.end,
                                           state.partners, state.partnerWaited, state.pairedOf,
                                           state.pathCollectives->collectives()},
                                          transport, state.sink);
        !status) {
        return status;
    }
    state.pathCollectives->clear();
    state.report("critical path", 1, 1);
    return Status::success();
}

} // namespace waitscope::analysis
