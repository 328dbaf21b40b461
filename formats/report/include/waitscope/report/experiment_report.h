// locateExperimentReport: the one rule for which report of an experiment directory to open.
#pragma once

#include <string>
#include <waitscope/base/result.h>

namespace waitscope::report {

/// The report files looked for in an experiment directory, most complete first: Waitscope's
/// analysis (report.cubex); Scalasca's combined trace analysis with root causes (trace.cubex),
/// its trace analysis alone (scout.cubex) and its summary profile (summary.cubex); a runtime
/// profile of Score-P or Waitscope (profile.cubex).
inline constexpr const char* kExperimentReportNames[] = {
    "report.cubex", "trace.cubex", "scout.cubex", "summary.cubex", "profile.cubex"};

/// The same reports, runtime profiles first: for estimating a trace from the visits a
/// measurement counted (`waitscope score`), as scorep-score does.
inline constexpr const char* kExperimentProfileNames[] = {
    "profile.cubex", "summary.cubex", "report.cubex", "trace.cubex", "scout.cubex"};

/// Which report of a directory a tool wants.
enum class ReportPreference {
    MostComplete, ///< kExperimentReportNames: to explore, summarize or print
    Profile,      ///< kExperimentProfileNames: to score
};

/// The report to open for `path`: `path` itself when it is a file, else the first report
/// present in the directory in the order of `preference`. Fails when `path` does not exist
/// ("run `waitscope analyze` first"), or when the directory holds none of them (the message
/// lists the names looked for and, when the directory holds traces, how to analyze them).
Result<std::string>
locateExperimentReport(const std::string& path,
                       ReportPreference preference = ReportPreference::MostComplete);

} // namespace waitscope::report
