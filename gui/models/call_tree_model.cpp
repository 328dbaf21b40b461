// CallTreeModel: the call-tree pane.
#include <cmath>
#include <waitscope/gui/call_tree_model.h>

namespace waitscope::gui {

using namespace waitscope::report;

CallTreeModel::CallTreeModel(SelectionState* selection, QObject* parent)
    : ValueTreeModel(parent), m_selection(selection) {
    const Report& report = selection->report();
    m_regionNames.reserve(report.regions().size());
    for (const Region& region : report.regions())
        m_regionNames.push_back(QString::fromStdString(region.name));
    const auto& nodes = report.callNodes();
    std::vector<std::uint32_t> parents(nodes.size(), kNoNode);
    for (std::size_t c = 0; c < nodes.size(); ++c)
        if (nodes[c].parent)
            parents[c] = *nodes[c].parent;
    setForest(parents);
    recompute();
    setValueMode(selection->valueMode());

    connect(selection, &SelectionState::metricChanged, this, &CallTreeModel::recompute);
    connect(selection, &SelectionState::valueModeChanged, this,
            [this] { setValueMode(m_selection->valueMode()); });
    connect(this, &ValueTreeModel::expansionChanged, this, [this](quint32 node, bool expanded) {
        if (node == m_selection->callPath())
            m_selection->setCallPath(node,
                                     expanded ? CallTreeMode::Exclusive : CallTreeMode::Inclusive);
    });
}

void CallTreeModel::recompute() {
    const Report& report = m_selection->report();
    MetricId metric = m_selection->metric();
    MetricMode mode = m_selection->metricMode();
    std::vector<double> inclusive, exclusive;
    if (metric < report.metrics().size()) {
        auto in = report.callNodeValues(metric, CallTreeMode::Inclusive, mode);
        auto ex = report.callNodeValues(metric, CallTreeMode::Exclusive, mode);
        if (in && ex) {
            inclusive = std::move(*in);
            exclusive = std::move(*ex);
            setLastError({});
        } else {
            setLastError(QString::fromStdString(in ? ex.error().message() : in.error().message()));
        }
    }
    if (inclusive.empty()) {
        inclusive.assign(report.callNodes().size(), std::nan(""));
        exclusive.assign(report.callNodes().size(), std::nan(""));
    }
    double root = 0.0;
    for (CallNodeId c : report.rootCallNodes())
        root += inclusive[c];
    setReferences(root, m_selection->selectedMetricValue());
    setValues(std::move(inclusive), std::move(exclusive));
}

QString CallTreeModel::nodeName(std::uint32_t node) const {
    return m_regionNames[m_selection->report().callNodes()[node].region];
}

std::string CallTreeModel::unitOf(std::uint32_t) const {
    return m_selection->report().metrics()[m_selection->metric()].unit;
}

double CallTreeModel::reference(std::uint32_t node, ValueMode mode) const {
    if (mode == ValueMode::PeerPercent)
        mode = ValueMode::PercentOfRoot;
    return ValueTreeModel::reference(node, mode);
}

QString CallTreeModel::location(CallNodeId cnode) const {
    const Report& report = m_selection->report();
    if (cnode >= report.callNodes().size())
        return {};
    const CallNode& node = report.callNodes()[cnode];
    const Region& region = report.regions()[node.region];
    QString text = QString::fromStdString(region.name);
    if (!region.file.empty())
        text += tr(" in %1").arg(QString::fromStdString(region.file));
    if (region.beginLine >= 0)
        text += tr(", lines %1-%2").arg(region.beginLine).arg(region.endLine);
    if (node.line >= 0)
        text += tr(", called at line %1").arg(node.line);
    if (!region.paradigm.empty())
        text += tr(" (%1)").arg(QString::fromStdString(region.paradigm));
    return text;
}

} // namespace waitscope::gui
