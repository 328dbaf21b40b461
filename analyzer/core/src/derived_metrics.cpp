// The derived-metrics stage: what is computed from all ranks' merged values, in order.
#include "waitscope/analysis/derived_metrics.h"

namespace waitscope::analysis {

void deriveMetrics(AnalysisResult& result) {
    deriveImbalance(result);
    // Performance impact splits time by the critical path: only when one was traced.
    bool critical = false;
    for (NodeId n = 0; n < result.tree().size() && !critical; ++n) {
        for (uint32_t r = 0; r < result.ranks() && !critical; ++r) {
            critical = result.value(Metric::CriticalPath, n, r) != 0.0;
        }
    }
    if (critical) {
        derivePerformanceImpact(result);
    }
}

} // namespace waitscope::analysis
