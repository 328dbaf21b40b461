// MetricHelp: the Help menu's window of metric descriptions.
#include "metric_help.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QSplitter>
#include <QTextBrowser>
#include <QTreeWidget>
#include <map>
#include <waitscope/report/metric_catalog.h>

namespace waitscope::gui {

using namespace waitscope::report;

namespace {

constexpr int kUniqueNameRole = Qt::UserRole + 1;
constexpr int kTextRole = Qt::UserRole + 2;

QString html(const std::string& displayName, const std::string& uniqueName, const std::string& unit,
             const std::string& description, const QString& source) {
    QString text = QStringLiteral("<h3>%1</h3><p><tt>%2</tt>, unit %3</p>")
                       .arg(QString::fromStdString(displayName).toHtmlEscaped(),
                            QString::fromStdString(uniqueName).toHtmlEscaped(),
                            QString::fromStdString(unit).toHtmlEscaped());
    text += QStringLiteral("<p>") +
            QString::fromStdString(description)
                .toHtmlEscaped()
                .replace(QStringLiteral("\n\n"), QStringLiteral("</p><p>")) +
            QStringLiteral("</p><p><i>") + source + QStringLiteral("</i></p>");
    return text;
}

} // namespace

MetricHelp::MetricHelp(const Report* report, const QString& current, QWidget* parent)
    : QDialog(parent) {
    setWindowTitle(tr("Metric documentation"));
    resize(900, 560);
    m_list = new QTreeWidget;
    m_list->setHeaderHidden(true);
    m_text = new QTextBrowser;
    m_text->setOpenExternalLinks(true);
    auto* split = new QSplitter;
    split->addWidget(m_list);
    split->addWidget(m_text);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    auto* layout = new QHBoxLayout(this);
    layout->addWidget(split);

    // Waitscope's catalog in metric-tree pre-order: parents come before their children.
    std::map<std::string, QTreeWidgetItem*> items;
    for (const MetricInfo& info : metricCatalog()) {
        auto parentItem = items.find(info.parent);
        auto* item = parentItem == items.end() ? new QTreeWidgetItem(m_list)
                                               : new QTreeWidgetItem(parentItem->second);
        item->setText(0, QString::fromStdString(info.displayName));
        item->setData(0, kUniqueNameRole, QString::fromStdString(info.uniqueName));
        item->setData(0, kTextRole,
                      html(info.displayName, info.uniqueName, info.unit, info.description,
                           tr("Waitscope's description")));
        items[info.uniqueName] = item;
    }
    // The report's own metrics that the catalog does not describe (other tools, PAPI counters).
    if (report) {
        QTreeWidgetItem* others = nullptr;
        for (const Metric& metric : report->metrics()) {
            if (items.count(metric.uniqueName))
                continue;
            if (!others) {
                others = new QTreeWidgetItem(m_list);
                others->setText(0, tr("Other metrics of this report"));
            }
            auto* item = new QTreeWidgetItem(others);
            item->setText(0,
                          QString::fromStdString(metric.displayName.empty() ? metric.uniqueName
                                                                            : metric.displayName));
            item->setData(0, kUniqueNameRole, QString::fromStdString(metric.uniqueName));
            item->setData(0, kTextRole,
                          html(metric.displayName, metric.uniqueName, metric.unit,
                               metric.description.empty() ? "(the report has no description of it)"
                                                          : metric.description,
                               tr("description from the report")));
            items[metric.uniqueName] = item;
        }
    }
    connect(m_list, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
        if (item)
            m_text->setHtml(item->data(0, kTextRole).toString());
    });
    if (!showMetric(current) && m_list->topLevelItemCount() > 0)
        m_list->setCurrentItem(m_list->topLevelItem(0));
}

bool MetricHelp::showMetric(const QString& uniqueName) {
    for (QTreeWidgetItemIterator it(m_list); *it; ++it)
        if ((*it)->data(0, kUniqueNameRole).toString() == uniqueName) {
            m_list->setCurrentItem(*it);
            m_list->scrollToItem(*it);
            return true;
        }
    return false;
}

QString MetricHelp::shownText() const {
    return m_text->toPlainText();
}

int MetricHelp::metricCount() const {
    int count = 0;
    for (QTreeWidgetItemIterator it(m_list); *it; ++it)
        count += (*it)->data(0, kUniqueNameRole).isValid() ? 1 : 0;
    return count;
}

} // namespace waitscope::gui
