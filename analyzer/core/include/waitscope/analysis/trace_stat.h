// Per-pattern instance statistics in the layout of Scalasca's trace.stat.
#pragma once

#include "waitscope/analysis/analysis_result.h"

#include <string>
#include <vector>

namespace waitscope::analysis {

/// Statistics of the instances of one pattern.
struct PatternStatistics {
    Metric metric = Metric::Time;
    size_t count = 0;
    double mean = 0.0;
    double median = 0.0; ///< order statistics interpolate linearly between neighbours
    double minimum = 0.0;
    double maximum = 0.0;
    double sum = 0.0;
    double variance = 0.0; ///< population variance (as Scalasca reports it)
    double quartile25 = 0.0;
    double quartile75 = 0.0;
    std::vector<PatternInstance> mostSevere; ///< up to five, most severe first
};

/// Statistics of every pattern with at least one instance, in metric order.
std::vector<PatternStatistics> patternStatistics(const AnalysisResult& result);

/// Renders `statistics` as trace.stat text: a header, then per pattern one line of numbers
/// (quartiles from four instances on) and one "- cnode" line per most severe instance.
std::string traceStatText(const std::vector<PatternStatistics>& statistics);

} // namespace waitscope::analysis
