// The critical path: the chain of activities, across ranks, that the end of the run waited for.
//
// Overview (Böhme et al., "Scalable critical-path based performance analysis", IPDPS 2012, as
// Scalasca computes it). The path is traced backwards in time; one rank holds it at a time:
//
//   rank 0  ..busy......|send|..........                   path: rank 1 from the end back to
//   rank 1  ..|recv  waiting   |..busy..|  <- end           the receive's wait, then rank 0
//                        ^ the path jumps to the sender     from the send's enter backwards.
//
//   - It starts on the rank that entered MPI_Finalize last, at that enter (without a traced
//     MPI_Finalize: the rank whose last event is latest, at that event).
//   - Walking back on the holder, all time is on the path (charged as critical_path to the call
//     path it was spent on), except the waiting the holder did for others:
//       Late Sender:  at a receive completed after the latest sender entered its send later
//                     than the receive began (an instance of the forward replay: none at
//                     MPI_Test*), the holder keeps [send enter, receive exit] and the path
//                     moves to the sender at its send's enter.
//       Late Receiver: at a blocking MPI_Send / MPI_Ssend, or the MPI_Wait* completing a
//                     nonblocking send, still running when its receive was posted (an instance
//                     of the backward replay), the holder keeps [receive posted, call exit];
//                     the path moves to the receiver, at the call that posted the receive.
//       barrier, n-to-n, scan: the holder keeps [last enter, own exit]; the path moves to the
//                     member that entered last (lowest rank on ties), at its enter.
//       1-to-n:       a non-root holder that entered before the root keeps [root enter, exit];
//                     the path moves to the root.
//       n-to-1:       the root, when it entered before the last member, keeps
//                     [last enter, exit]; the path moves to that member.
//     Communicator creation and destruction (MPI_Init, MPI_Comm_dup, ...) do not synchronize.
//   - It ends at the enter of MPI_Init: the time before it is start-up of the measurement.
// The path is one backward chain, so it is joined by pointer jumping rather than handed from
// rank to rank. Both ends of each message know the other's call times and span (where the path
// would land on it) from the forward and backward replays, and all members of each collective
// every member's enter and span from the forward replay. Then each rank knows, for every
// span, whether a holder would leave it there (an exit: from when, and the span of which rank the
// path lands on). Entering a rank before gap g, the path leaves again at its latest exit before
// span g, so only the latest exit before each possible entry is kept. All ranks gather these exits
// (two gathers), follow the chain from the end of the run (O(exits on the path) binary searches)
// and each charges its own segments, in the order of the backward walk. A rank whose further
// threads call MPI (replay lanes) walks back in its threads' order instead, a tree rather than
// a chain: it exports, per entry, the exit its walk reaches (critical_path_lanes.cpp). Time
// outside the communicating MPI calls comes from the time profile recorded in the profile pass
// (see OperationProfile for its memory).
#include "critical_path.h"

#include "collective_shape.h"
#include "critical_path_lanes.h"
#include "delay_sync_points.h"
#include "waitscope/analysis/region_class.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <utility>

namespace waitscope::analysis {

namespace {

using trace::EventKind;

enum class Sync : uint8_t { None, LastEnter, Root, RootWaits };

// How the path runs through a collective: barriers and n-to-n operations hand it to the last
// member to enter, 1-to-n ones to the root, n-to-1 ones from a waiting root onwards. Scans
// keep it where it is, as Scalasca 2.6 follows it (its Early Scan is no synchronization of
// the critical path).
Sync syncOf(trace::CollectiveOp op) {
    switch (collectiveShape(op)) {
    case CollectiveShape::Barrier:
    case CollectiveShape::NToN:
        return Sync::LastEnter;
    case CollectiveShape::Scan:
    case CollectiveShape::Exscan:
        return Sync::None;
    case CollectiveShape::OneToN:
        return Sync::Root;
    case CollectiveShape::NToOne:
        return Sync::RootWaits;
    case CollectiveShape::None:
        return Sync::None;
    }
    return Sync::None;
}

class CriticalPathPass {
public:
    CriticalPathPass(const CriticalPathInput& input, Transport& transport, PatternSink& sink)
        : m_in(input), m_transport(transport), m_sink(sink) {}

    Status run() {
        const size_t spans = m_in.spans.size();
        // With replay lanes, the main location's spans come first.
        size_t mainSpans = 0;
        while (mainSpans < spans && m_in.spans[mainSpans].lane == 0) {
            ++mainSpans;
        }
        const bool finalize =
            mainSpans > 0 && classOfSpan(mainSpans - 1) == RegionClass::MpiFinalize;
        m_firstGap = spans > 0 && classOfSpan(0) == RegionClass::MpiInit ? 1 : 0;
        // Spans from MPI_Finalize on are off the path, and so are their operations.
        m_endSpan = finalize ? mainSpans - 1 : mainSpans;
        if (m_in.lanes != nullptr && !m_in.lanes->empty() && m_in.joins != nullptr) {
            m_mode = m_in.lanesUnsupported ? Mode::Unsupported : Mode::Lanes;
            m_startEntry =
                finalize ? static_cast<uint32_t>(m_endSpan) : static_cast<uint32_t>(spans);
            m_laneWalk = std::make_unique<LaneWalk>(m_in, m_laneCalls, m_firstGap, m_startEntry);
            if (m_mode == Mode::Lanes) {
                findLaneExits();
            }
        } else {
            m_startEntry = static_cast<uint32_t>(m_endSpan);
            findExits();
        }
        if (Status s = joinLinks(finalize ? m_in.spans[m_endSpan].enter : m_in.end); !s) {
            return s;
        }
        if (m_mode == Mode::Lanes) {
            // Segments in the order of the backward walk, as the join found them.
            for (const Segment& segment : m_segments) {
                m_laneWalk->charge(segment.entry, m_sink);
            }
            return Status::success();
        }
        // The holder's charges in the order of a backward walk, segment after segment.
        // The join follows the path back in time, so they come in that order already (unless
        // the trace is inconsistent).
        const auto later = [](const Segment& a, const Segment& b) { return a.entry > b.entry; };
        if (!std::is_sorted(m_segments.begin(), m_segments.end(), later)) {
            std::sort(m_segments.begin(), m_segments.end(), later);
        }
        for (const Segment& segment : m_segments) {
            chargeSegment(segment);
        }
        return Status::success();
    }

private:
    /// Where the path is on this rank from one entry until it leaves: it holds the path from
    /// before gap `entry` back to the exit span `m_exitSpan[exit]` (or to the start of the run
    /// when `exit` is kNone).
    struct Segment {
        uint32_t entry = 0;
        uint32_t exit = 0;
    };
    static constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
    // The bits of CriticalPathInput::waits (RankState::partnerWaited).
    static constexpr uint8_t kPartnerWaited = 1;
    static constexpr uint8_t kWaitedHere = 2;
    using Landing = PathLanding;

    RegionClass classOfSpan(size_t s) const {
        const uint32_t region = m_in.tree.node(m_in.spans[s].node).region;
        return region < m_in.definitions.regions.size()
                   ? classifyRegion(m_in.definitions.regions[region])
                   : RegionClass::Computation;
    }

    bool isSelf(uint32_t comm) const {
        return comm < m_in.definitions.communicators.size() &&
               m_in.definitions.communicators[comm].isSelf;
    }

    uint32_t commRankOf(uint32_t comm) {
        if (comm != m_selfComm) { // runs of operations on one communicator: look up once
            m_selfRank = analysis::commRankOf(m_in.definitions, comm, m_transport.rank());
            m_selfComm = comm;
        }
        return m_selfRank;
    }

    // Where the path lands on the partner of operation `k`, at which this rank waited: the call
    // the replays named (a Late Sender's send, a Late Receiver's receive request).
    Landing landingOf(size_t k) const {
        const uint32_t message = delay::messageOperation(m_in.operations, m_in.paired, m_in.events,
                                                         static_cast<uint32_t>(k));
        const trace::MessageRecord& m = m_in.events.message(m_in.operations[message].event);
        return Landing{PartnerCall::decode(m_in.partners[k].info).span,
                       worldRankOf(m.comm, m.partner)};
    }

    // The world rank of communicator rank `member` of `comm` (kNone when unknown).
    uint32_t worldRankOf(uint32_t comm, uint32_t member) const {
        return m_in.definitions.worldRank(comm, member, m_transport.rank());
    }

    bool waitedAt(size_t k, uint8_t bit) const {
        return k < m_in.waits.size() && (m_in.waits[k] & bit) != 0;
    }

    // For every span before MPI_Finalize: would a holder of the path leave this rank inside
    // it, from when, and where does the path land? Independent of whether this rank holds the
    // path there, so computed locally for all spans; the spans where it leaves are the exits.
    //
    // Only the exits the path can reach are kept: the latest exit before a span the path may
    // enter this rank at (where another rank may hand it over) or before the end. Entered at
    // span t, the path leaves at the latest exit before t, so the others are never looked up.
    void findExits() {
        m_collectiveCursor = m_in.collectives.size();
        size_t opEnd = m_in.operations.size();
        bool reachable = true; // an entry (at first: the end) lies after the span, no exit between
        for (size_t s = m_endSpan; s-- > 0;) {
            while (opEnd > 0 && m_in.operations[opEnd - 1].span > s) {
                --opEnd;
            }
            size_t opBegin = opEnd;
            while (opBegin > 0 && m_in.operations[opBegin - 1].span == s) {
                --opBegin;
            }
            double leaveAt = std::numeric_limits<double>::quiet_NaN();
            Landing to;
            bool entry = false;
            exitOf(s, opBegin, opEnd, leaveAt, to, entry);
            if (!std::isnan(leaveAt)) {
                if (reachable) {
                    m_exitSpan.push_back(static_cast<uint32_t>(s));
                    m_exitAt.push_back(leaveAt);
                    m_exitTo.push_back(to);
                }
                reachable = false;
            }
            reachable = reachable || entry;
            opEnd = opBegin;
        }
        std::reverse(m_exitSpan.begin(), m_exitSpan.end());
        std::reverse(m_exitAt.begin(), m_exitAt.end());
        std::reverse(m_exitTo.begin(), m_exitTo.end());
    }

    // With replay lanes: for every span before MPI_Finalize, whether a holder leaves the rank
    // there (from when, to where) and whether another rank may hand the path over; then, per
    // entry, the exit the rank's walk back reaches (LaneWalk), exported by joinLinks().
    void findLaneExits() {
        m_collectiveCursor = m_in.collectives.size();
        m_laneCalls.assign(m_in.spans.size(), LaneCall{});
        size_t opEnd = m_in.operations.size();
        for (size_t s = m_in.spans.size(); s-- > 0;) {
            while (opEnd > 0 && m_in.operations[opEnd - 1].span > s) {
                --opEnd;
            }
            size_t opBegin = opEnd;
            while (opBegin > 0 && m_in.operations[opBegin - 1].span == s) {
                --opBegin;
            }
            if (s != m_endSpan || m_startEntry != m_endSpan) { // not MPI_Finalize
                LaneCall& call = m_laneCalls[s];
                exitOf(s, opBegin, opEnd, call.leaveAt, call.to, call.entry);
            }
            opEnd = opBegin;
        }
        for (uint32_t s = 0; s < m_laneCalls.size(); ++s) {
            if (m_laneCalls[s].entry || s == m_startEntry) {
                m_entries.push_back(s);
            }
        }
        if (m_startEntry == m_laneCalls.size()) {
            m_entries.push_back(m_startEntry);
        }
        m_entryExits = m_laneWalk->resolve(m_entries);
    }

    // One communicating MPI call: where a holder waited for another rank, the wait states of
    // the replays (Scalasca 2.6 follows its synchronization points that are wait states).
    // `entry`: whether another rank's holder may hand the path over at this call.
    void exitOf(size_t s, size_t opBegin, size_t opEnd, double& leaveAt, Landing& to, bool& entry) {
        const CallSpan& span = m_in.spans[s];
        // A Late Sender's receive (the latest sender of the call) or a Late Receiver's send
        // completion: the path leaves from the partner's enter, at most one per call.
        for (size_t k = opBegin; k < opEnd; ++k) {
            if (waitedAt(k, kWaitedHere)) {
                leaveAt = m_in.partners[k].enter;
                to = landingOf(k);
            }
        }
        for (size_t k = opEnd; k-- > opBegin;) {
            const EventKind kind = m_in.events.kind(m_in.operations[k].event);
            if (kind == EventKind::MpiCollectiveEnd) {
                exitOfCollective(k, span, leaveAt, to, entry);
            } else if (waitedAt(k, kPartnerWaited)) {
                entry = true;
            }
        }
    }

    // A synchronizing collective: the holder waited for the member that entered last (n-to-n),
    // for the root (1-to-n, non-root holders) or, as the root, for the last member (n-to-1),
    // if that member entered after it.
    void exitOfCollective(size_t k, const CallSpan& span, double& leaveAt, Landing& to,
                          bool& entry) {
        const ReplayOperation& op = m_in.operations[k];
        const trace::CollectiveRecord& c = m_in.events.collective(op.event);
        // findExits() asks for the operations in descending order: a cursor, not a search.
        while (m_collectiveCursor > 0 && m_in.collectives[m_collectiveCursor - 1].operation > k) {
            --m_collectiveCursor;
        }
        if (m_collectiveCursor == 0 || m_in.collectives[m_collectiveCursor - 1].operation != k) {
            return; // does not synchronize
        }
        const PathCollective& t = m_in.collectives[m_collectiveCursor - 1];
        const uint32_t self = commRankOf(c.comm);
        const Sync sync = syncOf(c.op);
        uint32_t target = t.members;
        double targetEnter = 0.0;
        Landing targetAt;
        bool fromAll = true; // any member may wait for the target, or the root only
        if (sync == Sync::LastEnter) {
            target = t.last;
            targetEnter = t.lastEnter;
            targetAt = t.lastAt;
        } else if (sync == Sync::Root && c.root < t.members) {
            target = c.root;
            targetEnter = t.rootEnter;
            targetAt = t.rootAt;
        } else if (sync == Sync::RootWaits && c.root < t.members && t.last != c.root) {
            target = t.last;
            targetEnter = t.lastEnter;
            targetAt = t.lastAt;
            fromAll = false;
        }
        if (target != t.members && self == target) {
            entry = true;
        }
        if (target == t.members || self == target || (!fromAll && self != c.root)) {
            return;
        }
        if (targetEnter > span.enter) {
            leaveAt = targetEnter;
            to = targetAt;
        }
    }

    // Joins the exits of all ranks into the path. Every rank gathers every rank's exits
    // (span, landing rank and span: 16 bytes each, padded to the most any rank has) and
    // follows the path from the rank that ended last: on a rank entered before gap `entry`, the
    // path leaves at its latest exit before `entry` and enters the landing rank before the gap
    // of the landing span. A rank with replay lanes gives instead, per entry, the exit its walk
    // back reaches (entry span, exit span, landing: 24 bytes each), where the landing span is
    // looked up. A landing on MPI_Finalize or later ends the path, as no one there takes it.
    // Two gathers instead of one round trip per hand-off; when a rank's lanes cannot be
    // followed, no rank charges a share.
    Status joinLinks(double start) {
        const uint32_t size = m_transport.size();
        if (size == 0) {
            return Status::success();
        }
        const size_t records = m_mode == Mode::Lanes ? m_entries.size() : m_exitSpan.size();
        const bool finalize = m_startEntry == m_endSpan;
        constexpr size_t kHead = 6;
        auto heads = m_transport.allGather(
            kWorldComm,
            {start, static_cast<double>(records), static_cast<double>(m_startEntry),
             static_cast<double>(m_mode),
             static_cast<double>(m_mode == Mode::Chain ? m_endSpan : m_in.spans.size()),
             static_cast<double>(m_mode != Mode::Chain && finalize ? m_endSpan : kNone)});
        if (!heads) {
            return heads.error();
        }
        const auto head = [&](uint32_t r, size_t i) { return (*heads)[r * kHead + i]; };
        size_t width = 0;
        size_t stride = 2;
        for (uint32_t r = 0; r < size; ++r) {
            width = std::max(width, static_cast<size_t>(head(r, 1)));
            const auto mode = static_cast<Mode>(head(r, 3));
            if (mode == Mode::Unsupported) {
                return Status::success();
            }
            stride = mode == Mode::Lanes ? 3 : stride;
        }
        // Exact integers per exit: its span, and the landing rank and span in one double (the
        // rank above bit 32; doubles hold integers up to 2^53, so up to 2^21 ranks); per entry
        // of a rank with lanes its span first.
        constexpr double kRankUnit = 4294967296.0;
        std::vector<double> mine(width * stride, 0.0);
        if (m_mode == Mode::Lanes) {
            for (size_t i = 0; i < m_entries.size(); ++i) {
                const uint32_t exit = m_entryExits[i];
                mine[i * stride] = m_entries[i];
                mine[i * stride + 1] = exit;
                if (exit != kNone) {
                    const Landing& to = m_laneCalls[exit].to;
                    mine[i * stride + 2] = std::min(to.rank, size) * kRankUnit + to.span;
                }
            }
        } else {
            for (size_t i = 0; i < m_exitSpan.size(); ++i) {
                const uint32_t to = std::min(m_exitTo[i].rank, size);
                mine[i * stride] = m_exitSpan[i];
                mine[i * stride + 1] = to * kRankUnit + m_exitTo[i].span;
            }
        }
        m_exitTo = {};
        // Shared by the ranks of one process: each rank's copy would be O(N · exits) per rank.
        auto gathered = m_transport.sharedGather(kWorldComm, mine);
        if (!gathered) {
            return gathered.error();
        }
        const std::vector<double>* all = gathered->get();
        mine = {};
        const auto exitsOf = [&](uint32_t r) { return static_cast<size_t>(head(r, 1)); };
        const auto value = [&](uint32_t r, size_t i, size_t field) {
            return (*all)[(r * width + i) * stride + field];
        };
        const auto spanOf = [&](uint32_t r, size_t i) {
            return static_cast<uint32_t>(value(r, i, 0));
        };
        const auto landingIn = [&](uint32_t r, size_t i, size_t field) {
            const auto packed = static_cast<uint64_t>(value(r, i, field));
            return Landing{static_cast<uint32_t>(packed), static_cast<uint32_t>(packed >> 32)};
        };
        uint32_t rank = 0;
        for (uint32_t r = 1; r < size; ++r) {
            if (head(r, 0) > head(rank, 0)) {
                rank = r;
            }
        }
        auto entry = static_cast<uint32_t>(head(rank, 2));
        // The path runs backward in time, so on each rank it enters at ever earlier spans:
        // the search for the next exit starts where the last one on that rank ended and
        // gallops back (a hop then costs O(1) amortized instead of a binary search).
        std::vector<size_t> cursor(size);
        for (uint32_t r = 0; r < size; ++r) {
            cursor[r] = exitsOf(r);
        }
        size_t steps = all->size() / stride + size + 1; // a consistent trace visits each once
        while (steps-- > 0) {
            Landing to;
            if (static_cast<Mode>(head(rank, 3)) == Mode::Lanes) {
                // The landing span among the rank's entries (ascending).
                size_t lo = 0;
                size_t hi = exitsOf(rank);
                while (lo < hi) {
                    const size_t mid = (lo + hi) / 2;
                    if (spanOf(rank, mid) < entry) {
                        lo = mid + 1;
                    } else {
                        hi = mid;
                    }
                }
                if (lo == exitsOf(rank) || spanOf(rank, lo) != entry) {
                    break; // not an entry: an inconsistent trace
                }
                const auto exit = static_cast<uint32_t>(value(rank, lo, 1));
                if (rank == m_transport.rank()) {
                    m_segments.push_back({entry, exit});
                }
                if (exit == kNone) {
                    break;
                }
                to = landingIn(rank, lo, 2);
            } else {
                const uint32_t exit = latestExitBefore(entry, exitsOf(rank), cursor[rank],
                                                       [&](size_t i) { return spanOf(rank, i); });
                if (rank == m_transport.rank()) {
                    m_segments.push_back({entry, exit});
                }
                if (exit == kNone) {
                    break;
                }
                to = landingIn(rank, exit, 1);
            }
            if (to.rank >= size || to.span >= static_cast<uint32_t>(head(to.rank, 4)) ||
                to.span == static_cast<uint32_t>(head(to.rank, 5))) {
                break;
            }
            rank = to.rank;
            entry = to.span;
        }
        return Status::success();
    }

    // The latest of `exits` exits (ascending spans `spanOf(i)`) before span `entry`, or kNone;
    // `cursor`: where the previous search on the rank ended, updated.
    template <typename SpanOf>
    static uint32_t latestExitBefore(uint32_t entry, size_t exits, size_t& cursor,
                                     SpanOf&& spanOf) {
        size_t hi = cursor;
        size_t lo = 0;
        if (hi < exits && spanOf(hi) < entry) {
            hi = exits; // entered later than last time (not in a consistent trace)
        } else {
            size_t step = 1;
            while (hi >= step && spanOf(hi - step) >= entry) {
                hi -= step;
                step *= 2;
            }
            lo = hi >= step ? hi - step + 1 : 0; // the exit before lo is before `entry`
        }
        while (lo < hi) {
            const size_t mid = (lo + hi) / 2;
            if (spanOf(mid) < entry) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        cursor = lo;
        return lo == 0 ? kNone : static_cast<uint32_t>(lo - 1);
    }

    void charge(NodeId node, double seconds) {
        if (seconds > 0.0) {
            m_sink.add(Metric::CriticalPath, node, seconds);
        }
    }

    void chargeGap(size_t g) {
        if (g >= m_firstGap) {
            m_in.profile.forEachInGap(g,
                                      [&](NodeId node, double seconds) { charge(node, seconds); });
        }
    }

    // The holder's share from before gap `entry` back to the exit: all gaps and spans, the exit
    // span from when the path left it.
    void chargeSegment(const Segment& segment) {
        recordSegment(segment);
        const size_t last = segment.exit == kNone ? 0 : m_exitSpan[segment.exit] + size_t{1};
        chargeGap(segment.entry);
        for (size_t s = segment.entry; s-- > last;) {
            const CallSpan& span = m_in.spans[s];
            charge(span.node, span.exit - span.enter);
            chargeGap(s);
        }
        if (segment.exit != kNone) {
            const CallSpan& span = m_in.spans[m_exitSpan[segment.exit]];
            charge(span.node, span.exit - std::max(m_exitAt[segment.exit], span.enter));
        }
    }

    // The segment's times and calls for the critical-path file: from the exit (where the path
    // arrived, the exit span's enter at the earliest) or the start of the run to the enter of
    // span `entry` (the end of the rank when the path starts there).
    void recordSegment(const Segment& segment) {
        const auto& spans = m_in.spans;
        PathSegment out;
        out.end = segment.entry < spans.size() ? spans[segment.entry].enter : m_in.end;
        out.to = segment.entry < m_endSpan ? spans[segment.entry].node : kNoNode;
        if (segment.exit != kNone) {
            const CallSpan& span = spans[m_exitSpan[segment.exit]];
            out.start = std::max(m_exitAt[segment.exit], span.enter);
            out.from = span.node;
        } else {
            // The path begins at MPI_Init's enter, or before the first call with the gap's time.
            double before = 0.0;
            if (m_firstGap == 0) {
                m_in.profile.forEachInGap(0, [&](NodeId, double seconds) { before += seconds; });
            }
            out.start = spans.empty() ? out.end - before : spans[0].enter - before;
        }
        m_sink.pathSegment(out);
    }

    const CriticalPathInput& m_in;
    Transport& m_transport;
    PatternSink& m_sink;
    uint32_t m_selfComm = kNone; ///< the communicator m_selfRank is this rank's in
    uint32_t m_selfRank = 0;
    size_t m_collectiveCursor =
        0; ///< findExits(): the recorded collectives from here on lie behind
    std::vector<uint32_t> m_exitSpan; ///< the spans where a holder leaves, ascending
    std::vector<double> m_exitAt;     ///< ... from when
    std::vector<Landing> m_exitTo;    ///< ... and where the path lands
    std::vector<Segment> m_segments;  ///< this rank's share of the path
    /// How this rank's walk back is joined: a chain of exits, or per entry (replay lanes)
    enum class Mode : uint8_t { Chain, Lanes, Unsupported };
    Mode m_mode = Mode::Chain;
    uint32_t m_startEntry = 0;          ///< where the path enters when it starts on this rank
    std::vector<LaneCall> m_laneCalls;  ///< with lanes: per span
    std::vector<uint32_t> m_entries;    ///< ... the entries, ascending
    std::vector<uint32_t> m_entryExits; ///< ... and the exit each one's walk reaches
    std::unique_ptr<LaneWalk> m_laneWalk;
    size_t m_endSpan = 0;  ///< the first span off the path (MPI_Finalize)
    size_t m_firstGap = 0; ///< the first gap on the path (after MPI_Init)
};

} // namespace

void PathCollectives::record(size_t operation, const trace::CollectiveRecord& collective,
                             const CollectiveView& view) {
    if (syncOf(collective.op) == Sync::None || view.width() < kWidth) {
        return;
    }
    const auto members = static_cast<uint32_t>(view.members());
    const auto landing = [&](uint32_t m) {
        return PathLanding{static_cast<uint32_t>(view.gathered->valueOf(m, 2)),
                           m_definitions.worldRank(collective.comm, m, m_rank)};
    };
    PathCollective t;
    t.operation = operation;
    t.members = members;
    t.last = members > 0 ? view.gathered->latest() : 0;
    t.lastEnter = members > 0 ? view.enterOf(t.last) : 0.0;
    t.rootEnter = collective.root < members ? view.enterOf(collective.root) : 0.0;
    if (members > 0) {
        t.lastAt = landing(t.last);
    }
    if (collective.root < members) {
        t.rootAt = landing(collective.root);
    }
    m_collectives.push_back(t);
}

Status traceCriticalPath(const CriticalPathInput& input, Transport& transport, PatternSink& sink) {
    CriticalPathPass pass(input, transport, sink);
    return pass.run();
}

} // namespace waitscope::analysis
