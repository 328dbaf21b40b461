// waitscope-replay: analyzes an OTF2 trace for MPI wait states and writes the report files.
#include "waitscope/analysis/canonical_text.h"
#include "waitscope/analysis/critical_path_file.h"
#include "waitscope/analysis/instance_file.h"
#include "waitscope/analysis/instance_spill.h"
#include "waitscope/analysis/measurement_record.h"
#include "waitscope/analysis/memory_budget.h"
#include "waitscope/analysis/parallel_analysis.h"
#include "waitscope/analysis/report_builder.h"
#include "waitscope/analysis/serial_analysis.h"
#include "waitscope/analysis/trace_stat.h"
#include "waitscope/analysis/wait_instances.h"
#include "waitscope/trace/otf2_archive.h"
#ifdef WAITSCOPE_REPLAY_WRITES_TIMELINE
#include "timeline_collector.h"
#include "timeline_store.h"
#endif

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <malloc.h>
#include <map>
#include <memory>
#include <mpi.h>
#include <optional>
#include <string>
#include <sys/resource.h>
#include <tuple>
#include <vector>
#include <waitscope/cli/command_line.h>
#include <waitscope/cli/guarded_main.h>
#include <waitscope/experiment/diagnostics.h>
#include <waitscope/report/cubex_writer.h>

namespace {

using namespace waitscope;
using Clock = std::chrono::steady_clock;

struct Options {
    std::string path;
    std::string outputDir;
    std::string dumpText;
    bool serial = false;
    bool quiet = false;
    bool timeline = true; ///< write the timeline's caches beside the trace (--no-timeline: not)
    /// --memory-limit: bytes, or empty for the default (a share of the machine's memory per
    /// analysis process), or "none"
    std::string memoryLimit;
    /// --window-events: 0 unless given
    std::size_t windowEvents = 0;
    /// --instance-buffer: the instances each rank holds before writing them to the scratch
    /// files; 0 keeps all in memory; kDefaultInstanceBuffer unless given
    std::size_t instanceBuffer = kDefaultInstanceBuffer;
    static constexpr std::size_t kDefaultInstanceBuffer = std::numeric_limits<std::size_t>::max();
    analysis::ReplayOptions replay;
};

cli::CommandLine declareOptions(Options& options) {
    auto correction = [&options]() -> analysis::ClockCorrectionOptions& {
        if (!options.replay.correction)
            options.replay.correction.emplace();
        return *options.replay.correction;
    };
    cli::CommandLine line("replay");
    line.usage("[options] <experiment dir or traces.otf2>")
        .usage("--serial [options] <experiment dir or traces.otf2>")
        .description("Analyzes an experiment's trace for MPI wait states and writes report.cubex, "
                     "trace.stat, instances.txt and critical_path.txt. Run it in a job with at "
                     "most as many ranks as "
                     "the trace has (mpirun -np M waitscope-replay [options] DIR, M <= N: each "
                     "process replays a block of N/M traced ranks as threads, with the same "
                     "report), or with --serial in one process.")
        .flag("--serial", "analyze every rank in this process (small traces)", options.serial)
        .option("--output-dir", "DIR",
                "where report.cubex and trace.stat go (default: the experiment directory)",
                options.outputDir)
        .option("--dump-text", "FILE", "also write every value as canonical text (for comparisons)",
                options.dumpText)
        .flag("--time-correct",
              "correct clock condition violations (receives before their send, collectives left "
              "before they could be) with the controlled logical clock before the analysis",
              [correction] { correction(); })
        .number(
            "--min-latency", "SEC",
            "the least time a message takes (default: estimated from the trace per rank pair, at "
            "most 1e-6; implies --time-correct)",
            [correction](double latency) {
                correction().minLatency = latency;
                correction().estimateLatency = false;
            },
            0.0, std::numeric_limits<double>::infinity(), false, "a time in seconds")
        .flag("--no-root-cause",
              "skip the root-cause passes (critical path, delay costs, wait-state "
              "classification): faster",
              options.replay.rootCause, false)
        .flag("--no-probe-links",
              "replay a receive right after a blocking MPI_Probe/MPI_Mprobe in its own call, as "
              "Scalasca does, not in the probe's (no Late Sender at blocking probes; for "
              "comparisons)",
              options.replay.probeLinks, false)
        .option("--memory-limit", "SIZE",
                "the memory each analysis process may use (512M, 2G, ...; none: no limit); a "
                "trace whose ranks need more is refused before its events are read, naming the "
                "rank and the sizes (default: half the machine's memory, shared by the analysis "
                "processes on it)",
                [&options](const std::string& value) -> Status {
                    if (value != "none") {
                        auto bytes = analysis::parseMemorySize(value);
                        if (!bytes) {
                            return bytes.error().withContext("--memory-limit");
                        }
                    }
                    options.memoryLimit = value;
                    return Status::success();
                })
        .flag("--no-timeline",
              "do not write the timeline's event cache and overview (timeline_events.bin, "
              "timeline_summary.bin) beside the trace; waitscope-gui then builds them at the "
              "first open",
              options.timeline, false)
        .count("--window-events", "N",
               "read each rank's events N at a time (the windowed replay, the same report; by "
               "default only when the ranks do not fit --memory-limit whole)",
               options.windowEvents, 1, std::numeric_limits<uint32_t>::max())
        .count("--instance-buffer", "N",
               "the wait-state instances each rank holds before it writes them to scratch files "
               "beside the outputs, merged into instances.txt and instances.bin at the end "
               "(default: 8 MiB of them per analysis process, shared by its ranks; a small N "
               "also merges at most N runs at a time; 0: hold every instance in memory)",
               options.instanceBuffer, 0, std::numeric_limits<uint32_t>::max())
        .flag("--quiet", "no progress on stderr", options.quiet)
        .positional("TRACE", "the experiment directory or its traces.otf2", options.path);
    return line;
}

// The budget of this process: --memory-limit, else the default share of the machine's memory
// among `processesOnNode` analysis processes; 0 for "none".
uint64_t memoryLimitOf(const Options& options, uint32_t processesOnNode) {
    if (options.memoryLimit == "none") {
        return 0;
    }
    if (options.memoryLimit.empty()) {
        return analysis::defaultMemoryLimit(processesOnNode);
    }
    return *analysis::parseMemorySize(options.memoryLimit); // checked when parsed
}

double secondsSince(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// Tells what the clock correction did, or suggests it when the timestamps violate the clock
// condition (their waiting times are then wrong: too long, too short or missing).
void reportClockViolations(const Options& options, const analysis::AnalysisResult& result) {
    using experiment::Diagnostic;
    const auto count = [&result](Diagnostic diagnostic) {
        return static_cast<unsigned long long>(result.diagnostic(diagnostic));
    };
    const unsigned long long p2p = count(Diagnostic::ClockViolationsP2p);
    const unsigned long long collective = count(Diagnostic::ClockViolationsCollective);
    if (options.replay.correction) {
        uint64_t largest = 0;
        for (const analysis::Diagnostics& rank : result.diagnostics()) {
            largest = std::max(largest, rank.value(Diagnostic::ClockCorrectionMaxShiftNs));
        }
        std::fprintf(stderr,
                     "waitscope-replay: --time-correct moved receives forward %llu times and "
                     "collective exits %llu times (largest jump %.3f us)",
                     count(Diagnostic::ClockCorrectedP2p),
                     count(Diagnostic::ClockCorrectedCollective),
                     static_cast<double>(largest) / 1e3);
        if (p2p + collective > 0) {
            std::fprintf(stderr, "; %llu violations remain", p2p + collective);
        }
        std::fputc('\n', stderr);
        return;
    }
    if (p2p + collective > 0) {
        std::fprintf(
            stderr,
            "waitscope-replay: the timestamps violate the clock condition %llu times "
            "(%llu receives end before their send began, %llu collectives are left "
            "before the last enter they wait for): the clocks of the ranks were not "
            "synchronized, and waiting times are wrong; rerun with --time-correct (waitscope "
            "analyze --time-correct -a <experiment dir>)\n",
            p2p + collective, p2p, collective);
    }
}

#ifdef WAITSCOPE_REPLAY_WRITES_TIMELINE
using TimelineCollector = timeline::TimelineCollector;
#else
// Without the timeline library: nothing collects.
class TimelineCollector {};
#endif

// Whether the timeline's caches are written: unless --no-timeline, and only when the report goes
// beside the trace (the caches name the instances.txt they were built with).
const char* timelineCacheFile() {
#ifdef WAITSCOPE_REPLAY_WRITES_TIMELINE
    return timeline::TimelineStore::kCacheFile;
#else
    return "timeline_events.bin";
#endif
}

bool timelineWanted(const Options& options, const std::string& anchor) {
#ifdef WAITSCOPE_REPLAY_WRITES_TIMELINE
    namespace fs = std::filesystem;
    std::error_code error;
    const fs::path traceDir = fs::path(anchor).parent_path();
    return options.timeline &&
           (options.outputDir.empty() || fs::equivalent(options.outputDir, traceDir, error));
#else
    (void)options;
    (void)anchor;
    return false;
#endif
}

// The collector the analysis shows its events to, so that the timeline's caches are built from
// its own read of the trace; null when they are not wanted.
std::unique_ptr<TimelineCollector> timelineCollector(const Options& options,
                                                     const std::string& anchor) {
    if (timelineWanted(options, anchor)) {
        return std::make_unique<TimelineCollector>();
    }
    return nullptr;
}

analysis::EventObserver* observerOf(TimelineCollector* collector) {
#ifdef WAITSCOPE_REPLAY_WRITES_TIMELINE
    return collector;
#else
    (void)collector;
    return nullptr;
#endif
}

// Waits for `request` without spinning a core (the other processes may be writing meanwhile,
// for seconds: the sleeps between tests grow).
void awaitPolitely(MPI_Request& request) {
    (void)analysis::awaitRequest(request);
}

// Where the timeline's rows come from: `collector()`, the collector once it holds every
// process's rows (process 0 takes the others' parts while it writes the other outputs), or null;
// with several processes, `rowsWritten(rowStarts)` has the others write their rows' visits into
// the event cache at `rowStarts` (false: not all did).
struct TimelineRows {
    std::function<TimelineCollector*()> collector;
    std::function<bool(const std::vector<uint64_t>& rowStarts)> rowsWritten;
};

// Writes the timeline's event cache and overview beside the trace (after instances.txt, whose
// waiting times the overview holds), so that waitscope-gui shows the run at once: from what
// `collector` took from the analysis's read when it saw every location, else with one more
// pass over the trace. A failure is a warning: the GUI builds them at its first open.
void writeTimelineCaches(const Options& options, const std::string& anchor,
                         const analysis::AnalysisResult& result,
                         const trace::Definitions& definitions, const TimelineRows& rows) {
    TimelineCollector* collector = rows.collector();
#ifdef WAITSCOPE_REPLAY_WRITES_TIMELINE
    if (!timelineWanted(options, anchor)) {
        return;
    }
    const auto start = Clock::now();
    const bool collected = collector != nullptr && collector->complete();
    Status written = Status::success();
    if (collected) {
        // The overview's waiting time from instances.bin, written before (the instances in
        // memory only matter without it).
        // With other processes' rows, the event cache is under its partial name until they
        // wrote their visits into it: renamed then, else removed (never left with holes).
        std::vector<uint64_t> rowStarts;
        written = collector->write(anchor, definitions, result.instances(), &rowStarts);
        const bool partial = collector->awaitsOtherRows();
        if (written && rows.rowsWritten) {
            namespace fs = std::filesystem;
            const fs::path dir = fs::path(anchor).parent_path();
            if (!rows.rowsWritten(rowStarts)) {
                std::error_code ignored;
                fs::remove(dir / timeline::TimelineSummary::kCacheFile, ignored);
                fs::remove(dir / timeline::TimelineStore::kCacheFile, ignored);
                written = Error((dir / timeline::TimelineStore::kCacheFile).string() +
                                ": the other analysis processes did not write their rows");
            } else if (partial) {
                written = TimelineCollector::publish(anchor);
            }
        }
        if (partial) {
            std::error_code ignored;
            std::filesystem::remove(TimelineCollector::partialCacheOf(anchor), ignored);
        }
    } else if (auto store = timeline::TimelineStore::open(anchor); !store) {
        written = store.error();
    }
    if (!written) {
        std::fprintf(stderr, "waitscope-replay: warning: timeline caches not written: %s\n",
                     written.error().message().c_str());
    } else if (!options.quiet) {
        std::fprintf(stderr, "waitscope-replay: timeline caches written in %.3f s (%s)\n",
                     secondsSince(start),
                     collected ? "from the analysis's read" : "one more pass over the trace");
    }
#else
    (void)options;
    (void)anchor;
    (void)result;
    (void)definitions;
    (void)collector;
#endif
}

// Process 0 tells the others where their rows' visits go in the event cache (`rowStarts`; null:
// there is no cache to write into), they write them there, and process 0 learns whether all
// did (true). Every process calls it once; the others' `rowStarts` is what they receive.
bool shareRowStarts(TimelineCollector* collector, const std::string& anchor,
                    const trace::Definitions& definitions, int rank,
                    const std::vector<uint64_t>* rowStarts) {
#ifdef WAITSCOPE_REPLAY_WRITES_TIMELINE
    size_t rows = 0;
    for (uint32_t r = 0; r < definitions.rankCount(); ++r) {
        rows += definitions.locationsOfRank(r).size();
    }
    // Each row's start, then 1 when there is a cache.
    std::vector<uint64_t> table(rows + 1, 0);
    if (rank == 0 && rowStarts != nullptr && rowStarts->size() == rows) {
        std::copy(rowStarts->begin(), rowStarts->end(), table.begin());
        table.back() = 1;
    }
    MPI_Request request = MPI_REQUEST_NULL;
    MPI_Ibcast(table.data(), static_cast<int>(table.size()), MPI_UINT64_T, 0, MPI_COMM_WORLD,
               &request);
    awaitPolitely(request);
    int failed = 0;
    if (rank != 0 && table.back() == 1 && collector != nullptr) {
        table.pop_back();
        // Process 0 renames the cache once every process wrote its rows.
        if (Status written =
                collector->writeVisitsInto(TimelineCollector::partialCacheOf(anchor), table);
            !written) {
            std::fprintf(stderr, "waitscope-replay: warning: %s\n",
                         written.error().message().c_str());
            failed = 1;
        }
    }
    return analysis::worstStatus(failed) == 0;
#else
    (void)collector;
    (void)anchor;
    (void)definitions;
    (void)rank;
    (void)rowStarts;
    return false;
#endif
}

// The part of the timeline's rows that process `rank` (not 0) hands to process 0, beside the
// trace.
std::string partPath(const std::string& anchor, int rank) {
    namespace fs = std::filesystem;
    return (fs::path(anchor).parent_path() /
            (std::string(timelineCacheFile()) + ".part" + std::to_string(rank)))
        .string();
}

// Saves this process's rows of the timeline for process 0 (nothing on process 0); 1 when done.
// Every process calls it: the rows' overview bins are summed over the run's span, which every
// process's rows make up.
int savePart(const TimelineCollector& collector, const std::string& anchor, int rank,
             const trace::Definitions& definitions) {
#ifdef WAITSCOPE_REPLAY_WRITES_TIMELINE
    const TimelineCollector::Span own = collector.span();
    const double inf = std::numeric_limits<double>::infinity();
    double bounds[2] = {own.any ? own.begin : inf, own.any ? -own.end : inf}; // both by MIN
    MPI_Request request = MPI_REQUEST_NULL;
    MPI_Iallreduce(MPI_IN_PLACE, bounds, 2, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD, &request);
    awaitPolitely(request);
    if (rank == 0) {
        return 1;
    }
    const TimelineCollector::Span run{bounds[0] != inf, bounds[0] != inf ? bounds[0] : 0.0,
                                      bounds[0] != inf ? -bounds[1] : 0.0};
    if (Status saved = collector.savePart(partPath(anchor, rank), definitions, run); !saved) {
        std::fprintf(stderr, "waitscope-replay: warning: %s\n", saved.error().message().c_str());
        return 0;
    }
    return 1;
#else
    (void)collector;
    (void)anchor;
    (void)rank;
    (void)definitions;
    return 0;
#endif
}

// On process 0: takes every other process's rows (`saved`: all saved theirs) and removes their
// files; false when the caches need a pass over the trace instead.
bool loadParts(TimelineCollector& collector, const std::string& anchor, bool saved) {
#ifdef WAITSCOPE_REPLAY_WRITES_TIMELINE
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    bool loaded = saved;
    for (int k = 1; k < size; ++k) {
        const std::string path = partPath(anchor, k);
        if (loaded) {
            if (Status taken = collector.loadPart(path); !taken) {
                std::fprintf(stderr, "waitscope-replay: warning: %s\n",
                             taken.error().message().c_str());
                loaded = false;
            }
        }
        std::error_code ignored;
        std::filesystem::remove(path, ignored);
    }
    return loaded;
#else
    (void)collector;
    (void)anchor;
    (void)saved;
    return false;
#endif
}

// Where the outputs go: --output-dir, else beside the trace.
std::string outputDirOf(const Options& options, const std::string& anchor) {
    namespace fs = std::filesystem;
    return options.outputDir.empty() ? fs::path(anchor).parent_path().string() : options.outputDir;
}

// The scratch files of this process's instances (in the output directory), unless
// --instance-buffer 0 keeps them in memory; and on process 0 the removal of every process's
// scratch files at the end, whatever happened.
class InstanceScratch {
public:
    InstanceScratch(const Options& options, const std::string& anchor, uint32_t process,
                    uint32_t processes)
        : m_directory(outputDirOf(options, anchor)), m_processes(process == 0 ? processes : 0) {
        if (options.instanceBuffer == 0) {
            return;
        }
        const bool given = options.instanceBuffer != Options::kDefaultInstanceBuffer;
        const auto records = given ? static_cast<uint32_t>(options.instanceBuffer) : 0U;
        m_spill = std::make_unique<analysis::InstanceSpill>(
            m_directory, process, records,
            given ? std::clamp<uint32_t>(records, 2, analysis::InstanceSpill::kDefaultFanIn)
                  : analysis::InstanceSpill::kDefaultFanIn);
    }
    InstanceScratch(const InstanceScratch&) = delete;
    InstanceScratch& operator=(const InstanceScratch&) = delete;
    ~InstanceScratch() {
        if (m_spill && m_processes > 0) {
            analysis::InstanceSpill::removeFiles(m_directory, m_processes);
        }
    }
    analysis::InstanceSpill* spill() const { return m_spill.get(); }

private:
    std::string m_directory;
    uint32_t m_processes;
    std::unique_ptr<analysis::InstanceSpill> m_spill;
};

// Writes report.cubex, trace.stat, instances.txt, critical_path.txt (and the optional text dump);
// returns false after printing an error. The instances come from `spill`'s scratch files when
// the ranks put them there.
bool writeOutputs(const Options& options, const std::string& anchor,
                  const analysis::AnalysisResult& result, const trace::Definitions& definitions,
                  const TimelineRows& timelineRows, const analysis::InstanceSpill* spill) {
    namespace fs = std::filesystem;
    const fs::path dir = outputDirOf(options, anchor);
    // The measurement's self-measurement lives beside the trace; it is optional.
    auto measurement = analysis::readMeasurementRecord(fs::path(anchor).parent_path().string());
    if (!measurement) {
        std::fprintf(stderr, "waitscope-replay: warning: %s\n",
                     measurement.error().message().c_str());
    }
    auto report = analysis::buildReport(
        result, definitions,
        measurement ? *measurement : std::vector<std::pair<std::string, std::string>>{});
    if (!report) {
        std::fprintf(stderr, "waitscope-replay: error: %s\n", report.error().message().c_str());
        return false;
    }
    const fs::path reportFile = dir / "report.cubex";
    if (Status status = report::writeCubex(*report, reportFile.string()); !status) {
        std::fprintf(stderr, "waitscope-replay: error: %s\n", status.error().message().c_str());
        return false;
    }
    const fs::path statFile = dir / "trace.stat";
    std::ofstream stat(statFile);
    stat << analysis::traceStatText(analysis::patternStatistics(result));
    if (!stat) {
        std::fprintf(stderr, "waitscope-replay: error: %s: cannot write\n",
                     statFile.string().c_str());
        return false;
    }
    // Every wait-state instance, for the timeline and the exports; and the same instances
    // indexed by time block, pattern and call path: the timeline reads them per window instead
    // of whole. Merged from the scratch files when the ranks spilled them.
    const fs::path instancesFile = dir / analysis::kWaitInstancesFile;
    const fs::path indexedFile = dir / analysis::kInstanceFile;
    Status instances = Status::success();
    if (spill != nullptr && !result.spilledRuns().empty()) {
        instances = spill->writeFiles(result, instancesFile.string(), indexedFile.string());
    } else {
        instances = analysis::writeWaitInstances(result, instancesFile.string());
        if (instances) {
            instances = analysis::writeInstanceFile(result.instances(), indexedFile.string());
        }
    }
    if (!instances) {
        std::fprintf(stderr, "waitscope-replay: error: %s\n", instances.error().message().c_str());
        return false;
    }
    // The critical path's stretches, for the timeline.
    const fs::path pathFile = dir / analysis::kCriticalPathFile;
    if (Status status = analysis::writeCriticalPath(result, pathFile.string()); !status) {
        std::fprintf(stderr, "waitscope-replay: error: %s\n", status.error().message().c_str());
        return false;
    }
    writeTimelineCaches(options, anchor, result, definitions, timelineRows);
    if (!options.dumpText.empty()) {
        std::ofstream dump(options.dumpText);
        dump << analysis::canonicalText(result, definitions);
        if (!dump) {
            std::fprintf(stderr, "waitscope-replay: error: %s: cannot write\n",
                         options.dumpText.c_str());
            return false;
        }
    }
    for (uint32_t rank = 0; rank < result.diagnostics().size(); ++rank) {
        result.diagnostics()[rank].forEachCounted(
            [rank](experiment::Diagnostic diagnostic, uint64_t count) {
                std::fprintf(stderr, "waitscope-replay: warning: rank %u: %s: %llu\n", rank,
                             std::string(experiment::diagnosticName(diagnostic)).c_str(),
                             static_cast<unsigned long long>(count));
            });
    }
    for (const std::string& warning : result.warnings()) {
        std::fprintf(stderr, "waitscope-replay: warning: %s\n", warning.c_str());
    }
    // A trace recovered after a failed run: say which ranks are incomplete and what is lost.
    std::ifstream recovery(fs::path(anchor).parent_path() / "recovery.txt");
    for (std::string line; std::getline(recovery, line);) {
        if (!line.empty()) {
            std::fprintf(stderr, "waitscope-replay: warning: incomplete trace: %s\n", line.c_str());
        }
    }
    reportClockViolations(options, result);
    return true;
}

// Peak resident memory of this process in bytes.
double peakMemoryBytes() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_maxrss) * 1024.0;
}

// Prints progress (phase, percent) and remembers when each phase started and ended.
class PhaseLog {
public:
    explicit PhaseLog(bool print) : m_print(print) {}

    analysis::ProgressCallback callback() {
        return [this](std::string_view phase, int percent) { update(phase, percent); };
    }
    /// "phase 0.123 s (peak 12.3 MB), ..." in the order phases started; the peak is this
    /// process's resident-memory high-water mark at the phase's end.
    std::string summary() const {
        std::string out;
        char text[128];
        for (size_t k = 0; k < m_phases.size(); ++k) {
            const auto& [name, start, end] = m_phases[k];
            std::snprintf(text, sizeof text, "%s%s %.3f s (peak %.1f MB)", out.empty() ? "" : ", ",
                          name.c_str(), std::chrono::duration<double>(end - start).count(),
                          m_peaks[k] / 1e6);
            out += text;
        }
        return out;
    }

private:
    void update(std::string_view phase, int percent) {
        const auto now = Clock::now();
        if (m_phases.empty() || std::get<0>(m_phases.back()) != phase) {
            m_phases.emplace_back(std::string(phase), now, now);
            m_peaks.push_back(0.0);
            m_lastPercent = -1;
        }
        std::get<2>(m_phases.back()) = now;
        m_peaks.back() = peakMemoryBytes();
        if (m_print &&
            (percent >= m_lastPercent + 25 || (percent == 100 && m_lastPercent != 100))) {
            std::fprintf(stderr, "waitscope-replay: %.*s %d%%\n", static_cast<int>(phase.size()),
                         phase.data(), percent);
            m_lastPercent = percent;
        }
    }

    bool m_print;
    int m_lastPercent = -1;
    std::vector<std::tuple<std::string, Clock::time_point, Clock::time_point>> m_phases;
    std::vector<double> m_peaks;
};

// Size of the largest per-rank event file of the archive.
double largestEventFile(const std::string& anchor, const trace::Definitions& definitions) {
    namespace fs = std::filesystem;
    double largest = 0.0;
    for (const trace::Location& location : definitions.locations) {
        std::error_code ec;
        const auto size = fs::file_size(
            fs::path(anchor).replace_extension("") / (std::to_string(location.id) + ".evt"), ec);
        if (!ec) {
            largest = std::max(largest, static_cast<double>(size));
        }
    }
    return largest;
}

void printThroughput(const analysis::AnalysisResult& result, double seconds, double peakBytes,
                     double traceBytes, uint64_t limit) {
    const uint64_t events = result.events().empty()
                                ? 0
                                : *std::max_element(result.events().begin(), result.events().end());
    // Against a tiny event file the ratio only measures the process's fixed memory ("10243x
    // its event file of 0.0 MB"): it is told for event files of a megabyte or more.
    char ratio[96] = "";
    if (traceBytes >= 1e6) {
        std::snprintf(ratio, sizeof ratio, " (%.1fx its largest event file of %.1f MB)",
                      peakBytes / traceBytes, traceBytes / 1e6);
    }
    std::fprintf(stderr,
                 "waitscope-replay: %u ranks, %llu events on the busiest rank in %.3f s: %.2f M "
                 "events/s per rank; peak memory %.1f MB per rank%s\n",
                 result.ranks(), static_cast<unsigned long long>(events), seconds,
                 seconds > 0 ? static_cast<double>(events) / seconds / 1e6 : 0.0, peakBytes / 1e6,
                 ratio);
    if (limit > 0 && peakBytes > static_cast<double>(limit)) {
        std::fprintf(stderr,
                     "waitscope-replay: warning: the peak memory of %s exceeded --memory-limit %s: "
                     "this trace needs more per event than the estimate the limit was checked "
                     "with\n",
                     analysis::formatMemorySize(static_cast<uint64_t>(peakBytes)).c_str(),
                     analysis::formatMemorySize(limit).c_str());
    }
}

int runSerial(const Options& options) {
    const auto start = Clock::now();
    auto anchor = trace::findAnchorFile(options.path);
    if (!anchor) {
        std::fprintf(stderr, "waitscope-replay: error: %s\n", anchor.error().message().c_str());
        return 1;
    }
    auto definitions = trace::readDefinitions(*anchor);
    if (!definitions) {
        std::fprintf(stderr, "waitscope-replay: error: %s\n",
                     definitions.error().message().c_str());
        return 1;
    }
    analysis::ReplayOptions replay = options.replay;
    replay.memoryLimit = memoryLimitOf(options, 1);
    replay.windowEvents = options.windowEvents;
    const std::unique_ptr<TimelineCollector> collector = timelineCollector(options, *anchor);
    replay.observer = observerOf(collector.get());
    const InstanceScratch scratch(options, *anchor, 0, 1);
    replay.instanceSpill = scratch.spill();
    replay.scratchDirectory = outputDirOf(options, *anchor);
    auto result = analysis::analyzeArchiveInProcess(*anchor, replay);
    if (!result) {
        std::fprintf(stderr, "waitscope-replay: error: %s\n", result.error().message().c_str());
        return 1;
    }
    const double analysisTime = secondsSince(start);
    const auto writeStart = Clock::now();
    if (!writeOutputs(options, *anchor, *result, *definitions,
                      {[&collector] { return collector.get(); }, {}}, scratch.spill())) {
        return 1;
    }
    if (!options.quiet) {
        std::fprintf(stderr, "waitscope-replay: read+replay of all ranks %.3f s, writing %.3f s\n",
                     analysisTime, secondsSince(writeStart));
        printThroughput(*result, secondsSince(start), peakMemoryBytes(),
                        largestEventFile(*anchor, *definitions), replay.memoryLimit);
    }
    return 0;
}

int runParallel(const Options& options) {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const auto start = Clock::now();
    PhaseLog phases(rank == 0 && !options.quiet);
    // The processes start at different times; the early ones wait here without polling.
    analysis::awaitAllProcesses();
    // The default budget is shared by the analysis processes on this node.
    MPI_Comm node = MPI_COMM_NULL;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int onNode = 1;
    MPI_Comm_size(node, &onNode);
    MPI_Comm_free(&node);
    // The same limit everywhere (the nodes may differ): the smallest, so all check alike.
    unsigned long long limit = memoryLimitOf(options, static_cast<uint32_t>(onNode));
    MPI_Allreduce(MPI_IN_PLACE, &limit, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
    analysis::ReplayOptions replay = options.replay;
    replay.memoryLimit = limit;
    replay.windowEvents = options.windowEvents;
    auto anchor = trace::findAnchorFile(options.path);
    std::unique_ptr<TimelineCollector> collector;
    if (anchor) {
        collector = timelineCollector(options, *anchor);
    }
    replay.observer = observerOf(collector.get());
    int processes = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &processes);
    std::unique_ptr<InstanceScratch> scratch;
    if (anchor) {
        scratch = std::make_unique<InstanceScratch>(options, *anchor, static_cast<uint32_t>(rank),
                                                    static_cast<uint32_t>(processes));
        replay.instanceSpill = scratch->spill();
        replay.scratchDirectory = outputDirOf(options, *anchor);
    }
    auto analysis = analysis::analyzeWithMpi(options.path, phases.callback(), replay);
    if (!analysis) {
        std::fprintf(stderr, "waitscope-replay: error: %s\n", analysis.error().message().c_str());
        return 1;
    }
    const double analysisTime = secondsSince(start);
    // The other processes hand their rows of the timeline to process 0, which writes the caches
    // (and meanwhile the report and the instances).
    int parted = collector ? savePart(*collector, *anchor, rank, analysis->definitions) : 0;
    double peak = peakMemoryBytes();
    double maxPeak = 0.0;
    MPI_Request peakRequest = MPI_REQUEST_NULL;
    MPI_Request partRequest = MPI_REQUEST_NULL;
    MPI_Ireduce(&peak, &maxPeak, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD, &peakRequest);
    MPI_Ireduce(rank == 0 ? MPI_IN_PLACE : &parted, &parted, 1, MPI_INT, MPI_MIN, 0, MPI_COMM_WORLD,
                &partRequest);
    if (rank != 0) {
        awaitPolitely(partRequest);
        if (collector) {
            // Process 0 writes the caches with room for this process's visits.
            (void)shareRowStarts(collector.get(), *anchor, analysis->definitions, rank, nullptr);
        }
        awaitPolitely(peakRequest);
        return 0;
    }
    const auto writeStart = Clock::now();
    bool partsTaken = false;
    const auto collected = [&]() -> TimelineCollector* {
        if (!partsTaken) {
            partsTaken = true;
            awaitPolitely(partRequest);
            if (collector && !loadParts(*collector, *anchor, parted != 0)) {
                collector.reset(); // one more pass over the trace instead
            }
        }
        return collector.get();
    };
    // Once: the others write their visits where the cache leaves room (or learn there is none).
    const bool sharing = collector != nullptr;
    bool shared = false;
    const auto rowsWritten = [&](const std::vector<uint64_t>* rowStarts) {
        shared = true;
        return shareRowStarts(collector.get(), *anchor, analysis->definitions, rank, rowStarts);
    };
    const bool written =
        anchor &&
        writeOutputs(options, *anchor, *analysis->result, analysis->definitions,
                     {collected, sharing ? std::function<bool(const std::vector<uint64_t>&)>(
                                               [&](const std::vector<uint64_t>& rowStarts) {
                                                   return rowsWritten(&rowStarts);
                                               })
                                         : nullptr},
                     scratch ? scratch->spill() : nullptr);
    collected(); // the parts removed even when the outputs failed before the caches
    if (sharing && !shared) {
        (void)rowsWritten(nullptr);
    }
    awaitPolitely(peakRequest);
    if (!written) {
        return 1;
    }
    if (!options.quiet) {
        std::fprintf(
            stderr, "waitscope-replay: phases on rank 0: %s; until merged %.3f s, writing %.3f s\n",
            phases.summary().c_str(), analysisTime, secondsSince(writeStart));
        printThroughput(*analysis->result, secondsSince(start), maxPeak,
                        largestEventFile(*anchor, analysis->definitions), replay.memoryLimit);
    }
    return 0;
}

} // namespace

// Creates the output directory before the analysis, so that a bad one fails at once rather
// than after minutes of replay.
bool prepareOutputDir(const Options& options) {
    if (options.outputDir.empty()) {
        return true;
    }
    std::error_code ec;
    std::filesystem::create_directories(options.outputDir, ec);
    if (ec || !std::filesystem::is_directory(options.outputDir)) {
        std::fprintf(
            stderr, "waitscope-replay: error: %s: cannot create the output directory: %s\n",
            options.outputDir.c_str(), ec ? ec.message().c_str() : "a file of that name exists");
        return false;
    }
    return true;
}

// A failed run's experiment has no trace yet, only what its ranks left: say so and how to
// recover it, instead of only that traces.otf2 is missing.
bool failedRunWithoutTrace(const Options& options) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path dir(options.path);
    if (!fs::is_directory(dir / "ranks", ec) || fs::exists(dir / "traces.otf2", ec)) {
        return false;
    }
    std::fprintf(stderr,
                 "error: %s: no traces.otf2: the run did not finish (see %s/ranks/*.status); "
                 "make a trace of what its ranks left with `waitscope recover %s`\n",
                 options.path.c_str(), options.path.c_str(), options.path.c_str());
    return true;
}

// Keeps freed blocks of libotf2's chunk size in the heap for the next reader instead of handing
// them back to the system: libotf2 allocates each reader's chunk buffer by the trace's chunk
// size (Score-P's: 4 MiB for definitions, 1 MiB for events; ours: 256 KiB for definitions since
// trace_writer.cpp's kDefinitionChunkBytes, 1 MiB for events) and fills it whole on
// opening, once for the global definitions and again for every traced rank's local definitions
// and events. By default glibc serves the first of them from fresh mappings (1,024 page faults
// per definitions buffer, about 2 ms of an analysis process's fixed cost, issue 22). Anything
// larger is mapped and unmapped on its own, and at most twice that stays free in the heap:
// glibc's default raises both limits as large blocks are freed (up to 32 and 64 MiB), and with
// 16 MiB process 0's peak grew by a fifth at 32 and 64 traced ranks.
static void reuseFreedBuffers() {
#ifdef __GLIBC__
    constexpr int kMapAbove = 5 << 20; // the definitions' chunk of 4 MiB and its header
    mallopt(M_MMAP_THRESHOLD, kMapAbove);
    mallopt(M_TRIM_THRESHOLD, 2 * kMapAbove);
#endif
}

// The command itself; main() only guards it.
static int runCommand(int argc, char** argv) {
    Options options;
    if (auto exit = declareOptions(options).parse(argc, argv))
        return *exit;
    if (failedRunWithoutTrace(options)) {
        return 1;
    }
    if (!prepareOutputDir(options)) {
        return 1;
    }
    if (options.serial) {
        reuseFreedBuffers();
        return runSerial(options);
    }
    // M:N replay runs several traced ranks per process as threads, one calling MPI at a time.
    int threading = MPI_THREAD_SINGLE;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &threading);
    reuseFreedBuffers(); // after MPI's start-up: its allocations as in any MPI program
    const int status = runParallel(options);
    // Every rank reports its own failure; the job fails if any rank did.
    const int worst = waitscope::analysis::worstStatus(status);
    MPI_Finalize();
    return worst;
}

int main(int argc, char** argv) {
    return waitscope::cli::guardedMain("waitscope-replay", [&] { return runCommand(argc, argv); });
}
