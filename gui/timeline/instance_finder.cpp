// Picking and stepping through wait-state instances by the explorer's selection.
#include "instance_finder.h"

#include "waitscope/analysis/metric.h"
#include "waitscope/analysis/wait_instances.h"

#include <algorithm>
#include <numeric>

namespace waitscope::timeline {
namespace {

// `root` and every node below it in a tree of `size` nodes whose children `childrenOf` gives.
template <typename ChildrenOf>
std::vector<bool> subtree(size_t size, size_t root, ChildrenOf childrenOf) {
    std::vector<bool> in(size, false);
    if (root >= size) {
        return in;
    }
    std::vector<size_t> stack{root};
    while (!stack.empty()) {
        const size_t node = stack.back();
        stack.pop_back();
        in[node] = true;
        for (const auto child : childrenOf(node)) {
            stack.push_back(child);
        }
    }
    return in;
}

} // namespace

InstanceFilter filterOf(const report::Report& report, report::MetricId metric,
                        report::CallNodeId callPath) {
    InstanceFilter filter;
    const std::vector<bool> metrics = subtree(
        report.metrics().size(), metric, [&](size_t m) { return report.metrics()[m].children; });
    filter.metrics.assign(analysis::kMetricCount, false);
    for (size_t m = 0; m < metrics.size(); ++m) {
        if (metrics[m]) {
            if (const auto pattern = analysis::metricByName(report.metrics()[m].uniqueName)) {
                filter.metrics[static_cast<size_t>(*pattern)] = true;
            }
        }
    }
    filter.nodes = subtree(report.callNodes().size(), callPath,
                           [&](size_t n) { return report.callNodes()[n].children; });
    return filter;
}

InstanceFinder::InstanceFinder(const std::vector<analysis::PatternInstance>& instances)
    : m_instances(instances) {
    reset();
}

void InstanceFinder::reset() {
    m_order.resize(m_instances.size());
    std::iota(m_order.begin(), m_order.end(), size_t{0});
    std::stable_sort(m_order.begin(), m_order.end(), [this](size_t a, size_t b) {
        const double startA = analysis::waitingInterval(m_instances[a]).first;
        const double startB = analysis::waitingInterval(m_instances[b]).first;
        return startA != startB ? startA < startB : m_instances[a].rank < m_instances[b].rank;
    });
    select(InstanceFilter(m_filter));
}

void InstanceFinder::select(const InstanceFilter& filter) {
    m_filter = filter;
    m_picked.clear();
    m_isPicked.assign(m_instances.size(), false);
    m_position.reset();
    for (const size_t i : m_order) {
        const analysis::PatternInstance& instance = m_instances[i];
        const auto metric = static_cast<size_t>(instance.metric);
        if ((!filter.metrics.empty() &&
             (metric >= filter.metrics.size() || !filter.metrics[metric])) ||
            (!filter.nodes.empty() &&
             (instance.node >= filter.nodes.size() || !filter.nodes[instance.node]))) {
            continue;
        }
        m_picked.push_back(i);
        m_isPicked[i] = true;
    }
}

std::optional<size_t> InstanceFinder::current() const {
    if (!m_position) {
        return std::nullopt;
    }
    return m_picked[*m_position];
}

std::optional<size_t> InstanceFinder::next() {
    if (m_picked.empty()) {
        return std::nullopt;
    }
    m_position = m_position ? std::min(*m_position + 1, m_picked.size() - 1) : 0;
    return current();
}

std::optional<size_t> InstanceFinder::previous() {
    if (m_picked.empty()) {
        return std::nullopt;
    }
    m_position = m_position && *m_position > 0 ? *m_position - 1
                 : m_position                  ? 0
                                               : m_picked.size() - 1;
    return current();
}

std::optional<size_t> InstanceFinder::worst() {
    if (m_picked.empty()) {
        return std::nullopt;
    }
    size_t best = 0;
    for (size_t p = 1; p < m_picked.size(); ++p) {
        if (m_instances[m_picked[p]].severity > m_instances[m_picked[best]].severity) {
            best = p;
        }
    }
    m_position = best;
    return current();
}

std::pair<double, double> InstanceFinder::windowAround(size_t instance, double minimum) const {
    const analysis::PatternInstance& i = m_instances[instance];
    const double length = std::max(i.exit - i.enter, minimum / 3);
    const double centre = (i.enter + i.exit) / 2;
    return {centre - 1.5 * length, centre + 1.5 * length};
}

} // namespace waitscope::timeline
