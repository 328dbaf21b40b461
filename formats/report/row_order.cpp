// Pre-order, wide-search and id order of the call tree, iteratively (deep trees are common).
#include "row_order.h"

#include <algorithm>

namespace waitscope::report::detail {

std::vector<CallNodeId> preOrder(const std::vector<CallNode>& nodes) {
    std::vector<CallNodeId> order;
    order.reserve(nodes.size());
    std::vector<CallNodeId> stack;
    for (CallNodeId root = 0; root < nodes.size(); ++root) {
        if (nodes[root].parent)
            continue;
        stack.push_back(root);
        while (!stack.empty()) {
            CallNodeId n = stack.back();
            stack.pop_back();
            order.push_back(n);
            const auto& children = nodes[n].children;
            for (auto it = children.rbegin(); it != children.rend(); ++it)
                stack.push_back(*it);
        }
    }
    return order;
}

namespace {

// Wide search below one node: list all children of `node`, then descend into each child in
// turn. Done with an explicit stack of "descend into" work items.
void wideBelow(const std::vector<CallNode>& nodes, CallNodeId node,
               std::vector<CallNodeId>& order) {
    std::vector<CallNodeId> stack{node};
    while (!stack.empty()) {
        CallNodeId n = stack.back();
        stack.pop_back();
        const auto& children = nodes[n].children;
        order.insert(order.end(), children.begin(), children.end());
        for (auto it = children.rbegin(); it != children.rend(); ++it)
            stack.push_back(*it);
    }
}

} // namespace

std::vector<CallNodeId> rowOrder(const std::vector<CallNode>& nodes, MetricKind kind) {
    if (kind == MetricKind::Inclusive || kind == MetricKind::PrederivedInclusive) {
        std::vector<CallNodeId> order;
        order.reserve(nodes.size());
        for (CallNodeId root = 0; root < nodes.size(); ++root) {
            if (nodes[root].parent)
                continue;
            order.push_back(root);
            wideBelow(nodes, root, order);
        }
        return order;
    }
    if (kind == MetricKind::Simple) {
        std::vector<CallNodeId> order(nodes.size());
        for (CallNodeId i = 0; i < nodes.size(); ++i)
            order[i] = i;
        return order;
    }
    return preOrder(nodes);
}

} // namespace waitscope::report::detail
