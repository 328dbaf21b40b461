// Export of a trace to Perfetto's protobuf trace format (TracePacket / TrackEvent), for traces
// too large for the JSON Trace Event format.
#pragma once

#include "trace_walk.h"
#include "waitscope/base/result.h"

#include <string>

namespace waitscope::exporter {

/// Writes the trace at `experiment` (an experiment directory or traces.otf2) to `output` as a
/// Perfetto trace: a process track per rank, a thread track per location with a slice per
/// visit the timeline shows (regions, the program, sampled functions: analysis::VisitStack;
/// SLICE_BEGIN at the enter, SLICE_END at the leave, named after the region and categorised by
/// its kind), an instant at each send with a flow to an instant at its receive,
/// and, when `instancesFile` names a wait-state instances file (as for writeChromeTrace()), each
/// instance as a slice on a track of its pattern below its rank's "wait states" track. Timestamps
/// are nanoseconds on the trace clock since its global offset (the main locations' corrected with
/// `timeCorrect`, see correctedEvents()). Encoded by ProtoWriter, no protobuf library.
Result<ExportCounts> writePerfettoTrace(const std::string& experiment,
                                        const std::string& instancesFile, const std::string& output,
                                        bool timeCorrect = false);

} // namespace waitscope::exporter
