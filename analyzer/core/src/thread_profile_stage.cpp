// The thread-profile stage: the rank's further threads, read from the archive and profiled
// (time and visits per call path, no replay) on the rank's call tree.
#include "rank_state.h"
#include "waitscope/analysis/thread_profile.h"

namespace waitscope::analysis {

Status threadProfileStage(RankState& state, Transport& /*transport: no exchange*/) {
    if (state.input.anchorFile.empty()) {
        return Status::success(); // streams handed over without an archive
    }
    // The main location's events are read no more: their owner may free them first.
    if (state.input.eventsDone) {
        state.input.eventsDone();
    }
    addThreadProfiles(state.input.anchorFile, state.defs, state.result);
    return Status::success();
}

} // namespace waitscope::analysis
