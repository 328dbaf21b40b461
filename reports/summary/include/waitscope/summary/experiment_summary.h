// Summaries of an experiment directory or a report file: locate, read, summarize, write.
#pragma once

#include <string>
#include <waitscope/base/result.h>
#include <waitscope/summary/summary.h>

namespace waitscope::summary {

/// Name of the file in which `waitscope analyze` records the measured command line.
inline constexpr const char* kCommandFile = "waitscope.command";

/// Summarizes `path`: an experiment directory (its report.cubex, waitscope.measurement and
/// waitscope.command) or a .cubex file (with those files when they lie beside it). Fails if
/// there is no report or it cannot be read; the message names the file.
Result<Summary> summarizeExperiment(const std::string& path);

/// Writes summary.txt and summary.html into `directory`. Fails naming the file it could not
/// write.
Status writeSummaryFiles(const Summary& summary, const std::string& directory);

} // namespace waitscope::summary
