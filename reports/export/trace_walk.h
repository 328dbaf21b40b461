// Walking a trace for the exports: every location's visits (the timeline's: regions, the program
// and sampled call paths) and message ends, paired into flows, and the wait-state instances,
// handed to a sink that writes one format.
#pragma once

#include "waitscope/analysis/instance_file.h"
#include "waitscope/analysis/rank_result.h"
#include "waitscope/base/result.h"
#include "waitscope/trace/definitions.h"
#include "waitscope/trace/event_stream.h"
#include "waitscope/trace/otf2_archive.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace waitscope::exporter {

/// What an export writes, in the order the walk finds it: per rank its process, then per
/// location its thread and events in time order; the wait states last. Times in nanoseconds
/// since the trace's global offset.
class TraceSink {
public:
    virtual ~TraceSink() = default;
    virtual void process(uint32_t rank, const std::string& name) = 0;
    virtual void thread(uint32_t rank, uint32_t tid, const std::string& name) = 0;
    /// A visit of `region` begins: a region entered, the program, or a function of a sampled
    /// call path (analysis::VisitStack, as the timeline shows them). Its leave follows, properly
    /// nested, unless the location's events end first.
    virtual void enter(uint32_t rank, uint32_t tid, uint32_t region, int64_t time) = 0;
    /// The visit of `region` begun at `enter` ends.
    virtual void leave(uint32_t rank, uint32_t tid, uint32_t region, int64_t enter,
                       int64_t time) = 0;
    /// A message end: `id` pairs a send with its receive.
    virtual void messageEnd(bool sendEnd, uint32_t rank, uint32_t tid, int64_t time,
                            uint64_t id) = 0;
    /// A wait-state instance over [from, to] on the wait-state thread `tid` of its rank.
    virtual void waitState(const analysis::PatternInstance& instance, uint32_t tid, int64_t from,
                           int64_t to) = 0;
};

/// What went into an export.
struct ExportCounts {
    uint64_t events = 0;     ///< trace events read
    uint64_t slices = 0;     ///< visits (regions, programs, sampled functions)
    uint64_t flows = 0;      ///< messages with both ends found
    uint64_t unmatched = 0;  ///< message ends whose other end is not in the trace
    uint64_t waitStates = 0; ///< wait-state instances written
};

/// The category of a region's kind ("computation", "mpi point-to-point", ...).
const char* categoryOf(const trace::Region& region);

/// The main location's events of every rank with the timestamps corrected by the controlled
/// logical clock (analysis::correctClocks, each rank a thread), so that every receive follows
/// its send: all ranks' events are in memory at once. Errors name the file or rank.
Result<std::vector<trace::EventStream>> correctedEvents(const std::string& anchor,
                                                        const trace::Definitions& definitions);

/// Walks the trace at `anchor` into `sink`: one process per rank, one thread per location
/// (and, when `instances` is given, one "wait states" thread after them, on which its instances
/// follow in its order, read a block at a time). A reader thread reads the locations in that
/// order, a rank's main location in windows of 2^18 events, while the walk hands the
/// previous ones to `sink`; the main locations are taken from `corrected` instead when given
/// (correctedEvents()). Errors name the file.
Result<ExportCounts> walkTrace(const std::string& anchor, const trace::Definitions& definitions,
                               const analysis::InstanceFile* instances, TraceSink& sink,
                               const std::vector<trace::EventStream>* corrected = nullptr);

/// What an export reads before it writes anything: the archive, its main locations' corrected
/// events when time-corrected, and the wait-state instances when an instances file is named.
struct ExportInput {
    trace::ArchiveDefinitions archive;
    std::vector<trace::EventStream> corrected;
    /// The wait-state instances (their index only: the walk reads them a block at a time).
    std::optional<analysis::InstanceFile> instances;
    bool timeCorrect = false;
};

/// Reads the trace at `experiment` (an experiment directory or traces.otf2), with `timeCorrect`
/// its corrected events (correctedEvents()), and the index of the instances of `instancesFile`
/// unless it is empty (instances.bin, or instances.txt of an older experiment:
/// analysis::openInstances()). Errors name the file or rank.
Result<ExportInput> readExportInput(const std::string& experiment, const std::string& instancesFile,
                                    bool timeCorrect);

/// Walks what readExportInput() read into `sink` (walkTrace() above).
Result<ExportCounts> walkTrace(const ExportInput& input, TraceSink& sink);

} // namespace waitscope::exporter
