// Which wait-state instances the explorer's selection picks (a metric and a call path, as the
// trees show them), and stepping through them: next, previous, worst.
#pragma once

#include "waitscope/analysis/instance_file.h"
#include "waitscope/analysis/rank_result.h"
#include "waitscope/report/report.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
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

/// Steps through the picked instances of a timeline in time order (waiting start, then rank),
/// reading the instances file as it goes: a step reads the blocks up to the next picked
/// instance (skipping blocks without the picked patterns), worst() and the counts come from
/// the file's index. Instances are named by their number in the file (its time order).
class InstanceFinder {
public:
    explicit InstanceFinder(std::shared_ptr<const analysis::InstanceFile> instances);

    /// Picks the instances `filter` lets through; forgets the current one.
    void select(const InstanceFilter& filter);
    /// Steps through `instances` instead (read later than the timeline's events) and picks
    /// with the last filter.
    void reset(std::shared_ptr<const analysis::InstanceFile> instances);
    /// How many instances are picked.
    uint64_t pickedCount() const { return m_pickedCount; }
    /// Whether the filter lets `instance` through.
    bool isPicked(const analysis::PatternInstance& instance) const;
    /// The current instance's number, after a step.
    std::optional<uint64_t> current() const { return m_current; }
    /// The current instance itself.
    const std::optional<analysis::PatternInstance>& currentInstance() const {
        return m_currentInstance;
    }
    /// Its position among the picked ones (0 the earliest).
    std::optional<uint64_t> position() const { return m_position; }
    /// The last error reading the file (empty when none): a step that failed stays put.
    const std::string& error() const { return m_error; }

    /// Steps to the next picked instance (the first when there is no current one); stays at
    /// the last. Returns the current instance, none when nothing is picked.
    std::optional<uint64_t> next();
    /// Steps to the previous picked instance (the last when there is no current one).
    std::optional<uint64_t> previous();
    /// Steps to the most severe picked instance (the earliest of equals).
    std::optional<uint64_t> worst();

    /// The window to show `instance` in: its call widened by its length on each side (at
    /// least `minimum` seconds wide), so that what led to the wait is in view.
    static std::pair<double, double> windowAround(const analysis::PatternInstance& instance,
                                                  double minimum);

private:
    /// Whether block `block` may hold picked instances (by its counts of the patterns).
    bool blockMayHold(size_t block) const;
    /// Picked instances before instance `number`.
    std::optional<uint64_t> pickedBefore(uint64_t number);
    /// Makes instance `number` the current one at `position`.
    std::optional<uint64_t> land(uint64_t number, uint64_t position);

    std::shared_ptr<const analysis::InstanceFile> m_instances;
    InstanceFilter m_filter; ///< the last selected
    bool m_everyNode = true; ///< the filter lets every call path through
    uint64_t m_pickedCount = 0;
    std::optional<uint64_t> m_current;
    std::optional<analysis::PatternInstance> m_currentInstance;
    std::optional<uint64_t> m_position;
    std::string m_error;
};

} // namespace waitscope::timeline
