// Computational imbalance: how far each rank's computation on a call path lies from the mean.
//
// Overview (Scalasca's load-imbalance heuristic, computed by its `square` step):
//   mean(cp)    = sum over all ranks r of comp(cp, r) / number of ranks
//   d(cp, r)    = comp(cp, r) - mean(cp)
//   d > 0: imbalance_above          += d   (overload)
//          imbalance_above_single   += d   when only one rank visits cp
//   d < 0: imbalance_below          += -d  (underload)
//          imbalance_below_bypass   += -d  when r does not visit cp (non-participation)
//          imbalance_below_singularity += -d  ... and only one rank visits cp
//   imbalance = imbalance_above + imbalance_below (values are inclusive along the metric tree).
// The mean is taken over all ranks, visiting or not, so that the underload of the ranks that
// skip a call path balances the overload of those that run it: a call path only rank 0 runs
// (rank-0 serialization) shows (n-1)/n of its time as Single participant on rank 0.
#include "waitscope/analysis/derived_metrics.h"

namespace waitscope::analysis {

void deriveImbalance(AnalysisResult& result) {
    const uint32_t ranks = result.ranks();
    if (ranks == 0) {
        return;
    }
    for (NodeId n = 0; n < result.tree().size(); ++n) {
        double sum = 0.0;
        uint32_t visitors = 0;
        for (uint32_t r = 0; r < ranks; ++r) {
            sum += result.value(Metric::Comp, n, r);
            visitors += result.value(Metric::Visits, n, r) > 0.0;
        }
        const double mean = sum / ranks;
        const bool single = visitors == 1;
        for (uint32_t r = 0; r < ranks; ++r) {
            const double d = result.value(Metric::Comp, n, r) - mean;
            if (d > 0.0) {
                result.add(Metric::Imbalance, n, r, d);
                result.add(Metric::ImbalanceAbove, n, r, d);
                if (single) {
                    result.add(Metric::ImbalanceAboveSingle, n, r, d);
                }
            } else if (d < 0.0) {
                result.add(Metric::Imbalance, n, r, -d);
                result.add(Metric::ImbalanceBelow, n, r, -d);
                if (result.value(Metric::Visits, n, r) == 0.0) {
                    result.add(Metric::ImbalanceBelowBypass, n, r, -d);
                    if (single) {
                        result.add(Metric::ImbalanceBelowSingularity, n, r, -d);
                    }
                }
            }
        }
    }
}

} // namespace waitscope::analysis
