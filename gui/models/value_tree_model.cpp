// ValueTreeModel: the tree model shared by the metric, call and system trees.
#include <algorithm>
#include <cmath>
#include <waitscope/gui/value_format.h>
#include <waitscope/gui/value_tree_model.h>

namespace waitscope::gui {

ValueTreeModel::ValueTreeModel(QObject* parent) : QAbstractItemModel(parent) {}

QModelIndex ValueTreeModel::index(int row, int column, const QModelIndex& parent) const {
    if (row < 0 || column < 0 || column >= columnCount(parent))
        return {};
    const std::vector<std::uint32_t>* ids = &m_roots;
    if (parent.isValid()) {
        if (parent.column() != 0)
            return {};
        ids = &m_children[nodeOf(parent)];
    }
    if (static_cast<std::size_t>(row) >= ids->size())
        return {};
    return createIndex(row, column, static_cast<quintptr>((*ids)[row]));
}

QModelIndex ValueTreeModel::parent(const QModelIndex& child) const {
    std::uint32_t node = nodeOf(child);
    if (node == kNoNode || m_parent[node] == kNoNode)
        return {};
    std::uint32_t up = m_parent[node];
    return createIndex(static_cast<int>(m_row[up]), 0, static_cast<quintptr>(up));
}

int ValueTreeModel::rowCount(const QModelIndex& parent) const {
    if (!parent.isValid())
        return static_cast<int>(m_roots.size());
    if (parent.column() != 0)
        return 0;
    return static_cast<int>(m_children[nodeOf(parent)].size());
}

int ValueTreeModel::columnCount(const QModelIndex& parent) const {
    if (parent.isValid() && parent.column() != 0)
        return 0;
    return showsComparedColumns() ? ComparedColumnCount : 1;
}

bool ValueTreeModel::hasChildren(const QModelIndex& parent) const {
    return rowCount(parent) > 0;
}

std::uint32_t ValueTreeModel::nodeOf(const QModelIndex& index) const {
    if (!index.isValid() || index.model() != this)
        return kNoNode;
    auto node = static_cast<std::uint32_t>(index.internalId());
    return node < m_parent.size() ? node : kNoNode;
}

QModelIndex ValueTreeModel::indexOfNode(std::uint32_t node) const {
    if (node >= m_parent.size() || m_hidden[node])
        return {};
    return createIndex(static_cast<int>(m_row[node]), 0, static_cast<quintptr>(node));
}

bool ValueTreeModel::isExpanded(std::uint32_t node) const {
    return node < m_expanded.size() && m_expanded[node];
}

double ValueTreeModel::shownAbsolute(std::uint32_t node) const {
    // Cube's rule: an expanded node shows only its own part, its children show the rest.
    if (m_expanded[node] && !m_children[node].empty())
        return m_exclusive[node];
    return m_inclusive[node];
}

double ValueTreeModel::reference(std::uint32_t, ValueMode mode) const {
    switch (mode) {
    case ValueMode::PercentOfSelection:
        return m_selectionReference;
    case ValueMode::Absolute:
    case ValueMode::PercentOfRoot:
    case ValueMode::PeerPercent:
    case ValueMode::PercentOfBaseline: // each node's own baseline, see percentOfBaseline
        break;
    }
    return m_rootReference;
}

double ValueTreeModel::shownValue(std::uint32_t node) const {
    double value = shownAbsolute(node);
    if (m_mode == ValueMode::Absolute)
        return value;
    if (m_mode == ValueMode::PercentOfBaseline)
        return m_difference ? percentOfBaseline(node) : value;
    double ref = reference(node, m_mode);
    if (ref == 0.0 || std::isnan(ref))
        return value == 0.0 ? 0.0 : std::nan("");
    // In a difference the sign tells better or worse, whatever the reference's sign.
    if (m_difference)
        ref = std::fabs(ref);
    return 100.0 * value / ref;
}

double ValueTreeModel::baselineShown(std::uint32_t node) const {
    if (node >= m_baselineInclusive.size())
        return std::nan("");
    return m_expanded[node] && !m_children[node].empty() ? m_baselineExclusive[node]
                                                         : m_baselineInclusive[node];
}

double ValueTreeModel::afterShown(std::uint32_t node) const {
    if (node >= m_afterInclusive.size())
        return std::nan("");
    return m_expanded[node] && !m_children[node].empty() ? m_afterExclusive[node]
                                                         : m_afterInclusive[node];
}

namespace {
/// Whether `value` is zero but for the rounding of sums and differences of values up to
/// `scale` (an exclusive value is its inclusive value minus its children's).
bool nearZero(double value, double scale) {
    return std::fabs(value) <= 1e-12 * std::max(1.0, scale);
}
} // namespace

double ValueTreeModel::percentOfBaseline(std::uint32_t node) const {
    double baseline = baselineShown(node);
    double difference = shownAbsolute(node);
    if (std::isnan(baseline) || std::isnan(difference))
        return std::nan("");
    double scale = m_rootOf[node] < m_largestMagnitude.size()
                       ? m_largestMagnitude[m_rootOf[node]] + std::fabs(baseline)
                       : std::fabs(baseline);
    if (nearZero(baseline, scale))
        return nearZero(difference, scale) ? 0.0 : std::nan("");
    return 100.0 * difference / std::fabs(baseline);
}

QString ValueTreeModel::changeText(std::uint32_t node) const {
    if (!hasComparedValues() || node >= m_parent.size())
        return tr("n/a");
    double baseline = baselineShown(node);
    double difference = shownAbsolute(node);
    if (std::isnan(baseline) || std::isnan(difference))
        return tr("n/a");
    double percent = percentOfBaseline(node);
    // A zero baseline has no percentage: the value is new in the report.
    if (std::isnan(percent))
        return tr("new");
    return formatSignedPercent(percent);
}

QVariant ValueTreeModel::data(const QModelIndex& index, int role) const {
    std::uint32_t node = nodeOf(index);
    if (node == kNoNode)
        return {};
    if (index.column() != TreeColumn)
        return comparedColumnData(node, index.column(), role);
    switch (role) {
    case Qt::DisplayRole: {
        QString text =
            data(index, ValueTextRole).toString() + QStringLiteral("  ") + nodeName(node);
        if (QString marker = presenceMarker(node); !marker.isEmpty())
            text += QStringLiteral("  ") + marker;
        return text;
    }
    case Qt::ToolTipRole: {
        auto format = m_difference ? formatSignedValue : formatValue;
        QString tip = nodeName(node);
        if (m_difference && hasComparedValues()) {
            const std::string unit = unitOf(node);
            tip += tr("\nreport − baseline: %1 (%2 of the baseline)")
                       .arg(formatSignedValue(shownAbsolute(node), unit), changeText(node));
            tip += tr("\nbaseline: %1, report: %2")
                       .arg(formatValue(baselineShown(node), unit),
                            formatValue(afterShown(node), unit));
        }
        tip += QStringLiteral("\ninclusive: ") + format(m_inclusive[node], unitOf(node)) +
               QStringLiteral("\nexclusive: ") + format(m_exclusive[node], unitOf(node));
        if (m_difference)
            tip += QStringLiteral("\n(difference: report − baseline)");
        if (QString marker = presenceMarker(node); !marker.isEmpty())
            tip += QStringLiteral("\n") + marker;
        return tip;
    }
    case NodeIdRole:
        return QVariant::fromValue<quint32>(node);
    case NameRole:
        return nodeName(node);
    case ValueRole:
        return shownValue(node);
    case AbsoluteValueRole:
        return shownAbsolute(node);
    case ValueTextRole:
        if (m_difference && m_mode == ValueMode::PercentOfBaseline)
            return changeText(node);
        if (m_difference)
            return m_mode == ValueMode::Absolute
                       ? formatSignedValue(shownAbsolute(node), unitOf(node))
                       : formatSignedPercent(shownValue(node));
        return m_mode == ValueMode::Absolute ? formatValue(shownAbsolute(node), unitOf(node))
                                             : formatPercent(shownValue(node));
    case SignedFractionRole: {
        if (!m_difference)
            return {};
        double value = shownAbsolute(node);
        std::uint32_t root = m_rootOf[node];
        double largest = root < m_largestMagnitude.size() ? m_largestMagnitude[root] : 0.0;
        if (std::isnan(value) || largest == 0.0)
            return 0.0;
        return std::clamp(value / largest, -1.0, 1.0);
    }
    case PresenceRole:
        if (!m_difference)
            return {};
        return static_cast<int>(node < m_presence.size() ? m_presence[node] : Presence::Both);
    case BaselineValueRole:
        return baselineShown(node);
    case ReportValueRole:
        return afterShown(node);
    case ChangeTextRole:
        return hasComparedValues() ? changeText(node) : QString();
    case FractionRole: {
        ValueMode mode = m_mode == ValueMode::Absolute || m_mode == ValueMode::PercentOfBaseline
                             ? ValueMode::PercentOfRoot
                             : m_mode;
        double ref = reference(node, mode);
        double value = shownAbsolute(node);
        if (ref == 0.0 || std::isnan(ref) || std::isnan(value))
            return -1.0;
        return std::clamp(std::fabs(value / ref), 0.0, 1.0);
    }
    case MatchRole:
        return node < m_match.size() && m_match[node] != 0;
    case ExpandedRole:
        return m_expanded[node] != 0;
    default:
        return {};
    }
}

QVariant ValueTreeModel::comparedColumnData(std::uint32_t node, int column, int role) const {
    const bool value = column == BaselineColumn || column == ReportColumn;
    switch (role) {
    case Qt::DisplayRole:
    case ValueTextRole:
        if (column == ChangeColumn)
            return changeText(node);
        return formatValue(column == BaselineColumn ? baselineShown(node) : afterShown(node),
                           unitOf(node));
    case Qt::ToolTipRole:
        return data(indexOfNode(node), Qt::ToolTipRole);
    case Qt::TextAlignmentRole:
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    case NodeIdRole:
        return QVariant::fromValue<quint32>(node);
    case BaselineValueRole:
    case ReportValueRole:
    case ChangeTextRole:
        return data(indexOfNode(node), role);
    case BarFractionRole: {
        if (!value || node >= m_depth.size() || m_depth[node] >= m_comparedPeak.size())
            return {};
        double shown = column == BaselineColumn ? baselineShown(node) : afterShown(node);
        double peak = m_comparedPeak[m_depth[node]];
        if (std::isnan(shown) || peak == 0.0)
            return 0.0;
        return std::clamp(std::fabs(shown) / peak, 0.0, 1.0);
    }
    default:
        return {};
    }
}

QVariant ValueTreeModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case TreeColumn:
        return m_difference ? tr("report − baseline") : title();
    case BaselineColumn:
        return tr("Baseline");
    case ReportColumn:
        return tr("Report");
    case ChangeColumn:
        return tr("vs baseline");
    default:
        return {};
    }
}

void ValueTreeModel::setExpanded(const QModelIndex& index, bool expanded) {
    std::uint32_t node = nodeOf(index);
    if (node == kNoNode || (m_expanded[node] != 0) == expanded)
        return;
    m_expanded[node] = expanded ? 1 : 0;
    QModelIndex first = this->index(index.row(), 0, index.parent());
    emit dataChanged(first,
                     this->index(index.row(), columnCount(index.parent()) - 1, index.parent()));
    emit expansionChanged(node, expanded);
}

void ValueTreeModel::setDifference(std::vector<Presence> presence) {
    m_presence = std::move(presence);
    m_difference = true;
    emitValuesChanged({});
}

QString ValueTreeModel::presenceMarker(std::uint32_t node) const {
    if (!m_difference || node >= m_presence.size())
        return {};
    switch (m_presence[node]) {
    case Presence::OnlyAfter:
        return tr("[only in report]");
    case Presence::OnlyBefore:
        return tr("[only in baseline]");
    case Presence::Both:
        break;
    }
    return {};
}

void ValueTreeModel::setComparedValues(NodeValues baseline, NodeValues after) {
    const std::size_t n = m_parent.size();
    baseline.inclusive.resize(n, std::nan(""));
    baseline.exclusive.resize(n, std::nan(""));
    after.inclusive.resize(n, std::nan(""));
    after.exclusive.resize(n, std::nan(""));
    // The bars of one depth (e.g. all ranks) share a scale, for both reports.
    m_comparedPeak.assign(m_comparedPeak.size(), 0.0);
    for (std::uint32_t node = 0; node < n; ++node) {
        if (m_rootOf[node] == kNoNode)
            continue;
        double& peak = m_comparedPeak[m_depth[node]];
        for (double value : {baseline.inclusive[node], after.inclusive[node]})
            if (!std::isnan(value))
                peak = std::max(peak, std::fabs(value));
    }
    m_baselineInclusive = std::move(baseline.inclusive);
    m_baselineExclusive = std::move(baseline.exclusive);
    m_afterInclusive = std::move(after.inclusive);
    m_afterExclusive = std::move(after.exclusive);
}

void ValueTreeModel::setComparedColumns(bool shown) {
    if (shown == m_comparedColumns)
        return;
    beginResetModel();
    m_comparedColumns = shown;
    endResetModel();
}

void ValueTreeModel::setValueMode(ValueMode mode) {
    if (mode == m_mode)
        return;
    m_mode = mode;
    emitValuesChanged({});
}

void ValueTreeModel::sortChildren(std::vector<std::uint32_t>& ids) const {
    if (m_sortByValue && m_inclusive.size() == m_parent.size()) {
        std::stable_sort(ids.begin(), ids.end(), [this](std::uint32_t a, std::uint32_t b) {
            double va = std::isnan(m_inclusive[a]) ? -INFINITY : m_inclusive[a];
            double vb = std::isnan(m_inclusive[b]) ? -INFINITY : m_inclusive[b];
            return va > vb;
        });
    } else {
        std::sort(ids.begin(), ids.end());
    }
}

void ValueTreeModel::rebuildOrder() {
    if (sortsRoots())
        sortChildren(m_roots);
    else
        std::sort(m_roots.begin(), m_roots.end());
    for (auto& children : m_children)
        sortChildren(children);
    for (std::size_t i = 0; i < m_roots.size(); ++i)
        m_row[m_roots[i]] = static_cast<std::uint32_t>(i);
    for (auto& children : m_children)
        for (std::size_t i = 0; i < children.size(); ++i)
            m_row[children[i]] = static_cast<std::uint32_t>(i);
}

void ValueTreeModel::remapPersistentIndexes() {
    // Persistent indexes follow their node to its new row.
    const QModelIndexList old = persistentIndexList();
    QModelIndexList moved;
    moved.reserve(old.size());
    for (const QModelIndex& index : old)
        moved.append(indexOfNode(nodeOf(index)));
    changePersistentIndexList(old, moved);
}

void ValueTreeModel::setSortByValue(bool byValue) {
    if (byValue == m_sortByValue)
        return;
    emit layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
    m_sortByValue = byValue;
    rebuildOrder();
    remapPersistentIndexes();
    emit layoutChanged({}, QAbstractItemModel::VerticalSortHint);
}

std::vector<std::uint32_t> ValueTreeModel::setSearchText(const QString& text) {
    std::vector<std::uint32_t> matches;
    std::vector<char> match(m_parent.size(), 0);
    if (!text.isEmpty()) {
        // Pre-order walk so that matches come out in the order a user reads the tree.
        std::vector<std::uint32_t> stack(m_roots.rbegin(), m_roots.rend());
        while (!stack.empty()) {
            std::uint32_t node = stack.back();
            stack.pop_back();
            if (nodeName(node).contains(text, Qt::CaseInsensitive)) {
                match[node] = 1;
                matches.push_back(node);
            }
            stack.insert(stack.end(), m_children[node].rbegin(), m_children[node].rend());
        }
    }
    m_match = std::move(match);
    emitValuesChanged({});
    return matches;
}

std::vector<std::uint32_t> ValueTreeModel::hottestPath() const {
    // Down from the largest root, into the child with the largest inclusive value, as long as
    // that child holds more than the node keeps for itself: a node whose own (exclusive) time
    // exceeds each child's is where the time goes, and the path ends there rather than in a
    // small callee below it.
    std::vector<std::uint32_t> path;
    auto largest = [this](const std::vector<std::uint32_t>& candidates) {
        std::uint32_t best = kNoNode;
        for (std::uint32_t node : candidates)
            if (!std::isnan(m_inclusive[node]) &&
                (best == kNoNode || std::fabs(m_inclusive[node]) > std::fabs(m_inclusive[best])))
                best = node;
        return best;
    };
    std::uint32_t node = largest(m_roots);
    while (node != kNoNode) {
        path.push_back(node);
        std::uint32_t child = largest(m_children[node]);
        if (child == kNoNode || m_inclusive[child] == 0.0 ||
            (!std::isnan(m_exclusive[node]) &&
             std::fabs(m_exclusive[node]) >= std::fabs(m_inclusive[child])))
            break;
        node = child;
    }
    return path;
}

void ValueTreeModel::setForest(const std::vector<std::uint32_t>& parents) {
    beginResetModel();
    std::size_t n = parents.size();
    m_parent.assign(n, kNoNode);
    m_children.assign(n, {});
    m_roots.clear();
    m_row.assign(n, 0);
    m_inclusive.assign(n, 0.0);
    m_exclusive.assign(n, 0.0);
    m_expanded.assign(n, 0);
    m_match.assign(n, 0);
    // A node is shown if it and all its ancestors are; parents may come after their children.
    // Each walk up stops at a node already decided and decides all it passed, so that a deep
    // tree costs linear time.
    constexpr char kUndecided = 2;
    std::vector<char> hidden(n, kUndecided);
    std::vector<std::uint32_t> passed;
    for (std::uint32_t i = 0; i < n; ++i) {
        char verdict = 0;
        for (std::uint32_t up = i; up < n; up = parents[up]) {
            if (hidden[up] != kUndecided) {
                verdict = hidden[up];
                break;
            }
            if (passed.size() > n) // a cycle, which no reader lets through
                break;
            passed.push_back(up);
            if (parents[up] == kHiddenNode) {
                verdict = 1;
                break;
            }
        }
        for (std::uint32_t node : passed)
            hidden[node] = verdict;
        passed.clear();
    }
    for (std::uint32_t i = 0; i < n; ++i) {
        if (hidden[i])
            continue;
        if (parents[i] >= n) {
            m_roots.push_back(i);
        } else {
            m_parent[i] = parents[i];
            m_children[parents[i]].push_back(i);
        }
    }
    m_hidden = std::move(hidden);
    // The root of each shown node, top down (iterative: a path may be as deep as the tree).
    m_rootOf.assign(n, kNoNode);
    m_depth.assign(n, 0);
    std::vector<std::uint32_t> stack(m_roots.begin(), m_roots.end());
    for (std::uint32_t root : m_roots)
        m_rootOf[root] = root;
    std::uint32_t deepest = 0;
    while (!stack.empty()) {
        std::uint32_t node = stack.back();
        stack.pop_back();
        for (std::uint32_t child : m_children[node]) {
            m_rootOf[child] = m_rootOf[node];
            m_depth[child] = m_depth[node] + 1;
            deepest = std::max(deepest, m_depth[child]);
            stack.push_back(child);
        }
    }
    m_comparedPeak.assign(n == 0 ? 0 : deepest + 1, 0.0);
    rebuildOrder();
    endResetModel();
}

void ValueTreeModel::setValues(std::vector<double> inclusive, std::vector<double> exclusive) {
    inclusive.resize(m_parent.size(), 0.0);
    exclusive.resize(m_parent.size(), 0.0);
    m_largestMagnitude.assign(m_parent.size(), 0.0);
    for (std::uint32_t node = 0; node < m_parent.size(); ++node) {
        if (m_rootOf[node] == kNoNode)
            continue;
        double& largest = m_largestMagnitude[m_rootOf[node]];
        for (double value : {inclusive[node], exclusive[node]})
            if (!std::isnan(value))
                largest = std::max(largest, std::fabs(value));
    }
    if (m_sortByValue) {
        emit layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
        m_inclusive = std::move(inclusive);
        m_exclusive = std::move(exclusive);
        rebuildOrder();
        remapPersistentIndexes();
        emit layoutChanged({}, QAbstractItemModel::VerticalSortHint);
    } else {
        m_inclusive = std::move(inclusive);
        m_exclusive = std::move(exclusive);
    }
    emitValuesChanged({});
    emit valuesReset();
}

void ValueTreeModel::setReferences(double root, double selection) {
    m_rootReference = root;
    m_selectionReference = selection;
}

void ValueTreeModel::emitValuesChanged(const QModelIndex& top) {
    // Only rows a view can show need the signal: the roots and the children of expanded nodes.
    // Iterative: an expanded path may be as deep as the tree.
    std::vector<QModelIndex> parents{top};
    while (!parents.empty()) {
        QModelIndex parent = parents.back();
        parents.pop_back();
        int rows = rowCount(parent);
        if (rows == 0)
            continue;
        emit dataChanged(index(0, 0, parent), index(rows - 1, columnCount(parent) - 1, parent));
        const std::vector<std::uint32_t>& ids =
            parent.isValid() ? m_children[nodeOf(parent)] : m_roots;
        for (std::uint32_t node : ids)
            if (m_expanded[node])
                parents.push_back(indexOfNode(node));
    }
}

} // namespace waitscope::gui
