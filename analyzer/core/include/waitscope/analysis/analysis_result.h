// The merged result of all ranks: one call tree, severities per metric x call node x rank
// (sparse in metric x call node).
#pragma once

#include "waitscope/analysis/rank_result.h"
#include "waitscope/base/result.h"
#include "waitscope/trace/definitions.h"

#include <memory>
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

    /// The merge of results that arrive one at a time: an empty result of `ranks` ranks on
    /// `tree`, the unified call tree of all ranks' trees in rank order (unifyCallTree()), to
    /// which addRank() adds each rank's result in rank order. Only one rank's result need be
    /// in memory at a time beside the merged values.
    AnalysisResult(CallTree tree, uint32_t ranks);
    AnalysisResult() = default;
    /// Adds the result of the next rank (the first call rank 0, and so on). Fails naming the
    /// rank when its tree has a call path that the unified tree lacks, or all ranks are in.
    Status addRank(RankResult&& result);

    uint32_t ranks() const { return m_ranks; }
    const CallTree& tree() const { return m_tree; }
    /// Value of `metric` on `node` (exclusive along the call tree) for `rank`'s main location.
    double value(Metric metric, NodeId node, uint32_t rank) const {
        const uint32_t slot = m_slots[static_cast<size_t>(metric) * m_tree.size() + node];
        return slot == kNoSlot ? 0.0 : m_rows[slot / kRowsPerChunk][rowStart(slot) + rank];
    }
    /// Sum over ranks (main locations).
    double value(Metric metric, NodeId node) const;
    /// Sum over nodes and ranks (main locations).
    double total(Metric metric) const;
    /// The further threads of all ranks, in rank order and within a rank in definition order.
    /// Their values are apart from value() and total(), which hold the main locations.
    const std::vector<ThreadValues>& threads() const { return m_threads; }
    /// Further thread `t` of threads(), for the metrics derived on threads too (the critical
    /// path's through OpenMP teams). `t` must exist.
    ThreadValues& threadValues(size_t t) { return m_threads[t]; }
    /// Problems that left parts of ranks out (see RankResult::warnings), in rank order.
    const std::vector<std::string>& warnings() const { return m_warnings; }
    /// Instances of `metric` on all ranks (most severe ones with unified call nodes).
    const PatternSamples& samples(Metric metric) const {
        return m_patterns[static_cast<size_t>(metric)];
    }
    /// Every wait-state instance: ranks in order, within a rank in the order found; call nodes
    /// of the merged tree.
    const std::vector<PatternInstance>& instances() const { return m_instances; }
    /// The runs of the instances that went to scratch files (instance_spill.h), ranks in order;
    /// their call nodes are the ranks' own, spilledNodes() maps them to the merged tree.
    const std::vector<SpilledRun>& spilledRuns() const { return m_spilledRuns; }
    /// Per node of `rank`'s own call tree its node of the merged tree; empty for a rank without
    /// spilled runs.
    const std::vector<NodeId>& spilledNodes(uint32_t rank) const {
        static const std::vector<NodeId> kNone;
        return rank < m_spilledNodes.size() ? m_spilledNodes[rank] : kNone;
    }
    /// The critical path's stretches: ranks in order, within a rank latest first; call nodes of
    /// the merged tree.
    const std::vector<PathSegment>& criticalPath() const { return m_criticalPath; }
    /// Diagnostics per rank.
    const std::vector<Diagnostics>& diagnostics() const { return m_diagnostics; }
    /// Sum of one diagnostic over ranks.
    uint64_t diagnostic(experiment::Diagnostic diagnostic) const;
    /// Events replayed per rank.
    const std::vector<uint64_t>& events() const { return m_events; }

    /// Adds `amount` to `metric` on `node` for `rank`: for the metrics derived from the merged
    /// values (imbalance, performance impact). `node` and `rank` must exist.
    void add(Metric metric, NodeId node, uint32_t rank, double amount) {
        if (amount == 0.0) {
            return; // nothing to add (the values are never -0.0, the sum would be +0.0)
        }
        const uint32_t slot = this->slot(static_cast<size_t>(metric) * m_tree.size() + node);
        m_rows[slot / kRowsPerChunk][rowStart(slot) + rank] += amount;
    }

private:
    uint32_t m_ranks = 0;
    uint32_t m_added = 0; ///< ranks addRank() added
    CallTree m_tree;
    // The values are sparse in (metric, call node): most call paths have a few of the
    // metrics. Each (metric, node) that has a value on some rank owns a row of one value per
    // rank (a slot); rows are allocated in chunks of kRowsPerChunk, so that no reallocation
    // copies them all. Memory: the slot index (metrics x nodes) plus the rows in use x ranks.
    static constexpr uint32_t kNoSlot = 0xFFFFFFFFu;
    static constexpr uint32_t kRowsPerChunk = 256;
    size_t rowStart(uint32_t slot) const {
        return static_cast<size_t>(slot % kRowsPerChunk) * m_ranks;
    }
    /// The slot of (metric x nodes + node) `cell`, created (zeros) on first use.
    uint32_t slot(size_t cell);
    std::vector<uint32_t> m_slots; ///< per metric x node: its row, or kNoSlot (all zero)
    uint32_t m_slotCount = 0;
    std::vector<std::unique_ptr<double[]>> m_rows; ///< chunks of kRowsPerChunk rows
    std::array<PatternSamples, kMetricCount> m_patterns;
    std::vector<PatternInstance> m_instances;
    std::vector<SpilledRun> m_spilledRuns;
    std::vector<std::vector<NodeId>> m_spilledNodes; ///< per rank (see spilledNodes())
    std::vector<PathSegment> m_criticalPath;
    std::vector<Diagnostics> m_diagnostics;
    std::vector<uint64_t> m_events;
    std::vector<ThreadValues> m_threads;
    std::vector<std::string> m_warnings;
};

} // namespace waitscope::analysis
