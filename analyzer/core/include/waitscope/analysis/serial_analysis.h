// Analysis of a whole trace in one process, every rank a thread of the in-process transport.
#pragma once

#include "waitscope/analysis/analysis_result.h"
#include "waitscope/analysis/rank_pipeline.h"
#include "waitscope/base/result.h"
#include "waitscope/trace/definitions.h"
#include "waitscope/trace/event_stream.h"

#include <optional>
#include <string>
#include <vector>

namespace waitscope::analysis {

/// Replays `streams` (one per rank, in rank order) with the in-process transport, after
/// correcting copies of their timestamps when `options.correction` is given (correctClocks()).
/// Fails with the first rank's error when any rank fails; never hangs on inconsistent input.
Result<AnalysisResult> analyzeInProcess(const trace::Definitions& definitions,
                                        const std::vector<trace::EventStream>& streams,
                                        const ReplayOptions& options = {});

/// Reads the archive at `path` (experiment directory or anchor file) and analyzes it in process,
/// correcting the timestamps first when `options.correction` is given.
Result<AnalysisResult> analyzeArchiveInProcess(const std::string& path,
                                               const ReplayOptions& options = {});

} // namespace waitscope::analysis
