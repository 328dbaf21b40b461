// The critical path's imbalance and the performance impact of activities on and off the path.
//
// Overview (Böhme et al., IPDPS 2012; Böhme's thesis, as Scalasca's report gives it). With
//   C(cp)     = sum over ranks of critical_path(cp, r)          (the path's time on cp)
//   L         = sum over cp of C(cp)                              (the path's length)
//   own(cp,r) = max(0, time(cp, r) - waiting of r on cp)          (Late Sender, Late Receiver,
//               Wait at Barrier, Wait at N x N, Late Broadcast, Early Reduce and Wait at
//               Finalize: the rank's time without the wait states Scalasca 2.6 takes as
//               synchronization points; its Early Scan is none, so it stays in own)
// the metrics are, per call path cp and rank r:
//   critical_path_imbalance = max(0, Ci - mean over all ranks of (time - waiting)i) / Ci
//                             * critical_path(cp, r), where i marks values inclusive along
//       the call tree (cp and its callees) and the waiting includes Early Scan: what Scalasca's
//       report derives (its cube remapping, scout.spec), the same as the exclusive values on a
//       leaf
//   critical_path_activities     = min(C, own)            where C > 0
//   non_critical_path_activities = max(0, own - C)
//   critical_imbalance_impact: the waiting of each rank, W_r = L - sum over cp of own(cp, r),
//       is mapped onto the call paths on which r spends less than the path does, in
//       proportion to the shortfall E_r(cp) = max(0, C - own): cost(cp) = sum over r of
//       W_r * E_r(cp) / sum E_r; it is shared among the ranks that carried the path on cp
//       (critical_path(cp, r) / C). A rank that falls short nowhere (sum E_r = 0) leaves the
//       scaling undefined: then there is no imbalance impact at all, as in Scalasca's report.
//   inter_partition_imbalance: the same mapping of "headroom": each rank's time not explained
//       by the call paths it runs, L - sum over its call paths of max(own, C), goes to the
//       path's call paths it does not run at all, in proportion to C; undefined (none) when a
//       rank runs all of them. Scalasca computes it apart from the imbalance impact and keeps
//       it where positive, even above the impact (a rank whose own time exceeds the path's
//       length, say one that began before the path did, brings negative cost to the call paths
//       it falls short on); intra_partition_imbalance is impact - inter, negative then, as
//       Scalasca's scout.spec derives it (CriticalPath.pattern, INTER_PARTITION_IMBALANCE).
//   performance_impact_criticalpath = activities + imbalance impact;
//   performance_impact = that + non-critical-path activities.
// When the path runs through OpenMP teams (critical_path_openmp.cpp: some further thread carries
// critical_path), "rank" above reads "CPU location" — every rank's main location and its further
// threads, as Scalasca counts them — and a location's waiting includes its OpenMP barrier waits
// and idle time (omp_ibarrier_wait, omp_ebarrier_wait, omp_idle_threads). Otherwise the
// locations are the ranks' main ones alone.
#include "waitscope/analysis/derived_metrics.h"

#include <algorithm>
#include <vector>

namespace waitscope::analysis {
namespace {

constexpr Metric kWaitStates[] = {
    Metric::MpiLateSender,    Metric::MpiLateReceiver, Metric::MpiBarrierWait, Metric::MpiWaitNxn,
    Metric::MpiLateBroadcast, Metric::MpiEarlyReduce,  Metric::MpiFinalizeWait};
// With the path through OpenMP teams, the threads' waiting too.
constexpr Metric kOpenmpWaitStates[] = {Metric::OmpIbarrierWait, Metric::OmpEbarrierWait,
                                        Metric::OmpIdleThreads};

// The CPU locations the metrics run over: location r < ranks is rank r's main location, the
// others the further threads in result order, when the critical path visits one of them.
class Locations {
public:
    explicit Locations(AnalysisResult& result) : m_result(result), m_ranks(result.ranks()) {
        for (const ThreadValues& thread : result.threads()) {
            for (const double v : thread.severities.row(Metric::CriticalPath)) {
                if (v != 0.0) {
                    m_threads = true;
                }
            }
        }
    }
    uint32_t count() const {
        return m_threads ? m_ranks + static_cast<uint32_t>(m_result.threads().size()) : m_ranks;
    }
    bool withThreads() const { return m_threads; }
    double value(Metric metric, NodeId node, uint32_t location) const {
        return location < m_ranks
                   ? m_result.value(metric, node, location)
                   : m_result.threads()[location - m_ranks].severities.get(metric, node);
    }
    void add(Metric metric, NodeId node, uint32_t location, double amount) {
        if (location < m_ranks) {
            m_result.add(metric, node, location, amount);
        } else if (amount != 0.0) {
            m_result.threadValues(location - m_ranks).severities.add(metric, node, amount);
        }
    }
    const CallTree& tree() const { return m_result.tree(); }

private:
    AnalysisResult& m_result;
    uint32_t m_ranks;
    bool m_threads = false;
};

// The waiting of `location` on `node` that own time and the imbalance leave out.
double waitingOf(const Locations& at, NodeId node, uint32_t location) {
    double waiting = 0.0;
    for (Metric wait : kWaitStates) {
        waiting += at.value(wait, node, location);
    }
    if (at.withThreads()) {
        for (Metric wait : kOpenmpWaitStates) {
            waiting += at.value(wait, node, location);
        }
    }
    return waiting;
}

// The time of `rank` on `node` without the wait states critical_path_imbalance leaves out.
double unimbalancedTime(const Locations& result, NodeId node, uint32_t rank) {
    double t =
        result.value(Metric::Time, node, rank) - result.value(Metric::MpiEarlyScan, node, rank);
    for (Metric wait : kWaitStates) {
        t -= result.value(wait, node, rank);
    }
    if (result.withThreads()) {
        for (Metric wait : kOpenmpWaitStates) {
            t -= result.value(wait, node, rank);
        }
    }
    return t;
}

// Per call path, max(0, Ci - mean of (time - waiting)i) / Ci on call-tree inclusive values
// (0 where the path has no inclusive time on the critical path).
std::vector<double> imbalanceFactors(const Locations& result, const std::vector<double>& critical) {
    const size_t nodes = result.tree().size();
    const uint32_t ranks = result.count();
    std::vector<double> criticalIn(critical), timeIn(nodes, 0.0);
    for (NodeId n = 0; n < nodes; ++n) {
        for (uint32_t r = 0; r < ranks; ++r) {
            timeIn[n] += unimbalancedTime(result, n, r);
        }
    }
    // A node's parent precedes it: backward, each node is complete when it reaches its parent.
    for (NodeId n = static_cast<NodeId>(nodes); n-- > 0;) {
        const NodeId parent = result.tree().node(n).parent;
        if (parent != kNoNode && parent < nodes) {
            criticalIn[parent] += criticalIn[n];
            timeIn[parent] += timeIn[n];
        }
    }
    std::vector<double> factors(nodes, 0.0);
    for (NodeId n = 0; n < nodes; ++n) {
        if (criticalIn[n] > 0.0) {
            factors[n] = std::max(0.0, criticalIn[n] - timeIn[n] / ranks) / criticalIn[n];
        }
    }
    return factors;
}

double ownTime(const Locations& result, NodeId node, uint32_t rank) {
    return std::max(0.0, result.value(Metric::Time, node, rank) - waitingOf(result, node, rank));
}

// Differences below a nanosecond (no trace clock resolves less) are rounding: the critical
// path and the time profile add up the same intervals in a different order.
constexpr double kNegligible = 1e-9;

double shortfall(double critical, double own) {
    return critical - own > kNegligible ? critical - own : 0.0;
}

void addPositive(Locations& result, Metric metric, NodeId node, uint32_t rank, double v) {
    if (v > 0.0) {
        result.add(metric, node, rank, v);
    }
}

} // namespace

void derivePerformanceImpact(AnalysisResult& merged) {
    Locations result(merged);
    const uint32_t ranks = result.count();
    const size_t nodes = result.tree().size();
    if (ranks == 0 || nodes == 0) {
        return;
    }
    std::vector<double> critical(nodes, 0.0); // C per node
    std::vector<double> own(nodes * ranks, 0.0);
    double length = 0.0;
    for (NodeId n = 0; n < nodes; ++n) {
        for (uint32_t r = 0; r < ranks; ++r) {
            critical[n] += result.value(Metric::CriticalPath, n, r);
            own[n * ranks + r] = ownTime(result, n, r);
        }
        length += critical[n];
    }
    // Per rank: its waiting mapped onto its shortfalls, its headroom onto paths it skips.
    std::vector<double> cost(nodes, 0.0), headroom(nodes, 0.0);
    bool costDefined = true, headroomDefined = true;
    for (uint32_t r = 0; r < ranks; ++r) {
        double ownSum = 0.0, shortfallSum = 0.0, covered = 0.0, skipped = 0.0;
        for (NodeId n = 0; n < nodes; ++n) {
            const double o = own[n * ranks + r];
            ownSum += o;
            shortfallSum += shortfall(critical[n], o);
            if (o > kNegligible) {
                covered += std::max(o, critical[n]);
            } else {
                skipped += critical[n];
            }
        }
        costDefined = costDefined && shortfallSum > 0.0;
        headroomDefined = headroomDefined && skipped > 0.0;
        for (NodeId n = 0; n < nodes; ++n) {
            const double o = own[n * ranks + r];
            if (shortfallSum > 0.0) {
                cost[n] += (length - ownSum) * shortfall(critical[n], o) / shortfallSum;
            }
            if (skipped > 0.0 && o <= kNegligible) {
                headroom[n] += (length - covered) * critical[n] / skipped;
            }
        }
    }
    const std::vector<double> imbalance = imbalanceFactors(result, critical);
    for (NodeId n = 0; n < nodes; ++n) {
        for (uint32_t r = 0; r < ranks; ++r) {
            const double o = own[n * ranks + r];
            const double activities = critical[n] > 0.0 ? std::min(critical[n], o) : 0.0;
            const double nonCritical = std::max(0.0, o - critical[n]);
            const double share =
                critical[n] > 0.0 ? result.value(Metric::CriticalPath, n, r) / critical[n] : 0.0;
            // critical_path already holds its imbalance (inclusive along the metric tree).
            addPositive(result, Metric::CriticalPathImbalance, n, r,
                        imbalance[n] * result.value(Metric::CriticalPath, n, r));
            const double impact = costDefined ? std::max(0.0, share * cost[n]) : 0.0;
            const double inter = headroomDefined ? std::max(0.0, share * headroom[n]) : 0.0;
            addPositive(result, Metric::CriticalPathActivities, n, r, activities);
            addPositive(result, Metric::InterPartitionImbalance, n, r, inter);
            result.add(Metric::IntraPartitionImbalance, n, r, impact - inter);
            addPositive(result, Metric::CriticalImbalanceImpact, n, r, impact);
            addPositive(result, Metric::PerformanceImpactCriticalPath, n, r, activities + impact);
            addPositive(result, Metric::NonCriticalPathActivities, n, r, nonCritical);
            addPositive(result, Metric::PerformanceImpact, n, r, activities + impact + nonCritical);
        }
    }
}

} // namespace waitscope::analysis
