// The profile stage: one pass over the rank's events that builds the call tree, the time and
// count metrics per call path, and the list of communication operations the later stages
// replay.
//
// Enter/Leave (and calling-context records) build the call tree; exclusive time goes to each
// node in its metric category, with visits, message and collective counts and bytes. Every
// communication event is remembered with the MPI call (node, enter, exit) around it. For the
// root-cause stages the time between operations is recorded as well (OperationProfile). The
// pass over each location's events is the one the windowed passes run (location_profile.h).
#include "location_profile.h"
#include "rank_state.h"

#include <algorithm>

namespace waitscope::analysis {
namespace {

using trace::EventKind;

// One location's events [first, end) with `calls` at lane `lane`, reporting progress every
// 2^20 events.
void profileLocation(RankState& state, RankCalls& calls, size_t first, size_t end, uint32_t lane,
                     SeverityRows& rows, NodeId root) {
    constexpr size_t kReportEvery = size_t{1} << 20;
    calls.setLane(lane);
    LocationProfile profile(state, calls, rows, root, lane);
    for (size_t from = first; from < end;) {
        if (from % kReportEvery == 0) {
            state.report("profile", from, state.events->size());
        }
        const size_t to = std::min(end, (from / kReportEvery + 1) * kReportEvery);
        profile.profile(*state.events, from, to);
        from = to;
    }
    profile.finish();
}

// Exact sizes up front: growing these arrays by doubling would cost up to twice their size.
void reserveOperations(RankState& state) {
    const trace::EventStream& events = *state.events;
    const size_t n = events.size();
    size_t communication = 0;
    for (size_t i = 0; i < n; ++i) {
        const EventKind kind = events.kind(i);
        communication += isCommunicationEvent(kind);
        state.collectiveCount += kind == EventKind::MpiCollectiveEnd;
    }
    state.operations.reserve(communication);
    state.spans.reserve(communication);
    if (state.rootCause) {
        // At most one charge per event: the arrays are reserved, not filled.
        state.profile.reserve(n, communication);
    }
    state.pairedOf.assign(communication, RankState::kNoOperation);
}

// The node the lanes' paths hang below: the main location's one outermost region (the
// program), as for the further threads (thread_profile.h); kNoNode with several.
NodeId laneRoot(const CallTree& tree) {
    NodeId root = kNoNode;
    size_t roots = 0;
    for (NodeId n = 0; n < tree.size(); ++n) {
        if (tree.node(n).parent == kNoNode && roots++ == 0) {
            root = n;
        }
    }
    return roots == 1 ? root : kNoNode;
}

// The pass itself, over the main location and then each replay lane; profileStage() adds what
// the later stages need right after it.
void profile(RankState& state) {
    const size_t n = state.events->size();
    reserveOperations(state);
    RankCalls calls(state, false);
    profileLocation(state, calls, 0, state.mainEvents, 0, state.result.severities, kNoNode);
    if (!state.lanes.empty()) {
        const NodeId root = laneRoot(state.result.tree);
        for (size_t k = 0; k < state.lanes.size(); ++k) {
            const ReplayLane& lane = state.lanes[k];
            ThreadResult& thread = state.laneResults[k];
            thread.location = lane.location->id;
            thread.name = lane.location->name;
            thread.events = lane.end - lane.begin;
            profileLocation(state, calls, lane.begin, lane.end, static_cast<uint32_t>(k + 1),
                            thread.severities, root);
        }
        // Messages match in the order of their events over all locations (stable: the main
        // location's first, then the lanes' in definition order, at equal times).
        const trace::EventStream& events = *state.events;
        state.matchOrder.resize(state.operations.size());
        for (uint32_t k = 0; k < state.matchOrder.size(); ++k) {
            state.matchOrder[k] = k;
        }
        std::stable_sort(state.matchOrder.begin(), state.matchOrder.end(),
                         [&](uint32_t a, uint32_t b) {
                             return events.time(state.operations[a].event) <
                                    events.time(state.operations[b].event);
                         });
    }
    state.report("profile", n, n);
}

} // namespace

Status profileStage(RankState& state, Transport& transport) {
    if (state.events == nullptr) {
        return Status::success(); // the consistency check refuses the rank
    }
    if (!state.defs.rmaWindows.empty()) {
        state.rma = std::make_unique<RmaTimeline>();
        for (const trace::Region& region : state.defs.regions) {
            state.rma->callKinds.push_back(rmaCallKind(region));
            state.rma->syncSides.push_back(rmaSyncSide(region));
            state.rma->mpiRegions.push_back(region.paradigm == trace::Paradigm::Mpi ? 1 : 0);
        }
    }
    state.mainEvents = state.events->size();
    // Further threads that call MPI (MPI_THREAD_MULTIPLE) are replayed with the rank.
    if (!state.input.anchorFile.empty() && mayCallMpiFromThreads(state.defs, *state.events)) {
        state.lanes = appendReplayLanes(state.input.anchorFile, state.defs, state.result.rank,
                                        *state.events, state.input.options.observer);
        state.laneResults.resize(state.lanes.size());
        if (state.rootCause && !state.lanes.empty()) {
            state.threadJoins.trackGaps(); // for the critical path through the lanes
        }
    }
    profile(state);
    if (state.delay) {
        state.delay->reserve(state.operations.size(), state.collectiveCount);
        state.pathCollectives->reserve(state.collectiveCount);
    }
    if (state.rootCause) {
        state.end = state.mainEvents > 0 ? state.seconds(state.mainEvents - 1) : 0.0;
    }
    // The profile is the last reader of the timestamps.
    if (state.input.timesDone) {
        state.input.timesDone();
    }
    if (state.rootCause) {
        state.profile.finish();
    }
    transport.carryRecordInfo(state.rootCause);
    return Status::success();
}

} // namespace waitscope::analysis
