// Merging rank results: call tree unification in rank order, then a dense severity cube.
#include "waitscope/analysis/analysis_result.h"

namespace waitscope::analysis {

AnalysisResult AnalysisResult::merge(std::vector<RankResult>&& results) {
    AnalysisResult merged;
    merged.m_ranks = static_cast<uint32_t>(results.size());
    std::vector<std::vector<NodeId>> toGlobal(results.size());
    for (size_t r = 0; r < results.size(); ++r) {
        const CallTree& local = results[r].tree;
        toGlobal[r].resize(local.size());
        for (NodeId n = 0; n < local.size(); ++n) {
            const CallTree::Node& node = local.node(n);
            const NodeId parent = node.parent == kNoNode ? kNoNode : toGlobal[r][node.parent];
            toGlobal[r][n] = merged.m_tree.child(parent, node.region);
        }
    }
    const size_t nodes = merged.m_tree.size();
    merged.m_values.assign(kMetricCount * nodes * merged.m_ranks, 0.0);
    for (size_t r = 0; r < results.size(); ++r) {
        RankResult& result = results[r];
        for (size_t m = 0; m < kMetricCount; ++m) {
            for (NodeId n = 0; n < result.tree.size(); ++n) {
                const double v = result.severities.get(static_cast<Metric>(m), n);
                merged.m_values[(m * nodes + toGlobal[r][n]) * merged.m_ranks + r] += v;
            }
        }
        for (PatternInstance instance : result.instances) {
            instance.node = toGlobal[r][instance.node];
            merged.m_instances.push_back(instance);
        }
        merged.m_diagnostics.push_back(std::move(result.diagnostics));
        merged.m_events.push_back(result.events);
    }
    return merged;
}

double AnalysisResult::value(Metric metric, NodeId node) const {
    double sum = 0.0;
    for (uint32_t r = 0; r < m_ranks; ++r) {
        sum += value(metric, node, r);
    }
    return sum;
}

double AnalysisResult::total(Metric metric) const {
    double sum = 0.0;
    for (NodeId n = 0; n < m_tree.size(); ++n) {
        sum += value(metric, n);
    }
    return sum;
}

uint64_t AnalysisResult::diagnostic(const std::string& name) const {
    uint64_t sum = 0;
    for (const Diagnostics& d : m_diagnostics) {
        const auto it = d.find(name);
        sum += it == d.end() ? 0 : it->second;
    }
    return sum;
}

} // namespace waitscope::analysis
