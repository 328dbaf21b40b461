// The root-cause stage: delay costs and the wait-state classification, in a message-driven
// backward replay (DelayAnalysis, delay_analysis.cpp) fed by the profile and replay stages; a
// rank's replay lanes (further threads that call MPI) are timelines of their own in it.
#include "rank_state.h"

#include <utility>

namespace waitscope::analysis {

Status rootCauseStage(RankState& state, Transport& /*transport: the delay analysis holds it*/) {
    if (!state.delay) {
        return Status::success(); // --no-root-cause
    }
    state.report("root causes", 0, 1);
    // The partners' calls are read for the last time here.
    if (Status status = state.delay->run(state.operations, state.spans, state.pairedOf,
                                         state.profile, std::move(state.partners),
                                         std::move(state.partnerWaited), state.laneResults);
        !status) {
        return status;
    }
    state.report("root causes", 1, 1);
    return Status::success();
}

} // namespace waitscope::analysis
