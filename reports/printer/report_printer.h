// ReportPrinter: the text and CSV views of `waitscope report` (metric totals, top call paths,
// per-rank distribution, attributes).
#pragma once

#include <ostream>
#include <string>
#include <waitscope/base/result.h>
#include <waitscope/report/report.h>

namespace waitscope::report {

/// Output style: aligned text for people, or CSV (header line, comma-separated, quoted).
enum class OutputFormat { Text, Csv };

// A metric is named by its unique name, or by its display name if no other metric has it
// (if several do, the failure lists their unique names).

/// Prints the metric tree with each metric's total (inclusive along the metric tree).
/// Metrics that cannot be evaluated are listed with the reason instead of a number.
Status printMetricTotals(const Report& report, std::ostream& out, OutputFormat format);
/// Prints the `count` call paths with the largest values of `metric` (exclusive or inclusive
/// along the call tree), summed over all locations. Fails if the metric is unknown.
Status printTopCallPaths(const Report& report, const std::string& metric, std::size_t count,
                         CallTreeMode mode, std::ostream& out, OutputFormat format);
/// Prints the value of `metric` at `callPath` for every process. The call path is a whole
/// path ("a/b/c"), a call node id, or the end of exactly one path ("b/c"; see
/// findCallPathsBySuffix). Fails if the metric is unknown, or the path matches no call path
/// (suggesting some) or several (listing them).
Status printRankDistribution(const Report& report, const std::string& metric,
                             const std::string& callPath, CallTreeMode mode, std::ostream& out,
                             OutputFormat format);
/// Prints the report's attributes and documentation mirrors.
Status printAttributes(const Report& report, std::ostream& out, OutputFormat format);

} // namespace waitscope::report
