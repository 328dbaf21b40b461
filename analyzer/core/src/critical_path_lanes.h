// The critical path on a rank whose further threads call MPI (replay lanes): the local walk back
// in the order of the rank's threads (critical_path_lanes.cpp).
#pragma once

#include "critical_path.h"
#include "thread_joins.h"

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace waitscope::analysis {

/// What the critical path knows of one call (span) of a rank with replay lanes before the
/// ranks' walks are joined: whether a holder leaves the rank in it (from when, to where) and
/// whether another rank's holder may hand the path over at it.
struct LaneCall {
    double leaveAt = std::numeric_limits<double>::quiet_NaN(); ///< NaN: no exit
    PathLanding to;
    bool entry = false;
    bool exit() const { return leaveAt == leaveAt; }
};

/// Why the walk back cannot follow the order of the threads of a rank with replay lanes `lanes`
/// (lane k at k - 1), whose main location created and joined the threads `joins`; empty when
/// it can: every lane's thread has its ThreadBegin and ThreadEnd and was created and joined by
/// the main location.
std::string laneWalkUnsupported(uint32_t rank, const std::vector<ThreadResult>& lanes,
                                const ThreadJoins& joins);

/// The walk back on one rank with replay lanes. Each call's predecessor is the previous call
/// of its thread; before a lane's first call lies its creation on the main location; after a
/// join of the main location that waited for a lane's thread (the lane ended after the join's
/// enter) lies that lane's last call. The main location's gaps are split at the creations and
/// joins by the main location's time before them (ThreadJoin::beforeCreate, beforeJoin).
class LaneWalk {
public:
    static constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

    /// `calls` per span of `input.spans`; `firstGap`: the main location's first gap on the path
    /// (1 after MPI_Init); `startEntry`: where the path starts when it starts on this rank (its
    /// MPI_Finalize, or endEntry()); `input.lanes` and `input.joins` are set.
    LaneWalk(const CriticalPathInput& input, const std::vector<LaneCall>& calls, size_t firstGap,
             uint32_t startEntry);

    /// The entry at the end of the rank (when it has no MPI_Finalize): spans().size().
    uint32_t endEntry() const { return static_cast<uint32_t>(m_in.spans.size()); }
    /// Per entry of `entries` (ascending spans where the path may arrive, at their enter, or
    /// endEntry()), the span where the walk back leaves the rank (kNone: it reaches the start).
    std::vector<uint32_t> resolve(const std::vector<uint32_t>& entries);
    /// Charges the walk back from `entry` to `sink` (critical_path on the call paths of the
    /// locations it passes, and the stretches for the critical-path file).
    void charge(uint32_t entry, PatternSink& sink);

private:
    /// Where the walk is: at the enter of span `span` of location `lane`, holding the gap before
    /// it next. On the main location `bound` (if any) cuts the gap at that join's creation; at a
    /// lane's end (`tail`), the gap is the lane's time after its last call.
    struct Position {
        uint32_t span = 0;
        uint32_t lane = 0;
        const ThreadJoin* bound = nullptr;
        bool tail = false;
    };
    struct Lane {
        uint32_t first = 0; ///< its spans [first, end)
        uint32_t end = 0;
        const ThreadJoin* join = nullptr;
        const ThreadResult* thread = nullptr;
    };

    uint32_t walk(uint32_t entry, PatternSink* sink, const std::vector<uint32_t>* known);
    std::pair<const ThreadJoin*, uint32_t> handoffIn(uint32_t gap, const ThreadJoin* bound) const;
    void chargeMainGap(const Position& at, const ThreadJoin* handoff, uint32_t lane,
                       PatternSink& sink);
    void chargeLaneGap(const Position& at, PatternSink& sink);
    static void add(PatternSink& sink, uint32_t lane, NodeId node, double seconds);
    double startOfRun() const;

    const CriticalPathInput& m_in;
    const std::vector<LaneCall>& m_calls;
    size_t m_firstGap;
    uint32_t m_startEntry;
    uint32_t m_mainSpans = 0;
    std::vector<Lane> m_lanes; ///< lane k at k (k = 0: the main location)
    /// The joins that waited for a lane's thread, and the lane
    std::vector<std::pair<const ThreadJoin*, uint32_t>> m_waited;
    std::vector<uint32_t> m_passed; ///< resolve(): the entries the walk passed
    std::vector<double> m_dense;    ///< chargeMainGap()'s scratch, by node
    std::vector<NodeId> m_touched;
};

} // namespace waitscope::analysis
