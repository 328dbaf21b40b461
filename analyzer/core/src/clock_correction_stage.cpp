// The clock-correction stage (--time-correct): corrects the rank's timestamps in place before
// anything reads them (correctClocks(), clock_correction.cpp) and keeps its counters among the
// rank's diagnostics.
#include "rank_state.h"

namespace waitscope::analysis {

Status correctClocksStage(RankState& state, Transport& transport) {
    const RankInput& input = state.input;
    if (!input.options.correction) {
        return Status::success();
    }
    state.report("clock correction", 0, 1);
    auto counters = correctClocks(state.defs, state.events, transport, *input.options.correction);
    // Every rank stops here together when one failed, before the replay's exchanges.
    if (input.anyFailed && input.anyFailed(!counters) && counters) {
        return Error("rank " + std::to_string(state.result.rank) +
                     ": clock correction stopped because another rank failed");
    }
    if (!counters) {
        return counters.error();
    }
    state.result.diagnostics.add(*counters);
    state.report("clock correction", 1, 1);
    return Status::success();
}

} // namespace waitscope::analysis
