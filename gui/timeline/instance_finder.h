// Which wait-state instances the explorer's selection picks (a metric and a call path, as the
// trees show them), and stepping through them: next, previous, worst.
#pragma once

#include "waitscope/analysis/rank_result.h"
#include "waitscope/report/report.h"

#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

namespace waitscope::timeline {

/// What picks an instance: its pattern and its call node (report.cubex's cnode ids).
struct InstanceFilter {
    std::vector<bool> metrics; ///< by analysis::Metric; empty: every pattern
    std::vector<bool> nodes;   ///< by call node id; empty: every call path
};

/// The filter of a selection in `report`: the instances of the metric and the metrics below
/// it, on the call path and the paths below it (whether the trees show the nodes expanded or
/// not: the instances of a part of the program). A metric that is no pattern and has none
/// below it picks nothing.
InstanceFilter filterOf(const report::Report& report, report::MetricId metric,
                        report::CallNodeId callPath);

/// Steps through the picked instances of a timeline in time order (waiting start, then rank).
class InstanceFinder {
public:
    explicit InstanceFinder(const std::vector<analysis::PatternInstance>& instances);

    /// Picks the instances `filter` lets through; forgets the current one.
    void select(const InstanceFilter& filter);
    /// Orders the instances again after they changed (read later than the timeline's events)
    /// and picks with the last filter.
    void reset();
    /// Indices (into the instances) of all in time order (waiting start, then rank).
    const std::vector<size_t>& order() const { return m_order; }
    /// Indices (into the instances) of the picked ones in time order.
    const std::vector<size_t>& picked() const { return m_picked; }
    bool isPicked(size_t instance) const { return m_isPicked[instance]; }
    /// The current instance (an index into the instances), after a step.
    std::optional<size_t> current() const;
    /// Its position in picked().
    std::optional<size_t> position() const { return m_position; }

    /// Steps to the next picked instance (the first when there is no current one); stays at
    /// the last. Returns the current instance, none when nothing is picked.
    std::optional<size_t> next();
    /// Steps to the previous picked instance (the last when there is no current one).
    std::optional<size_t> previous();
    /// Steps to the most severe picked instance (the earliest of equals).
    std::optional<size_t> worst();

    /// The window to show instance `instance` in: its call widened by its length on each side
    /// (at least `minimum` seconds wide), so that what led to the wait is in view.
    std::pair<double, double> windowAround(size_t instance, double minimum) const;

private:
    const std::vector<analysis::PatternInstance>& m_instances;
    std::vector<size_t> m_order; ///< every instance in time order
    std::vector<size_t> m_picked;
    std::vector<bool> m_isPicked;
    std::optional<size_t> m_position;
    InstanceFilter m_filter; ///< the last selected
};

} // namespace waitscope::timeline
