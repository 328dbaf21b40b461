// Scaling study: the same program at several rank counts. Per call path the time summed over
// ranks (time × ranks: the cost) against the smallest run, which call paths stop scaling, and
// which wait states grow with the rank count.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <span>
#include <string>
#include <vector>
#include <waitscope/base/result.h>
#include <waitscope/report/report.h>

namespace waitscope::compare {

/// One call path or metric across the runs, one value per run (in rank-count order).
struct ScalingRow {
    std::string name; ///< call path, or metric display name
    std::vector<double> cost;
    /// cost of the smallest run / cost of the largest: 1 is perfect strong scaling.
    double efficiency() const;
};

/// The study, runs sorted by rank count.
struct ScalingStudy {
    std::vector<std::int64_t> ranks; ///< rank count of each run
    ScalingRow program;              ///< time over all call paths
    /// Call paths (exclusive time) with efficiency below 0.8 at the largest run that cost at
    /// least 1 % of the largest run's time, largest added cost first.
    std::vector<ScalingRow> stopScaling;
    /// Wait-state metrics (under time, the metric exclusive of its children) whose total grows
    /// from the smallest to the largest run by 10 % or more, largest growth first.
    std::vector<ScalingRow> growingWaits;
};

/// Studies the runs (any order; rank counts must differ). Uses the metric "time". Fails with
/// fewer than 2 runs, two runs of one rank count, a report without "time", or unloadable data.
Result<ScalingStudy> studyScaling(std::span<const report::Report* const> runs);

/// Prints the study as text.
void printScalingStudy(const ScalingStudy& study, std::ostream& out);

} // namespace waitscope::compare
