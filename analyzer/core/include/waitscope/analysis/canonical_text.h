// A canonical text form of an analysis result, for diff tests and comparing transports.
#pragma once

#include "waitscope/analysis/analysis_result.h"
#include "waitscope/trace/definitions.h"

#include <string>

namespace waitscope::analysis {

/// One line per non-zero value, "metric<TAB>call path<TAB>rank<TAB>value" in metric order,
/// then call path order, then rank; values printed exactly (%.17g); then the further threads'
/// values alike, with "rank:thread name" in the rank column; then one line per non-zero
/// diagnostic, "diagnostic<TAB>name<TAB>rank<TAB>count".
std::string canonicalText(const AnalysisResult& result, const trace::Definitions& definitions);

} // namespace waitscope::analysis
