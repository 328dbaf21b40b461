// The root-cause pass's accounts: the costs each wait state took on, its propagating and
// indirect shares, and the delay values per metric and call path.
#pragma once

#include "delay_interval.h"
#include "spilled_array.h"
#include "waitscope/analysis/metric.h"
#include "waitscope/analysis/rank_result.h"

#include <cstdint>
#include <deque>
#include <utility>
#include <vector>

namespace waitscope::analysis::delay {

/// The short-term delay metric of wait-state type `kind`.
Metric shortTermMetric(Kind kind);
/// The long-term delay metric of wait-state type `kind`.
Metric longTermMetric(Kind kind);

/// Scales from an SP on (ascending SPs; the first one holds from the interval's start).
using ScaleMap = std::vector<std::pair<int, double>>;

/// Accounts of one pass. Costs are kept only for wait states that caused further waiting, and
/// only until the walk has passed them (retireAbove()): then what the classification needs of
/// them, their propagating share, moves to an append-only list in the order of their first cost,
/// which goes to the rank's scratch file in blocks (spillTo()).
class Ledger {
public:
    /// The propagating share of a Late Sender or Late Receiver wait state whose entry retired,
    /// for the classification. 16 bytes without padding (written to the scratch file whole).
    struct Propagating {
        NodeId node = 0;
        uint32_t lateReceiver = 0; ///< 1: a Late Receiver wait state, 0: Late Sender
        double share = 0.0;
    };

    /// `nodes`: the size of the call tree.
    Ledger(const SyncPoints& points, size_t nodes);

    /// From now on the retired propagating shares go to `file` in blocks of `blockEntries`.
    void spillTo(ScratchFile* file, size_t blockEntries) { m_retired.spillTo(file, blockEntries); }

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

    /// The walk has passed every SP above `point` (-1: all): no cost or share reaches them any
    /// more. Their entries retire: each Late Sender and Late Receiver wait state with a
    /// propagating share joins retired() once every entry of an earlier first cost has retired,
    /// and the entries are freed.
    void retireAbove(int point);
    /// The propagating shares of the retired wait states, in the order of their first cost (the
    /// classification sums them in that order).
    const SpilledArray<Propagating>& retired() const { return m_retired; }
    /// Entries of SPs not retired, or retired behind one that is not yet.
    size_t liveEntries() const { return m_live.size(); }
    /// Indirect shares per node of Late Sender (kLateSender) or Late Receiver wait states.
    const std::vector<double>& indirect(Kind kind) const {
        return kind == kLateSender ? m_indirectLs : m_indirectLr;
    }

private:
    /// What a waiting SP caused: the waiting it caused later (its costs) and its propagating
    /// share; once retired, only the share and its wait state's type and call path count.
    struct Caused {
        int point = 0;
        Role role = Role::Group; ///< once retired
        bool retired = false;
        NodeId node = 0; ///< once retired
        Costs costs{};
        double propagating = 0.0;
    };

    Caused& causedAt(int point);

    const SyncPoints& m_points;
    /// The entries from the m_flushed-th in order of first cost on, for the SPs that caused any
    std::deque<Caused> m_live;
    size_t m_flushed = 0;               ///< entries that left m_live
    std::vector<uint32_t> m_causedSlot; ///< per SP: 1 + its entry's number, or 0
    int m_unretired;                    ///< the highest SP not retired
    SpilledArray<Propagating> m_retired;
    std::vector<double> m_indirectLs, m_indirectLr; ///< per node
    SeverityRows m_leafSums; ///< the pass's values per metric, without their ancestors
};

/// Splits the Late Sender and Late Receiver waiting in `rows` (one location's values over a
/// call tree of `nodes` nodes) into propagating and terminal, and into indirect and direct, by
/// the shares in `ledger` (all of its entries retired), adding them to `ledger`.
void classifyWaitStates(const SeverityRows& rows, size_t nodes, Ledger& ledger);

} // namespace waitscope::analysis::delay
