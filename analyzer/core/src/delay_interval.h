// Synchronization intervals: the time profile of one rank between two of its synchronization
// points, as the root-cause pass compares it against a partner's.
#pragma once

#include "delay_sync_points.h"
#include "operation_profile.h"

#include <utility>
#include <vector>

namespace waitscope::analysis::delay {

/// A pruned time profile of a synchronization interval.
struct Interval {
    int from = -1; ///< synchronization point that opens it (-1: the trace start)
    int to = -1;   ///< the one that closes it
    std::vector<std::pair<NodeId, double>> times; ///< exclusive seconds per call path, sorted
    double sum = 0.0;
    double waiting = 0.0; ///< wait time of the synchronization points inside
};

/// Computes intervals from the time profile the profile pass recorded between operations;
/// keeps its scratch across calls, so that computing one allocates nothing.
class SyncIntervals {
public:
    /// `nodes`: the size of the call tree; `first`: the first operation of the location whose
    /// SPs `points` holds (an interval from its start begins there).
    SyncIntervals(const SyncPoints& points, const OperationProfile& profile, size_t nodes,
                  size_t first = 0);

    /// Fills `result` with the exclusive times per call path between SPs `from` and `to`,
    /// without the waiting of the SPs inside and without the part of the opening SP's call
    /// before its completion.
    void compute(int from, int to, Interval& result);

private:
    /// Sums the profile's segments over the interval into `result`, less the waiting of the
    /// SPs inside.
    void sumTimes(int from, int to, Interval& result);
    /// Leaves out the part of the opening SP's call before its completion.
    void trimOpening(int from, Interval& result) const;

    const SyncPoints& m_points;
    const OperationProfile& m_profile;
    std::vector<double> m_dense;     ///< indexed by node
    std::vector<NodeId> m_touched;   ///< nodes with a value in m_dense (possibly twice)
    std::vector<double> m_denseWait; ///< indexed by node
    std::vector<NodeId> m_waited;    ///< nodes with a value in m_denseWait
    size_t m_first;                  ///< the location's first operation
};

} // namespace waitscope::analysis::delay
