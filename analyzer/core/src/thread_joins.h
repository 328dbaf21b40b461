// The threads a rank's main location created and joined, as its profile meets their order
// records (ThreadCreate, ThreadWait): when, on which call paths, and the main location's time
// per call path in between. The critical path through joined threads and the delay costs of
// join waits are computed from them (critical_path_threads.cpp, delay_thread_join.cpp).
#pragma once

#include "openmp_timeline.h"
#include "waitscope/analysis/rank_result.h"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace waitscope::analysis {

/// One thread the main location created and then joined.
struct ThreadJoin {
    uint32_t sequence = 0;       ///< the thread's number in the rank's thread contingent
    double created = 0.0;        ///< ThreadCreate
    NodeId createNode = kNoNode; ///< the main location's call path there
    double joinEnter = 0.0;      ///< the enter of the call that joined it (pthread_join)
    double joined = 0.0;         ///< ThreadWait: the join returned
    NodeId joinNode = kNoNode;   ///< the joining call's path
    /// The main location's time per call path from `created` to `joined`, sorted by node
    std::vector<OmpWork> between;
    /// With gaps tracked (ThreadJoins::trackGaps()): the main location's gap (the time between
    /// two communicating MPI calls, OperationProfile) the creation and the join lie in, and its
    /// time per call path in that gap up to the creation and up to the join, sorted by node
    uint32_t createGap = 0;
    uint32_t joinGap = 0;
    std::vector<OmpWork> beforeCreate;
    std::vector<OmpWork> beforeJoin;
};

/// Collects the main location's ThreadJoins while its profile runs (any order of creations
/// and joins; a thread joined without its creation recorded is left out).
class ThreadJoins {
public:
    /// The most threads created and not yet joined that are followed at once; further ones
    /// are left out (counted in `untracked`).
    static constexpr size_t kMaxOpen = 256;

    /// ThreadCreate of thread `sequence` at `time`, the main location on `node`.
    void create(uint32_t sequence, double time, NodeId node);
    /// ThreadWait of thread `sequence` at `time`, inside the joining call entered at `enter`
    /// on `node`: the thread's join is complete.
    void join(uint32_t sequence, double enter, double time, NodeId node);
    /// The main location's time [from, to) on `node` (exclusive), for the threads created and
    /// not yet joined.
    void charge(NodeId node, double from, double to) {
        if (!m_open.empty()) {
            chargeOpen(node, to - from);
        }
        if (m_trackGaps) {
            m_sinceGap[node] += to - from;
        }
    }
    /// Notes, from here on, in which of the main location's gaps each creation and join lies and
    /// the main location's time in that gap before it (for the critical path with MPI from
    /// several threads, critical_path_lanes.cpp).
    void trackGaps() { m_trackGaps = true; }
    bool tracksGaps() const { return m_trackGaps; }
    /// The main location left a communicating MPI call: its next gap begins.
    void gapBegins() {
        if (m_trackGaps) {
            ++m_gap;
            m_sinceGap.clear();
        }
    }

    /// The joins completed, in the order the main location joined them.
    const std::vector<ThreadJoin>& joins() const { return m_joins; }
    bool empty() const { return m_joins.empty(); }
    uint64_t untracked = 0;

private:
    struct Open {
        ThreadJoin join;
        std::unordered_map<NodeId, double> time;
    };
    void chargeOpen(NodeId node, double seconds);
    std::vector<OmpWork> sinceGap() const;

    std::vector<Open> m_open;
    std::vector<ThreadJoin> m_joins;
    bool m_trackGaps = false;
    uint32_t m_gap = 0;                            ///< the main location's gap open
    std::unordered_map<NodeId, double> m_sinceGap; ///< its time per call path so far
};

/// The threads of `threads` with both a ThreadBegin and a ThreadEnd, by sequence number.
std::unordered_map<uint32_t, ThreadResult*> threadsBySequence(std::vector<ThreadResult>& threads);

/// Moves this rank's share of the critical path (`result.criticalPath`, its critical_path on
/// the main location) through the threads its main location joined (critical_path_threads.cpp):
/// where the main location waited in a join inside one of the rank's stretches of the path,
/// the path runs from the join back to the joined thread's end, through the thread's time (on
/// its call paths and location, `result.threads`) to its begin, and back to the main location
/// at the thread's creation. Does nothing where the path does not pass.
void traceThreadCriticalPath(const ThreadJoins& joins, RankResult& result);

/// Adds the delay costs of the main location's join waits (delay_thread_join.cpp): a join that
/// waited for its thread's end is caused by the thread's excess work since it began over the
/// main location's since it created the thread (its wait states are not work); the wait is
/// charged to the thread's call paths of excess work (delay_pthread_join, on the thread's
/// location), in proportion to the excess and at most the excess.
void addThreadJoinDelays(const ThreadJoins& joins, RankResult& result);

} // namespace waitscope::analysis
