// Summary: what a report says in plain language — time split, ranked findings, causes, advice.
//
// summarize() reads a report (and, when given, the experiment's measurement record) and
// collects everything the text and HTML renderings show. Findings are the wait-state metrics
// (Late Sender, Wait at N x N, ...) per call path, ranked by the seconds they cost the whole
// job, i.e. summed over ranks, and expressed as a share of the total allocation time (the
// `time` metric over all ranks). Where the report holds root-cause metrics (delay_*,
// imbalance_*), each finding names the call paths and ranks whose extra work caused it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>
#include <waitscope/base/result.h>
#include <waitscope/metrics/metric_registry.h>
#include <waitscope/report/report.h>
#include <waitscope/summary/measurement_record.h>

namespace waitscope::summary {

/// The measurement's own cost, summed over ranks, with a verdict on whether it disturbed the run.
struct MeasurementCost {
    bool known = false;           ///< false without a measurement record
    double initHook = 0.0;        ///< time in MPI_Init with the measurement's setup
    double wrapBeforeInit = 0.0;  ///< time from process start to MPI_Init
    double insideDuringRun = 0.0; ///< measurement work while the program ran (setup, flushes)
    double initMeasurement = 0.0; ///< the measurement's setup in MPI_Init (after PMPI_Init)
    /// Everything after MPI_Finalize's barrier: unification, writing the trace, the profile.
    double atFinalize = 0.0;
    double finalizeWrite = 0.0; ///< of atFinalize: encoding and writing the trace
    double flushSeconds = 0.0;  ///< buffer flushes while the program ran
    double flushes = 0.0;
    double events = 0.0;
    double traceBytes = 0.0;
    double overheadMetric = 0.0; ///< the report's `overhead` metric (flush regions), seconds
    double unwoundCalls = 0.0;   ///< MPI calls whose call path was unwound (hybrid measurement)
    double samples = 0.0;        ///< timer samples (hybrid measurement)
    double samplesInMpi = 0.0;   ///< timer signals that found the thread inside MPI (counted)
    /// Estimated time in the measurement's hooks during the run: events, unwound calls and
    /// samples times their costs measured by tests/bench/measurement_overhead.sh (see
    /// kHookCost* in summary.cpp); the wrappers do not time themselves.
    double hookEstimate = 0.0;
    /// The program's own time: the run's time (process start to MPI_Finalize's barrier) less
    /// hooks, setup and flushes.
    double ownTime = 0.0;
    /// The whole job's measured time: the run's time plus atFinalize.
    double wholeTime = 0.0;
    /// The whole job's estimated dilation: wholeTime / ownTime; 0 when unknown.
    double wholeDilation = 0.0;
    std::string dilation; ///< the estimate and where it comes from, one sentence
    std::string verdict;  ///< one sentence
    bool disturbed = false;
    /// MPI_Init and MPI_Finalize (with the measurement's setup and writing) take most of the run:
    /// the program's own work is too short to judge.
    bool startupDominated = false;
};

/// Where the time went, in seconds summed over ranks.
struct TimeSplit {
    double total = 0.0;
    double computation = 0.0;
    double mpi = 0.0;
    double pointToPoint = 0.0;
    double collective = 0.0;
    double synchronization = 0.0;
    double initFinalize = 0.0;
    double fileIo = 0.0;   ///< MPI file reads and writes (mpi_io)
    double oneSided = 0.0; ///< one-sided transfers (mpi_rma_communication; fences and locks are
                           ///< synchronization)
    double otherMpi =
        0.0; ///< MPI time in none of the above (communicator, file, window management)
    double overhead = 0.0;
};

/// A rank and a value in seconds.
struct RankValue {
    std::int64_t rank = 0;
    double seconds = 0.0;
};

/// One cause of a finding: a call path and the ranks whose delay made others wait.
struct Cause {
    std::string metric; ///< e.g. "delay_n2n" or "imbalance_above_single"
    std::string callPath;
    std::string shortPath;        ///< shortCallPath() of its nearest user frame (never libc, vDSO)
    std::vector<RankValue> ranks; ///< largest first
    double seconds = 0.0;
};

/// One wait state on one call path.
struct Finding {
    std::string metric;           ///< Scalasca unique name, e.g. "mpi_latesender"
    std::string displayName;      ///< e.g. "Late Sender"
    std::string callPath;         ///< e.g. "main/MPI_Recv"
    std::string shortPath;        ///< e.g. "…/exchange_halo/MPI_Waitall", see shortCallPath()
    double seconds = 0.0;         ///< summed over ranks
    double share = 0.0;           ///< of the total allocation time, 0..1
    std::vector<RankValue> ranks; ///< the waiting ranks, largest first
    std::vector<Cause> causes;    ///< from delay_* / imbalance_* metrics, when present
};

/// An advice sentence and the evidence it rests on. Code (function names, call paths,
/// commands) is quoted in `backticks`; the HTML rendering turns them into <code>.
struct Advice {
    std::string text;
    std::string evidence;
};

/// Clock condition violations the analysis counted, against the MPI calls they occur among.
struct ClockViolations {
    std::uint64_t pointToPoint = 0;
    std::uint64_t collective = 0;
    std::vector<std::int64_t> ranks; ///< ranks with at least one violation, ascending
    double mpiCalls = 0.0;           ///< visits of MPI communication calls, 0 when unknown
    bool corrected = false;          ///< the timestamps were corrected (--time-correct)
    /// Whether the violations are a significant share of the communication, so that the
    /// waiting times are unreliable and a correction is worth suggesting.
    bool significant = false;
};

/// Everything the summary shows.
struct Summary {
    std::string command;            ///< the measured command line, or the program path
    std::string source;             ///< the report file
    std::string program;            ///< the executable's name, shown for an unnamed call-tree root
    std::string date;               ///< when the run ended, "YYYY-MM-DD HH:MM UTC"; may be empty
    std::vector<std::string> hosts; ///< node names of the system tree
    int ranks = 0;
    int nodes = 0;
    int threadsPerRank = 1;     ///< the most locations of one process
    std::string bound;          ///< one line: compute-, MPI-, wait- or start-up-bound
    double wallSeconds = 0.0;   ///< the longest location's time (a rank's main thread)
    int threads = 0;            ///< locations beside the processes' first (main) ones
    double threadSeconds = 0.0; ///< their time, part of split.total
    MeasurementCost cost;
    TimeSplit split;
    std::vector<RankValue> waitingPerRank; ///< wait-state seconds per rank, in rank order
    std::vector<Finding> findings;         ///< ranked, largest first
    std::vector<Advice> advice;
    bool rootCauseAvailable = false;
    /// false for a runtime profile: it has no wait-state metrics, so "no findings" means
    /// "not looked for", not "none"
    bool waitStatesAvailable = true;
    ClockViolations clock;
    std::vector<std::string> notes; ///< diagnostics carried in the report's attributes
    /// MPI functions the program called that the measurement only counted (their time is the
    /// calling code's), most calls first; also one of the notes (unrecordedCallsNote)
    std::vector<UnrecordedCall> unrecorded;
};

/// Options of summarize().
struct SummaryOptions {
    std::string command;     ///< shown in the header when not empty
    size_t maxFindings = 5;  ///< at most this many findings
    double minShare = 0.002; ///< findings below this share of total time are left out
};

/// A wait-state metric the summary reports as findings (its children, e.g. mpi_latesender_wo,
/// are part of it), with the root-cause metrics of Scalasca's delay analysis that explain it
/// (MetricId::None when there are none).
struct FindingPattern {
    metrics::MetricId metric;
    metrics::MetricId delayShort;
    metrics::MetricId delayLong;
    bool collective; ///< waiting for the last process of a collective
};

/// The wait states reported as findings, in the order the summary looks at them.
std::span<const FindingPattern> findingPatterns();

/// Builds the summary of `report`. Fails if the report lacks the `time` metric or a value
/// cannot be read (the message names the metric).
Result<Summary> summarize(const report::Report& report, const MeasurementRecord* record,
                          const SummaryOptions& options = {});

/// The short form of a call path for display: the last call and its nearest known caller,
/// e.g. "…/exchange_halo/MPI_Waitall" for main/solve/exchange_halo/MPI_Waitall. Frames the
/// user did not write (unresolved "[unknown]@lib" frames, libc, vDSO, interpreter internals)
/// are not "known" and are skipped ("hpcc/…/MPI_Sendrecv" when none is known). A path of one
/// or two calls, or of at most 50 characters, is returned whole.
std::string shortCallPath(const report::Report& report, report::CallNodeId cnode,
                          const std::string& programName = {});

/// Whether a region name is a runtime frame rather than the user's code: libc and dynamic
/// loader internals (`__libc_*`, `_dl_*`), the vDSO (`__vdso_clock_gettime`), interpreter
/// internals (`_PyEval_EvalFrameDefault`), unresolved frames (`[unknown]@...`).
bool isRuntimeFrame(const std::string& regionName);

/// The note on clock condition violations: how many, among how many MPI calls, on which ranks;
/// and, only when they are a significant share, that waiting times are unreliable and how to
/// correct them (with the experiment directory of `summary.source`). Empty without violations
/// or after a correction.
std::string clockViolationNote(const Summary& summary);

/// The note naming the MPI calls the measurement did not record ("not recorded, their time
/// counts as the calling code's: MPI_Win_fence × 12 on 4 ranks, ..."), the `maxNamed` most
/// frequent by name; empty when there are none.
std::string unrecordedCallsNote(const std::vector<UnrecordedCall>& calls, size_t maxNamed = 8);

/// The note on file I/O that few ranks do while others wait at collective I/O: from the bytes
/// each rank wrote and read (io_bytes_written, io_bytes_read) and its Wait at Collective I/O
/// (mpi_io_wait_collective; RankValue::seconds holds bytes for the first two), among `ranks`
/// ranks. "file I/O: rank 0 writes 1.2 GB alone while 63 ranks wait at collective I/O (41.2 s
/// in all)" when at most a quarter of the ranks (at least one) move 90 % of the bytes and
/// another rank waited; empty otherwise.
std::string fileIoNote(const std::vector<RankValue>& written, const std::vector<RankValue>& read,
                       const std::vector<RankValue>& collectiveWait, int ranks);

/// The summary as plain text for a terminal (lines of at most 100 characters: long call
/// paths are broken after a '/').
std::string renderText(const Summary& summary);

/// The summary as one self-contained HTML page with inline SVG charts (no external resources).
std::string renderHtml(const Summary& summary);

} // namespace waitscope::summary
