// What the replay of one rank produces: its call tree, severities, instances and diagnostics.
#pragma once

#include "waitscope/analysis/call_tree.h"
#include "waitscope/analysis/metric.h"

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace waitscope::analysis {

/// One occurrence of a wait-state pattern (for trace.stat's most severe instances).
struct PatternInstance {
    Metric metric = Metric::Time;
    NodeId node = kNoNode;
    uint32_t rank = 0;
    double enter = 0.0;
    double exit = 0.0;
    double severity = 0.0;
};

/// Severities of one rank: metric x call node (of the rank's own call tree).
class SeverityRows {
public:
    /// Adds `value` to (metric, node), growing the rows as nodes appear.
    void add(Metric metric, NodeId node, double value) {
        auto& row = m_rows[static_cast<size_t>(metric)];
        if (node >= row.size()) {
            row.resize(node + 1, 0.0);
        }
        row[node] += value;
    }
    double get(Metric metric, NodeId node) const {
        const auto& row = m_rows[static_cast<size_t>(metric)];
        return node < row.size() ? row[node] : 0.0;
    }

    /// The values of `metric` indexed by node (may be shorter than the tree).
    const std::vector<double>& row(Metric metric) const {
        return m_rows[static_cast<size_t>(metric)];
    }
    std::vector<double>& row(Metric metric) { return m_rows[static_cast<size_t>(metric)]; }

private:
    std::array<std::vector<double>, kMetricCount> m_rows;
};

/// Named anomaly counters of the input (unmatched messages, clock violations, ...), per rank.
using Diagnostics = std::map<std::string, uint64_t>;

/// The replay result of one rank.
struct RankResult {
    uint32_t rank = 0;
    CallTree tree;
    SeverityRows severities;
    std::vector<PatternInstance> instances;
    Diagnostics diagnostics;
    uint64_t events = 0;
};

} // namespace waitscope::analysis
