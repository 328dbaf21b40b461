// MetricTreeModel: the metric pane.
#include <cmath>
#include <waitscope/gui/metric_tree_model.h>
#include <waitscope/report/metric_catalog.h>

namespace waitscope::gui {

using namespace waitscope::report;

MetricTreeModel::MetricTreeModel(SelectionState* selection, QObject* parent)
    : ValueTreeModel(parent), m_selection(selection) {
    const auto& metrics = selection->report().metrics();
    std::vector<std::uint32_t> parents(metrics.size(), kNoNode);
    for (std::size_t m = 0; m < metrics.size(); ++m) {
        if (metrics[m].ghost)
            parents[m] = kHiddenNode; // CUBE's GHOST metrics are stored but not shown
        else if (metrics[m].parent)
            parents[m] = *metrics[m].parent;
    }
    // Each metric's root and pre-order span, in one iterative walk: metric trees can be
    // arbitrarily deep, so neither a walk to the root per metric nor recursion.
    m_rootOf.assign(metrics.size(), kNoNode);
    m_first.assign(metrics.size(), 0);
    m_end.assign(metrics.size(), 0);
    std::uint32_t order = 0;
    std::vector<std::pair<std::uint32_t, bool>> stack; // metric, its children done
    for (std::size_t r = 0; r < metrics.size(); ++r) {
        if (metrics[r].parent)
            continue;
        stack.emplace_back(static_cast<std::uint32_t>(r), false);
        while (!stack.empty()) {
            auto [m, done] = stack.back();
            stack.pop_back();
            if (done) {
                m_end[m] = order;
                continue;
            }
            m_rootOf[m] = static_cast<std::uint32_t>(r);
            m_first[m] = order++;
            stack.emplace_back(m, true);
            for (MetricId child : metrics[m].children)
                stack.emplace_back(child, false);
        }
    }
    setForest(parents);
    // Totals read only root rows of inclusively stored metrics, so this stays cheap.
    auto totals = [this](const Report& report) {
        const std::size_t count = report.metrics().size();
        NodeValues values{std::vector<double>(count), std::vector<double>(count)};
        for (MetricId m = 0; m < count; ++m) {
            auto in = report.total(m, MetricMode::Inclusive);
            auto ex = report.total(m, MetricMode::Exclusive);
            if (!in)
                setLastError(QString::fromStdString(in.error().message()));
            values.inclusive[m] = in ? *in : std::nan("");
            values.exclusive[m] = ex ? *ex : std::nan("");
        }
        return values;
    };
    if (selection->baselineReport() && selection->afterReport())
        setComparedValues(totals(*selection->baselineReport()), totals(*selection->afterReport()));
    NodeValues values = totals(selection->report());
    setValues(std::move(values.inclusive), std::move(values.exclusive));
    setValueMode(selection->valueMode());

    connect(selection, &SelectionState::valueModeChanged, this,
            [this] { setValueMode(m_selection->valueMode()); });
    connect(selection, &SelectionState::metricChanged, this, [this] { refreshValues(); });
    connect(this, &ValueTreeModel::expansionChanged, this, [this](quint32 node, bool expanded) {
        if (node == m_selection->metric())
            m_selection->setMetric(node, expanded ? MetricMode::Exclusive : MetricMode::Inclusive);
    });
}

QString MetricTreeModel::nodeName(std::uint32_t node) const {
    const Metric& metric = m_selection->report().metrics()[node];
    return QString::fromStdString(metric.displayName.empty() ? metric.uniqueName
                                                             : metric.displayName);
}

std::string MetricTreeModel::unitOf(std::uint32_t node) const {
    return m_selection->report().metrics()[node].unit;
}

double MetricTreeModel::reference(std::uint32_t node, ValueMode mode) const {
    if (mode == ValueMode::PercentOfSelection) {
        // Parts of the selected metric relate to it; other metrics (maybe of another unit)
        // keep percent of their root.
        MetricId selected = m_selection->metric();
        if (selected < m_first.size() && m_first[selected] <= m_first[node] &&
            m_first[node] < m_end[selected])
            return m_selection->selectedMetricValue();
    }
    return m_rootOf[node] == kNoNode ? std::nan("") : inclusiveValue(m_rootOf[node]);
}

QString MetricTreeModel::description(MetricId id) const {
    const auto& metrics = m_selection->report().metrics();
    if (id >= metrics.size())
        return {};
    const Metric& metric = metrics[id];
    QString text = QStringLiteral("<b>%1</b> (<tt>%2</tt>)<br>")
                       .arg(nodeName(id).toHtmlEscaped(),
                            QString::fromStdString(metric.uniqueName).toHtmlEscaped());
    text += tr("unit: %1, data type: %2, kind: %3")
                .arg(QString::fromStdString(metric.unit),
                     QString::fromUtf8(toString(metric.dataType).data(),
                                       static_cast<qsizetype>(toString(metric.dataType).size())),
                     QString::fromUtf8(toString(metric.kind).data(),
                                       static_cast<qsizetype>(toString(metric.kind).size())));
    if (!metric.expression.empty())
        text += QStringLiteral("<br>") + tr("expression: ") + QStringLiteral("<tt>") +
                QString::fromStdString(metric.expression).toHtmlEscaped() + QStringLiteral("</tt>");
    if (!metric.available)
        text += QStringLiteral("<br><i>") + tr("not available: ") +
                QString::fromStdString(metric.unavailableReason).toHtmlEscaped() +
                QStringLiteral("</i>");
    const MetricInfo* info = findMetricInfo(metric.uniqueName);
    std::string body = info && !info->description.empty() ? info->description : metric.description;
    QString source = info && !info->description.empty() ? tr("Waitscope's description")
                                                        : tr("description from the report");
    if (!body.empty())
        text += QStringLiteral("<p>") +
                QString::fromStdString(body).toHtmlEscaped().replace(QStringLiteral("\n\n"),
                                                                     QStringLiteral("</p><p>")) +
                QStringLiteral("</p><p><i>") + source + QStringLiteral("</i></p>");
    if (!metric.url.empty()) {
        // CUBE's placeholder for the documentation mirror: use the report's first mirror.
        QString url = QString::fromStdString(metric.url);
        const auto& mirrors = m_selection->report().mirrors();
        if (!mirrors.empty())
            url.replace(QStringLiteral("@mirror@"), QString::fromStdString(mirrors.front()));
        // Without a mirror the placeholder stays and the address is no link.
        if (url.contains(QStringLiteral("@mirror@")))
            text += QStringLiteral("<p>") + tr("documentation: ") + url.toHtmlEscaped() +
                    QStringLiteral("</p>");
        else
            text += QStringLiteral("<p>") + tr("documentation: ") + QStringLiteral("<a href=\"") +
                    url.toHtmlEscaped() + QStringLiteral("\">") + url.toHtmlEscaped() +
                    QStringLiteral("</a></p>");
    }
    return text;
}

} // namespace waitscope::gui
