// The profile of one location's events, shared by the whole-rank and the windowed passes.
#include "location_profile.h"

#include "profile_metrics.h"
#include "waitscope/analysis/call_path_rules.h"
#include "waitscope/analysis/event_observer.h"

#include <algorithm>
#include <optional>
#include <unordered_map>

namespace waitscope::analysis {

using trace::EventKind;

namespace {

// What a region is to a blocking probe and the receive that takes the probed message.
enum class ProbeRole : uint8_t {
    None,
    Probe,            ///< MPI_Probe, whose receive is an MPI_Recv
    Mprobe,           ///< MPI_Mprobe, whose receive is an MPI_Mrecv
    NonblockingProbe, ///< MPI_Iprobe, MPI_Improbe: never waited, links nothing
    Recv,
    Mrecv,
    Imrecv, ///< MPI_Imrecv: its request is posted there, its message received by a completion
};

ProbeRole probeRoleOf(const std::string& name) {
    if (name == "MPI_Probe") {
        return ProbeRole::Probe;
    }
    if (name == "MPI_Mprobe") {
        return ProbeRole::Mprobe;
    }
    if (name == "MPI_Iprobe" || name == "MPI_Improbe") {
        return ProbeRole::NonblockingProbe;
    }
    if (name == "MPI_Recv") {
        return ProbeRole::Recv;
    }
    if (name == "MPI_Mrecv") {
        return ProbeRole::Mrecv;
    }
    return name == "MPI_Imrecv" ? ProbeRole::Imrecv : ProbeRole::None;
}

bool isProbe(ProbeRole role) {
    return role == ProbeRole::Probe || role == ProbeRole::Mprobe ||
           role == ProbeRole::NonblockingProbe;
}

bool isBlockingProbe(ProbeRole role) {
    return role == ProbeRole::Probe || role == ProbeRole::Mprobe;
}

} // namespace

bool isCommunicationEvent(EventKind kind) {
    switch (kind) {
    case EventKind::MpiSend:
    case EventKind::MpiIsend:
    case EventKind::MpiRecv:
    case EventKind::MpiIrecv:
    case EventKind::MpiIrecvRequest:
    case EventKind::MpiIsendComplete:
    case EventKind::MpiCollectiveEnd:
        return true;
    default:
        return false;
    }
}

LocationProfile::LocationProfile(RankState& state, MpiCalls& calls, SeverityRows& rows, NodeId root,
                                 uint32_t lane)
    : m_state(state), m_calls(calls), m_rows(rows), m_root(root), m_lane(lane), m_main(lane == 0),
      m_trackMpi(m_main && state.rma != nullptr), m_openmpPaths(state.defs, m_main) {
    // Without probe links every region is none of them.
    m_probeRoles.assign(state.defs.regions.size(), static_cast<uint8_t>(ProbeRole::None));
    for (size_t r = 0; r < m_probeRoles.size() && state.input.options.probeLinks; ++r) {
        m_probeRoles[r] = static_cast<uint8_t>(probeRoleOf(state.defs.regions[r].name));
    }
    // Each location's root-cause time profile from its first event on.
    if (state.rootCause && !m_main) {
        state.profile.beginLocation();
    }
}

void LocationProfile::charge(uint64_t now) {
    if (!m_stack.empty() && now > m_last) {
        const trace::Definitions& defs = m_state.defs;
        const double seconds = defs.seconds(now) - defs.seconds(m_last);
        addTime(m_state, m_rows, m_stack.back().node, m_stack.back().region, seconds);
        if (m_main) {
            m_state.openmp->charge(m_stack.back().node, defs.seconds(m_last), defs.seconds(now));
            m_state.threadJoins.charge(m_stack.back().node, defs.seconds(m_last),
                                       defs.seconds(now));
        }
        if (m_state.rootCause) {
            m_state.profile.charge(m_stack.back().node, seconds);
        }
    }
    m_last = std::max(m_last, now);
}

void LocationProfile::push(uint32_t region, uint64_t now) {
    RankState& state = m_state;
    charge(now);
    const NodeId parent = m_stack.empty() ? m_root : m_stack.back().node;
    const NodeId node = state.result.tree.child(parent, region);
    m_rows.add(Metric::Visits, node, 1);
    countFileOperation(state, m_rows, node, region);
    m_stack.push_back(Frame{node, region, kNoCall, false});
    if (m_main) {
        state.openmp->enter(region, node, state.defs.seconds(now));
    }
    if (m_trackMpi && region < state.rma->mpiRegions.size() && state.rma->mpiRegions[region] != 0 &&
        m_mpiDepth++ == 0) {
        const double enter = state.defs.seconds(now);
        state.rma->inMpi.push_back(MpiInterval{enter, enter});
    }
}

void LocationProfile::pop(uint64_t now) {
    RankState& state = m_state;
    charge(now);
    const double exit = state.defs.seconds(now);
    const Frame& frame = m_stack.back();
    if (m_main) {
        state.openmp->leave(exit);
    }
    if (frame.rmaSpan != kNoRmaSpan) {
        state.rma->spans[frame.rmaSpan].exit = exit;
    }
    if (m_trackMpi && frame.region < state.rma->mpiRegions.size() &&
        state.rma->mpiRegions[frame.region] != 0 && m_mpiDepth > 0 && --m_mpiDepth == 0) {
        state.rma->inMpi.back().exit = exit;
    }
    if (frame.call != kNoCall) {
        m_calls.close(frame.call, exit);
        if (state.rootCause) {
            state.profile.closeSpan();
        }
        if (m_main) {
            state.threadJoins.gapBegins();
        }
    }
    m_stack.pop_back();
}

// Communication event `i` inside the innermost frame: its call, its operation and its counts.
void LocationProfile::communication(const trace::EventStream& events, size_t i) {
    RankState& state = m_state;
    const EventKind kind = events.kind(i);
    const bool request = kind == EventKind::MpiIrecvRequest || kind == EventKind::MpiIsendComplete;
    if (m_stack.empty()) {
        if (!request) {
            state.sink.diagnose(experiment::Diagnostic::CommunicationOutsideRegions);
        }
        return;
    }
    Frame& frame = m_stack.back();
    // A receive replayed at its probe counts here all the same, on its own call path.
    const auto replayed = std::find(m_replayedReceives.begin(), m_replayedReceives.end(), i);
    const bool atProbe = replayed != m_replayedReceives.end();
    if (atProbe) {
        m_replayedReceives.erase(replayed);
    }
    const CallSpan call = atProbe ? CallSpan(frame.node, 0.0, 0.0, m_lane)
                                  : operationIn(frame, events, i, events.time(i));
    if (kind == EventKind::MpiCollectiveEnd) {
        const trace::CollectiveRecord& c = events.collective(i);
        if (c.op != trace::CollectiveOp::FileIo) { // file I/O: only its bytes count
            countCollective(m_rows, call, c);
        }
    } else if (!request) {
        const bool send = kind == EventKind::MpiSend || kind == EventKind::MpiIsend;
        countMessage(m_rows, call, send, events.message(i).length);
    }
}

const CallSpan& LocationProfile::operationIn(Frame& frame, const trace::EventStream& events,
                                             size_t i, uint64_t t) {
    RankState& state = m_state;
    m_probedSinceOperation = false;
    if (frame.call == kNoCall) {
        // The exit is filled in when the call is left.
        frame.call = m_calls.open(frame.node, openedAt(t), state.defs.seconds(t));
        if (state.rootCause) {
            state.profile.openSpan();
        }
    } else {
        m_calls.again(frame.call);
    }
    m_calls.operation(events, i, frame.call);
    if (state.rootCause) {
        state.profile.closeSegment();
    }
    return m_calls.call(frame.call);
}

void LocationProfile::probeEntered(const trace::EventStream& events, size_t i, size_t end) {
    const auto roleOf = [this](uint32_t region) {
        return region < m_probeRoles.size() ? static_cast<ProbeRole>(m_probeRoles[region])
                                            : ProbeRole::None;
    };
    const ProbeRole probe = roleOf(events.ref(i));
    if (!isProbe(probe) || m_stack.empty()) {
        return;
    }
    // A second probe before a communication event: which message each one found is unknown.
    const bool alone = !m_probedSinceOperation;
    m_probedSinceOperation = true;
    m_probedReceive = kNoEvent;
    if (!alone || probe == ProbeRole::NonblockingProbe) {
        return;
    }
    // The calls that receive what the probe found: MPI_Recv after MPI_Probe; MPI_Mrecv, or
    // MPI_Imrecv and the completion of its request, after MPI_Mprobe.
    const auto receives = [probe](ProbeRole role) {
        return probe == ProbeRole::Probe ? role == ProbeRole::Recv
                                         : role == ProbeRole::Mrecv || role == ProbeRole::Imrecv;
    };
    // Forward to the next communication event: it must be a message received in the first
    // receive call entered after the probe (or MPI_Imrecv's request, whose message is then the
    // completion of that request), with no probe entered before it.
    size_t depth = 0;
    bool left = false;
    // The regions entered since the probe's Leave, not left, with the times of their Enter.
    std::vector<std::pair<ProbeRole, uint64_t>> inner;
    const auto link = [&](size_t k, uint64_t receiveEnter) {
        m_probeFrame = m_stack.size() - 1;
        m_probedReceive = k;
        m_probedReceiveEnter = receiveEnter;
    };
    std::optional<uint64_t> imrecv; // MPI_Imrecv's request, once posted
    uint64_t imrecvEnter = 0;
    for (size_t k = i + 1; k < std::min(end, i + 1 + kProbeLookahead); ++k) {
        const EventKind kind = events.kind(k);
        if (imrecv) {
            // The message handle's receive completes where its request does, whatever comes
            // between.
            if (kind == EventKind::MpiIrecv && events.message(k).request == *imrecv) {
                link(k, imrecvEnter);
                return;
            }
        } else if (kind == EventKind::Enter) {
            if (!left) {
                ++depth;
            } else if (isProbe(roleOf(events.ref(k)))) {
                return;
            } else {
                inner.emplace_back(roleOf(events.ref(k)), events.time(k));
            }
        } else if (kind == EventKind::Leave) {
            if (!left) {
                if (depth == 0) {
                    left = true;
                } else {
                    --depth;
                }
            } else if (!inner.empty()) {
                if (receives(inner.back().first)) {
                    return; // a receive without a message (MPI_PROC_NULL)
                }
                inner.pop_back();
            }
        } else if (isCommunicationEvent(kind)) {
            if (!left || inner.empty() || !receives(inner.back().first)) {
                return;
            }
            const bool imrecvCall = inner.back().first == ProbeRole::Imrecv;
            if (imrecvCall && kind == EventKind::MpiIrecvRequest) {
                imrecv = events.message(k).request;
                imrecvEnter = inner.back().second;
                continue;
            }
            if (!imrecvCall && kind == EventKind::MpiRecv) {
                link(k, inner.back().second);
            }
            return;
        }
    }
}

uint64_t LocationProfile::lookaheadWanted(const trace::EventStream& events, size_t first) const {
    const size_t size = events.size();
    for (size_t p = size; p > first && size - p <= kProbeLookahead; --p) {
        const size_t i = p - 1;
        if (events.kind(i) == EventKind::Enter && events.ref(i) < m_probeRoles.size() &&
            isBlockingProbe(static_cast<ProbeRole>(m_probeRoles[events.ref(i)]))) {
            return i + 1 + kProbeLookahead - size;
        }
    }
    return 0;
}

void LocationProfile::probeLeft(const trace::EventStream& events, size_t i) {
    if (m_probedReceive == kNoEvent || m_stack.size() <= m_probeFrame ||
        m_stack[m_probeFrame].region != events.ref(i)) {
        return;
    }
    operationIn(m_stack[m_probeFrame], events, m_probedReceive, events.time(i));
    m_calls.receiveEnteredAt(m_state.defs.seconds(m_probedReceiveEnter));
    m_replayedReceives.push_back(m_probedReceive);
    m_probedReceive = kNoEvent;
}

// Keeps one-sided record `i` with the MPI call around it (the innermost frame) and counts it.
void LocationProfile::rmaEvent(const trace::EventStream& events, size_t i) {
    RankState& state = m_state;
    RmaTimeline& rma = *state.rma;
    const EventKind kind = events.kind(i);
    if (kind == EventKind::RmaCollectiveBegin || m_stack.empty()) {
        return;
    }
    Frame& frame = m_stack.back();
    const RmaCallKind call =
        frame.region < rma.callKinds.size() ? rma.callKinds[frame.region] : RmaCallKind::Other;
    const trace::RmaRecord& record = events.rma(i);
    countRmaEvent(state.result.severities, frame.node, kind, record, call);
    const double at = state.defs.seconds(events.time(i));
    if (frame.rmaSpan == kNoRmaSpan) {
        frame.rmaSpan = static_cast<uint32_t>(rma.spans.size());
        rma.spans.emplace_back(frame.node, openedAt(events.time(i)), at);
        rma.regions.push_back(frame.region);
    }
    rma.events.push_back(RmaEvent{kind, call, frame.rmaSpan, at, record});
}

void LocationProfile::profile(const trace::EventStream& events, size_t first, size_t end) {
    RankState& state = m_state;
    if (!m_started && end > first) {
        m_last = events.time(first);
        m_started = true;
    }
    const auto pushFrame = [this](uint32_t region, uint64_t now) { push(region, now); };
    const auto popFrame = [this](uint64_t now) { pop(now); };
    const auto diagnose = [&](experiment::Diagnostic d) { state.sink.diagnose(d); };
    // Event indices of this range only.
    m_probedReceive = kNoEvent;
    m_replayedReceives.clear();
    for (size_t i = first; i < end; ++i) {
        const EventKind kind = events.kind(i);
        // A call's enter is the innermost Enter (or ProgramBegin) not left yet.
        if (kind == EventKind::Enter || kind == EventKind::ProgramBegin) {
            m_opened.push_back(events.time(i));
        } else if (kind == EventKind::Leave && !m_opened.empty()) {
            probeLeft(events, i);
            m_opened.pop_back();
        }
        if (applyCallPathEvent(state.defs, events, i, m_stack, pushFrame, popFrame, diagnose,
                               m_openmpPaths.enabled() ? &m_openmpPaths : nullptr)) {
            if (kind == EventKind::Enter) {
                probeEntered(events, i, end);
            }
            continue;
        }
        if (isCommunicationEvent(kind)) {
            communication(events, i);
        } else if (kind == EventKind::IoOperationComplete) {
            // Bytes read or written where the operation completed (Score-P's profile does the
            // same); a flush moves none.
            const trace::IoOperationRecord& io = events.ioOperation(i);
            if (!m_stack.empty() && io.mode <= 1) {
                m_rows.add(io.mode == 0 ? Metric::IoBytesRead : Metric::IoBytesWritten,
                           m_stack.back().node, static_cast<double>(io.bytes));
            }
        } else if (state.rma && trace::isRmaEvent(kind)) {
            rmaEvent(events, i);
        } else if (trace::isThreadOrderEvent(kind)) {
            threadOrderEvent(events, i);
        }
    }
}

// The main location's creations and joins of threads (thread order records); a lane's begin and
// end, on its profile.
void LocationProfile::threadOrderEvent(const trace::EventStream& events, size_t i) {
    RankState& state = m_state;
    charge(events.time(i)); // the time before it is charged on the path it ran on
    const EventKind kind = events.kind(i);
    const double at = state.defs.seconds(events.time(i));
    const NodeId node = m_stack.empty() ? kNoNode : m_stack.back().node;
    if (m_main && kind == EventKind::ThreadCreate && node != kNoNode) {
        state.threadJoins.create(events.ref(i), at, node);
    } else if (m_main && kind == EventKind::ThreadWait && node != kNoNode) {
        state.threadJoins.join(events.ref(i), openedAt(events.time(i)), at, node);
    } else if (!m_main && m_lane <= state.laneResults.size()) {
        ThreadResult& lane = state.laneResults[m_lane - 1];
        if (kind == EventKind::ThreadBegin) {
            lane.sequence = events.ref(i);
            lane.begin = at;
        } else if (kind == EventKind::ThreadEnd) {
            lane.end = at;
        }
    }
}

void LocationProfile::finish() {
    if (!m_stack.empty()) {
        m_state.sink.diagnose(experiment::Diagnostic::RegionsLeftOpen, m_stack.size());
        while (!m_stack.empty()) {
            pop(m_last);
        }
    }
}

// The rank's requests by id while outstanding, over all its locations (ids are unique per
// rank): a posted receive's request operation, a nonblocking send's operation. A request may be
// started on one thread and completed on another (MPI_THREAD_MULTIPLE); the lanes are profiled
// after the main location, so a completion may be met before its start: it waits in `early`
// (with its location) for a start on another location.
struct RankCalls::Requests {
    std::unordered_map<uint64_t, uint32_t> postedReceives;
    std::unordered_map<uint64_t, uint32_t> pendingSends;
    struct Early {
        uint32_t operation;
        uint32_t lane;
    };
    std::unordered_map<uint64_t, Early> earlyReceives;
    std::unordered_map<uint64_t, Early> earlySends;
};

RankCalls::RankCalls(RankState& state, bool keepEvents)
    : m_state(state), m_keepEvents(keepEvents), m_requests(std::make_unique<Requests>()) {}

RankCalls::~RankCalls() = default;

uint64_t RankCalls::open(NodeId node, double enter, double at) {
    m_state.spans.emplace_back(node, enter, at, m_lane);
    return m_state.spans.size() - 1;
}

void RankCalls::close(uint64_t id, double exit) {
    m_state.spans[id].exit = exit;
}

const CallSpan& RankCalls::call(uint64_t id) {
    return m_state.spans[id];
}

void RankCalls::operation(const trace::EventStream& events, size_t i, uint64_t id) {
    RankState& state = m_state;
    const EventKind kind = events.kind(i);
    const auto operation = static_cast<uint32_t>(state.operations.size());
    auto event = static_cast<uint32_t>(i);
    if (m_keepEvents) {
        trace::EventStream& kept = state.windowEvents;
        event = static_cast<uint32_t>(kept.size());
        if (kind == EventKind::MpiCollectiveEnd) {
            kept.appendCollective(events.time(i), events.collective(i));
            ++state.collectiveCount;
        } else {
            kept.appendMessage(kind, events.time(i), events.message(i));
        }
        state.pairedOf.push_back(RankState::kNoOperation);
    }
    state.operations.push_back(ReplayOperation{event, static_cast<uint32_t>(id)});
    if (kind == EventKind::MpiCollectiveEnd) {
        return;
    }
    const uint64_t request = events.message(i).request;
    const uint32_t lane = m_lane;
    const auto link = [&](uint32_t other) {
        state.pairedOf[operation] = other;
        state.pairedOf[other] = operation;
    };
    // A start: paired with a completion met earlier on another location, else pending.
    const auto start = [&](std::unordered_map<uint64_t, uint32_t>& pending,
                           std::unordered_map<uint64_t, Requests::Early>& early) {
        const auto found = early.find(request);
        if (found != early.end() && found->second.lane != lane) {
            link(found->second.operation);
            early.erase(found);
        } else {
            pending[request] = operation;
        }
    };
    // A completion: paired with its pending start, else kept for a later location's.
    const auto complete = [&](std::unordered_map<uint64_t, uint32_t>& pending,
                              std::unordered_map<uint64_t, Requests::Early>& early) {
        const auto found = pending.find(request);
        if (found != pending.end()) {
            link(found->second);
            pending.erase(found);
        } else if (!state.lanes.empty()) {
            early[request] = Requests::Early{operation, lane};
        }
    };
    Requests& requests = *m_requests;
    if (kind == EventKind::MpiIrecvRequest) {
        start(requests.postedReceives, requests.earlyReceives);
    } else if (kind == EventKind::MpiIrecv) {
        complete(requests.postedReceives, requests.earlyReceives);
    } else if (kind == EventKind::MpiIsend) {
        start(requests.pendingSends, requests.earlySends);
    } else if (kind == EventKind::MpiIsendComplete) {
        complete(requests.pendingSends, requests.earlySends);
    }
}

void RankCalls::receiveEnteredAt(double enter) {
    const auto operation = static_cast<uint32_t>(m_state.operations.size() - 1);
    m_state.probedReceiveEnters.emplace_back(operation, enter);
}

WindowedLocation::WindowedLocation(RankState& state, trace::RankEventWindows& reader,
                                   uint64_t windowEvents, LocationProfile& profile)
    : m_state(state), m_reader(reader), m_windowEvents(std::max<uint64_t>(windowEvents, 1)),
      m_profile(profile) {}

Status WindowedLocation::next() {
    trace::EventStream window;
    // The previous window's last time first: a sample's weight reaches back to it. It is not
    // profiled again.
    const size_t first = m_profile.started() ? 1 : 0;
    if (first == 1) {
        window.append(EventKind::BufferFlush, m_previousTime, 0);
    }
    if (Status read = m_reader.next(window, m_windowEvents); !read) {
        return read;
    }
    // A blocking probe near the end: on until the events that may hold its receive are read.
    for (uint64_t more = 0;
         !m_reader.done() && (more = m_profile.lookaheadWanted(window, first)) > 0;) {
        if (Status read = m_reader.next(window, more); !read) {
            return read;
        }
    }
    if (window.size() > first) {
        m_previousTime = window.time(window.size() - 1);
    }
    if (EventObserver* observer = m_state.input.options.observer; observer != nullptr) {
        if (const trace::Location* main = m_state.defs.locationOfRank(m_state.result.rank)) {
            observer->observe(m_state.defs, *main, window, first, window.size());
        }
    }
    m_profile.profile(window, first, window.size());
    m_events += window.size() - first;
    return Status::success();
}

} // namespace waitscope::analysis
