// ReportAssembly: a reader's unchecked way into a Report (see report_assembly.h).
#include "report_assembly.h"

#include <utility>

namespace waitscope::report::detail {

MetricId ReportAssembly::appendMetric(Metric metric) {
    return m_report.appendMetricUnchecked(std::move(metric));
}

RegionId ReportAssembly::appendRegion(Region region) {
    return m_report.appendRegionUnchecked(std::move(region));
}

void ReportAssembly::appendTopology(CartTopology topology) {
    m_report.m_topologies.push_back(std::move(topology));
}

void ReportAssembly::setCallNodes(std::vector<CallNode> nodes) {
    m_report.m_callNodes = std::move(nodes);
}

void ReportAssembly::setSystemNodes(std::vector<SystemNode> nodes) {
    m_report.m_systemNodes = std::move(nodes);
    const auto& systemNodes = m_report.m_systemNodes;
    std::size_t count = 0;
    for (const SystemNode& node : systemNodes)
        if (node.kind == SystemKind::Location)
            ++count;
    m_report.m_locations.assign(count, 0);
    for (SystemNodeId s = 0; s < systemNodes.size(); ++s)
        if (systemNodes[s].kind == SystemKind::Location && systemNodes[s].location < count)
            m_report.m_locations[systemNodes[s].location] = s;
}

void ReportAssembly::setMetricUnavailable(MetricId metric, std::string reason) {
    if (metric >= m_report.m_metrics.size())
        return;
    m_report.m_metrics[metric].available = false;
    m_report.m_metrics[metric].unavailableReason = std::move(reason);
}

void ReportAssembly::setStorage(std::unique_ptr<SeverityStorage> storage) {
    m_report.m_storage = std::move(storage);
}

} // namespace waitscope::report::detail
