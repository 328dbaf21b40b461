// ValueDelegate: paints a value row as colour box, value and name (search matches highlighted).
#pragma once

#include <QStyledItemDelegate>

namespace waitscope::gui {

/// Paints rows of a ValueTreeModel like Cube: a colour box (colourFor of FractionRole), the
/// value right-aligned in a fixed-width column, then the name; rows with MatchRole get a
/// highlight. Cells of other models (the flat profile) get the colour box before their text.
/// The baseline and report columns of a difference's system tree get a bar of BarFractionRole
/// behind their value.
class ValueDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    explicit ValueDelegate(QObject* parent = nullptr);

    void paint(QPainter* painter, const QStyleOptionViewItem& option,
               const QModelIndex& index) const override;
    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override;

private:
    void paintBar(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index,
                  double fraction) const;
};

} // namespace waitscope::gui
