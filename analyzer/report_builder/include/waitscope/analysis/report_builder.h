// Conversion of an analysis result into a CUBE4 report with Scalasca's metric tree.
#pragma once

#include "waitscope/analysis/analysis_result.h"
#include "waitscope/base/result.h"
#include "waitscope/trace/definitions.h"

#include <string>
#include <utility>
#include <vector>
#include <waitscope/report/report.h>

namespace waitscope::analysis {

/// Builds the report: the metric tree of metric.h (values metric-inclusive, call-tree
/// exclusive), regions with file and lines, the unified call tree, one process per rank with
/// its main thread ("Master thread", thread 0) first and its further threads (see
/// AnalysisResult::threads(), numbered from 1) after it, diagnostics and `extraAttributes` as
/// report attributes.
Result<report::Report>
buildReport(const AnalysisResult& result, const trace::Definitions& definitions,
            const std::vector<std::pair<std::string, std::string>>& extraAttributes = {});

} // namespace waitscope::analysis
