// SelectionState: what is selected in the three panes, and how (the coupling of the panes).
#pragma once

#include <QObject>
#include <memory>
#include <waitscope/gui/value_mode.h>
#include <waitscope/report/report.h>

namespace waitscope::gui {

/// Holds the report and the selection that couples the panes from left to right: the selected
/// metric (and whether its node is expanded, i.e. exclusive along the metric tree) drives the
/// call tree; the selected call path (and whether it is expanded) drives the system tree. Also
/// holds the value mode shared by the three trees. Lives in the GUI thread.
class SelectionState : public QObject {
    Q_OBJECT
public:
    /// Starts with the first root metric, the first root call path and the first root system
    /// node selected, all collapsed (inclusive). `report` must not be null.
    explicit SelectionState(std::shared_ptr<const report::Report> report,
                            QObject* parent = nullptr);

    const report::Report& report() const { return *m_report; }
    const std::shared_ptr<const report::Report>& sharedReport() const { return m_report; }
    /// In a difference (report() is AFTER − BEFORE): the baseline BEFORE and the report AFTER
    /// on the difference's trees (report::alignReports: same ids), so that the trees can show
    /// a node's value in each; both null otherwise.
    void setComparedReports(std::shared_ptr<const report::Report> baseline,
                            std::shared_ptr<const report::Report> after);
    const std::shared_ptr<const report::Report>& baselineReport() const { return m_baseline; }
    const std::shared_ptr<const report::Report>& afterReport() const { return m_after; }

    report::MetricId metric() const { return m_metric; }
    report::MetricMode metricMode() const { return m_metricMode; }
    report::CallNodeId callPath() const { return m_callPath; }
    report::CallTreeMode callMode() const { return m_callMode; }
    report::SystemNodeId systemNode() const { return m_systemNode; }
    ValueMode valueMode() const { return m_valueMode; }

    /// Selects a metric; ignored if out of range. Emits metricChanged if anything changed.
    void setMetric(report::MetricId metric, report::MetricMode mode);
    /// Selects a call path; ignored if out of range. Emits callPathChanged if anything changed.
    void setCallPath(report::CallNodeId cnode, report::CallTreeMode mode);
    /// Selects a system node; ignored if out of range. Emits systemNodeChanged on a change.
    void setSystemNode(report::SystemNodeId node);
    /// Sets the value mode of all trees. Emits valueModeChanged on a change.
    void setValueMode(ValueMode mode);

    /// The selected metric's unit ("sec", "bytes", ...); empty for a report without metrics.
    std::string metricUnit() const;

    /// The selected metric's value as the metric tree shows it (its total, inclusive or
    /// exclusive along the metric tree), NaN if it cannot be computed.
    double selectedMetricValue() const;

signals:
    void metricChanged();
    void callPathChanged();
    void systemNodeChanged();
    void valueModeChanged();

private:
    std::shared_ptr<const report::Report> m_report;
    std::shared_ptr<const report::Report> m_baseline;
    std::shared_ptr<const report::Report> m_after;
    report::MetricId m_metric = 0;
    report::MetricMode m_metricMode = report::MetricMode::Inclusive;
    report::CallNodeId m_callPath = 0;
    report::CallTreeMode m_callMode = report::CallTreeMode::Inclusive;
    report::SystemNodeId m_systemNode = 0;
    ValueMode m_valueMode = ValueMode::Absolute;
};

} // namespace waitscope::gui
