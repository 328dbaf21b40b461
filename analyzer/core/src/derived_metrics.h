// Metrics derived from the merged values of all ranks, after the replay.
#pragma once

#include "waitscope/analysis/analysis_result.h"

namespace waitscope::analysis {

/// Fills the computational imbalance metrics (`imbalance` and its children) from `comp` and
/// `visits` per call path and rank.
void deriveImbalance(AnalysisResult& result);

/// Fills `critical_path_imbalance` and the `performance_impact` metrics from `critical_path`,
/// `time` and the wait states per call path and rank.
void derivePerformanceImpact(AnalysisResult& result);

} // namespace waitscope::analysis
