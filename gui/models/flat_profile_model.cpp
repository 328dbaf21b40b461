// FlatProfileModel: the flat profile (one row per region).
#include <algorithm>
#include <cmath>
#include <waitscope/gui/flat_profile_model.h>
#include <waitscope/gui/value_format.h>

namespace waitscope::gui {

using namespace waitscope::report;

FlatProfileModel::FlatProfileModel(SelectionState* selection, CallTreeModel* callTree,
                                   QObject* parent)
    : QAbstractTableModel(parent), m_selection(selection), m_callTree(callTree) {
    const Report& report = selection->report();
    std::vector<char> used(report.regions().size(), 0);
    for (const CallNode& node : report.callNodes())
        used[node.region] = 1;
    for (RegionId r = 0; r < used.size(); ++r)
        if (used[r])
            m_regions.push_back(r);
    m_exclusive.assign(m_regions.size(), 0.0);
    m_inclusive.assign(m_regions.size(), 0.0);
    recompute();
    connect(callTree, &ValueTreeModel::valuesReset, this, &FlatProfileModel::recompute);
    connect(selection, &SelectionState::valueModeChanged, this, [this] {
        if (!m_regions.empty())
            emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
    });
}

void FlatProfileModel::recompute() {
    const Report& report = m_selection->report();
    const auto& nodes = report.callNodes();
    std::vector<double> exclusive(report.regions().size(), 0.0);
    std::vector<double> inclusive(report.regions().size(), 0.0);
    // Depth-first walk keeping how often each region is on the current path: a call path adds
    // its inclusive value only where its region is not already on the path (recursion).
    std::vector<std::uint32_t> onPath(report.regions().size(), 0);
    std::vector<std::pair<CallNodeId, bool>> stack; // (node, leaving)
    for (CallNodeId root : report.rootCallNodes())
        stack.emplace_back(root, false);
    std::reverse(stack.begin(), stack.end());
    m_total = 0.0;
    while (!stack.empty()) {
        auto [c, leaving] = stack.back();
        stack.pop_back();
        RegionId r = nodes[c].region;
        if (leaving) {
            --onPath[r];
            continue;
        }
        exclusive[r] += m_callTree->exclusiveValue(c);
        if (onPath[r] == 0)
            inclusive[r] += m_callTree->inclusiveValue(c);
        if (!nodes[c].parent)
            m_total += m_callTree->inclusiveValue(c);
        ++onPath[r];
        stack.emplace_back(c, true);
        for (auto it = nodes[c].children.rbegin(); it != nodes[c].children.rend(); ++it)
            stack.emplace_back(*it, false);
    }
    for (std::size_t row = 0; row < m_regions.size(); ++row) {
        m_exclusive[row] = exclusive[m_regions[row]];
        m_inclusive[row] = inclusive[m_regions[row]];
    }
    if (!m_regions.empty())
        emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

int FlatProfileModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_regions.size());
}

int FlatProfileModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

int FlatProfileModel::rowOfRegion(RegionId region) const {
    auto it = std::lower_bound(m_regions.begin(), m_regions.end(), region);
    return it != m_regions.end() && *it == region ? static_cast<int>(it - m_regions.begin()) : -1;
}

bool FlatProfileModel::showsAbsolute() const {
    // The flat profile has no baseline values: it shows differences as they are.
    return m_selection->valueMode() == ValueMode::Absolute ||
           m_selection->valueMode() == ValueMode::PercentOfBaseline;
}

double FlatProfileModel::shown(double value) const {
    if (showsAbsolute())
        return value;
    if (m_total == 0.0 || std::isnan(m_total))
        return value == 0.0 ? 0.0 : std::nan("");
    return 100.0 * value / m_total;
}

QVariant FlatProfileModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    auto row = static_cast<std::size_t>(index.row());
    const Report& report = m_selection->report();
    QString name = QString::fromStdString(report.regions()[m_regions[row]].name);
    double value = index.column() == ExclusiveColumn ? m_exclusive[row] : m_inclusive[row];
    switch (role) {
    case Qt::DisplayRole:
        if (index.column() == RegionColumn)
            return name;
        return showsAbsolute() ? formatValue(value, m_selection->metricUnit())
                               : formatPercent(shown(value));
    case ValueRole:
        if (index.column() == RegionColumn)
            return name;
        return shown(value);
    case FractionRole:
        if (index.column() == RegionColumn)
            return {}; // names get no colour box
        if (m_total == 0.0 || std::isnan(m_total) || std::isnan(value))
            return -1.0;
        return std::clamp(std::fabs(value / m_total), 0.0, 1.0);
    case RegionIdRole:
        return QVariant::fromValue<quint32>(m_regions[row]);
    case Qt::TextAlignmentRole:
        if (index.column() != RegionColumn)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    default:
        return {};
    }
}

QVariant FlatProfileModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case ExclusiveColumn:
        return tr("Exclusive");
    case InclusiveColumn:
        return tr("Inclusive");
    case RegionColumn:
        return tr("Region");
    default:
        return {};
    }
}

} // namespace waitscope::gui
