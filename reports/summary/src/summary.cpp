// Building the summary: time split, wait-state findings ranked by cost, causes and advice.
#include "waitscope/summary/summary.h"

#include "report_reading.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <waitscope/experiment/attribute_keys.h>
#include <waitscope/experiment/diagnostics.h>

namespace waitscope::summary {

using namespace detail;

namespace {

using experiment::RankField;
using report::CallTreeMode;
using report::MetricId;
using report::Report;

using M = metrics::MetricId;
constexpr FindingPattern kPatterns[] = {
    {M::MpiLateSender, M::DelayLateSender, M::DelayLateSenderLongterm, false},
    {M::MpiLateReceiver, M::DelayLateReceiver, M::DelayLateReceiverLongterm, false},
    {M::MpiWaitNxn, M::DelayN2n, M::DelayN2nLongterm, true},
    {M::MpiBarrierWait, M::DelayBarrier, M::DelayBarrierLongterm, true},
    {M::MpiLateBroadcast, M::Delay12n, M::Delay12nLongterm, true},
    {M::MpiEarlyReduce, M::DelayN21, M::DelayN21Longterm, true},
    {M::MpiEarlyScan, M::None, M::None, true},
    {M::MpiNxnCompletion, M::None, M::None, true},
    {M::MpiBarrierCompletion, M::None, M::None, true},
    {M::MpiInitCompletion, M::None, M::None, true},
    {M::MpiFinalizeWait, M::None, M::None, true},
    // OpenMP (hybrid runs): in reports of traces with OpenMP regions only.
    {M::OmpIdleThreads, M::None, M::None, false},
    {M::OmpIbarrierWait, M::None, M::None, false},
    {M::OmpEbarrierWait, M::None, M::None, false},
    {M::OmpLockContentionCritical, M::None, M::None, false},
    {M::OmpLockContentionApi, M::None, M::None, false},
    // POSIX threads: in reports of traces with pthread regions only.
    {M::PthreadLockContentionMutexLock, M::None, M::None, false},
    {M::PthreadLockContentionConditional, M::None, M::None, false},
    // One-sided communication: in reports of traces with RMA windows only. The findings read
    // inclusive values, so Early Fence and Late Complete are part of their parents' findings.
    {M::MpiRmaWaitAtFence, M::None, M::None, true},
    {M::MpiRmaSyncLatePost, M::None, M::None, false},
    {M::MpiRmaCommLatePost, M::None, M::None, false},
    {M::MpiRmaEarlyWait, M::None, M::None, false},
    {M::MpiRmaSyncLockCompetition, M::None, M::None, false},
    {M::MpiRmaCommLockCompetition, M::None, M::None, false},
    {M::MpiRmaSyncWaitForProgress, M::None, M::None, false},
    {M::MpiRmaCommWaitForProgress, M::None, M::None, false},
    {M::MpiRmaWaitAtCreate, M::None, M::None, true},
    {M::MpiRmaWaitAtFree, M::None, M::None, true},
    // MPI file I/O: in reports of traces with I/O records only.
    {M::MpiIoWaitCollective, M::None, M::None, true},
};

/// The unique name of `id` as the report names it, nullptr for None.
const char* uniqueName(M id) {
    // The registry's names are string literals, so their data is null-terminated.
    return id == M::None ? nullptr : metrics::metricDefinition(id).uniqueName.data();
}

/// `value` printed with the printf `pattern` (one double).
std::string formatValue(const char* pattern, double value) {
    char buffer[96];
    std::snprintf(buffer, sizeof buffer, pattern, value);
    return buffer;
}

} // namespace

namespace detail {

std::string formatSeconds(double s) {
    char buffer[64];
    // Milliseconds where seconds would read "0.00 s".
    if (s > 0.0 && s < 0.00995) {
        std::snprintf(buffer, sizeof buffer, "%.2f ms", 1e3 * s);
    } else {
        std::snprintf(buffer, sizeof buffer, "%.2f s", s);
    }
    return buffer;
}

std::string formatPercent(double share) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.1f %%", 100.0 * share);
    return buffer;
}

std::string rankList(const std::vector<RankValue>& ranks, size_t limit) {
    std::vector<std::int64_t> sorted;
    sorted.reserve(ranks.size());
    for (const RankValue& r : ranks) {
        sorted.push_back(r.rank);
    }
    std::sort(sorted.begin(), sorted.end());
    std::string out;
    for (size_t i = 0; i < sorted.size() && i < limit; ++i) {
        if (i > 0) {
            out += (i + 1 == sorted.size() ? " and " : ", ");
        }
        out += std::to_string(sorted[i]);
    }
    if (sorted.size() > limit) {
        out += " and " + std::to_string(sorted.size() - limit) + " more";
    }
    return (sorted.size() == 1 ? "rank " : "ranks ") + out;
}

/// rankList(ranks) followed by the verb that agrees with it: "rank 3 waits", "ranks 1 and 2 wait".
std::string ranksThat(const std::vector<RankValue>& ranks, const char* singular,
                      const char* plural) {
    return rankList(ranks) + " " + (ranks.size() == 1 ? singular : plural);
}

} // namespace detail

namespace {

// What the measurement's hooks cost per item during the run, measured side by side with the
// uninstrumented loops by tests/bench/measurement_overhead.sh (CPU time of the loop thread, on
// the barrier, nonblocking-ring and bcast loops; rounded up): a recorded event (the wrapper's
// records and clock reads), an MPI call whose call path was unwound (a remembered stack; a first
// sight costs more but happens once per call site), a timer sample (signal, unwinding the
// interrupted stack, its calling-context record), and a timer signal that found the thread
// inside MPI (only counted, but its delivery costs the process: perf on the 2-rank barrier
// loop, about 1.3 us).
constexpr double kHookCostPerEvent = 10e-9;
constexpr double kHookCostPerUnwoundCall = 20e-9;
constexpr double kHookCostPerSample = 5e-6;
constexpr double kHookCostPerSignalInMpi = 2e-6;

/// The whole-process dilation estimate of `cost` (its counts and times set) over a run of
/// `totalTime` seconds summed over ranks. The trace spans process start to MPI_Finalize's
/// barrier, so its time holds the program's own time plus what the measurement did meanwhile
/// (hooks, setup in MPI_Init, buffer flushes); what it did after (unification, writing) comes
/// on top:
///   run = own + hooks + setup + flushes,  whole = run + at MPI_Finalize,  dilation = whole / own.
void estimateDilation(MeasurementCost& cost, double totalTime) {
    cost.hookEstimate =
        cost.events * kHookCostPerEvent + cost.unwoundCalls * kHookCostPerUnwoundCall +
        cost.samples * kHookCostPerSample + cost.samplesInMpi * kHookCostPerSignalInMpi;
    const double duringRun = cost.hookEstimate + cost.insideDuringRun;
    const double own = totalTime - duringRun;
    cost.ownTime = own;
    if (totalTime <= 0.0 || own <= 0.0) {
        cost.dilation = "unknown (no run time to compare with)";
        return;
    }
    cost.wholeTime = totalTime + cost.atFinalize;
    cost.wholeDilation = cost.wholeTime / own;
    std::string hooks = formatValue("%.0f events x 10 ns", cost.events);
    if (cost.unwoundCalls > 0)
        hooks += formatValue(", %.0f unwound calls x 20 ns", cost.unwoundCalls);
    if (cost.samples > 0)
        hooks += formatValue(", %.0f samples x 5 us", cost.samples);
    if (cost.samplesInMpi > 0)
        hooks += formatValue(", %.0f timer signals inside MPI x 2 us", cost.samplesInMpi);
    cost.dilation =
        formatValue("about %.2fx the uninstrumented run for the whole job: ", cost.wholeDilation) +
        formatValue("%.3f s", cost.wholeTime) + " = " + formatValue("%.3f s", own) +
        " of the program's own time + " + formatValue("%.3f s", cost.hookEstimate) +
        " estimated in the measurement's hooks (" + hooks + ") + " +
        formatValue("%.3f s", cost.initMeasurement) + " of its setup in MPI_Init + " +
        formatValue("%.3f s", cost.flushSeconds) + " of buffer flushes + " +
        formatValue("%.3f s", cost.atFinalize) + " at MPI_Finalize (" +
        formatValue("%.3f s", cost.finalizeWrite) +
        " of it writing the trace), summed over ranks; MPI_Init's and MPI_Finalize's own time "
        "and process exit are the program's";
}

MeasurementCost measurementCost(const MeasurementRecord* record, const TimeSplit& split) {
    const double totalTime = split.total;
    const double overheadMetric = split.overhead;
    MeasurementCost cost;
    cost.overheadMetric = overheadMetric;
    if (record == nullptr) {
        cost.verdict = "the measurement's own cost is unknown (no waitscope.measurement "
                       "beside the report)";
        return cost;
    }
    cost.known = true;
    cost.initHook = record->sumOverRanks(RankField::InitHookSeconds);
    cost.wrapBeforeInit = record->sumOverRanks(RankField::WrapBeforeInitSeconds);
    cost.flushSeconds = record->sumOverRanks(RankField::FlushSeconds);
    cost.initMeasurement = record->sumOverRanks(RankField::InitMeasurementSeconds);
    cost.insideDuringRun = cost.initMeasurement + cost.flushSeconds;
    // The time after MPI_Finalize's barrier holds the write: per rank at least as long as it
    // (a record with the write alone says only that much).
    cost.finalizeWrite = record->sumOverRanks(RankField::FinalizeWriteSeconds);
    cost.atFinalize =
        std::max(record->sumOverRanks(RankField::FinalizeMeasurementSeconds), cost.finalizeWrite);
    cost.flushes = record->sumOverRanks(RankField::Flushes);
    cost.events = record->sumOverRanks(RankField::Events);
    cost.traceBytes = record->sumOverRanks(RankField::TraceBytes);
    cost.unwoundCalls = record->sumOverRanks(RankField::UnwoundCalls);
    cost.samples = record->sumOverRanks(RankField::Samples);
    cost.samplesInMpi = record->sumOverRanks(RankField::SamplesInMpi);
    estimateDilation(cost, totalTime);
    // Setup in MPI_Init and writing at MPI_Finalize lie outside the program's own work and do
    // not shift one rank against another; buffer flushes in the middle of the run do.
    const double flushShare = totalTime > 0.0 ? cost.flushSeconds / totalTime : 0.0;
    const double overheadShare = totalTime > 0.0 ? overheadMetric / totalTime : 0.0;
    if (flushShare > 0.01 || overheadShare > 0.01) {
        cost.disturbed = true;
        cost.verdict = "the measurement disturbed the run: it flushed its event buffer " +
                       std::to_string(static_cast<long long>(cost.flushes)) + " times (" +
                       formatSeconds(std::max(cost.flushSeconds, overheadMetric)) + ", " +
                       formatPercent(std::max(flushShare, overheadShare)) +
                       " of the run), which delays the flushing rank and makes others wait; "
                       "raise WAITSCOPE_TOTAL_MEMORY or filter frequent regions";
    } else if (totalTime > 0.0 && split.initFinalize >= 0.5 * totalTime) {
        // Flushes were harmless, but the run is mostly start-up and shut-down: saying "not
        // disturbed" beside that would mislead.
        cost.startupDominated = true;
        cost.verdict =
            "MPI_Init and MPI_Finalize take " + formatPercent(split.initFinalize / totalTime) +
            " of the run, the measurement's setup (" + formatSeconds(cost.initMeasurement) +
            ") and trace writing (" + formatSeconds(cost.atFinalize) +
            ") included: the program's own work is too short to judge; measure a "
            "longer run (its buffer flushes took " +
            formatPercent(flushShare) + " of the run)";
    } else {
        cost.verdict = "the measurement did not noticeably disturb the run: " +
                       std::string(cost.flushes > 0 ? "its buffer flushes took " +
                                                          formatPercent(flushShare) + " of the run"
                                                    : "no buffer flushes") +
                       "; its setup in MPI_Init and its writing at MPI_Finalize happen outside "
                       "the program's work";
    }
    return cost;
}

} // namespace

namespace detail {

/// The region role of an MPI function, for reports that do not record roles.
std::string roleFromName(const std::string& name) {
    const auto is = [&](std::initializer_list<const char*> names) {
        for (const char* n : names) {
            if (name == n) {
                return true;
            }
        }
        return false;
    };
    if (is({"MPI_Barrier", "MPI_Ibarrier"})) {
        return "barrier";
    }
    if (is({"MPI_Bcast", "MPI_Scatter", "MPI_Scatterv", "MPI_Ibcast"})) {
        return "one2all";
    }
    if (is({"MPI_Reduce", "MPI_Gather", "MPI_Gatherv", "MPI_Ireduce"})) {
        return "all2one";
    }
    if (is({"MPI_Allreduce", "MPI_Allgather", "MPI_Allgatherv", "MPI_Alltoall", "MPI_Alltoallv",
            "MPI_Alltoallw", "MPI_Reduce_scatter", "MPI_Reduce_scatter_block", "MPI_Iallreduce"})) {
        return "all2all";
    }
    if (is({"MPI_Scan", "MPI_Exscan"})) {
        return "other collective";
    }
    for (const char* prefix : {"MPI_Send", "MPI_Recv", "MPI_Isend", "MPI_Irecv", "MPI_Ssend",
                               "MPI_Bsend", "MPI_Rsend", "MPI_Issend", "MPI_Wait", "MPI_Test",
                               "MPI_Sendrecv", "MPI_Probe", "MPI_Iprobe", "MPI_Start"}) {
        if (name.rfind(prefix, 0) == 0) {
            return "point2point";
        }
    }
    return "";
}

} // namespace detail

namespace {

/// The time split of a report without the MPI metric tree (a runtime profile): exclusive time
/// of each call path, classified by its region's paradigm and role.
void splitByRegion(const Report& report, Reader& reader, MetricId timeId, TimeSplit& split) {
    const auto perNode = reader.perCallNode(timeId);
    for (report::CallNodeId n = 0; n < perNode.size(); ++n) {
        const report::Region& region = report.regions()[report.callNodes()[n].region];
        if (region.paradigm != "mpi") {
            continue;
        }
        const double t = perNode[n];
        split.mpi += t;
        const std::string role = region.role.empty() ? roleFromName(region.name) : region.role;
        if (region.name == "MPI_Init" || region.name == "MPI_Init_thread" ||
            region.name == "MPI_Finalize") {
            split.initFinalize += t;
        } else if (role == "barrier") {
            split.synchronization += t;
        } else if (role == "one2all" || role == "all2one" || role == "all2all" ||
                   role == "other collective") {
            split.collective += t;
        } else if (role == "point2point") {
            split.pointToPoint += t;
        }
    }
    split.computation = std::max(0.0, split.total - split.mpi - split.overhead);
}

} // namespace

namespace detail {

/// The call path for display. The analyzer names an undefined program root "<region N>";
/// show the program's name there instead, as Score-P's reports do.
std::string displayPath(const Report& report, report::CallNodeId cnode,
                        const std::string& programName) {
    std::string path = report.callPath(cnode);
    if (path.rfind("<region ", 0) == 0 && !programName.empty()) {
        const size_t end = path.find('>');
        path = programName + path.substr(end + 1);
    }
    return path;
}

/// The name of a call node's region; an undefined program root shows the program's name.
std::string nodeName(const Report& report, report::CallNodeId cnode,
                     const std::string& programName) {
    const std::string& name = report.regions()[report.callNodes()[cnode].region].name;
    if (name.rfind("<region ", 0) == 0 && !programName.empty()) {
        return programName;
    }
    return name;
}

/// The call node itself, or its nearest caller that is the user's code when it is a runtime
/// frame (a sample in `__vdso_clock_gettime` is the user's call of the clock).
report::CallNodeId nearestUserNode(const Report& report, report::CallNodeId cnode) {
    report::CallNodeId n = cnode;
    while (isRuntimeFrame(report.regions()[report.callNodes()[n].region].name)) {
        const auto parent = report.callNodes()[n].parent;
        if (!parent) {
            return cnode; // nothing of the user's above it
        }
        n = *parent;
    }
    return n;
}

bool isInitOrFinalize(const std::string& name) {
    return name == "MPI_Init" || name == "MPI_Init_thread" || name == "MPI_Finalize";
}

/// Whether the call node is MPI_Init or MPI_Finalize or lies below one of them.
bool insideInitOrFinalize(const Report& report, report::CallNodeId cnode) {
    for (std::optional<report::CallNodeId> n = cnode; n; n = report.callNodes()[*n].parent) {
        if (isInitOrFinalize(report.regions()[report.callNodes()[*n].region].name)) {
            return true;
        }
    }
    return false;
}

/// True for the diagnostics that count clock condition violations.
bool isClockViolation(std::string_view counter) {
    const auto diagnostic = experiment::findDiagnostic(counter);
    return diagnostic == experiment::Diagnostic::ClockViolationsP2p ||
           diagnostic == experiment::Diagnostic::ClockViolationsCollective;
}

/// The clock condition violations of the report's diagnostics, with the MPI communication
/// calls (visits) they occur among.
ClockViolations clockViolations(const Report& report, Reader& reader) {
    ClockViolations clock;
    const std::string_view prefix = experiment::kDiagnosticPrefix;
    std::set<std::int64_t> ranks;
    for (const auto& [key, value] : report.attributes()) {
        if (key.rfind(prefix, 0) != 0) {
            continue;
        }
        const std::string name = key.substr(prefix.size());
        const size_t rankAt = name.find(experiment::kDiagnosticRankSeparator);
        const std::string counter = name.substr(0, rankAt);
        const bool violation = isClockViolation(counter);
        const std::uint64_t count = std::strtoull(value.c_str(), nullptr, 10);
        if (rankAt != std::string::npos) {
            if (violation && count > 0) {
                ranks.insert(std::strtoll(name.c_str() + rankAt +
                                              experiment::kDiagnosticRankSeparator.size(),
                                          nullptr, 10));
            }
            continue;
        }
        const auto diagnostic = experiment::findDiagnostic(counter);
        if (diagnostic == experiment::Diagnostic::ClockViolationsP2p) {
            clock.pointToPoint = count;
        } else if (diagnostic == experiment::Diagnostic::ClockViolationsCollective) {
            clock.collective = count;
        }
        clock.corrected =
            clock.corrected || (diagnostic && experiment::isClockCorrection(*diagnostic));
    }
    clock.ranks.assign(ranks.begin(), ranks.end());
    if (const auto visits = reader.metric("visits")) {
        const auto perNode = reader.perCallNode(*visits);
        for (report::CallNodeId n = 0; n < perNode.size(); ++n) {
            const report::Region& region = report.regions()[report.callNodes()[n].region];
            const std::string role = region.role.empty() ? roleFromName(region.name) : region.role;
            if (region.paradigm == "mpi" && !isInitOrFinalize(region.name) &&
                (role == "point2point" || role == "barrier" || role == "one2all" ||
                 role == "all2one" || role == "all2all" || role == "other collective")) {
                clock.mpiCalls += perNode[n];
            }
        }
    }
    // A handful among thousands of calls moves few waiting times by little; one in a hundred
    // or more (or any, when the calls are not counted) makes the waiting times suspect.
    const double violations = static_cast<double>(clock.pointToPoint + clock.collective);
    clock.significant = violations > 0 && !clock.corrected &&
                        (clock.mpiCalls <= 0.0 || violations >= 0.01 * clock.mpiCalls);
    return clock;
}

} // namespace detail

std::string clockViolationNote(const Summary& summary) {
    const ClockViolations& c = summary.clock;
    const std::uint64_t total = c.pointToPoint + c.collective;
    if (total == 0 || c.corrected) {
        return "";
    }
    std::string text =
        "the timestamps violate the clock condition " + std::to_string(total) + " times";
    if (c.mpiCalls > 0.0) {
        char calls[96];
        const double percent = 100.0 * static_cast<double>(total) / c.mpiCalls;
        if (percent < 0.005) {
            std::snprintf(calls, sizeof calls, " in %.0f MPI communication calls (under 0.01 %%)",
                          c.mpiCalls);
        } else {
            std::snprintf(calls, sizeof calls, " in %.0f MPI communication calls (%.2f %%)",
                          c.mpiCalls, percent);
        }
        text += calls;
    }
    std::vector<RankValue> ranks;
    for (const std::int64_t r : c.ranks) {
        ranks.push_back({r, 0.0});
    }
    std::string kinds;
    if (c.pointToPoint > 0) {
        kinds = std::to_string(c.pointToPoint) + (c.pointToPoint == 1
                                                      ? " receive ended before its send began"
                                                      : " receives ended before their send began");
    }
    if (c.collective > 0) {
        kinds += std::string(kinds.empty() ? "" : " and ") + std::to_string(c.collective) +
                 (c.collective == 1 ? " collective was" : " collectives were") +
                 " left before a member entered";
    }
    text += std::string(": ") + (ranks.empty() ? "" : "on " + rankList(ranks) + ", ") + kinds;
    if (!c.significant) {
        return text + "; too few to change the waiting times noticeably";
    }
    const size_t slash = summary.source.rfind('/');
    const std::string directory =
        summary.source.empty()
            ? "<experiment dir>"
            : (slash == std::string::npos ? "." : summary.source.substr(0, slash));
    return text +
           "; the ranks' clocks disagree, so the waiting times are unreliable: analyze "
           "again with `waitscope analyze --time-correct -a " +
           directory + "`";
}

/// Call paths up to this many characters are short enough to show whole.
constexpr size_t kShortPathLength = 50;

bool isRuntimeFrame(const std::string& name) {
    // Exact names of thread and process entry points, then prefixes of runtime internals.
    for (const char* exact : {"_start", "clone", "clone3", "start_thread", "syscall",
                              "failed unwind", "__restore_rt", "abort", "raise"}) {
        if (name == exact) {
            return true;
        }
    }
    for (const char* prefix :
         {"[unknown]",    "__libc_",     "__GI_",    "__pthread_",    "_dl_",
          "__dl_",        "__vdso",      "__clock_", "clock_gettime", "__gettimeofday",
          "gettimeofday", "__nanosleep", "__memcpy", "__memset",      "__memmove",
          "__strlen",     "_PyEval_",    "PyEval_",  "_PyObject_",    "PyObject_",
          "_PyFunction_", "_Py_",        "Py_",      "_PyRun_",       "PyRun_",
          "pymain_",      "cfunction_"}) {
        if (name.rfind(prefix, 0) == 0) {
            return true;
        }
    }
    // Versioned libc symbols as unwinding names them: "__libc_start_main@@GLIBC_2.34".
    return name.find("@GLIBC") != std::string::npos;
}

std::string shortCallPath(const Report& report, report::CallNodeId cnode,
                          const std::string& programName) {
    std::vector<report::CallNodeId> chain; // the call node first, the root last
    for (std::optional<report::CallNodeId> n = cnode; n; n = report.callNodes()[*n].parent) {
        chain.push_back(*n);
    }
    // A path that reads at a glance is shown whole.
    std::string full = displayPath(report, cnode, programName);
    if (chain.size() <= 2 || full.size() <= kShortPathLength) {
        return full;
    }
    const std::string leaf = nodeName(report, chain.front(), programName);
    for (size_t i = 1; i < chain.size(); ++i) {
        const std::string name = nodeName(report, chain[i], programName);
        if (!isRuntimeFrame(name)) {
            const bool root = i + 1 == chain.size();
            return (root ? "" : "\u2026/") + name + (i == 1 ? "/" : "/\u2026/") + leaf;
        }
    }
    return nodeName(report, chain.back(), programName) + "/\u2026/" + leaf;
}

std::span<const FindingPattern> findingPatterns() {
    return kPatterns;
}

std::string unrecordedCallsNote(const std::vector<UnrecordedCall>& calls, size_t maxNamed) {
    if (calls.empty()) {
        return {};
    }
    std::string note = "MPI calls not recorded (their time counts as the calling code's): ";
    for (size_t i = 0; i < calls.size() && i < maxNamed; ++i) {
        note += (i == 0 ? "" : ", ") + calls[i].function + " \u00d7 " +
                std::to_string(calls[i].calls) + " on " + std::to_string(calls[i].ranks) +
                (calls[i].ranks == 1 ? " rank" : " ranks");
    }
    if (calls.size() > maxNamed) {
        note += " and " + std::to_string(calls.size() - maxNamed) + " more functions";
    }
    return note;
}

Result<Summary> summarize(const report::Report& report, const MeasurementRecord* record,
                          const SummaryOptions& options) {
    Reader reader(report);
    const auto timeId = reader.metric("time");
    if (!timeId) {
        return Error("report has no time metric");
    }
    Summary summary;
    summary.command = options.command;
    if (summary.command.empty() && record != nullptr) {
        summary.command = record->text("program");
    }
    if (summary.command.empty()) {
        summary.command = report.attribute("waitscope::command").value_or("(unknown)");
    }
    if (record != nullptr) {
        const std::string program = record->text("program");
        summary.program = program.substr(program.rfind('/') + 1);
    }
    std::set<std::int64_t> ranks;
    std::set<report::SystemNodeId> nodes;
    for (const report::SystemNode& n : report.systemNodes()) {
        if (n.kind == report::SystemKind::Process) {
            ranks.insert(n.rank);
            if (n.parent) {
                nodes.insert(*n.parent);
            }
        }
    }
    summary.ranks = static_cast<int>(ranks.size());
    summary.nodes = static_cast<int>(nodes.size());
    for (const report::SystemNodeId node : nodes) {
        summary.hosts.push_back(report.systemNodes()[node].name);
    }
    for (const report::SystemNode& n : report.systemNodes()) {
        if (n.kind == report::SystemKind::Process) {
            summary.threadsPerRank =
                std::max(summary.threadsPerRank, static_cast<int>(n.children.size()));
        }
    }

    TimeSplit& split = summary.split;
    split.total = reader.total("time");
    split.computation = reader.total("comp");
    split.mpi = reader.total("mpi");
    split.pointToPoint = reader.total("mpi_point2point");
    split.collective = reader.total("mpi_collective");
    split.synchronization = reader.total("mpi_synchronization");
    split.initFinalize = reader.total("mpi_init_exit");
    split.fileIo = reader.total("mpi_io");
    split.oneSided = reader.total("mpi_rma_communication");
    split.overhead = reader.total("overhead");
    if (!reader.metric("mpi")) {
        splitByRegion(report, reader, *timeId, split);
        summary.waitStatesAvailable = false; // the findings and the advice say so
    }
    split.otherMpi =
        std::max(0.0, split.mpi - split.pointToPoint - split.collective - split.synchronization -
                          split.initFinalize - split.fileIo - split.oneSided);
    // The longest location: a rank's threads run beside its main thread, so their times do not
    // add up to the rank's wall time.
    const std::vector<double> perLocation = reader.perLocationAll(*timeId);
    for (const double seconds : perLocation) {
        summary.wallSeconds = std::max(summary.wallSeconds, seconds);
    }
    for (report::LocationId loc = 0; loc < report.locations().size(); ++loc) {
        const report::SystemNode& n = report.systemNodes()[report.locations()[loc]];
        if (n.parent &&
            report.systemNodes()[*n.parent].children.front() != report.locations()[loc]) {
            ++summary.threads;
            summary.threadSeconds += perLocation[loc];
        }
    }
    summary.cost = measurementCost(record, split);

    // Findings: every (pattern, call node) with a noticeable value.
    std::vector<double> waiting(report.locations().size(), 0.0);
    double waitingOutsideStartup = 0.0; ///< for the verdict: MPI_Init's waits count as start-up
    for (const FindingPattern& pattern : kPatterns) {
        const auto id = reader.metric(uniqueName(pattern.metric));
        if (!id) {
            continue;
        }
        const auto perNode = reader.perCallNode(*id);
        for (report::CallNodeId n = 0; n < perNode.size(); ++n) {
            if (perNode[n] <= 0.0) {
                continue;
            }
            const auto perLoc = reader.perLocation(*id, n);
            for (size_t i = 0; i < waiting.size(); ++i) {
                waiting[i] += perLoc[i];
            }
            if (!insideInitOrFinalize(report, n)) {
                waitingOutsideStartup += perNode[n];
            }
            const double share = split.total > 0 ? perNode[n] / split.total : 0.0;
            if (share < options.minShare) {
                continue;
            }
            Finding f;
            f.metric = uniqueName(pattern.metric);
            f.displayName = report.metrics()[*id].displayName;
            f.callPath = displayPath(report, n, summary.program);
            f.shortPath = shortCallPath(report, n, summary.program);
            f.seconds = perNode[n];
            f.share = share;
            // A rank is listed when it holds at least 5 % of the finding's biggest rank value.
            auto all = reader.ranksOf(perLoc, 0.0);
            const double biggest = all.empty() ? 0.0 : all.front().seconds;
            for (const RankValue& r : all) {
                if (r.seconds >= 0.05 * biggest) {
                    f.ranks.push_back(r);
                }
            }
            for (const char* delayName :
                 {uniqueName(pattern.delayShort), uniqueName(pattern.delayLong)}) {
                const auto delay = reader.metric(delayName);
                if (!delay) {
                    continue;
                }
                summary.rootCauseAvailable = true;
                const auto delayPerNode = reader.perCallNode(*delay);
                // The largest delay outside MPI_Init and MPI_Finalize: start-up and shut-down
                // are nothing the user can change, so they are no root cause to name.
                std::optional<report::CallNodeId> top;
                for (report::CallNodeId c = 0; c < delayPerNode.size(); ++c) {
                    // The program's root holds the time outside main: nothing to change
                    // there either.
                    if (delayPerNode[c] > 0.0 && (!top || delayPerNode[c] > delayPerNode[*top]) &&
                        !insideInitOrFinalize(report, c) && report.callNodes()[c].parent) {
                        top = c;
                    }
                }
                if (!top) {
                    continue;
                }
                const report::CallNodeId cnode = *top;
                Cause cause;
                cause.metric = delayName;
                cause.callPath = displayPath(report, cnode, summary.program);
                // Advice names the user's code, never a libc or vDSO frame it called.
                cause.shortPath =
                    shortCallPath(report, nearestUserNode(report, cnode), summary.program);
                cause.seconds = delayPerNode[cnode];
                cause.ranks =
                    reader.ranksOf(reader.perLocation(*delay, cnode), 0.01 * cause.seconds);
                // A delay of a few percent of the wait explains nothing of it.
                if (cause.seconds >= 0.05 * f.seconds) {
                    f.causes.push_back(std::move(cause));
                }
            }
            summary.findings.push_back(std::move(f));
        }
    }
    if (reader.metric("imbalance")) {
        summary.rootCauseAvailable = true;
    }
    std::stable_sort(summary.findings.begin(), summary.findings.end(),
                     [](const Finding& a, const Finding& b) { return a.seconds > b.seconds; });
    if (summary.findings.size() > options.maxFindings) {
        summary.findings.resize(options.maxFindings);
    }
    summary.waitingPerRank = reader.allRanks(waiting);
    // Unresolved frames hide where the program waits: say how to get the names.
    for (const Finding& f : summary.findings) {
        const size_t at = f.callPath.find("[unknown]@");
        if (at != std::string::npos) {
            const size_t end = f.callPath.find('/', at);
            summary.notes.push_back(
                "the call paths pass through functions without symbols (" +
                f.callPath.substr(at, end == std::string::npos ? end : end - at) +
                "): the program or library is stripped; build it with symbols (-g, not "
                "stripped), or with `waitscope instrument`, to see their names");
            break;
        }
    }
    // Few ranks doing the file I/O while the others wait at it (OTF2 I/O records).
    const auto ioWritten = reader.metric("io_bytes_written");
    const auto ioRead = reader.metric("io_bytes_read");
    const auto ioWait = reader.metric("mpi_io_wait_collective");
    if (ioWritten && ioRead && ioWait) {
        const std::string note =
            fileIoNote(reader.allRanks(reader.perLocationAll(*ioWritten)),
                       reader.allRanks(reader.perLocationAll(*ioRead)),
                       reader.allRanks(reader.perLocationAll(*ioWait)), summary.ranks);
        if (!note.empty()) {
            summary.notes.push_back(note);
        }
    }
    summary.bound = boundVerdict(summary, waitingOutsideStartup);
    addAdvice(summary, report, reader);
    for (Advice& advice : summary.advice) {
        if (!advice.text.empty()) {
            advice.text[0] =
                static_cast<char>(std::toupper(static_cast<unsigned char>(advice.text[0])));
        }
    }

    // A trace recovered after a failed run: what was lost comes first (waitscope recover).
    for (const auto& [key, value] : report.attributes()) {
        if (key.rfind(experiment::kMeasurementRecoveryPrefix, 0) == 0) {
            summary.notes.push_back("incomplete trace: " + value);
        }
    }
    for (const auto& [key, value] : report.attributes()) {
        const std::string_view prefix = experiment::kDiagnosticPrefix;
        // Clock condition violations get a sentence of their own (clockViolationNote).
        if (key.rfind(prefix, 0) == 0 &&
            key.find(experiment::kDiagnosticRankSeparator) == std::string::npos &&
            !isClockViolation(std::string_view(key).substr(prefix.size()))) {
            summary.notes.push_back(key.substr(prefix.size()) + ": " + value);
        }
    }
    summary.unrecorded = record != nullptr
                             ? record->unrecordedCalls()
                             : MeasurementRecord::fromReport(report).unrecordedCalls();
    if (std::string note = unrecordedCallsNote(summary.unrecorded); !note.empty()) {
        summary.notes.push_back(std::move(note));
    }
    summary.clock = clockViolations(report, reader);
    if (Status status = reader.status(); !status) {
        return status.error();
    }
    return summary;
}

} // namespace waitscope::summary
