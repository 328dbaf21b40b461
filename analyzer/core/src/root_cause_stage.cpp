// The root-cause stage: delay costs and the wait-state classification, in a message-driven
// backward replay (DelayAnalysis, delay_analysis.cpp) fed by the profile and replay stages; a
// rank's replay lanes (further threads that call MPI) are timelines of their own in it.
#include "rank_state.h"

#include <algorithm>
#include <utility>

namespace waitscope::analysis {
namespace {

// With OpenMP threads, their wait states are analyzed first: the barrier waits the master's MPI
// wait states explain become costs of those wait states (Scalasca's long-term OpenMP barrier
// delay costs), which the pass carries on to their causes. The threads are then profiled
// here, while the main location's events are still held, rather than in the thread-profile
// stage (one thread's events at a time).
void addOpenmpBarrierCosts(RankState& state) {
    if (state.input.anchorFile.empty() || !state.openmp || !state.openmp->enabled()) {
        return; // no OpenMP threads to read
    }
    std::vector<OmpMpiWait> waits;
    state.delay->points().forEachBuilt([&](const delay::SyncPoint& sp) {
        if (sp.wait > 0.0) {
            const CallSpan& call = state.spans[state.operations[sp.operation].span];
            waits.push_back(OmpMpiWait{call.enter, sp.wait, sp.node, sp.operation, 0.0});
        }
    });
    // In operation order, so by enter; stable for calls entered at one time.
    std::stable_sort(waits.begin(), waits.end(),
                     [](const OmpMpiWait& a, const OmpMpiWait& b) { return a.enter < b.enter; });
    if (!profileOpenmpThreads(state, &waits)) {
        return;
    }
    for (const OmpMpiWait& w : waits) {
        state.delay->addOmpBarrierCost(w.operation, w.cost);
    }
}

} // namespace

Status rootCauseStage(RankState& state, Transport& /*transport: the delay analysis holds it*/) {
    if (!state.delay) {
        return Status::success(); // --no-root-cause
    }
    state.report("root causes", 0, 1);
    addOpenmpBarrierCosts(state);
    // The partners' calls are read for the last time here.
    if (Status status = state.delay->run(state.operations, state.spans, state.pairedOf,
                                         state.profile, std::move(state.partnerCalls),
                                         std::move(state.partnerWaited), state.laneResults);
        !status) {
        return status;
    }
    state.report("root causes", 1, 1);
    return Status::success();
}

} // namespace waitscope::analysis
