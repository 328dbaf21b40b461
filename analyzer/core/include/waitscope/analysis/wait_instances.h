// The wait-state instances file beside the report: every instance of every pattern with its
// rank, call path and interval, for the timeline and the exports to draw where waiting happened.
#pragma once

#include "waitscope/analysis/analysis_result.h"
#include "waitscope/base/result.h"

#include <string>
#include <utility>
#include <vector>

namespace waitscope::analysis {

/// The file's name in the experiment directory.
inline constexpr const char* kWaitInstancesFile = "instances.txt";

/// Writes every instance of `result` to `path` as text: two comment lines, then one line per
/// instance "pattern rank cnode enter exit severity" (pattern by its metric's unique name,
/// cnode as in report.cubex, times and severity in seconds on the analyzed trace clock), by
/// pattern in metric order, then rank, then enter time.
Status writeWaitInstances(const AnalysisResult& result, const std::string& path);

/// The part of the instance's call that waited: the end of the call for the completion
/// patterns (waiting for the last rank to leave), its start for all others.
std::pair<double, double> waitingInterval(const PatternInstance& instance);

/// Reads a file written by writeWaitInstances; errors name the file and line.
Result<std::vector<PatternInstance>> readWaitInstances(const std::string& path);

} // namespace waitscope::analysis
