// The root-cause pass's accounts: the costs each wait state took on, its propagating and
// indirect shares, and the delay values per metric and call path.
#pragma once

#include "delay_interval.h"
#include "waitscope/analysis/metric.h"
#include "waitscope/analysis/rank_result.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace waitscope::analysis::delay {

/// The short-term delay metric of wait-state type `kind`.
Metric shortTermMetric(Kind kind);
/// The long-term delay metric of wait-state type `kind`.
Metric longTermMetric(Kind kind);

/// Scales from an SP on (ascending SPs; the first one holds from the interval's start).
using ScaleMap = std::vector<std::pair<int, double>>;

/// Accounts of one pass. Costs are kept only for wait states that caused further waiting.
class Ledger {
public:
    /// What a waiting SP caused: the waiting it caused later (its costs) and its propagating
    /// share.
    struct Caused {
        int point = 0;
        Costs costs{};
        double propagating = 0.0;
    };

    /// `nodes`: the size of the call tree.
    Ledger(const SyncPoints& points, size_t nodes);

    /// The costs SP `point` took on so far.
    Costs costsOf(int point) const;
    /// SP `point` takes on `cost` of type `kind` (costs seeded from outside the pass).
    void addCost(int point, Kind kind, double cost);
    /// The SPs inside `span` that waited take on costs of type `kind`: `scale` times their wait.
    void addCosts(const Interval& span, Kind kind, double scale);
    /// Likewise with a scale that changes at SPs inside `span`.
    void addCosts(const Interval& span, Kind kind, const ScaleMap& scales);
    /// SP `point`'s wait propagates at least `share`.
    void propagate(int point, double share);
    /// The point-to-point wait state of `kind` at `node` has an indirect share of `share`.
    void addIndirect(Kind kind, NodeId node, double share) {
        (kind == kLateSender ? m_indirectLs : m_indirectLr)[node] += share;
    }
    /// Adds `value` to `metric` at `node` (its ancestor metrics at the end, addSums()).
    void addUp(Metric metric, NodeId node, double value) {
        if (value != 0.0) {
            m_leafSums.add(metric, node, value);
        }
    }
    /// Adds the sums of the pass to their metrics and all their ancestors in `rows` (the
    /// location's values).
    void addSums(SeverityRows& rows);

    /// The SPs that caused waiting, in the order of their first cost.
    const std::vector<Caused>& caused() const { return m_caused; }
    /// Indirect shares per node of Late Sender (kLateSender) or Late Receiver wait states.
    const std::vector<double>& indirect(Kind kind) const {
        return kind == kLateSender ? m_indirectLs : m_indirectLr;
    }

private:
    Caused& causedAt(int point);

    const SyncPoints& m_points;
    std::vector<Caused> m_caused;       ///< for the SPs that caused any, in order of first cost
    std::vector<uint32_t> m_causedSlot; ///< per SP: 1 + its index in m_caused, or 0
    std::vector<double> m_indirectLs, m_indirectLr; ///< per node
    SeverityRows m_leafSums; ///< the pass's values per metric, without their ancestors
};

/// Splits the Late Sender and Late Receiver waiting in `rows` (one location's values over a
/// call tree of `nodes` nodes) into propagating and terminal, and into indirect and direct, by
/// the shares in `ledger`, adding them to `ledger`.
void classifyWaitStates(const SyncPoints& points, const SeverityRows& rows, size_t nodes,
                        Ledger& ledger);

} // namespace waitscope::analysis::delay
