// The thread-profile stage: the rank's further threads, read from the archive and profiled
// (time and visits per call path, no replay) on the rank's call tree; with OpenMP regions, the
// OpenMP wait states of the rank's threads (openmp_analysis.cpp) and the critical path through
// their teams. With root causes the OpenMP threads are profiled earlier, in the root-cause
// stage, whose pass carries their barrier waits on (root_cause_stage.cpp).
#include "path_cut.h"
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

std::vector<uint64_t> laneLocations(const RankState& state) {
    std::vector<uint64_t> lanes;
    for (const ReplayLane& lane : state.lanes) {
        lanes.push_back(lane.location->id);
    }
    return lanes;
}

// With the root causes: the critical path through the threads the main location joined, and
// the delay costs of its join waits (thread_joins.h).
void followThreadJoins(RankState& state) {
    if (!state.rootCause || state.threadJoins.empty()) {
        return;
    }
    traceThreadCriticalPath(state.threadJoins, state.result);
    addThreadJoinDelays(state.threadJoins, state.result);
    state.threadJoins = ThreadJoins();
}

} // namespace

bool profileOpenmpThreads(RankState& state, std::vector<OmpMpiWait>* mpiWaits) {
    if (state.input.anchorFile.empty() || !state.openmp || !state.openmp->enabled()) {
        return false;
    }
    addThreadProfiles(state.input.anchorFile, state.defs, state.result, &state.openmpThreads,
                      state.openmp.get(), laneLocations(state), state.input.options.observer);
    analyzeOpenmp(*state.openmp, state.openmpThreads, state.result, state.rootCause, mpiWaits);
    state.threadsProfiled = true;
    return true;
}

Status threadProfileStage(RankState& state, Transport& /*transport: no exchange*/) {
    if (state.input.anchorFile.empty()) {
        return Status::success(); // streams handed over without an archive
    }
    // The main location's events are read no more: their owner may free them first.
    if (state.input.eventsDone) {
        state.input.eventsDone();
    }
    if (!state.threadsProfiled && !profileOpenmpThreads(state, nullptr)) {
        addThreadProfiles(state.input.anchorFile, state.defs, state.result, nullptr, nullptr,
                          laneLocations(state), state.input.options.observer);
        addLaneResults(state);
        followThreadJoins(state);
        return Status::success();
    }
    // The teams' pieces of the path are cut out of the main location's stretches last, when
    // the joins (which look for the stretch holding a create and its join) have been followed.
    std::vector<ThreadPiece> teamPieces;
    traceOpenmpCriticalPath(*state.openmp, state.openmpThreads, state.result, &teamPieces);
    state.openmpThreads = {};
    addLaneResults(state);
    followThreadJoins(state);
    cutPathOntoThreads(state.result, std::move(teamPieces));
    return Status::success();
}

} // namespace waitscope::analysis
