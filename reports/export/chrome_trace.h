// Export of a trace to the Trace Event format (JSON) that Perfetto UI and chrome://tracing open.
#pragma once

#include "trace_walk.h"
#include "waitscope/base/result.h"

#include <cstdint>
#include <string>

namespace waitscope::exporter {

/// What went into a Chrome trace file.
using ChromeTraceCounts = ExportCounts;

/// Writes the trace at `experiment` (an experiment directory or traces.otf2) to `output`: one
/// process per rank with one thread per location, a complete event per visit the timeline shows
/// (regions, the program, sampled functions: analysis::VisitStack; categorised by the region's
/// kind), a flow from each send to its receive, and, when
/// `instancesFile` names a wait-state instances file (instances.bin, or instances.txt of an older
/// experiment: analysis::openInstances()), each instance as a slice on a "wait states" thread of
/// its rank covering the waiting part of the call, in time order (read a block at a time).
/// Timestamps are microseconds on the trace clock; with `timeCorrect` the main locations' are
/// corrected (correctedEvents()) so that no arrow points backwards.
Result<ChromeTraceCounts> writeChromeTrace(const std::string& experiment,
                                           const std::string& instancesFile,
                                           const std::string& output, bool timeCorrect = false);

} // namespace waitscope::exporter
