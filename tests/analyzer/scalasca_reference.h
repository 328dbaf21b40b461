// Comparing an analysis with a Scalasca report stored as scalasca.json (tests/data/reference):
// reading the file, the agreement rule (times within 1 % or 1 ms, counts and bytes exactly) and
// the list of every metric x call path x rank where the two differ.
#pragma once

#include "json_value.h"
#include "waitscope/analysis/analysis_result.h"
#include "waitscope/analysis/metric.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace waitscope::testing {

/// Whether our value agrees with Scalasca's: counts and bytes exactly, times within 1 % or 1 ms.
inline bool agreesWithScalasca(const analysis::MetricInfo& info, double ours, double theirs) {
    if (info.unit != analysis::MetricUnit::Seconds) {
        return ours == theirs;
    }
    return std::fabs(ours - theirs) <= std::max(0.01 * std::fabs(theirs), 1e-3);
}

/// One metric x call path x rank where our analysis and Scalasca's report differ.
struct ScalascaDifference {
    std::string metric;
    std::string path; ///< region names from the root, joined by '/'
    uint32_t rank = 0;
    double scalasca = 0.0;
    double ours = 0.0;
};

/// The outcome of comparing every metric the analyzer computes with a scalasca.json.
struct ScalascaComparison {
    std::vector<ScalascaDifference> differences; ///< ordered by metric name, call path, rank
    size_t compared = 0;                         ///< metric x call path x rank values compared
    std::vector<std::string> missingMetrics;     ///< ours, absent from the Scalasca report
};

/// Compares `result` (call paths named with `definitions`) with `reference`, a scalasca.json:
/// every value Scalasca holds per call path and rank, and ours on call paths and ranks the file
/// leaves out (which must be zero there).
inline ScalascaComparison compareWithScalasca(const analysis::AnalysisResult& result,
                                              const trace::Definitions& definitions,
                                              const JsonValue& reference) {
    using analysis::Metric;
    std::map<std::string, analysis::NodeId> nodes;
    for (analysis::NodeId n = 0; n < result.tree().size(); ++n) {
        nodes[result.tree().path(n, definitions)] = n;
    }
    ScalascaComparison comparison;
    for (size_t m = 0; m < analysis::kMetricCount; ++m) {
        const Metric metric = static_cast<Metric>(m);
        const analysis::MetricInfo& info = analysis::metricInfo(metric);
        const std::string name(info.uniqueName);
        const auto found = reference.object.find(name);
        if (found == reference.object.end()) {
            // A metric of a paradigm the trace does not use (OpenMP, file I/O) is not in
            // Scalasca's report; ours must then be zero everywhere.
            bool zero = true;
            for (analysis::NodeId n = 0; n < result.tree().size() && zero; ++n) {
                for (uint32_t rank = 0; rank < result.ranks() && zero; ++rank) {
                    zero = result.value(metric, n, rank) == 0.0;
                }
            }
            if (!zero) {
                comparison.missingMetrics.push_back(name);
            }
            continue;
        }
        std::map<std::pair<std::string, uint32_t>, ScalascaDifference> differing;
        const auto& perPathRank = found->second.at("per_path_rank").object;
        for (const auto& [path, ranks] : perPathRank) {
            const auto node = nodes.find(path);
            // A rank the file leaves out holds 0 (files written without zeros).
            for (uint32_t rank = 0; rank < result.ranks(); ++rank) {
                const auto stored = ranks.object.find(std::to_string(rank));
                const double theirs = stored == ranks.object.end() ? 0.0 : stored->second.number;
                const double ours =
                    node == nodes.end() ? 0.0 : result.value(metric, node->second, rank);
                ++comparison.compared;
                if (!agreesWithScalasca(info, ours, theirs)) {
                    differing[{path, rank}] = {name, path, rank, theirs, ours};
                }
            }
        }
        for (const auto& [path, node] : nodes) {
            if (perPathRank.count(path) != 0) {
                continue;
            }
            for (uint32_t rank = 0; rank < result.ranks(); ++rank) {
                const double ours = result.value(metric, node, rank);
                ++comparison.compared;
                if (!agreesWithScalasca(info, ours, 0.0)) {
                    differing[{path, rank}] = {name, path, rank, 0.0, ours};
                }
            }
        }
        for (auto& [key, difference] : differing) {
            comparison.differences.push_back(std::move(difference));
        }
    }
    std::stable_sort(comparison.differences.begin(), comparison.differences.end(),
                     [](const ScalascaDifference& a, const ScalascaDifference& b) {
                         return a.metric < b.metric;
                     });
    return comparison;
}

} // namespace waitscope::testing
