// The critical-path file beside the report: the path's stretches, rank by rank through the run,
// for the timeline to draw the path as a line through the ranks.
#pragma once

#include "waitscope/analysis/analysis_result.h"
#include "waitscope/base/result.h"

#include <string>
#include <vector>

namespace waitscope::analysis {

/// The file's name in the experiment directory.
inline constexpr const char* kCriticalPathFile = "critical_path.txt";

/// Writes the critical path of `result` to `path` as text: two comment lines, then one line per
/// stretch "rank start end from to" (times in seconds on the analyzed trace clock; from and to
/// the cnodes as in report.cubex where the path arrived on the rank and where it left, "-" at
/// the start and end of the run), in time order. Per rank, end - start of its stretches adds up
/// to the rank's critical_path values.
Status writeCriticalPath(const AnalysisResult& result, const std::string& path);

/// Reads a file written by writeCriticalPath; errors name the file and line.
Result<std::vector<PathSegment>> readCriticalPath(const std::string& path);

} // namespace waitscope::analysis
