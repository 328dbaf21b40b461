// The profile stage: one pass over the rank's events that builds the call tree, the time and
// count metrics per call path, and the list of communication operations the later stages
// replay.
//
// Enter/Leave (and calling-context records) build the call tree; exclusive time goes to each
// node in its metric category, with visits, message and collective counts and bytes. Every
// communication event is remembered with the MPI call (node, enter, exit) around it. For the
// root-cause stages the time between operations is recorded as well (OperationProfile).
#include "call_path_rules.h"
#include "rank_state.h"

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
    bool context; ///< pushed for a calling-context record rather than an Enter
};

void addTime(RankState& state, NodeId node, uint32_t region, double seconds) {
    addTimeSeverities(state.result.severities, state.classOf(region), node, seconds);
}

// An MPI file operation (Scalasca's mpi_file_* counts, as Scalasca 2.6's derived metrics count
// them): every MPI_File_* call, one per call; collective are open, close, preallocate,
// seek_shared, sync and the names with _all, _ordered or _set (MPI_File_set_errhandler aside);
// reads and writes among the data transfers by name.
void countFileOperation(RankState& state, NodeId node, uint32_t region) {
    const RegionClass c = state.classOf(region);
    if (c != RegionClass::MpiIoIndividual && c != RegionClass::MpiIoCollective &&
        c != RegionClass::MpiMgmtFile) {
        return;
    }
    const std::string& name = state.defs.regions[region].name;
    bool collective = c == RegionClass::MpiIoCollective;
    if (c == RegionClass::MpiMgmtFile) {
        collective = name.rfind("MPI_File_set_errhandler", 0) != 0 &&
                     (name == "MPI_File_open" || name == "MPI_File_close" ||
                      name == "MPI_File_preallocate" || name == "MPI_File_seek_shared" ||
                      name == "MPI_File_sync" || name.find("_set") != std::string::npos);
    }
    SeverityRows& s = state.result.severities;
    s.add(Metric::MpiFileOps, node, 1);
    s.add(collective ? Metric::MpiFileCops : Metric::MpiFileIops, node, 1);
    if (c == RegionClass::MpiMgmtFile) {
        return;
    }
    const bool read = name.find("read") != std::string::npos;
    s.add(collective ? (read ? Metric::MpiFileCrops : Metric::MpiFileCwops)
                     : (read ? Metric::MpiFileIrops : Metric::MpiFileIwops),
          node, 1);
}

void countMessage(RankState& state, const CallSpan& span, bool send, uint64_t length) {
    SeverityRows& s = state.result.severities;
    if (length == 0) {
        s.add(Metric::Syncs, span.node, 1);
        s.add(Metric::SyncsP2p, span.node, 1);
        s.add(send ? Metric::SyncsSend : Metric::SyncsRecv, span.node, 1);
        return;
    }
    s.add(Metric::Comms, span.node, 1);
    s.add(Metric::CommsP2p, span.node, 1);
    s.add(send ? Metric::CommsSend : Metric::CommsRecv, span.node, 1);
    const double bytes = static_cast<double>(length);
    s.add(Metric::Bytes, span.node, bytes);
    s.add(Metric::BytesP2p, span.node, bytes);
    s.add(send ? Metric::BytesSent : Metric::BytesRcvd, span.node, bytes);
}

void countCollective(RankState& state, const CallSpan& span, const trace::CollectiveRecord& c) {
    SeverityRows& s = state.result.severities;
    if (c.sent == 0 && c.received == 0) {
        s.add(Metric::Syncs, span.node, 1);
        s.add(Metric::SyncsColl, span.node, 1);
        return;
    }
    // By the bytes the call moved, whatever its root (as Scalasca 2.6 counts): both ways an
    // exchange, only out a source, only in a destination.
    Metric kind = Metric::CommsCxch;
    if (c.received == 0) {
        kind = Metric::CommsCsrc;
    } else if (c.sent == 0) {
        kind = Metric::CommsCdst;
    }
    s.add(Metric::Comms, span.node, 1);
    s.add(Metric::CommsColl, span.node, 1);
    s.add(kind, span.node, 1);
    s.add(Metric::Bytes, span.node, static_cast<double>(c.sent + c.received));
    s.add(Metric::BytesColl, span.node, static_cast<double>(c.sent + c.received));
    s.add(Metric::BytesCout, span.node, static_cast<double>(c.sent));
    s.add(Metric::BytesCin, span.node, static_cast<double>(c.received));
}

// The enter time of the innermost open call: found by scanning back to its Enter, which is
// cheap because communication events sit right inside their MPI call.
double enterTimeOf(const RankState& state, size_t event) {
    const trace::EventStream& events = *state.events;
    int depth = 0;
    for (size_t j = event; j-- > 0;) {
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

// The pass itself; profileStage() adds what the later stages need right after it.
void profile(RankState& state) {
    const trace::EventStream& events = *state.events;
    std::vector<Frame> stack;
    uint64_t last = events.size() > 0 ? events.time(0) : 0;
    OpenmpTimeline& openmp = *state.openmp;
    const auto charge = [&](uint64_t now) {
        if (!stack.empty() && now > last) {
            addTime(state, stack.back().node, stack.back().region,
                    state.defs.seconds(now) - state.defs.seconds(last));
            openmp.charge(stack.back().node, state.defs.seconds(last), state.defs.seconds(now));
            if (state.rootCause) {
                state.profile.charge(stack.back().node,
                                     state.defs.seconds(now) - state.defs.seconds(last));
            }
        }
        last = std::max(last, now);
    };
    const auto push = [&](uint32_t region, uint64_t now) {
        charge(now);
        const NodeId parent = stack.empty() ? kNoNode : stack.back().node;
        const NodeId node = state.result.tree.child(parent, region);
        state.result.severities.add(Metric::Visits, node, 1);
        countFileOperation(state, node, region);
        stack.push_back(Frame{node, region, kNoSpan, false});
        openmp.enter(region, node, state.defs.seconds(now));
    };
    const auto pop = [&](uint64_t now) {
        charge(now);
        openmp.leave(state.defs.seconds(now));
        if (stack.back().span != kNoSpan) {
            state.spans[stack.back().span].exit = state.defs.seconds(now);
            if (state.rootCause) {
                state.profile.closeSpan();
            }
        }
        stack.pop_back();
    };
    const size_t n = events.size();
    // Exact sizes up front: growing these arrays by doubling would cost up to twice their size.
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
    const auto diagnose = [&](experiment::Diagnostic d) { state.sink.diagnose(d); };
    state.pairedOf.assign(communication, RankState::kNoOperation);
    // Requests by id while outstanding: a posted receive's request operation, a nonblocking
    // send's operation.
    std::unordered_map<uint64_t, uint32_t> postedReceives;
    std::unordered_map<uint64_t, uint32_t> pendingSends;
    for (size_t i = 0; i < n; ++i) {
        if ((i & 0xFFFFF) == 0) {
            state.report("profile", i, n);
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
                state.spans.push_back(
                    CallSpan{stack.back().node, enterTimeOf(state, i), state.defs.seconds(t)});
                if (state.rootCause) {
                    state.profile.openSpan();
                }
            }
            const CallSpan& span = state.spans[stack.back().span];
            const auto operation = static_cast<uint32_t>(state.operations.size());
            state.operations.push_back(
                ReplayOperation{static_cast<uint32_t>(i), stack.back().span});
            // Pairs a request with its message: the request (or message) found in `pending`.
            const auto pair = [&](std::unordered_map<uint64_t, uint32_t>& pending) {
                const auto found = pending.find(events.message(i).request);
                if (found != pending.end()) {
                    state.pairedOf[operation] = found->second;
                    state.pairedOf[found->second] = operation;
                    pending.erase(found);
                }
            };
            if (kind == EventKind::MpiIrecvRequest) {
                postedReceives[events.message(i).request] = operation;
            } else if (kind == EventKind::MpiIrecv) {
                pair(postedReceives);
            } else if (kind == EventKind::MpiIsend) {
                pendingSends[events.message(i).request] = operation;
            } else if (kind == EventKind::MpiIsendComplete) {
                pair(pendingSends);
            }
            if (state.rootCause) {
                state.profile.closeSegment();
            }
            if (kind == EventKind::MpiCollectiveEnd) {
                const trace::CollectiveRecord& c = events.collective(i);
                if (c.op != trace::CollectiveOp::FileIo) { // file I/O: only its bytes count
                    countCollective(state, span, c);
                }
            } else if (!request) {
                const bool send = kind == EventKind::MpiSend || kind == EventKind::MpiIsend;
                countMessage(state, span, send, events.message(i).length);
            }
            break;
        }
        case EventKind::IoOperationComplete: {
            // Bytes read or written where the operation completed (Score-P's profile does the
            // same); a flush moves none.
            const trace::IoOperationRecord& io = events.ioOperation(i);
            if (!stack.empty() && io.mode <= 1) {
                state.result.severities.add(io.mode == 0 ? Metric::IoBytesRead
                                                         : Metric::IoBytesWritten,
                                            stack.back().node, static_cast<double>(io.bytes));
            }
            break;
        }
        default:
            break;
        }
    }
    if (!stack.empty()) {
        state.sink.diagnose(experiment::Diagnostic::RegionsLeftOpen, stack.size());
        while (!stack.empty()) {
            pop(last);
        }
    }
    state.report("profile", n, n);
}

} // namespace

Status profileStage(RankState& state, Transport& transport) {
    if (state.events == nullptr) {
        return Status::success(); // the consistency check refuses the rank
    }
    profile(state);
    if (state.delay) {
        state.delay->reserve(state.operations.size(), state.collectiveCount);
        state.pathCollectives->reserve(state.collectiveCount);
    }
    if (state.rootCause) {
        state.end = state.events->size() > 0 ? state.seconds(state.events->size() - 1) : 0.0;
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
