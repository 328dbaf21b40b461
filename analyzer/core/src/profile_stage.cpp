// The profile stage: one pass over the rank's events that builds the call tree, the time and
// count metrics per call path, and the list of communication operations the later stages
// replay.
//
// Enter/Leave (and calling-context records) build the call tree; exclusive time goes to each
// node in its metric category, with visits, message and collective counts and bytes. Every
// communication event is remembered with the MPI call (node, enter, exit) around it. For the
// root-cause stages the time between operations is recorded as well (OperationProfile).
#include "profile_metrics.h"
#include "rank_state.h"
#include "waitscope/analysis/call_path_rules.h"

#include <algorithm>
#include <unordered_map>

namespace waitscope::analysis {
namespace {

using trace::EventKind;

constexpr uint32_t kNoSpan = 0xFFFFFFFFu;

struct Frame {
    NodeId node;
    uint32_t region;
    uint32_t span;
    bool context;               ///< pushed for a calling-context record rather than an Enter
    uint32_t rmaSpan = kNoSpan; ///< the call's index in RmaTimeline::spans, if it has RMA records
};

// The enter time of the innermost open call: found by scanning back (not before `first`, the
// location's first event) to its Enter, which is cheap because communication events sit right
// inside their MPI call.
double enterTimeOf(const RankState& state, size_t first, size_t event) {
    const trace::EventStream& events = *state.events;
    int depth = 0;
    for (size_t j = event; j-- > first;) {
        const EventKind kind = events.kind(j);
        if (kind == EventKind::Leave) {
            ++depth;
        } else if (kind == EventKind::Enter || kind == EventKind::ProgramBegin) {
            if (depth == 0) {
                return state.seconds(j);
            }
            --depth;
        }
    }
    return state.seconds(event);
}

// The rank's requests by id while outstanding, over all its locations (ids are unique per
// rank): a posted receive's request operation, a nonblocking send's operation. A request may be
// started on one thread and completed on another (MPI_THREAD_MULTIPLE); the lanes are profiled
// after the main location, so a completion may be met before its start: it waits in `early`
// (with its location) for a start on another location.
struct RequestPairs {
    std::unordered_map<uint64_t, uint32_t> postedReceives;
    std::unordered_map<uint64_t, uint32_t> pendingSends;
    struct Early {
        uint32_t operation;
        uint32_t lane;
    };
    std::unordered_map<uint64_t, Early> earlyReceives;
    std::unordered_map<uint64_t, Early> earlySends;
};

// Keeps one-sided record `i` with the MPI call around it (the innermost frame) and counts it.
template <class Stack> void addRmaEvent(RankState& state, Stack& stack, size_t first, size_t i) {
    const trace::EventStream& events = *state.events;
    RmaTimeline& rma = *state.rma;
    const EventKind kind = events.kind(i);
    if (kind == EventKind::RmaCollectiveBegin || stack.empty()) {
        return;
    }
    auto& frame = stack.back();
    const RmaCallKind call =
        frame.region < rma.callKinds.size() ? rma.callKinds[frame.region] : RmaCallKind::Other;
    const trace::RmaRecord& record = events.rma(i);
    countRmaEvent(state.result.severities, frame.node, kind, record, call);
    if (frame.rmaSpan == kNoSpan) {
        frame.rmaSpan = static_cast<uint32_t>(rma.spans.size());
        rma.spans.emplace_back(frame.node, enterTimeOf(state, first, i), state.seconds(i));
        rma.regions.push_back(frame.region);
    }
    rma.events.push_back(RmaEvent{kind, call, frame.rmaSpan, state.seconds(i), record});
}

// One location's part of the pass: the main location's events (lane 0), or replay lane
// `lane`'s, into `rows`; its paths hang below `root`. The OpenMP timeline and the root-cause
// time profile follow the main location only (a lane's operations still open and close their
// segments and spans, so that both keep one entry per operation and span).
void profileLocation(RankState& state, size_t first, size_t n, uint32_t lane, SeverityRows& rows,
                     NodeId root, RequestPairs& requests) {
    const trace::EventStream& events = *state.events;
    std::vector<Frame> stack;
    uint64_t last = n > first ? events.time(first) : 0;
    OpenmpTimeline& openmp = *state.openmp;
    const bool main = lane == 0;
    const auto charge = [&](uint64_t now) {
        if (!stack.empty() && now > last) {
            addTime(state, rows, stack.back().node, stack.back().region,
                    state.defs.seconds(now) - state.defs.seconds(last));
            if (main) {
                openmp.charge(stack.back().node, state.defs.seconds(last), state.defs.seconds(now));
            }
            if (state.rootCause && main) {
                state.profile.charge(stack.back().node,
                                     state.defs.seconds(now) - state.defs.seconds(last));
            }
        }
        last = std::max(last, now);
    };
    // With windows, the main location's outermost MPI calls (RmaTimeline::inMpi): depth of
    // MPI calls open now.
    const bool trackMpi = main && state.rma != nullptr;
    uint32_t mpiDepth = 0;
    const auto isMpi = [&](uint32_t region) {
        return region < state.rma->mpiRegions.size() && state.rma->mpiRegions[region] != 0;
    };
    const auto push = [&](uint32_t region, uint64_t now) {
        charge(now);
        const NodeId parent = stack.empty() ? root : stack.back().node;
        const NodeId node = state.result.tree.child(parent, region);
        rows.add(Metric::Visits, node, 1);
        countFileOperation(state, rows, node, region);
        stack.push_back(Frame{node, region, kNoSpan, false});
        if (main) {
            openmp.enter(region, node, state.defs.seconds(now));
        }
        if (trackMpi && isMpi(region) && mpiDepth++ == 0) {
            const double enter = state.defs.seconds(now);
            state.rma->inMpi.push_back(MpiInterval{enter, enter});
        }
    };
    const auto pop = [&](uint64_t now) {
        charge(now);
        if (main) {
            openmp.leave(state.defs.seconds(now));
        }
        if (stack.back().rmaSpan != kNoSpan) {
            state.rma->spans[stack.back().rmaSpan].exit = state.defs.seconds(now);
        }
        if (trackMpi && isMpi(stack.back().region) && mpiDepth > 0 && --mpiDepth == 0) {
            state.rma->inMpi.back().exit = state.defs.seconds(now);
        }
        if (stack.back().span != kNoSpan) {
            state.spans[stack.back().span].exit = state.defs.seconds(now);
            if (state.rootCause) {
                state.profile.closeSpan();
            }
        }
        stack.pop_back();
    };
    const auto diagnose = [&](experiment::Diagnostic d) { state.sink.diagnose(d); };
    for (size_t i = first; i < n; ++i) {
        if ((i & 0xFFFFF) == 0) {
            state.report("profile", i, events.size());
        }
        if (applyCallPathEvent(state.defs, events, i, stack, push, pop, diagnose)) {
            continue;
        }
        const uint64_t t = events.time(i);
        switch (events.kind(i)) {
        case EventKind::MpiSend:
        case EventKind::MpiIsend:
        case EventKind::MpiRecv:
        case EventKind::MpiIrecv:
        case EventKind::MpiIrecvRequest:
        case EventKind::MpiIsendComplete:
        case EventKind::MpiCollectiveEnd: {
            const EventKind kind = events.kind(i);
            const bool request =
                kind == EventKind::MpiIrecvRequest || kind == EventKind::MpiIsendComplete;
            if (stack.empty()) {
                if (!request) {
                    state.sink.diagnose(experiment::Diagnostic::CommunicationOutsideRegions);
                }
                break;
            }
            if (stack.back().span == kNoSpan) {
                stack.back().span = static_cast<uint32_t>(state.spans.size());
                // The exit is filled in when the call is left.
                state.spans.emplace_back(stack.back().node, enterTimeOf(state, first, i),
                                         state.defs.seconds(t), lane);
                if (state.rootCause) {
                    state.profile.openSpan();
                }
            }
            const CallSpan& span = state.spans[stack.back().span];
            const auto operation = static_cast<uint32_t>(state.operations.size());
            state.operations.push_back(
                ReplayOperation{static_cast<uint32_t>(i), stack.back().span});
            const uint64_t id = kind == EventKind::MpiCollectiveEnd ? 0 : events.message(i).request;
            const auto link = [&](uint32_t other) {
                state.pairedOf[operation] = other;
                state.pairedOf[other] = operation;
            };
            // A start: paired with a completion met earlier on another location, else pending.
            const auto start = [&](std::unordered_map<uint64_t, uint32_t>& pending,
                                   std::unordered_map<uint64_t, RequestPairs::Early>& early) {
                const auto found = early.find(id);
                if (found != early.end() && found->second.lane != lane) {
                    link(found->second.operation);
                    early.erase(found);
                } else {
                    pending[id] = operation;
                }
            };
            // A completion: paired with its pending start, else kept for a later location's.
            const auto complete = [&](std::unordered_map<uint64_t, uint32_t>& pending,
                                      std::unordered_map<uint64_t, RequestPairs::Early>& early) {
                const auto found = pending.find(id);
                if (found != pending.end()) {
                    link(found->second);
                    pending.erase(found);
                } else if (!state.lanes.empty()) {
                    early[id] = RequestPairs::Early{operation, lane};
                }
            };
            if (kind == EventKind::MpiIrecvRequest) {
                start(requests.postedReceives, requests.earlyReceives);
            } else if (kind == EventKind::MpiIrecv) {
                complete(requests.postedReceives, requests.earlyReceives);
            } else if (kind == EventKind::MpiIsend) {
                start(requests.pendingSends, requests.earlySends);
            } else if (kind == EventKind::MpiIsendComplete) {
                complete(requests.pendingSends, requests.earlySends);
            }
            if (state.rootCause) {
                state.profile.closeSegment();
            }
            if (kind == EventKind::MpiCollectiveEnd) {
                const trace::CollectiveRecord& c = events.collective(i);
                if (c.op != trace::CollectiveOp::FileIo) { // file I/O: only its bytes count
                    countCollective(rows, span, c);
                }
            } else if (!request) {
                const bool send = kind == EventKind::MpiSend || kind == EventKind::MpiIsend;
                countMessage(rows, span, send, events.message(i).length);
            }
            break;
        }
        case EventKind::IoOperationComplete: {
            // Bytes read or written where the operation completed (Score-P's profile does the
            // same); a flush moves none.
            const trace::IoOperationRecord& io = events.ioOperation(i);
            if (!stack.empty() && io.mode <= 1) {
                rows.add(io.mode == 0 ? Metric::IoBytesRead : Metric::IoBytesWritten,
                         stack.back().node, static_cast<double>(io.bytes));
            }
            break;
        }
        default:
            if (state.rma && trace::isRmaEvent(events.kind(i))) {
                addRmaEvent(state, stack, first, i);
            }
            break;
        }
    }
    if (!stack.empty()) {
        state.sink.diagnose(experiment::Diagnostic::RegionsLeftOpen, stack.size());
        while (!stack.empty()) {
            pop(last);
        }
    }
}

// Exact sizes up front: growing these arrays by doubling would cost up to twice their size.
void reserveOperations(RankState& state) {
    const trace::EventStream& events = *state.events;
    const size_t n = events.size();
    size_t communication = 0;
    for (size_t i = 0; i < n; ++i) {
        const EventKind kind = events.kind(i);
        communication += kind == EventKind::MpiSend || kind == EventKind::MpiIsend ||
                         kind == EventKind::MpiRecv || kind == EventKind::MpiIrecv ||
                         kind == EventKind::MpiIrecvRequest || kind == EventKind::MpiIsendComplete;
        state.collectiveCount += kind == EventKind::MpiCollectiveEnd;
    }
    communication += state.collectiveCount;
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
    RequestPairs requests;
    profileLocation(state, 0, state.mainEvents, 0, state.result.severities, kNoNode, requests);
    if (!state.lanes.empty()) {
        const NodeId root = laneRoot(state.result.tree);
        for (size_t k = 0; k < state.lanes.size(); ++k) {
            const ReplayLane& lane = state.lanes[k];
            ThreadResult& thread = state.laneResults[k];
            thread.location = lane.location->id;
            thread.name = lane.location->name;
            thread.events = lane.end - lane.begin;
            profileLocation(state, lane.begin, lane.end, static_cast<uint32_t>(k + 1),
                            thread.severities, root, requests);
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
