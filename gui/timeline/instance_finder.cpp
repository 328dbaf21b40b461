// Picking and stepping through wait-state instances by the explorer's selection.
#include "instance_finder.h"

#include "waitscope/analysis/metric.h"
#include "waitscope/analysis/wait_instances.h"

#include <algorithm>
#include <numeric>

namespace waitscope::timeline {

using analysis::Metric;

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

InstanceFinder::InstanceFinder(std::shared_ptr<const analysis::InstanceFile> instances) {
    reset(std::move(instances));
}

void InstanceFinder::reset(std::shared_ptr<const analysis::InstanceFile> instances) {
    m_instances =
        instances ? std::move(instances) : std::make_shared<const analysis::InstanceFile>();
    select(InstanceFilter(m_filter));
}

void InstanceFinder::select(const InstanceFilter& filter) {
    m_filter = filter;
    m_everyNode = std::all_of(filter.nodes.begin(), filter.nodes.end(), [](bool in) { return in; });
    m_current.reset();
    m_currentInstance.reset();
    m_position.reset();
    m_error.clear();
    // Counted from the index: one cell per pattern and call path.
    m_pickedCount = 0;
    for (const analysis::InstanceFile::Cell& cell : m_instances->cells()) {
        if (isPicked({cell.metric, cell.node, 0, 0.0, 0.0, 0.0})) {
            m_pickedCount += cell.count;
        }
    }
}

bool InstanceFinder::isPicked(const analysis::PatternInstance& instance) const {
    const auto metric = static_cast<size_t>(instance.metric);
    return (m_filter.metrics.empty() ||
            (metric < m_filter.metrics.size() && m_filter.metrics[metric])) &&
           (m_filter.nodes.empty() ||
            (instance.node < m_filter.nodes.size() && m_filter.nodes[instance.node]));
}

bool InstanceFinder::blockMayHold(size_t block) const {
    if (m_filter.metrics.empty()) {
        return true;
    }
    for (size_t m = 0; m < m_filter.metrics.size() && m < analysis::kMetricCount; ++m) {
        if (m_filter.metrics[m] && m_instances->blockCount(block, static_cast<Metric>(m)) > 0) {
            return true;
        }
    }
    return false;
}

std::optional<uint64_t> InstanceFinder::land(uint64_t number, uint64_t position) {
    auto read = m_instances->at(number);
    if (!read) {
        m_error = read.error().message();
        return m_current;
    }
    m_current = number;
    m_currentInstance = *read;
    m_position = position;
    return m_current;
}

std::optional<uint64_t> InstanceFinder::next() {
    if (m_pickedCount == 0) {
        return std::nullopt;
    }
    constexpr uint64_t kBlock = analysis::InstanceFile::kBlockRecords;
    std::vector<analysis::PatternInstance> records;
    for (uint64_t at = m_current ? *m_current + 1 : 0; at < m_instances->size();
         at = (at / kBlock + 1) * kBlock) {
        if (!blockMayHold(static_cast<size_t>(at / kBlock))) {
            continue;
        }
        records.clear();
        if (Status read = m_instances->read(at, kBlock - at % kBlock, records); !read) {
            m_error = read.error().message();
            return m_current;
        }
        for (size_t r = 0; r < records.size(); ++r) {
            if (isPicked(records[r])) {
                m_current = at + r;
                m_currentInstance = records[r];
                m_position = m_position ? *m_position + 1 : 0;
                return m_current;
            }
        }
    }
    return m_current; // none after the current one: stays at the last
}

std::optional<uint64_t> InstanceFinder::previous() {
    if (m_pickedCount == 0) {
        return std::nullopt;
    }
    constexpr uint64_t kBlock = analysis::InstanceFile::kBlockRecords;
    std::vector<analysis::PatternInstance> records;
    // `end` is one past the last instance looked at, going back a block at a time.
    for (uint64_t end = m_current ? *m_current : m_instances->size(); end > 0;
         end = (end - 1) / kBlock * kBlock) {
        const uint64_t first = (end - 1) / kBlock * kBlock;
        if (!blockMayHold(static_cast<size_t>(first / kBlock))) {
            continue;
        }
        records.clear();
        if (Status read = m_instances->read(first, end - first, records); !read) {
            m_error = read.error().message();
            return m_current;
        }
        for (size_t r = records.size(); r-- > 0;) {
            if (isPicked(records[r])) {
                m_current = first + r;
                m_currentInstance = records[r];
                m_position = m_position ? *m_position - 1 : m_pickedCount - 1;
                return m_current;
            }
        }
    }
    return m_current; // none before the current one: stays at the first
}

std::optional<uint64_t> InstanceFinder::pickedBefore(uint64_t number) {
    constexpr uint64_t kBlock = analysis::InstanceFile::kBlockRecords;
    uint64_t count = 0;
    std::vector<analysis::PatternInstance> records;
    for (uint64_t at = 0; at < number; at += kBlock) {
        const auto block = static_cast<size_t>(at / kBlock);
        if (!blockMayHold(block)) {
            continue;
        }
        if (m_everyNode && at + kBlock <= number) { // counted by the index
            for (size_t m = 0; m < analysis::kMetricCount; ++m) {
                if (m_filter.metrics.empty() ||
                    (m < m_filter.metrics.size() && m_filter.metrics[m])) {
                    count += m_instances->blockCount(block, static_cast<Metric>(m));
                }
            }
            continue;
        }
        records.clear();
        if (Status read = m_instances->read(at, std::min(kBlock, number - at), records); !read) {
            m_error = read.error().message();
            return std::nullopt;
        }
        count += static_cast<uint64_t>(
            std::count_if(records.begin(), records.end(),
                          [this](const analysis::PatternInstance& i) { return isPicked(i); }));
    }
    return count;
}

std::optional<uint64_t> InstanceFinder::worst() {
    // From the index: the most severe of each picked pattern and call path.
    const analysis::InstanceFile::Cell* best = nullptr;
    for (const analysis::InstanceFile::Cell& cell : m_instances->cells()) {
        if (isPicked({cell.metric, cell.node, 0, 0.0, 0.0, 0.0}) &&
            (!best || cell.worstSeverity > best->worstSeverity ||
             (cell.worstSeverity == best->worstSeverity && cell.worst < best->worst))) {
            best = &cell;
        }
    }
    if (!best) {
        return std::nullopt;
    }
    const std::optional<uint64_t> position = pickedBefore(best->worst);
    if (!position) {
        return m_current;
    }
    return land(best->worst, *position);
}

std::pair<double, double> InstanceFinder::windowAround(const analysis::PatternInstance& i,
                                                       double minimum) {
    const double length = std::max(i.exit - i.enter, minimum / 3);
    const double centre = (i.enter + i.exit) / 2;
    return {centre - 1.5 * length, centre + 1.5 * length};
}

} // namespace waitscope::timeline
