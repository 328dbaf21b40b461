// The merged result of all ranks: one call tree, severities per metric x call node x rank.
#pragma once

#include "waitscope/analysis/rank_result.h"
#include "waitscope/trace/definitions.h"

#include <string>
#include <vector>

namespace waitscope::analysis {

/// A further thread of a rank (see ThreadResult) with its values on the merged call tree.
struct ThreadValues {
    uint32_t rank = 0;
    uint64_t location = 0; ///< the OTF2 location id
    std::string name;
    uint64_t events = 0;
    SeverityRows severities; ///< indexed by merged call tree node
};

/// Severities of every rank on a call tree unified over ranks.
class AnalysisResult {
public:
    /// Unifies the ranks' call trees (in rank order, so every transport gives the same ids)
    /// and collects severities, instances and diagnostics. `results` must be ordered by rank.
    /// The derived metrics are not filled in: that is the next stage, deriveMetrics().
    static AnalysisResult merge(std::vector<RankResult>&& results);

    uint32_t ranks() const { return m_ranks; }
    const CallTree& tree() const { return m_tree; }
    /// Value of `metric` on `node` (exclusive along the call tree) for `rank`'s main location.
    double value(Metric metric, NodeId node, uint32_t rank) const {
        return m_values[(static_cast<size_t>(metric) * m_tree.size() + node) * m_ranks + rank];
    }
    /// Sum over ranks (main locations).
    double value(Metric metric, NodeId node) const;
    /// Sum over nodes and ranks (main locations).
    double total(Metric metric) const;
    /// The further threads of all ranks, in rank order and within a rank in definition order.
    /// Their values are apart from value() and total(), which hold the main locations.
    const std::vector<ThreadValues>& threads() const { return m_threads; }
    /// Problems that left parts of ranks out (see RankResult::warnings), in rank order.
    const std::vector<std::string>& warnings() const { return m_warnings; }
    /// Instances of `metric` on all ranks (most severe ones with unified call nodes).
    const PatternSamples& samples(Metric metric) const {
        return m_patterns[static_cast<size_t>(metric)];
    }
    /// Every wait-state instance: ranks in order, within a rank in the order found; call nodes
    /// of the merged tree.
    const std::vector<PatternInstance>& instances() const { return m_instances; }
    /// Diagnostics per rank.
    const std::vector<Diagnostics>& diagnostics() const { return m_diagnostics; }
    /// Sum of one diagnostic over ranks.
    uint64_t diagnostic(experiment::Diagnostic diagnostic) const;
    /// Events replayed per rank.
    const std::vector<uint64_t>& events() const { return m_events; }

    /// Adds `amount` to `metric` on `node` for `rank`: for the metrics derived from the merged
    /// values (imbalance, performance impact). `node` and `rank` must exist.
    void add(Metric metric, NodeId node, uint32_t rank, double amount) {
        m_values[(static_cast<size_t>(metric) * m_tree.size() + node) * m_ranks + rank] += amount;
    }

private:
    uint32_t m_ranks = 0;
    CallTree m_tree;
    std::vector<double> m_values;
    std::array<PatternSamples, kMetricCount> m_patterns;
    std::vector<PatternInstance> m_instances;
    std::vector<Diagnostics> m_diagnostics;
    std::vector<uint64_t> m_events;
    std::vector<ThreadValues> m_threads;
    std::vector<std::string> m_warnings;
};

} // namespace waitscope::analysis
