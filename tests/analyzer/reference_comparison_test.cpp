// The analysis of the Score-P reference traces agrees with Scalasca 2.6's report, metric by
// metric, call path by call path, rank by rank (1 % or 1 ms for times, counts exactly).
#include "reference_traces.h"
#include "scalasca_reference.h"
#include "waitscope/analysis/derived_metrics.h"
#include "waitscope/analysis/serial_analysis.h"
#include "waitscope/trace/otf2_archive.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>

using namespace waitscope;
using namespace waitscope::analysis;

namespace {

const std::vector<std::string>& kReferences = testing::kReferenceTraces;
using testing::referenceDirectory;

using testing::loadJson;

bool agrees(const MetricInfo& info, double ours, double theirs) {
    return testing::agreesWithScalasca(info, ours, theirs);
}

// Largest deviations per metric over all references (printed at the end).
struct Deviation {
    double relative = 0.0; ///< over values of at least 1 ms (or 1 count)
    double absolute = 0.0;
    size_t compared = 0;
};
std::map<std::string, Deviation>& deviations() {
    static std::map<std::string, Deviation> table;
    return table;
}

} // namespace

TEST_CASE("every reference trace reproduces Scalasca's metrics per call path and rank",
          "[reference]") {
    for (const std::string& name : kReferences) {
        auto result = analyzeArchiveInProcess(referenceDirectory(name) + "/trace");
        REQUIRE(result.ok());
        auto defs = trace::readDefinitions(referenceDirectory(name) + "/trace/traces.otf2");
        REQUIRE(defs.ok());
        std::map<std::string, NodeId> nodes;
        for (NodeId n = 0; n < result->tree().size(); ++n) {
            nodes[result->tree().path(n, *defs)] = n;
        }
        const testing::JsonValue reference = loadJson(referenceDirectory(name) + "/scalasca.json");
        for (size_t m = 0; m < kMetricCount; ++m) {
            const MetricInfo& info = metricInfo(static_cast<Metric>(m));
            const std::string metricName(info.uniqueName);
            const auto found = reference.object.find(metricName);
            // The reference traces are MPI only: no OpenMP, POSIX threads or one-sided values to
            // compare.
            const metrics::Block block = metricBlock(static_cast<Metric>(m));
            if ((block == metrics::Block::OpenMp || block == metrics::Block::Pthread ||
                 block == metrics::Block::Rma) &&
                found == reference.object.end()) {
                continue;
            }
            // Nor Waitscope's own file I/O metrics (Wait at Collective I/O, Score-P's I/O
            // bytes), which Scalasca 2.6 does not have.
            const auto metric = static_cast<Metric>(m);
            if ((metric == Metric::MpiIoWaitCollective || metric == Metric::IoBytesRead ||
                 metric == Metric::IoBytesWritten) &&
                found == reference.object.end()) {
                continue;
            }
            REQUIRE(found != reference.object.end());
            const auto& perPathRank = found->second.at("per_path_rank").object;
            for (const auto& [path, ranks] : perPathRank) {
                const auto node = nodes.find(path);
                for (const auto& [rankText, theirs] : ranks.object) {
                    const uint32_t rank = static_cast<uint32_t>(std::stoul(rankText));
                    const double ours = node == nodes.end() ? 0.0
                                                            : result->value(static_cast<Metric>(m),
                                                                            node->second, rank);
                    INFO(name << " " << metricName << " " << path << " rank " << rank << ": ours "
                              << ours << " scalasca " << theirs.number);
                    CHECK(agrees(info, ours, theirs.number));
                    Deviation& worst = deviations()[metricName];
                    const double absolute = std::fabs(ours - theirs.number);
                    worst.absolute = std::max(worst.absolute, absolute);
                    // Relative deviations only where the value is large enough to mean something.
                    if (std::fabs(theirs.number) >= 1e-3) {
                        worst.relative =
                            std::max(worst.relative, absolute / std::fabs(theirs.number));
                    }
                    ++worst.compared;
                }
            }
            // Nothing on call paths Scalasca does not know.
            for (const auto& [path, node] : nodes) {
                if (perPathRank.count(path) == 0) {
                    INFO(name << " " << metricName << " extra path " << path);
                    CHECK(result->value(static_cast<Metric>(m), node) == 0.0);
                }
            }
        }
        CHECK(result->diagnostic(experiment::Diagnostic::ClockViolationsP2p) == 0);
    }
    std::cout << "deviation from Scalasca per metric over the 7 references (max relative where "
                 "Scalasca's value >= 1e-3, max absolute, values compared):\n";
    for (const auto& [metric, worst] : deviations()) {
        std::cout << "  " << std::left << std::setw(24) << metric << " " << std::setw(12)
                  << worst.relative << " " << std::setw(12) << worst.absolute << " "
                  << worst.compared << "\n";
    }
}

TEST_CASE("the derived root-cause formulas reproduce Scalasca's values from Scalasca's own inputs",
          "[reference][root-cause]") {
    // Scalasca's time, computation, visits, wait states and critical path per call path and
    // rank go in; imbalance, critical-path imbalance and performance impact, derived at merge
    // time, must come out as in Scalasca's report. This checks the formulas apart from our
    // replay (the test above checks both together).
    const std::vector<Metric> inputs = {
        Metric::Time,           Metric::Comp,          Metric::Visits,
        Metric::CriticalPath,   Metric::MpiLateSender, Metric::MpiLateReceiver,
        Metric::MpiBarrierWait, Metric::MpiWaitNxn,    Metric::MpiLateBroadcast,
        Metric::MpiEarlyReduce, Metric::MpiEarlyScan,  Metric::MpiFinalizeWait};
    const std::vector<Metric> derived = {Metric::Imbalance,
                                         Metric::ImbalanceAbove,
                                         Metric::ImbalanceAboveSingle,
                                         Metric::ImbalanceBelow,
                                         Metric::ImbalanceBelowBypass,
                                         Metric::ImbalanceBelowSingularity,
                                         Metric::CriticalPathImbalance,
                                         Metric::PerformanceImpact,
                                         Metric::PerformanceImpactCriticalPath,
                                         Metric::CriticalPathActivities,
                                         Metric::CriticalImbalanceImpact,
                                         Metric::IntraPartitionImbalance,
                                         Metric::InterPartitionImbalance,
                                         Metric::NonCriticalPathActivities};
    size_t compared = 0;
    for (const std::string& name : kReferences) {
        const testing::JsonValue reference = loadJson(referenceDirectory(name) + "/scalasca.json");
        const auto& paths = reference.at("time").at("per_path_rank").object;
        const size_t ranks = paths.begin()->second.object.size();
        // One call tree for every rank, built from the path names.
        std::map<std::string, uint32_t> regions;
        std::vector<RankResult> results(ranks);
        std::map<std::string, NodeId> nodes;
        for (size_t r = 0; r < ranks; ++r) {
            results[r].rank = static_cast<uint32_t>(r);
            for (const auto& [path, values] : paths) {
                NodeId node = kNoNode;
                std::stringstream parts(path);
                for (std::string part; std::getline(parts, part, '/');) {
                    const uint32_t region =
                        regions.emplace(part, static_cast<uint32_t>(regions.size())).first->second;
                    node = results[r].tree.child(node, region);
                }
                nodes[path] = node;
            }
            for (Metric m : inputs) {
                const auto& perPath =
                    reference.at(std::string(metricInfo(m).uniqueName)).at("per_path_rank");
                for (const auto& [path, values] : perPath.object) {
                    results[r].severities.add(m, nodes.at(path),
                                              values.at(std::to_string(r)).number);
                }
            }
        }
        AnalysisResult merged = AnalysisResult::merge(std::move(results));
        deriveMetrics(merged);
        for (Metric m : derived) {
            const MetricInfo& info = metricInfo(m);
            const auto& perPath = reference.at(std::string(info.uniqueName)).at("per_path_rank");
            for (const auto& [path, values] : perPath.object) {
                for (const auto& [rankText, theirs] : values.object) {
                    const double ours = merged.value(m, nodes.at(path),
                                                     static_cast<uint32_t>(std::stoul(rankText)));
                    INFO(name << " " << info.uniqueName << " " << path << " rank " << rankText
                              << ": ours " << ours << " scalasca " << theirs.number);
                    CHECK(agrees(info, ours, theirs.number));
                    ++compared;
                }
            }
        }
    }
    CHECK(compared > 7 * 14 * 4 * 5);
}

TEST_CASE("every reference trace reproduces Scalasca's root-cause totals",
          "[reference][root-cause]") {
    // Delay costs and wait-state classification, summed over call paths and ranks; the test
    // above compares them per call path and rank as well.
    const std::vector<Metric> rootCause = {
        Metric::Delay,
        Metric::DelayLateSender,
        Metric::DelayLateSenderLongterm,
        Metric::DelayLateReceiver,
        Metric::DelayLateReceiverLongterm,
        Metric::DelayBarrier,
        Metric::DelayBarrierLongterm,
        Metric::DelayN2n,
        Metric::DelayN2nLongterm,
        Metric::Delay12n,
        Metric::Delay12nLongterm,
        Metric::DelayN21,
        Metric::DelayN21Longterm,
        Metric::MpiWaitPropagatingLs,
        Metric::MpiWaitPropagatingLr,
        Metric::MpiWaitTerminalLs,
        Metric::MpiWaitTerminalLr,
        Metric::MpiWaitDirectLateSender,
        Metric::MpiWaitDirectLateReceiver,
        Metric::MpiWaitIndirectLateSender,
        Metric::MpiWaitIndirectLateReceiver,
    };
    double delayOverall = 0.0;
    for (const std::string& name : kReferences) {
        auto result = analyzeArchiveInProcess(referenceDirectory(name) + "/trace");
        REQUIRE(result.ok());
        const testing::JsonValue reference = loadJson(referenceDirectory(name) + "/scalasca.json");
        for (Metric metric : rootCause) {
            const MetricInfo& info = metricInfo(metric);
            double ours = 0.0;
            for (NodeId n = 0; n < result->tree().size(); ++n) {
                for (uint32_t r = 0; r < result->ranks(); ++r) {
                    ours += result->value(metric, n, r);
                }
            }
            const double theirs = reference.at(std::string(info.uniqueName)).at("total").number;
            INFO(name << " " << info.uniqueName << ": ours " << ours << " scalasca " << theirs);
            CHECK(agrees(info, ours, theirs));
            if (metric == Metric::Delay) {
                delayOverall += ours;
            }
        }
    }
    // The references do inject wait states: the comparison is not one of zeros.
    CHECK(delayOverall > 10.0);
}
