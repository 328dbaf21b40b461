// loadReport: finds the report in a file or experiment directory and opens it (any thread).
#pragma once

#include <QString>
#include <memory>
#include <waitscope/base/result.h>
#include <waitscope/report/cubex_reader.h>
#include <waitscope/report/report.h>

namespace waitscope::gui {

/// The report file to open for `fileOrDirectory`: the file itself, or the most complete report
/// of an experiment directory (report::locateExperimentReport). Fails with its message.
Result<QString> resolveReportPath(const QString& fileOrDirectory);

/// Resolves and opens a report, then loads the first root metric's data so that the first
/// values show without waiting. Safe to run on a worker thread. Fails with the reader's
/// message (naming the file and the problem). `progress` is told the reader's stages, then
/// "loading values" (on the calling thread).
Result<std::shared_ptr<const report::Report>> loadReport(const QString& fileOrDirectory,
                                                         const report::ReadProgress& progress = {});

} // namespace waitscope::gui
