// The thread-profile stage: the rank's further threads, read from the archive and profiled
// (time and visits per call path, no replay) on the rank's call tree; with OpenMP regions, the
// OpenMP wait states of the rank's threads (openmp_analysis.cpp).
#include "rank_state.h"
#include "waitscope/analysis/thread_profile.h"

#include <algorithm>

namespace waitscope::analysis {

namespace {

// The replay lanes' profiles join the further threads', all in definition order.
void addLaneResults(RankState& state) {
    if (state.laneResults.empty()) {
        return;
    }
    std::vector<ThreadResult>& threads = state.result.threads;
    for (ThreadResult& lane : state.laneResults) {
        threads.push_back(std::move(lane));
    }
    state.laneResults.clear();
    const std::vector<const trace::Location*> order = state.defs.locationsOfRank(state.result.rank);
    const auto position = [&order](uint64_t location) {
        return std::find_if(order.begin(), order.end(),
                            [location](const trace::Location* l) { return l->id == location; }) -
               order.begin();
    };
    std::stable_sort(threads.begin(), threads.end(),
                     [&](const ThreadResult& a, const ThreadResult& b) {
                         return position(a.location) < position(b.location);
                     });
}

} // namespace

Status threadProfileStage(RankState& state, Transport& /*transport: no exchange*/) {
    if (state.input.anchorFile.empty()) {
        return Status::success(); // streams handed over without an archive
    }
    // The main location's events are read no more: their owner may free them first.
    if (state.input.eventsDone) {
        state.input.eventsDone();
    }
    std::vector<uint64_t> lanes;
    for (const ReplayLane& lane : state.lanes) {
        lanes.push_back(lane.location->id);
    }
    if (!state.openmp || !state.openmp->enabled()) {
        addThreadProfiles(state.input.anchorFile, state.defs, state.result, nullptr, nullptr, lanes,
                          state.input.options.observer);
        addLaneResults(state);
        return Status::success();
    }
    std::vector<OpenmpTimeline> threads;
    addThreadProfiles(state.input.anchorFile, state.defs, state.result, &threads,
                      state.openmp.get(), lanes, state.input.options.observer);
    analyzeOpenmp(*state.openmp, threads, state.result, state.rootCause);
    traceOpenmpCriticalPath(*state.openmp, threads, state.result);
    addLaneResults(state);
    return Status::success();
}

} // namespace waitscope::analysis
