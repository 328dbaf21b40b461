// MetricHelp: the Help menu's window of metric descriptions (Waitscope's and the report's).
#pragma once

#include <QDialog>
#include <waitscope/report/report.h>

class QTextBrowser;
class QTreeWidget;

namespace waitscope::gui {

/// Lists the metrics Waitscope describes (share/metrics: Scalasca's metric tree), and those of
/// `report` it does not know, as a tree; the chosen one's description is shown beside it.
class MetricHelp : public QDialog {
    Q_OBJECT
public:
    /// `report` may be null (no report open); `current` is the unique name to show first.
    MetricHelp(const report::Report* report, const QString& current, QWidget* parent = nullptr);

    /// Shows the metric with this unique name; false if the list has none.
    bool showMetric(const QString& uniqueName);
    /// Number of metrics listed.
    int metricCount() const;
    /// The description shown, as plain text.
    QString shownText() const;

private:
    QTreeWidget* m_list = nullptr;
    QTextBrowser* m_text = nullptr;
};

} // namespace waitscope::gui
