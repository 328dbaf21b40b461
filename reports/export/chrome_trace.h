// Export of a trace to the Trace Event format (JSON) that Perfetto UI and chrome://tracing open.
#pragma once

#include "waitscope/base/result.h"

#include <cstdint>
#include <string>

namespace waitscope::exporter {

/// What went into a Chrome trace file.
struct ChromeTraceCounts {
    uint64_t events = 0;     ///< trace events read
    uint64_t slices = 0;     ///< complete events, one per region visit
    uint64_t flows = 0;      ///< messages with both ends found (a flow start and end each)
    uint64_t unmatched = 0;  ///< message ends whose other end is not in the trace
    uint64_t waitStates = 0; ///< wait-state instances written as slices
};

/// Writes the trace at `experiment` (an experiment directory or traces.otf2) to `output`: one
/// process per rank with one thread per location, a complete event per region visit
/// (categorised by the region's kind), a flow from each send to its receive, and, when
/// `instancesFile` names a wait-state instances file (see writeWaitInstances), each instance
/// as a slice on a "wait states" thread of its rank covering the waiting part of the call.
/// Timestamps are microseconds on the trace clock.
Result<ChromeTraceCounts> writeChromeTrace(const std::string& experiment,
                                           const std::string& instancesFile,
                                           const std::string& output);

} // namespace waitscope::exporter
