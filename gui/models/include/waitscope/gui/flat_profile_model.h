// FlatProfileModel: the flat profile, the alternative to the call tree (one row per region).
#pragma once

#include <QAbstractTableModel>
#include <vector>
#include <waitscope/gui/call_tree_model.h>

namespace waitscope::gui {

/// One row per region that is called somewhere, with the selected metric's exclusive value
/// (summed over all its call paths) and inclusive value (summed over its outermost call paths,
/// so recursion is not counted twice). Follows the call tree model's values and value mode.
/// Sort it with a QSortFilterProxyModel on ValueRole.
class FlatProfileModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { ExclusiveColumn = 0, InclusiveColumn, RegionColumn, ColumnCount };
    enum Role {
        ValueRole = ValueTreeModel::ValueRole,       ///< double (name for the region column)
        FractionRole = ValueTreeModel::FractionRole, ///< double in [0, 1], -1 if none
        RegionIdRole = Qt::UserRole + 100,           ///< quint32 region id
    };

    FlatProfileModel(SelectionState* selection, CallTreeModel* callTree, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    /// Exclusive and inclusive absolute values of a row.
    double exclusiveValue(int row) const { return m_exclusive[static_cast<std::size_t>(row)]; }
    double inclusiveValue(int row) const { return m_inclusive[static_cast<std::size_t>(row)]; }
    /// The row of a region, or -1 if it is never called.
    int rowOfRegion(report::RegionId region) const;

private:
    void recompute();
    /// True in the modes that show values as they are (Absolute, and PercentOfBaseline).
    bool showsAbsolute() const;
    double shown(double value) const;

    SelectionState* m_selection;
    CallTreeModel* m_callTree;
    std::vector<report::RegionId> m_regions; // rows
    std::vector<double> m_exclusive;
    std::vector<double> m_inclusive;
    double m_total = 0.0;
};

} // namespace waitscope::gui
