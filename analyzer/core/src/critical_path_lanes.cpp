// The critical path on a rank whose further threads call MPI themselves (replay lanes).
//
// Overview. Each of the rank's locations is a timeline that hands the path to other ranks at
// its MPI calls, so the rank's walk back is a tree rather than a chain (the thread create/wait
// model of OTF2: a thread begins after its creation, a join that waited ends after its thread):
//
//   main     |create|------------|join=======|--barrier--      path: main back to the join's
//   lane 1          |begin|-recv-|--send--|end                 end; lane 1 from its end back
//                                                               to its begin; main before the
//                                                               creation (unless lane 1's recv
//                                                               waited: the path leaves there)
//
//   - A call's predecessor is the previous call of its location.
//   - Walking back over a gap of the main location, the latest join in it that waited for a
//     lane's thread (the thread ended after the join's enter) hands the path to that lane at its
//     end: the main location keeps its time after the join and the join from the thread's end.
//   - Before a lane's first call, the path holds the lane's time since its begin, then the
//     creating call path from the creation until the begin, and returns to the main location at
//     the creation: the main location holds its gap before the creation.
// The main location's gaps are split by its time per call path before each creation and join
// in their gaps (ThreadJoins::trackGaps()); each location's time after its last MPI call is
// kept apart in the time profile (OperationProfile::forEachTrailing()). Each rank resolves its walk
// locally and exports, per entry (a call where another rank's holder may hand the path over), the
// exit the walk reaches from there; the join of the ranks (critical_path.cpp) looks the landing
// call up among those entries.
#include "critical_path_lanes.h"

#include <algorithm>
#include <unordered_map>

namespace waitscope::analysis {

namespace {

// Sums under a nanosecond left where the main location's time was taken off are rounding.
constexpr double kNegligible = 1e-12;
constexpr uint32_t kUnknown = LaneWalk::kNone - 1;

const ThreadJoin* joinOfSequence(const ThreadJoins& joins, uint32_t sequence) {
    for (const ThreadJoin& join : joins.joins()) {
        if (join.sequence == sequence) {
            return &join;
        }
    }
    return nullptr;
}

} // namespace

std::string laneWalkUnsupported(uint32_t rank, const std::vector<ThreadResult>& lanes,
                                const ThreadJoins& joins) {
    const std::string where = "rank " + std::to_string(rank) + ": ";
    if (!joins.tracksGaps()) {
        return where + "further threads call MPI without a time profile of the main thread";
    }
    if (joins.untracked > 0) {
        return where + "more threads open at once than are followed";
    }
    for (const ThreadResult& lane : lanes) {
        if (lane.sequence == 0 || lane.end <= 0.0) {
            return where + lane.name + " calls MPI but has no thread begin or end";
        }
        const ThreadJoin* join = joinOfSequence(joins, lane.sequence);
        if (join == nullptr || join->createGap > join->joinGap || lane.begin < join->created) {
            return where + lane.name +
                   " calls MPI but was not created and joined by the main thread";
        }
    }
    return {};
}

LaneWalk::LaneWalk(const CriticalPathInput& input, const std::vector<LaneCall>& calls,
                   size_t firstGap, uint32_t startEntry)
    : m_in(input), m_calls(calls), m_firstGap(firstGap), m_startEntry(startEntry) {
    const std::vector<CallSpan>& spans = m_in.spans;
    const std::vector<ThreadResult>& threads = *m_in.lanes;
    m_lanes.resize(threads.size() + 1);
    while (m_mainSpans < spans.size() && spans[m_mainSpans].lane == 0) {
        ++m_mainSpans;
    }
    m_lanes[0].end = m_mainSpans;
    // A lane's spans are contiguous (its events follow the previous location's).
    for (uint32_t s = m_mainSpans; s < spans.size();) {
        const uint32_t lane = spans[s].lane;
        uint32_t end = s;
        while (end < spans.size() && spans[end].lane == lane) {
            ++end;
        }
        if (lane < m_lanes.size()) {
            m_lanes[lane].first = s;
            m_lanes[lane].end = end;
        }
        s = end;
    }
    for (uint32_t k = 1; k < m_lanes.size(); ++k) {
        Lane& lane = m_lanes[k];
        lane.thread = &threads[k - 1];
        lane.join = joinOfSequence(*m_in.joins, lane.thread->sequence);
        if (lane.first == lane.end) {
            lane.first = lane.end = m_mainSpans; // no call: none before its end
        }
        if (lane.join != nullptr && lane.thread->end > lane.join->joinEnter &&
            lane.thread->begin >= lane.join->created) {
            m_waited.emplace_back(lane.join, k);
        }
    }
}

std::vector<uint32_t> LaneWalk::resolve(const std::vector<uint32_t>& entries) {
    std::vector<uint32_t> known(m_in.spans.size() + 1, kUnknown);
    std::vector<uint32_t> exits;
    exits.reserve(entries.size());
    for (const uint32_t entry : entries) {
        if (known[entry] == kUnknown) {
            m_passed.clear();
            const uint32_t exit = walk(entry, nullptr, &known);
            known[entry] = exit;
            for (const uint32_t passed : m_passed) {
                known[passed] = exit;
            }
        }
        exits.push_back(known[entry]);
    }
    return exits;
}

void LaneWalk::charge(uint32_t entry, PatternSink& sink) {
    walk(entry, &sink, nullptr);
}

// The walk back from `entry`: charges to `sink` when given; with `known` (the exits reached
// from the entries resolved so far, kUnknown for the others), stops at an entry already
// resolved and notes those passed in m_passed.
uint32_t LaneWalk::walk(uint32_t entry, PatternSink* sink, const std::vector<uint32_t>* known) {
    const std::vector<CallSpan>& spans = m_in.spans;
    const bool atEnd = entry >= spans.size();
    Position at = atEnd ? Position{m_mainSpans, 0, nullptr, false}
                        : Position{entry, spans[entry].lane, nullptr, false};
    // The stretch of the path on one location so far, for the critical-path file.
    PathSegment piece;
    piece.end = atEnd ? m_in.end : spans[entry].enter;
    piece.to = atEnd || entry == m_startEntry ? kNoNode : spans[entry].node;
    const auto close = [&](double start, NodeId from, double nextEnd, NodeId nextTo) {
        piece.start = start;
        piece.from = from;
        // The piece lies on the location the walk is on: a lane's thread, or the main one.
        piece.location =
            at.lane == 0 ? PathSegment::kMainLocation : m_lanes[at.lane].thread->location;
        sink->pathSegment(piece);
        piece = PathSegment{};
        piece.end = nextEnd;
        piece.to = nextTo;
    };
    // A consistent trace passes each span and each lane's ends once.
    const size_t steps = spans.size() + 2 * m_lanes.size() + 2;
    for (size_t step = 0; step < steps; ++step) {
        uint32_t next = kNone;
        if (at.lane == 0) {
            const auto [handoff, lane] = handoffIn(at.span, at.bound);
            if (sink != nullptr) {
                chargeMainGap(at, handoff, lane, *sink);
            }
            if (handoff != nullptr) {
                const Lane& l = m_lanes[lane];
                if (sink != nullptr) { // the main location holds the join from the thread's end
                    const double end = std::min(handoff->joined, l.thread->end);
                    close(end, handoff->joinNode, end, kNoNode);
                }
                at = Position{l.end, lane, nullptr, true};
                continue;
            }
            next = at.span > 0 ? at.span - 1 : kNone;
        } else {
            const Lane& l = m_lanes[at.lane];
            if (sink != nullptr) {
                chargeLaneGap(at, *sink);
            }
            if (at.tail ? l.first == l.end : at.span == l.first) {
                const ThreadJoin* join = l.join;
                if (join == nullptr) {
                    break; // not followed (laneWalkUnsupported() refuses such ranks)
                }
                if (sink != nullptr) {
                    add(*sink, 0, join->createNode, std::max(0.0, l.thread->begin - join->created));
                    // The main location holds the creation until the thread began.
                    close(l.thread->begin, kNoNode, l.thread->begin, join->createNode);
                }
                at = Position{join->createGap, 0, join, false};
                continue;
            }
            next = at.tail ? l.end - 1 : at.span - 1;
        }
        if (next == kNone) {
            if (sink != nullptr) {
                close(startOfRun(), kNoNode, 0.0, kNoNode);
            }
            return kNone;
        }
        const CallSpan& span = spans[next];
        if (m_calls[next].exit()) {
            const double from = std::max(m_calls[next].leaveAt, span.enter);
            if (sink != nullptr) {
                add(*sink, span.lane, span.node, span.exit - from);
                close(from, span.node, 0.0, kNoNode);
            }
            return next;
        }
        if (sink != nullptr) {
            add(*sink, span.lane, span.node, span.exit - span.enter);
        }
        at = Position{next, span.lane, nullptr, false};
        if (known != nullptr && m_calls[next].entry) {
            if ((*known)[next] != kUnknown) {
                return (*known)[next];
            }
            m_passed.push_back(next);
        }
    }
    if (sink != nullptr) {
        close(piece.end, kNoNode, 0.0, kNoNode);
    }
    return kNone; // an inconsistent trace: the path ends here
}

// The latest join in the main location's gap `gap` (before `bound`'s creation, if any) that
// waited for a lane's thread, and the lane.
std::pair<const ThreadJoin*, uint32_t> LaneWalk::handoffIn(uint32_t gap,
                                                           const ThreadJoin* bound) const {
    std::pair<const ThreadJoin*, uint32_t> latest{nullptr, 0};
    for (const auto& [join, lane] : m_waited) {
        if (join->joinGap == gap && (bound == nullptr || join->joined <= bound->created) &&
            (latest.first == nullptr || join->joined > latest.first->joined)) {
            latest = {join, lane};
        }
    }
    return latest;
}

// The main location's gap at `at`: the whole gap, or its part before `at.bound`'s creation;
// without its part before `handoff` (a join that waited for lane `lane`), whose tail from the
// thread's end is on the path.
void LaneWalk::chargeMainGap(const Position& at, const ThreadJoin* handoff, uint32_t lane,
                             PatternSink& sink) {
    if (at.span >= m_firstGap && at.span <= m_mainSpans) {
        const auto plus = [&](NodeId node, double seconds) {
            if (node >= m_dense.size()) {
                m_dense.resize(node + 1, 0.0);
            }
            m_dense[node] += seconds;
            m_touched.push_back(node);
        };
        if (at.bound != nullptr) {
            for (const OmpWork& w : at.bound->beforeCreate) {
                plus(w.node, w.seconds);
            }
        } else if (at.span == m_mainSpans) {
            m_in.profile.forEachTrailing(0, plus);
        } else {
            m_in.profile.forEachInGap(at.span, plus);
        }
        if (handoff != nullptr) {
            for (const OmpWork& w : handoff->beforeJoin) {
                plus(w.node, -w.seconds);
            }
        }
        for (const NodeId node : m_touched) {
            if (m_dense[node] > kNegligible) {
                add(sink, 0, node, m_dense[node]);
            }
            m_dense[node] = 0.0;
        }
        m_touched.clear();
    }
    if (handoff != nullptr) {
        add(sink, 0, handoff->joinNode, std::max(0.0, handoff->joined - m_lanes[lane].thread->end));
    }
}

// A lane's own gap before its call `at.span` (before its first call: since its begin).
void LaneWalk::chargeLaneGap(const Position& at, PatternSink& sink) {
    m_in.profile.forEachInGap(
        at.span, [&](NodeId node, double seconds) { add(sink, at.lane, node, seconds); });
}

void LaneWalk::add(PatternSink& sink, uint32_t lane, NodeId node, double seconds) {
    if (seconds > 0.0) {
        sink.add(Metric::CriticalPath, CallSpan(node, 0.0, 0.0, lane), seconds);
    }
}

// Where the path begins on the main location: MPI_Init's enter, or before the first call with
// the gap's time.
double LaneWalk::startOfRun() const {
    double before = 0.0;
    if (m_firstGap == 0) {
        m_in.profile.forEachInGap(0, [&](NodeId, double seconds) { before += seconds; });
    }
    return m_mainSpans == 0 ? m_in.end - before : m_in.spans[0].enter - before;
}

} // namespace waitscope::analysis
