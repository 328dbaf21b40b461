// The measurement's self-measurement (waitscope.measurement), carried into reports.
#pragma once

#include "waitscope/base/result.h"
#include "waitscope/experiment/measurement_record.h"

#include <string>
#include <utility>
#include <vector>

namespace waitscope::analysis {

/// Name of the self-measurement file in an experiment directory.
using experiment::kMeasurementRecordFile;

/// Reads `directory`/waitscope.measurement ("key=value" lines, '#' comments) and returns its
/// entries in file order with keys prefixed "waitscope::measurement::". An absent file gives
/// no entries (the file is optional: traces from other tools have none); a malformed line
/// fails naming the file and line number (the analyzer carries no half-read record).
Result<std::vector<std::pair<std::string, std::string>>>
readMeasurementRecord(const std::string& directory);

} // namespace waitscope::analysis
