// The profile stage over a rank read in windows, for the root-cause passes (issue 22's traces
// larger than memory, with the default analysis).
//
// The rank's events are read forward in windows (trace::RankEventWindows) and profiled as the
// whole-rank profile stage does it (profile_stage.cpp: the same call tree, the same metrics in
// the same order, the same operations, calls and time profile between operations). Of the events
// only the communication events are kept, in a stream of their own (RankState::windowEvents),
// which the operations index: the later stages (consistency, forward and backward replay,
// critical path, root causes) read nothing of the events but the kinds and records of
// operations, so they then run unchanged and the report is byte for byte the whole-rank one.
//
// Held per rank between windows: the open call stack and the enter times of the calls not left
// yet, the requests not yet paired; held to the end: the communication events, the operations
// and their calls, and the time profile between operations (what the whole-rank stages hold once
// the timestamps are freed).
#include "profile_metrics.h"
#include "rank_state.h"
#include "waitscope/analysis/call_path_rules.h"
#include "waitscope/analysis/event_observer.h"
#include "waitscope/trace/otf2_archive.h"

#include <algorithm>
#include <filesystem>
#include <string>
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

class WindowedProfile {
public:
    WindowedProfile(RankState& state, trace::RankEventWindows& reader, uint64_t windowEvents)
        : m_state(state), m_reader(reader), m_windowEvents(std::max<uint64_t>(windowEvents, 1)) {
        if (const trace::Location* location = state.defs.locationOfRank(state.result.rank)) {
            m_announced = location->announcedEvents;
        }
    }

    Status run();
    /// The events the trace announces for this rank (0: unknown).
    uint64_t announced() const { return m_announced; }

private:
    void profileWindow(const trace::EventStream& events, size_t first);
    void addOperation(const trace::EventStream& events, size_t i);
    void charge(uint64_t now);
    void push(uint32_t region, uint64_t now);
    void pop(uint64_t now);

    RankState& m_state;
    trace::RankEventWindows& m_reader;
    uint64_t m_windowEvents;
    uint64_t m_announced = 0; ///< the events the trace announces for this rank (progress)
    uint64_t m_events = 0;    ///< events stored so far
    std::vector<Frame> m_stack;
    /// The times of the Enter and ProgramBegin events not yet left, innermost last: where the
    /// whole-rank profile finds a call's enter by scanning back
    std::vector<uint64_t> m_opened;
    uint64_t m_last = 0;
    bool m_started = false;
    // Requests by id while outstanding: a posted receive's request operation, a nonblocking
    // send's operation.
    std::unordered_map<uint64_t, uint32_t> m_postedReceives;
    std::unordered_map<uint64_t, uint32_t> m_pendingSends;
};

void WindowedProfile::charge(uint64_t now) {
    RankState& state = m_state;
    if (!m_stack.empty() && now > m_last) {
        const double seconds = state.defs.seconds(now) - state.defs.seconds(m_last);
        addTime(state, state.result.severities, m_stack.back().node, m_stack.back().region,
                seconds);
        state.openmp->charge(m_stack.back().node, state.defs.seconds(m_last),
                             state.defs.seconds(now));
        state.profile.charge(m_stack.back().node, seconds);
    }
    m_last = std::max(m_last, now);
}

void WindowedProfile::push(uint32_t region, uint64_t now) {
    RankState& state = m_state;
    charge(now);
    const NodeId parent = m_stack.empty() ? kNoNode : m_stack.back().node;
    const NodeId node = state.result.tree.child(parent, region);
    state.result.severities.add(Metric::Visits, node, 1);
    countFileOperation(state, state.result.severities, node, region);
    m_stack.push_back(Frame{node, region, kNoSpan, false});
    state.openmp->enter(region, node, state.defs.seconds(now));
}

void WindowedProfile::pop(uint64_t now) {
    RankState& state = m_state;
    charge(now);
    state.openmp->leave(state.defs.seconds(now));
    if (m_stack.back().span != kNoSpan) {
        state.spans[m_stack.back().span].exit = state.defs.seconds(now);
        state.profile.closeSpan();
    }
    m_stack.pop_back();
}

// Keeps communication event `i` of the window in the rank's stream of operations, with the MPI
// call around it (the innermost frame), pairs requests and counts it as the profile does.
void WindowedProfile::addOperation(const trace::EventStream& events, size_t i) {
    RankState& state = m_state;
    trace::EventStream& kept = state.windowEvents;
    const EventKind kind = events.kind(i);
    const uint64_t t = events.time(i);
    Frame& frame = m_stack.back();
    if (frame.span == kNoSpan) {
        frame.span = static_cast<uint32_t>(state.spans.size());
        const double enter = state.defs.seconds(m_opened.empty() ? t : m_opened.back());
        // The exit is filled in when the call is left.
        state.spans.emplace_back(frame.node, enter, state.defs.seconds(t), 0);
        state.profile.openSpan();
    }
    const auto operation = static_cast<uint32_t>(state.operations.size());
    const auto event = static_cast<uint32_t>(kept.size());
    if (kind == EventKind::MpiCollectiveEnd) {
        kept.appendCollective(t, events.collective(i));
        ++state.collectiveCount;
    } else {
        kept.appendMessage(kind, t, events.message(i));
    }
    state.operations.push_back(ReplayOperation{event, frame.span});
    state.pairedOf.push_back(RankState::kNoOperation);
    const auto pair = [&](std::unordered_map<uint64_t, uint32_t>& pending) {
        const auto found = pending.find(events.message(i).request);
        if (found != pending.end()) {
            state.pairedOf[operation] = found->second;
            state.pairedOf[found->second] = operation;
            pending.erase(found);
        }
    };
    if (kind == EventKind::MpiIrecvRequest) {
        m_postedReceives[events.message(i).request] = operation;
    } else if (kind == EventKind::MpiIrecv) {
        pair(m_postedReceives);
    } else if (kind == EventKind::MpiIsend) {
        m_pendingSends[events.message(i).request] = operation;
    } else if (kind == EventKind::MpiIsendComplete) {
        pair(m_pendingSends);
    }
    state.profile.closeSegment();
    const CallSpan& span = state.spans[frame.span];
    if (kind == EventKind::MpiCollectiveEnd) {
        const trace::CollectiveRecord& c = events.collective(i);
        if (c.op != trace::CollectiveOp::FileIo) { // file I/O: only its bytes count
            countCollective(state.result.severities, span, c);
        }
    } else if (kind != EventKind::MpiIrecvRequest && kind != EventKind::MpiIsendComplete) {
        const bool send = kind == EventKind::MpiSend || kind == EventKind::MpiIsend;
        countMessage(state.result.severities, span, send, events.message(i).length);
    }
}

// The whole-rank profile (profile_stage.cpp) over events [first, size) of one window, its state
// kept between windows.
void WindowedProfile::profileWindow(const trace::EventStream& events, size_t first) {
    RankState& state = m_state;
    if (!m_started && events.size() > first) {
        m_last = events.time(first);
        m_started = true;
    }
    const auto pushFrame = [this](uint32_t region, uint64_t now) { push(region, now); };
    const auto popFrame = [this](uint64_t now) { pop(now); };
    const auto diagnose = [&](experiment::Diagnostic d) { state.sink.diagnose(d); };
    for (size_t i = first; i < events.size(); ++i) {
        const EventKind kind = events.kind(i);
        // What the whole-rank profile's scan back for a call's enter finds.
        if (kind == EventKind::Enter || kind == EventKind::ProgramBegin) {
            m_opened.push_back(events.time(i));
        } else if (kind == EventKind::Leave && !m_opened.empty()) {
            m_opened.pop_back();
        }
        if (applyCallPathEvent(state.defs, events, i, m_stack, pushFrame, popFrame, diagnose)) {
            continue;
        }
        switch (kind) {
        case EventKind::MpiSend:
        case EventKind::MpiIsend:
        case EventKind::MpiRecv:
        case EventKind::MpiIrecv:
        case EventKind::MpiIrecvRequest:
        case EventKind::MpiIsendComplete:
        case EventKind::MpiCollectiveEnd:
            if (m_stack.empty()) {
                if (kind != EventKind::MpiIrecvRequest && kind != EventKind::MpiIsendComplete) {
                    state.sink.diagnose(experiment::Diagnostic::CommunicationOutsideRegions);
                }
                break;
            }
            addOperation(events, i);
            break;
        default:
            break;
        }
    }
}

Status WindowedProfile::run() {
    RankState& state = m_state;
    uint64_t previousTime = 0;
    while (!m_reader.done()) {
        trace::EventStream window;
        // The previous window's last time first: a sample's weight reaches back to it.
        const size_t first = m_started ? 1 : 0;
        if (m_started) {
            window.append(EventKind::BufferFlush, previousTime, 0);
        }
        if (Status read = m_reader.next(window, m_windowEvents); !read) {
            return read;
        }
        if (window.size() > first) {
            previousTime = window.time(window.size() - 1);
        }
        if (EventObserver* observer = state.input.options.observer; observer != nullptr) {
            if (const trace::Location* main = state.defs.locationOfRank(state.result.rank)) {
                observer->observe(state.defs, *main, window, first, window.size());
            }
        }
        profileWindow(window, first);
        m_events += window.size() - first;
        state.report("profile", m_reader.read(), std::max(m_announced, m_reader.read()));
    }
    if (!m_stack.empty()) {
        state.sink.diagnose(experiment::Diagnostic::RegionsLeftOpen, m_stack.size());
        while (!m_stack.empty()) {
            pop(m_last);
        }
    }
    state.result.events = m_events;
    state.mainEvents = state.windowEvents.size();
    state.end = m_started ? state.defs.seconds(previousTime) : 0.0;
    return Status::success();
}

// The rank's announced events, but no more than its event file can hold (a record takes at least
// a byte, as the whole-rank read reserves): a damaged count must not reserve terabytes. 0 when
// the file cannot be sized.
uint64_t reservableEvents(const RankState& state, uint64_t announced) {
    const trace::Location* location = state.defs.locationOfRank(state.result.rank);
    if (announced == 0 || location == nullptr || state.input.anchorFile.empty()) {
        return 0;
    }
    std::error_code ec;
    const uint64_t fileBytes = std::filesystem::file_size(
        std::filesystem::path(state.input.anchorFile).replace_extension("") /
            (std::to_string(location->id) + ".evt"),
        ec);
    return ec ? 0 : std::min(announced, fileBytes);
}

} // namespace

Status windowedProfileStage(RankState& state, Transport& transport) {
    WindowedProfile profile(state, *state.input.windows, state.input.options.windowEvents);
    if (const uint64_t announced = reservableEvents(state, profile.announced()); announced > 0) {
        // Room for as many operations and charges as the rank has events, at most: the arrays
        // then grow in place, without the copy and the spare half of a doubling vector, and
        // only the part used takes up memory (as profile_stage.cpp reserves them).
        state.operations.reserve(announced);
        state.spans.reserve(announced);
        state.pairedOf.reserve(announced);
        state.windowEvents.reserve(announced);
        state.profile.reserve(announced, announced);
    }
    if (Status profiled = profile.run(); !profiled) {
        return profiled;
    }
    state.delay->reserve(state.operations.size(), state.collectiveCount);
    state.pathCollectives->reserve(state.collectiveCount);
    // The later stages read the kinds and records of the operations only.
    state.windowEvents.releaseTimes();
    state.profile.finish();
    transport.carryRecordInfo(true);
    return Status::success();
}

} // namespace waitscope::analysis
