// SelectionState: what is selected in the three panes, and how.
#include <cmath>
#include <waitscope/gui/selection_state.h>

namespace waitscope::gui {

SelectionState::SelectionState(std::shared_ptr<const report::Report> report, QObject* parent)
    : QObject(parent), m_report(std::move(report)) {
    if (auto roots = m_report->rootMetrics(); !roots.empty())
        m_metric = roots.front();
    if (auto roots = m_report->rootCallNodes(); !roots.empty())
        m_callPath = roots.front();
    if (auto roots = m_report->rootSystemNodes(); !roots.empty())
        m_systemNode = roots.front();
}

void SelectionState::setComparedReports(std::shared_ptr<const report::Report> baseline,
                                        std::shared_ptr<const report::Report> after) {
    m_baseline = std::move(baseline);
    m_after = std::move(after);
}

void SelectionState::setMetric(report::MetricId metric, report::MetricMode mode) {
    if (metric >= m_report->metrics().size() || (metric == m_metric && mode == m_metricMode))
        return;
    m_metric = metric;
    m_metricMode = mode;
    emit metricChanged();
}

void SelectionState::setCallPath(report::CallNodeId cnode, report::CallTreeMode mode) {
    if (cnode >= m_report->callNodes().size() || (cnode == m_callPath && mode == m_callMode))
        return;
    m_callPath = cnode;
    m_callMode = mode;
    emit callPathChanged();
}

void SelectionState::setSystemNode(report::SystemNodeId node) {
    if (node >= m_report->systemNodes().size() || node == m_systemNode)
        return;
    m_systemNode = node;
    emit systemNodeChanged();
}

void SelectionState::setValueMode(ValueMode mode) {
    if (mode == m_valueMode)
        return;
    m_valueMode = mode;
    emit valueModeChanged();
}

std::string SelectionState::metricUnit() const {
    return m_metric < m_report->metrics().size() ? m_report->metrics()[m_metric].unit
                                                 : std::string();
}

double SelectionState::selectedMetricValue() const {
    if (m_metric >= m_report->metrics().size())
        return std::nan("");
    auto total = m_report->total(m_metric, m_metricMode);
    return total ? *total : std::nan("");
}

} // namespace waitscope::gui
