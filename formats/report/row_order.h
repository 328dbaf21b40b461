// rowOrder: the order in which CUBE stores a metric's call-tree rows, by metric kind.
#pragma once

#include <vector>
#include <waitscope/report/call_tree.h>
#include <waitscope/report/metric.h>

namespace waitscope::report::detail {

/// Call nodes in CUBE row order for a metric of `kind`: depth-first pre-order for EXCLUSIVE,
/// CUBE's "wide search" order for INCLUSIVE (a node's children are listed before any of them
/// is descended into), id order for SIMPLE; roots one after another.
std::vector<CallNodeId> rowOrder(const std::vector<CallNode>& nodes, MetricKind kind);

/// Depth-first pre-order of the call tree (roots in id order).
std::vector<CallNodeId> preOrder(const std::vector<CallNode>& nodes);

} // namespace waitscope::report::detail
