// ValueTreeModel: the tree model shared by the metric, call and system trees (Cube's value
// semantics: a collapsed node shows its inclusive value, an expanded one its exclusive value).
#pragma once

#include <QAbstractItemModel>
#include <QString>
#include <cstdint>
#include <string>
#include <vector>
#include <waitscope/gui/report_difference.h>
#include <waitscope/gui/value_mode.h>

namespace waitscope::gui {

/// A read-only tree over a forest of dense node ids, one column (value and name; a difference's
/// system tree adds the compared values, see Column). Nodes live in contiguous
/// vectors (parent, children, row) and values in separate vectors (inclusive, exclusive), which
/// subclasses fill from the report. Indexes carry the node id, so the model is lazy: a view
/// only asks for the rows it shows. Views tell the model which nodes they expanded
/// (setExpanded), because the value a node shows depends on it.
class ValueTreeModel : public QAbstractItemModel {
    Q_OBJECT
public:
    /// Roles beyond Qt's. DisplayRole is "value  name".
    enum Role {
        NodeIdRole = Qt::UserRole + 1, ///< quint32 node id in the report
        NameRole,                      ///< QString, the name alone
        ValueRole,                     ///< double, the number shown (absolute or percent)
        AbsoluteValueRole,             ///< double, the shown value in the metric's unit
        ValueTextRole,                 ///< QString, the formatted number shown
        FractionRole,                  ///< double in [0, 1] for the colour scale, or -1 if none
        MatchRole,                     ///< bool, the name matches the search text
        ExpandedRole,                  ///< bool, as set with setExpanded
        /// double in [-1, 1] for the diverging colour scale of a difference (the shown value
        /// over the largest magnitude below its root); invalid unless showsDifference()
        SignedFractionRole,
        PresenceRole, ///< int, a Presence; invalid unless showsDifference()
        /// double, the node's shown value (inclusive or exclusive, as the difference's) in the
        /// baseline; NaN unless hasComparedValues()
        BaselineValueRole,
        ReportValueRole, ///< double, the same in the report (AFTER); NaN unless compared
        /// QString, the difference as percent of the baseline ("−75.0 %", "new" where the
        /// baseline is zero); empty unless hasComparedValues()
        ChangeTextRole,
        /// double in [0, 1] in the baseline and report columns: the value's share of the
        /// largest value of either report at the node's depth (bars side by side); invalid in
        /// other columns
        BarFractionRole,
    };
    /// The columns of a tree that shows compared values (showsComparedColumns()); other trees
    /// have TreeColumn only.
    enum Column {
        TreeColumn,     ///< colour, value as the mode says, name (every tree)
        BaselineColumn, ///< the node's value in the baseline
        ReportColumn,   ///< the node's value in the report (AFTER)
        ChangeColumn,   ///< the difference as percent of the baseline
        ComparedColumnCount,
    };
    static constexpr std::uint32_t kNoNode = 0xffffffffu;
    /// Parent value for a node that is not shown (nor is its subtree).
    static constexpr std::uint32_t kHiddenNode = 0xfffffffeu;

    /// The values of one report, indexed by node id.
    struct NodeValues {
        std::vector<double> inclusive;
        std::vector<double> exclusive;
    };

    explicit ValueTreeModel(QObject* parent = nullptr);

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    bool hasChildren(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    /// Records that a view expanded or collapsed `index`; its shown value switches between
    /// exclusive and inclusive.
    void setExpanded(const QModelIndex& index, bool expanded);
    bool isExpanded(std::uint32_t node) const;

    /// Shows the values as differences (AFTER − BEFORE): signed numbers, the diverging colour
    /// scale, and nodes found in one report only marked. `presence` is indexed by node id.
    void setDifference(std::vector<Presence> presence);
    bool showsDifference() const { return m_difference; }
    /// Shows the compared values in columns of their own (Column; after setDifference).
    void setComparedColumns(bool shown);
    /// The marker of a node found in one report only ("[only in after]"), or empty.
    QString presenceMarker(std::uint32_t node) const;
    /// True once a difference's model holds the values of both compared reports.
    bool hasComparedValues() const { return !m_baselineInclusive.empty(); }
    /// Whether the baseline, report and change columns are shown.
    bool showsComparedColumns() const { return m_comparedColumns; }
    /// The shown value of a node (inclusive or exclusive, as shownAbsolute) in the baseline
    /// and in the report (AFTER); NaN without compared values.
    double baselineShown(std::uint32_t node) const;
    double afterShown(std::uint32_t node) const;
    /// The shown difference as percent of the baseline's magnitude, NaN where the baseline is
    /// zero (or without compared values).
    double percentOfBaseline(std::uint32_t node) const;
    /// percentOfBaseline as text: "−75.0 %"; "0 %" where both reports hold zero; "new" where
    /// only the report holds a value; "n/a" without compared values.
    QString changeText(std::uint32_t node) const;

    /// Sets the value mode and refreshes the values shown.
    void setValueMode(ValueMode mode);
    ValueMode valueMode() const { return m_mode; }

    /// Orders children by inclusive value, largest first (true), or in report order (false).
    void setSortByValue(bool byValue);
    bool sortByValue() const { return m_sortByValue; }

    /// Marks nodes whose name contains `text` (case-insensitive; empty clears) and returns them
    /// in pre-order. A view highlights rows with MatchRole and expands their ancestors.
    std::vector<std::uint32_t> setSearchText(const QString& text);

    /// The index of a node id (column 0), or an invalid index if out of range or hidden.
    QModelIndex indexOfNode(std::uint32_t node) const;
    /// The node id of an index, or kNoNode.
    std::uint32_t nodeOf(const QModelIndex& index) const;
    /// From the root with the largest inclusive value, follows the child with the largest
    /// inclusive value down to the first node that keeps more for itself (its exclusive value)
    /// than that child holds, or to a leaf, or to a node whose children are all zero.
    std::vector<std::uint32_t> hottestPath() const;

    /// Number of nodes in the tree.
    std::size_t nodeCount() const { return m_parent.size(); }
    /// Inclusive, exclusive and currently shown absolute value of a node.
    double inclusiveValue(std::uint32_t node) const { return m_inclusive[node]; }
    double exclusiveValue(std::uint32_t node) const { return m_exclusive[node]; }
    double shownAbsolute(std::uint32_t node) const;
    /// The number shown for a node in the current mode (absolute or percent).
    double shownValue(std::uint32_t node) const;
    /// The message of the last failed value query, empty if none.
    const QString& lastError() const { return m_lastError; }

signals:
    /// A node was expanded or collapsed with setExpanded.
    void expansionChanged(quint32 node, bool expanded);
    /// setValues replaced the values (e.g. another metric was selected).
    void valuesReset();

protected:
    /// Replaces the forest; `parents[i]` is the parent of node i, kNoNode for a root, or
    /// kHiddenNode to leave node i and its subtree out. Resets the model.
    void setForest(const std::vector<std::uint32_t>& parents);
    /// Replaces the values (both indexed by node id) and refreshes the view.
    void setValues(std::vector<double> inclusive, std::vector<double> exclusive);
    /// In a difference: the values of the baseline and of the report (AFTER) at every node,
    /// for the node's tooltip, PercentOfBaseline and the compared columns. Call before
    /// setValues, which tells the views.
    void setComparedValues(NodeValues baseline, NodeValues after);
    /// Sets the reference values of PercentOfRoot and PercentOfSelection.
    void setReferences(double root, double selection);
    void setLastError(QString message) { m_lastError = std::move(message); }
    /// Tells views that every shown value may have changed (after a reference changed).
    void refreshValues() { emitValuesChanged({}); }

    /// The display name of a node.
    virtual QString nodeName(std::uint32_t node) const = 0;
    /// The metric unit of a node's values ("sec", "bytes", ...).
    virtual std::string unitOf(std::uint32_t node) const = 0;
    /// The reference (100 %) of a node's value in `mode`; 0 means "no percentage".
    virtual double reference(std::uint32_t node, ValueMode mode) const;
    /// Header of the single column.
    virtual QString title() const = 0;
    /// Whether sorting by value also reorders the roots (not when they have different units).
    virtual bool sortsRoots() const { return true; }

    double m_rootReference = 0.0;
    double m_selectionReference = 0.0;

private:
    QVariant comparedColumnData(std::uint32_t node, int column, int role) const;
    void sortChildren(std::vector<std::uint32_t>& ids) const;
    void rebuildOrder();
    /// Moves every persistent index to its node's row after rebuildOrder() (between
    /// layoutAboutToBeChanged and layoutChanged).
    void remapPersistentIndexes();
    void emitValuesChanged(const QModelIndex& top);

    std::vector<std::uint32_t> m_parent;
    std::vector<std::vector<std::uint32_t>> m_children; // in display order
    std::vector<std::uint32_t> m_roots;                 // in display order
    std::vector<std::uint32_t> m_row;                   // row of each node below its parent
    std::vector<double> m_inclusive;
    std::vector<double> m_exclusive;
    std::vector<char> m_expanded;
    std::vector<char> m_match;
    std::vector<char> m_hidden;
    std::vector<Presence> m_presence;
    bool m_difference = false;
    bool m_comparedColumns = false;
    std::vector<double> m_baselineInclusive, m_baselineExclusive;
    std::vector<double> m_afterInclusive, m_afterExclusive;
    std::vector<std::uint32_t> m_depth; ///< of each shown node below its root
    std::vector<double> m_comparedPeak; ///< per depth: the largest compared magnitude
    /// Per root node: the largest magnitude of the values below it (a difference's colour
    /// scale; trees of different units, as the metric tree's roots, each get their own).
    std::vector<double> m_largestMagnitude;
    std::vector<std::uint32_t> m_rootOf; ///< the root above each shown node
    ValueMode m_mode = ValueMode::Absolute;
    bool m_sortByValue = false;
    QString m_lastError;
};

} // namespace waitscope::gui
