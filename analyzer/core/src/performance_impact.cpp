// The critical path's imbalance: how much longer an activity lasts on the path than on average.
//
// Overview (Böhme et al., IPDPS 2012, as Scalasca's report gives it):
//   own(cp, r)  = time(cp, r) - wait states of r on cp (Late Sender, Late Receiver, Wait at
//                 Barrier, Wait at N x N, Late Broadcast, Early Reduce, Early Scan)
//   C(cp)       = sum over ranks of critical_path(cp, r)
//   critical_path_imbalance(cp, r) = max(0, C(cp) - mean over all ranks of own(cp, .))
//                                    * critical_path(cp, r) / C(cp)
//   i.e. the part of the critical path's time on cp that the average rank does not spend
//   there, shared among the ranks that carried the path on cp.
#include "derived_metrics.h"

namespace waitscope::analysis {
namespace {

constexpr Metric kWaitStates[] = {
    Metric::MpiLateSender,    Metric::MpiLateReceiver, Metric::MpiBarrierWait, Metric::MpiWaitNxn,
    Metric::MpiLateBroadcast, Metric::MpiEarlyReduce,  Metric::MpiEarlyScan};

double ownTime(const AnalysisResult& result, NodeId node, uint32_t rank) {
    double own = result.value(Metric::Time, node, rank);
    for (Metric wait : kWaitStates) {
        own -= result.value(wait, node, rank);
    }
    return own;
}

} // namespace

void derivePerformanceImpact(AnalysisResult& result) {
    const uint32_t ranks = result.ranks();
    if (ranks == 0) {
        return;
    }
    for (NodeId n = 0; n < result.tree().size(); ++n) {
        double critical = 0.0;
        double own = 0.0;
        for (uint32_t r = 0; r < ranks; ++r) {
            critical += result.value(Metric::CriticalPath, n, r);
            own += ownTime(result, n, r);
        }
        const double excess = critical - own / ranks;
        if (critical <= 0.0 || excess <= 0.0) {
            continue;
        }
        for (uint32_t r = 0; r < ranks; ++r) {
            const double share = result.value(Metric::CriticalPath, n, r) / critical;
            if (share > 0.0) {
                // critical_path already holds this part (values are inclusive along the metric
                // tree), so only the child is added.
                result.add(Metric::CriticalPathImbalance, n, r, excess * share);
            }
        }
    }
}

} // namespace waitscope::analysis
