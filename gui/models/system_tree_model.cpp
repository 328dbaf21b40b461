// SystemTreeModel: the system pane.
#include <algorithm>
#include <cmath>
#include <waitscope/gui/system_tree_model.h>

namespace waitscope::gui {

using namespace waitscope::report;

SystemTreeModel::SystemTreeModel(SelectionState* selection, QObject* parent)
    : ValueTreeModel(parent), m_selection(selection) {
    const auto& nodes = selection->report().systemNodes();
    std::vector<std::uint32_t> parents(nodes.size(), kNoNode);
    for (std::size_t s = 0; s < nodes.size(); ++s)
        if (nodes[s].parent)
            parents[s] = *nodes[s].parent;
    setForest(parents);
    recompute();
    setValueMode(selection->valueMode());

    connect(selection, &SelectionState::metricChanged, this, &SystemTreeModel::recompute);
    connect(selection, &SelectionState::callPathChanged, this, &SystemTreeModel::recompute);
    connect(selection, &SelectionState::valueModeChanged, this,
            [this] { setValueMode(m_selection->valueMode()); });
}

namespace {

/// The values of the selection's metric and call path in `report` at every system node, with
/// the message of a failed query (then all NaN).
std::pair<ValueTreeModel::NodeValues, QString> systemValues(const Report& report,
                                                            const SelectionState& selection) {
    const auto& nodes = report.systemNodes();
    MetricId metric = selection.metric();
    std::vector<double> inclusive(nodes.size(), std::nan(""));
    std::vector<double> exclusive(nodes.size(), std::nan(""));
    QString error;
    auto values = report.locationValues(metric, selection.callPath(), selection.callMode(),
                                        selection.metricMode());
    if (values) {
        DataType type = report.metrics()[metric].dataType;
        bool isMin = type == DataType::MinDouble;
        bool isMax = type == DataType::MaxDouble;
        std::vector<char> seen(nodes.size(), 0);
        std::fill(exclusive.begin(), exclusive.end(), 0.0);
        std::fill(inclusive.begin(), inclusive.end(), 0.0);
        for (LocationId l = 0; l < report.locations().size(); ++l) {
            double v = (*values)[l];
            SystemNodeId s = report.locations()[l];
            exclusive[s] = v;
            // Systems are shallow (machine / node / process / thread): walk up from each thread.
            for (std::optional<SystemNodeId> up = s; up; up = nodes[*up].parent) {
                double& target = inclusive[*up];
                if (!seen[*up])
                    target = v;
                else if (isMin)
                    target = std::min(target, v);
                else if (isMax)
                    target = std::max(target, v);
                else
                    target += v;
                seen[*up] = 1;
            }
        }
    } else {
        error = QString::fromStdString(values.error().message());
    }
    return {{std::move(inclusive), std::move(exclusive)}, error};
}

} // namespace

void SystemTreeModel::recompute() {
    const Report& report = m_selection->report();
    const auto& nodes = report.systemNodes();
    auto [values, error] = systemValues(report, *m_selection);
    setLastError(error);
    std::vector<double>& inclusive = values.inclusive;
    std::vector<double>& exclusive = values.exclusive;
    if (m_selection->baselineReport() && m_selection->afterReport())
        setComparedValues(systemValues(*m_selection->baselineReport(), *m_selection).first,
                          systemValues(*m_selection->afterReport(), *m_selection).first);
    std::fill(std::begin(m_peerMax), std::end(m_peerMax), 0.0);
    double root = 0.0;
    for (SystemNodeId s = 0; s < nodes.size(); ++s) {
        double& peak = m_peerMax[static_cast<int>(nodes[s].kind)];
        if (!std::isnan(inclusive[s]))
            peak = std::max(peak, std::fabs(inclusive[s]));
        if (!nodes[s].parent && !std::isnan(inclusive[s]))
            root += inclusive[s];
    }
    // The selected call path as the call tree shows it is the sum over all roots.
    setReferences(root, root);
    setValues(std::move(inclusive), std::move(exclusive));
}

QString SystemTreeModel::nodeName(std::uint32_t node) const {
    return QString::fromStdString(m_selection->report().systemNodes()[node].name);
}

std::string SystemTreeModel::unitOf(std::uint32_t) const {
    return m_selection->metricUnit();
}

double SystemTreeModel::reference(std::uint32_t node, ValueMode mode) const {
    if (mode == ValueMode::PeerPercent)
        return m_peerMax[static_cast<int>(m_selection->report().systemNodes()[node].kind)];
    return ValueTreeModel::reference(node, mode);
}

} // namespace waitscope::gui
