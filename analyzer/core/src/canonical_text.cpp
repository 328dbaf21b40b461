// Canonical text rendering of an analysis result.
#include "waitscope/analysis/canonical_text.h"

#include <algorithm>
#include <cstdio>

namespace waitscope::analysis {

std::string canonicalText(const AnalysisResult& result, const trace::Definitions& definitions) {
    std::vector<std::pair<std::string, NodeId>> paths;
    for (NodeId n = 0; n < result.tree().size(); ++n) {
        paths.emplace_back(result.tree().path(n, definitions), n);
    }
    std::sort(paths.begin(), paths.end());
    std::string out;
    char number[64];
    for (size_t m = 0; m < kMetricCount; ++m) {
        const Metric metric = static_cast<Metric>(m);
        for (const auto& [path, node] : paths) {
            for (uint32_t rank = 0; rank < result.ranks(); ++rank) {
                const double v = result.value(metric, node, rank);
                if (v != 0.0) {
                    std::snprintf(number, sizeof number, "%.17g", v);
                    out += std::string(metricInfo(metric).uniqueName) + "\t" + path + "\t" +
                           std::to_string(rank) + "\t" + number + "\n";
                }
            }
        }
    }
    for (size_t m = 0; m < kMetricCount; ++m) {
        const Metric metric = static_cast<Metric>(m);
        for (const auto& [path, node] : paths) {
            for (const ThreadValues& thread : result.threads()) {
                const double v = thread.severities.get(metric, node);
                if (v != 0.0) {
                    std::snprintf(number, sizeof number, "%.17g", v);
                    out += std::string(metricInfo(metric).uniqueName) + "\t" + path + "\t" +
                           std::to_string(thread.rank) + ":" + thread.name + "\t" + number + "\n";
                }
            }
        }
    }
    for (uint32_t rank = 0; rank < result.diagnostics().size(); ++rank) {
        result.diagnostics()[rank].forEachCounted(
            [&out, rank](experiment::Diagnostic diagnostic, uint64_t count) {
                if (count != 0) {
                    out += "diagnostic\t" + std::string(experiment::diagnosticName(diagnostic)) +
                           "\t" + std::to_string(rank) + "\t" + std::to_string(count) + "\n";
                }
            });
    }
    return out;
}

} // namespace waitscope::analysis
