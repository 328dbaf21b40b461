// The thread-profile stage: the rank's further threads, read from the archive and profiled
// (time and visits per call path, no replay) on the rank's call tree; with OpenMP regions, the
// OpenMP wait states of the rank's threads (openmp_analysis.cpp).
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
    if (!state.openmp || !state.openmp->enabled()) {
        addThreadProfiles(state.input.anchorFile, state.defs, state.result);
        return Status::success();
    }
    std::vector<OpenmpTimeline> threads;
    addThreadProfiles(state.input.anchorFile, state.defs, state.result, &threads,
                      state.openmp.get());
    analyzeOpenmp(*state.openmp, threads, state.result);
    return Status::success();
}

} // namespace waitscope::analysis
