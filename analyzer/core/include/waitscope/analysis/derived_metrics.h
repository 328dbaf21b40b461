// The stage after the merge: metrics derived from the merged values of all ranks.
#pragma once

#include "waitscope/analysis/analysis_result.h"

namespace waitscope::analysis {

/// The derived-metrics stage, run by every driver once the ranks' results are merged
/// (AnalysisResult::merge()): the computational imbalance always, the critical path's
/// imbalance and the performance impact when a critical path was traced (the root-cause
/// passes can be turned off).
void deriveMetrics(AnalysisResult& result);

/// Fills the computational imbalance metrics (`imbalance` and its children) from `comp` and
/// `visits` per call path and rank.
void deriveImbalance(AnalysisResult& result);

/// Fills `critical_path_imbalance` and the `performance_impact` metrics from `critical_path`,
/// `time` and the wait states per call path and rank.
void derivePerformanceImpact(AnalysisResult& result);

} // namespace waitscope::analysis
