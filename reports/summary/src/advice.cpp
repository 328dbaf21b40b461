// The summary's advice: what to change first, from the findings, the computation's hot spots,
// the rank-0 serialization and the OpenMP threads' idle time, and what bounds the run.
#include "report_reading.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

namespace waitscope::summary::detail {
namespace {

/// The call node where `comp` is most unevenly spread: the largest excess of one rank's
/// computation over the mean of the others. Used when the report has no root-cause metrics.
struct ComputeHotspot {
    report::CallNodeId cnode = 0;
    std::vector<RankValue> heavyRanks; ///< ranks clearly above the mean
    double excess = 0.0;               ///< summed seconds above the mean of the rest
    double heavySeconds = 0.0;         ///< the heaviest rank's computation there
    double othersMean = 0.0;
};

std::optional<ComputeHotspot> computeHotspot(const Report& report, Reader& reader) {
    const auto comp = reader.metric("comp");
    if (!comp) {
        return std::nullopt;
    }
    std::optional<ComputeHotspot> best;
    const auto perNode = reader.perCallNode(*comp);
    for (report::CallNodeId n = 0; n < report.callNodes().size(); ++n) {
        if (perNode[n] <= 0.0) {
            continue;
        }
        const auto ranks = reader.allRanks(reader.perLocation(*comp, n));
        if (ranks.size() < 2) {
            continue;
        }
        double maxValue = 0.0;
        for (const RankValue& r : ranks) {
            maxValue = std::max(maxValue, r.seconds);
        }
        // Ranks within 20 % of the heaviest are "heavy"; the rest form the baseline.
        ComputeHotspot spot;
        spot.cnode = n;
        double rest = 0.0;
        size_t restCount = 0;
        for (const RankValue& r : ranks) {
            if (r.seconds >= 0.8 * maxValue) {
                spot.heavyRanks.push_back(r);
            } else {
                rest += r.seconds;
                ++restCount;
            }
        }
        if (restCount == 0) {
            continue;
        }
        spot.othersMean = rest / static_cast<double>(restCount);
        spot.heavySeconds = maxValue;
        for (const RankValue& r : spot.heavyRanks) {
            spot.excess += r.seconds - spot.othersMean;
        }
        if (!best || spot.excess > best->excess) {
            best = spot;
        }
    }
    return best;
}

/// Serial work found by the root-cause metrics: the topmost call path only one rank visits,
/// with the largest Single participant imbalance (imbalance_above_single, summed over the
/// path's subtree) of that rank.
struct SerialWork {
    report::CallNodeId cnode = 0;
    std::int64_t rank = 0;
    double single = 0.0;   ///< imbalance_above_single of the subtree
    double seconds = 0.0;  ///< the rank's time in the subtree
    double critical = 0.0; ///< the rank's critical-path time in the subtree (0 without it)
};

std::optional<SerialWork> serialWork(const Report& report, Reader& reader) {
    const auto single = reader.metric("imbalance_above_single");
    const auto visits = reader.metric("visits");
    const auto time = reader.metric("time");
    if (!single || !visits || !time) {
        return std::nullopt;
    }
    const auto visitors = [&](report::CallNodeId n) {
        return reader.ranksOf(reader.perLocation(*visits, n), 0.0);
    };
    std::optional<SerialWork> best;
    for (report::CallNodeId n = 0; n < report.callNodes().size(); ++n) {
        const auto here = visitors(n);
        const auto parent = report.callNodes()[n].parent;
        if (here.size() != 1 || (parent && visitors(*parent).size() == 1)) {
            continue; // not visited by one rank alone, or not the topmost such call path
        }
        const std::int64_t rank = here.front().rank;
        const auto valueOf = [&](MetricId id) {
            for (const RankValue& r :
                 reader.allRanks(reader.perLocation(id, n, CallTreeMode::Inclusive))) {
                if (r.rank == rank) {
                    return r.seconds;
                }
            }
            return 0.0;
        };
        SerialWork work{n, rank, valueOf(*single), valueOf(*time), 0.0};
        if (const auto critical = reader.metric("critical_path")) {
            work.critical = valueOf(*critical);
        }
        if (work.single > 0.0 && (!best || work.single > best->single)) {
            best = work;
        }
    }
    return best;
}

/// Advice from the root-cause metrics when one rank's serial work is what the others wait
/// for in the costliest wait state: "rank 0 alone spends 1.02 s in `write_output` while
/// ranks 1, 2 and 3 wait for it in `MPI_Allreduce` ...".
std::optional<Advice> serialWorkAdvice(const Summary& summary, const Report& report,
                                       Reader& reader) {
    const Finding& top = summary.findings.front();
    const auto work = serialWork(report, reader);
    // Only when the serial work can explain a good part of the longest wait.
    if (!work || top.ranks.empty() || work->seconds < 0.3 * top.ranks.front().seconds ||
        insideInitOrFinalize(report, work->cnode)) {
        return std::nullopt;
    }
    std::vector<RankValue> waiters;
    for (const RankValue& r : top.ranks) {
        if (r.rank != work->rank) {
            waiters.push_back(r);
        }
    }
    if (waiters.empty()) {
        return std::nullopt;
    }
    const report::CallNodeId named = nearestUserNode(report, work->cnode);
    const std::string function = nodeName(report, named, summary.program);
    const std::string waitCall = top.callPath.substr(top.callPath.rfind('/') + 1);
    std::string text = "rank " + std::to_string(work->rank) + " alone spends " +
                       formatSeconds(work->seconds) + " in `" + function + "` while " +
                       ranksThat(waiters, "waits", "wait") + " for it in `" + waitCall + "` (" +
                       top.displayName + ", " + formatPercent(top.share) +
                       " of the total time). This serial work is the thing to fix";
    if (work->critical >= 0.5 * work->seconds) {
        text += ": " + formatSeconds(work->critical) +
                " of it lies on the critical path, so the run waits for it";
    }
    const double ranks = summary.ranks > 0 ? summary.ranks : 1;
    // "It would take 0.00 s per rank" tells nothing: the clause is left out for tiny work.
    if (summary.ranks > 1 && work->seconds / ranks >= 0.005) {
        text +=
            "; shared among " +
            (summary.ranks == 2 ? std::string("both") : "all " + std::to_string(summary.ranks)) +
            " ranks it would take " + formatSeconds(work->seconds / ranks) + " per rank";
    }
    text += ".";
    const std::string path = displayPath(report, work->cnode, summary.program);
    std::string evidence =
        "imbalance_above_single at `" + path + "`: " + formatSeconds(work->single) + " on rank " +
        std::to_string(work->rank) + "; critical_path there: " + formatSeconds(work->critical) +
        "; " + top.metric + " at `" + top.callPath + "`: " + formatSeconds(top.seconds) +
        " in total";
    return Advice{text, evidence};
}

/// Hybrid runs: how much of their time the further threads of the ranks are idle while the
/// master thread runs outside parallel regions (omp_idle_threads), and where the master is then:
/// "threads 1–2 of every rank are idle 45 % of their time while thread 0 runs outside parallel
/// regions, most in `MPI_Waitall` (…/exchange/MPI_Waitall): overlap …".
std::optional<Advice> hybridAdvice(const Summary& summary, const Report& report, Reader& reader) {
    const auto idle = reader.metric("omp_idle_threads");
    const auto time = reader.metric("time");
    if (!idle || !time) {
        return std::nullopt;
    }
    // Start-up and shut-down (MPI_Init, MPI_Finalize) are nothing to change: left out.
    const std::vector<double> perNode = reader.perCallNode(*idle);
    std::vector<double> idlePerLocation(report.locations().size(), 0.0);
    std::optional<report::CallNodeId> top;
    for (report::CallNodeId n = 0; n < perNode.size(); ++n) {
        if (perNode[n] <= 0.0 || insideInitOrFinalize(report, n)) {
            continue;
        }
        const std::vector<double> values = reader.perLocation(*idle, n);
        for (size_t loc = 0; loc < values.size(); ++loc) {
            idlePerLocation[loc] += values[loc];
        }
        if (!top || perNode[n] > perNode[*top]) {
            top = n;
        }
    }
    if (!top) {
        return std::nullopt;
    }
    const std::vector<double> timePerLocation = reader.perLocationAll(*time);
    double idleSum = 0.0, timeSum = 0.0;
    size_t lowest = SIZE_MAX, highest = 0, workers = 0;
    std::set<report::SystemNodeId> processes, processesWithWorkers;
    for (report::LocationId loc = 0; loc < report.locations().size(); ++loc) {
        const report::SystemNode& n = report.systemNodes()[report.locations()[loc]];
        if (!n.parent) {
            continue;
        }
        processes.insert(*n.parent);
        const std::vector<report::SystemNodeId>& siblings =
            report.systemNodes()[*n.parent].children;
        const auto position = static_cast<size_t>(
            std::find(siblings.begin(), siblings.end(), report.locations()[loc]) -
            siblings.begin());
        if (position == 0) {
            continue; // the master
        }
        ++workers;
        processesWithWorkers.insert(*n.parent);
        lowest = std::min(lowest, position);
        highest = std::max(highest, position);
        idleSum += idlePerLocation[loc];
        timeSum += timePerLocation[loc];
    }
    if (workers == 0 || timeSum <= 0.0 || idleSum < 0.05 * timeSum) {
        return std::nullopt;
    }
    // Where the master is while the others idle: the call path with the most idle time, and
    // for an MPI call the function that makes it.
    const std::string leaf = nodeName(report, *top, summary.program);
    const bool inMpi = leaf.rfind("MPI_", 0) == 0;
    report::CallNodeId named = *top;
    if (inMpi && report.callNodes()[named].parent) {
        named = *report.callNodes()[named].parent;
    }
    const std::string function = nodeName(report, nearestUserNode(report, named), summary.program);
    const std::string threads = lowest == highest ? "thread " + std::to_string(lowest)
                                                  : "threads " + std::to_string(lowest) + "\u2013" +
                                                        std::to_string(highest);
    const std::string ofRanks =
        processesWithWorkers.size() == processes.size() && processes.size() > 1 ? " of every rank"
                                                                                : "";
    std::string text = threads + ofRanks + (lowest == highest ? " is" : " are") + " idle " +
                       formatPercent(idleSum / timeSum) +
                       " of the time while thread 0 runs outside parallel regions, most in `" +
                       leaf + "` (`" + shortCallPath(report, *top, summary.program) + "`, " +
                       formatSeconds(perNode[*top] / static_cast<double>(workers)) +
                       " per thread): ";
    if (inMpi) {
        text += "overlap that communication with parallel work, or use more threads in `" +
                function + "`.";
    } else if (!report.callNodes()[*top].parent) {
        // The program's root: serial code between parallel regions no frame names.
        text += "parallelize the serial code between the parallel regions, or overlap it with "
                "parallel work.";
    } else {
        text += "parallelize `" + function + "`, or overlap it with parallel work.";
    }
    const std::string evidence =
        "omp_idle_threads outside MPI_Init/MPI_Finalize: " + formatSeconds(idleSum) + " of the " +
        std::to_string(workers) + " worker threads' " + formatSeconds(timeSum) + "; at `" +
        displayPath(report, *top, summary.program) + "`: " + formatSeconds(perNode[*top]);
    return Advice{text, evidence};
}

/// When computation takes most of the time, what it is doing: the call paths with the most
/// computation (sampled time outside MPI), each named by its nearest user function.
std::optional<Advice> computationAdvice(const Summary& summary, const Report& report,
                                        Reader& reader) {
    const TimeSplit& split = summary.split;
    if (split.total <= 0.0 || split.computation < 0.5 * split.total) {
        return std::nullopt;
    }
    // comp when the report has it; a runtime profile has only time, outside MPI.
    const auto comp = reader.metric("comp");
    const auto id = comp ? comp : reader.metric("time");
    if (!id) {
        return std::nullopt;
    }
    const auto perNode = reader.perCallNode(*id);
    std::map<report::CallNodeId, double> byFunction;
    double sum = 0.0;
    for (report::CallNodeId n = 0; n < perNode.size(); ++n) {
        const report::Region& region = report.regions()[report.callNodes()[n].region];
        if (perNode[n] <= 0.0 || region.paradigm == "mpi" || region.paradigm == "measurement") {
            continue;
        }
        byFunction[nearestUserNode(report, n)] += perNode[n];
        sum += perNode[n];
    }
    std::vector<std::pair<report::CallNodeId, double>> spots(byFunction.begin(), byFunction.end());
    std::stable_sort(spots.begin(), spots.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    if (spots.empty() || sum <= 0.0) {
        return std::nullopt;
    }
    std::string list;
    std::string evidence =
        std::string(comp ? "comp" : "time outside MPI") + " (exclusive, summed over ranks): ";
    for (size_t i = 0; i < spots.size() && i < 3; ++i) {
        const auto& [cnode, seconds] = spots[i];
        if (i > 0 && seconds < 0.05 * sum) {
            break;
        }
        list += std::string(i == 0 ? "" : ", ") + "`" +
                shortCallPath(report, cnode, summary.program) + "` " +
                formatPercent(seconds / sum) + " of it";
        evidence += std::string(i == 0 ? "" : "; ") + "`" +
                    displayPath(report, cnode, summary.program) + "` " + formatSeconds(seconds);
    }
    std::string text = "computation takes " + formatPercent(split.computation / split.total) +
                       " of the time; most of it is in " + list +
                       ". Faster code there shortens the run more than any change to the MPI "
                       "communication.";
    return Advice{text, evidence};
}

} // namespace

/// One line: what bounds the run — computation, waiting, MPI's own work, or start-up.
std::string boundVerdict(const Summary& summary, double waitingOutsideStartup) {
    const TimeSplit& t = summary.split;
    if (t.total <= 0.0) {
        return "";
    }
    const double startup = t.initFinalize / t.total;
    const double comp = t.computation / t.total;
    const double mpi = std::max(0.0, t.mpi - t.initFinalize) / t.total;
    const double wait = waitingOutsideStartup / t.total;
    struct Part {
        const char* bound;
        const char* name;
        double share;
    };
    // A profile cannot tell waiting from transfer: its MPI time is one part.
    std::vector<Part> parts = {{"compute", "computation", comp},
                               {"start-up", "MPI_Init and MPI_Finalize", startup}};
    if (summary.waitStatesAvailable) {
        parts.push_back({"wait", "waiting in MPI (wait states)", wait});
        parts.push_back({"MPI", "MPI transfers and synchronization", std::max(0.0, mpi - wait)});
    } else {
        parts.push_back({"MPI", "MPI", mpi});
    }
    std::stable_sort(parts.begin(), parts.end(),
                     [](const Part& a, const Part& b) { return a.share > b.share; });
    std::string text = std::string(parts.front().bound) + "-bound: ";
    for (size_t i = 0; i < parts.size(); ++i) {
        if (i > 0 && parts[i].share < 0.005) {
            break; // parts under half a percent are left out
        }
        text +=
            std::string(i == 0 ? "" : ", ") + parts[i].name + " " + formatPercent(parts[i].share);
    }
    return text + " of the time";
}

/// Wait states below this share of the total time get no advice of their own (they are
/// still listed among the findings).
constexpr double kAdviceMinShare = 0.02;

void addAdvice(Summary& summary, const Report& report, Reader& reader) {
    if (!summary.waitStatesAvailable) {
        summary.advice.push_back(
            {"this runtime profile cannot show wait states; measure with tracing (`waitscope "
             "analyze` without `--profile`) to find them and their causes.",
             "the report has no wait-state metrics"});
        if (auto computation = computationAdvice(summary, report, reader)) {
            summary.advice.push_back(std::move(*computation));
        }
        return;
    }
    // Hybrid runs: idle threads first, they are often the largest loss.
    if (auto hybrid = hybridAdvice(summary, report, reader)) {
        summary.advice.push_back(std::move(*hybrid));
    }
    auto computation = computationAdvice(summary, report, reader);
    if (summary.findings.empty()) {
        if (computation) {
            summary.advice.push_back(std::move(*computation));
        }
        summary.advice.push_back(
            {"no wait state costs a noticeable share of the run; look at the computation and the "
             "MPI time split instead.",
             "no wait-state finding above " + formatPercent(SummaryOptions{}.minShare) +
                 " of the total time"});
        return;
    }
    const Finding& top = summary.findings.front();
    const auto hotspot = computeHotspot(report, reader);
    std::set<std::int64_t> waiting;
    for (const RankValue& r : top.ranks) {
        waiting.insert(r.rank);
    }
    bool heavyAreNotWaiting = hotspot && !hotspot->heavyRanks.empty();
    if (hotspot) {
        for (const RankValue& r : hotspot->heavyRanks) {
            if (waiting.count(r.rank) != 0) {
                heavyAreNotWaiting = false;
            }
        }
    }
    const std::string waitCall = top.callPath.substr(top.callPath.rfind('/') + 1);
    if (top.share < kAdviceMinShare) {
        // Nothing worth a bullet: the waits are listed, the advice stays quiet.
    } else if (auto serial = serialWorkAdvice(summary, report, reader)) {
        summary.advice.push_back(std::move(*serial));
    } else if (heavyAreNotWaiting && hotspot->excess > 0.3 * top.seconds &&
               !insideInitOrFinalize(report, hotspot->cnode)) {
        const report::CallNodeId named = nearestUserNode(report, hotspot->cnode);
        const std::string path = shortCallPath(report, named, summary.program);
        const double share =
            summary.wallSeconds > 0 ? hotspot->heavySeconds / summary.wallSeconds : 0.0;
        const bool single = hotspot->heavyRanks.size() == 1;
        std::string text =
            (single ? "Rank " + std::to_string(hotspot->heavyRanks[0].rank) + " alone spends "
                    : "R" + rankList(hotspot->heavyRanks).substr(1) + " spend ") +
            formatPercent(share) + " of the run computing in `" + path + "` while " +
            ranksThat(top.ranks, "waits", "wait") + " in `" + waitCall + "` (" + top.displayName +
            ", " + formatPercent(top.share) + " of the total time). ";
        text += single ? "This serial work is the thing to fix: share it among the ranks, or "
                         "overlap it with the others' work."
                       : "This uneven work is the thing to fix: balance it across the ranks.";
        char numbers[160];
        std::snprintf(numbers, sizeof numbers,
                      ": %.2f s on the busiest rank vs %.2f s on average on the others; ",
                      hotspot->heavySeconds, hotspot->othersMean);
        const std::string evidence =
            "comp at `" + displayPath(report, hotspot->cnode, summary.program) + "`" + numbers +
            top.metric + " at `" + top.callPath + "`: " + formatSeconds(top.seconds) + " in total";
        summary.advice.push_back({text, evidence});
    }
    // After the specific cause of the costliest wait, before the advice per wait state.
    if (computation) {
        summary.advice.push_back(std::move(*computation));
    }
    for (const Finding& f : summary.findings) {
        if (f.share < kAdviceMinShare) {
            continue;
        }
        const std::string at = "`" + f.shortPath + "`";
        std::string text;
        if (f.metric == "mpi_latesender") {
            text = ranksThat(f.ranks, "waits", "wait") + " in " + at +
                   " for messages that are sent late. Let the senders send earlier, or post the "
                   "receive as `MPI_Irecv` and do useful work before waiting for it.";
        } else if (f.metric == "mpi_latereceiver") {
            text = ranksThat(f.ranks, "blocks", "block") + " in " + at +
                   " until the receiver posts its receive. Post receives earlier, or use "
                   "`MPI_Isend` (or a buffered send) so the sender can continue.";
        } else if (f.metric == "mpi_wait_nxn" || f.metric == "mpi_barrier_wait") {
            text = ranksThat(f.ranks, "waits", "wait") + " in " + at +
                   " for the last rank to arrive. The work before it is unevenly spread; "
                   "balance it, or remove the synchronization if it is not needed.";
        } else if (f.metric == "mpi_latebroadcast") {
            text = ranksThat(f.ranks, "waits", "wait") + " in " + at +
                   " for the root, which enters late. Shorten the root's work before the "
                   "broadcast or give part of it to the other ranks.";
        } else if (f.metric == "omp_ibarrier_wait" || f.metric == "omp_ebarrier_wait") {
            text = "OpenMP threads wait in " + at +
                   " for the last thread of their team: the work before it is unevenly spread "
                   "over the threads; a `schedule(dynamic)` or smaller chunks balance it.";
        } else if (f.metric == "omp_lock_contention_critical" ||
                   f.metric == "omp_lock_contention_api") {
            text = "OpenMP threads queue for the lock in " + at +
                   ": shorten what is done while holding it, or give each thread its own "
                   "(a reduction, per-thread data).";
        } else if (f.metric == "pthread_lock_contention_mutex_lock") {
            text = "Threads wait in " + at +
                   " for a mutex another thread holds: shorten what is done while holding it, "
                   "or split the data it protects so threads take different locks.";
        } else if (f.metric == "pthread_lock_contention_conditional") {
            text = "Threads wait in " + at +
                   " for another thread to signal the condition: the signalling thread's work "
                   "before it holds them up; hand over smaller pieces of work, or earlier.";
        } else if (f.metric == "mpi_rma_wait_at_fence") {
            text = ranksThat(f.ranks, "waits", "wait") + " in " + at +
                   " for the last rank of the window to reach the fence. The work before it is "
                   "unevenly spread; balance it, or synchronize only the ranks that exchange "
                   "data (`MPI_Win_post`/`MPI_Win_start`).";
        } else if (f.metric == "mpi_rma_sync_late_post" || f.metric == "mpi_rma_comm_late_post") {
            text = ranksThat(f.ranks, "waits", "wait") + " in " + at +
                   " for the target to expose its window (`MPI_Win_post`), which it calls late. "
                   "Post earlier on the target, or do work before the access epoch.";
        } else if (f.metric == "mpi_rma_sync_lock_competition" ||
                   f.metric == "mpi_rma_comm_lock_competition") {
            text = ranksThat(f.ranks, "waits", "wait") + " in " + at +
                   " for a window lock another rank holds. Hold exclusive locks shorter, or use "
                   "shared locks with atomic operations where the updates allow it.";
        } else if (f.metric == "mpi_rma_sync_wait_for_progress" ||
                   f.metric == "mpi_rma_comm_wait_for_progress") {
            text = ranksThat(f.ranks, "waits", "wait") + " in " + at +
                   " for a target that computes outside MPI: its MPI library serves the lock or "
                   "the transfer only when the target next calls MPI. Let the target call MPI "
                   "now and then in its computation (an `MPI_Iprobe`), or enable "
                   "the library's asynchronous progress (a progress thread, or a one-sided "
                   "component that needs none).";
        } else if (f.metric == "mpi_earlyreduce") {
            text = "The root (" + rankList(f.ranks) + ") waits in " + at +
                   " for the other ranks' contributions. Enter the reduction later on the root, "
                   "or use `MPI_Ireduce` and work meanwhile.";
        } else {
            continue;
        }
        for (const Cause& c : f.causes) {
            // A cause that explains a tenth of the wait or less is no lead to follow.
            if (c.seconds >= 0.1 * f.seconds) {
                text += " The root-cause analysis points at " + rankList(c.ranks) + " in `" +
                        c.shortPath + "`.";
            }
            break;
        }
        summary.advice.push_back({text, f.metric + " at `" + f.callPath +
                                            "`: " + formatSeconds(f.seconds) + " (" +
                                            formatPercent(f.share) + " of the total time)"});
        if (summary.advice.size() >= 4) {
            break;
        }
    }
}

} // namespace waitscope::summary::detail
