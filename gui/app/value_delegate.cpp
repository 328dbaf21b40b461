// ValueDelegate: paints a value row as colour box, value and name.
#include "value_delegate.h"

#include "colour_scale.h"

#include <QApplication>
#include <QPainter>
#include <algorithm>
#include <cmath>
#include <waitscope/gui/flat_profile_model.h>
#include <waitscope/gui/value_tree_model.h>

namespace waitscope::gui {

namespace {
constexpr int kPadding = 4;

// The width of the value column: a signed difference needs room for its sign.
int valueColumnWidth(const QFontMetrics& metrics, const QModelIndex& index) {
    const bool signedValue = index.data(ValueTreeModel::PresenceRole).isValid();
    return metrics.horizontalAdvance(signedValue ? QStringLiteral("\u2212888.8 ms")
                                                 : QStringLiteral("-88.8 ms"));
}
} // namespace

ValueDelegate::ValueDelegate(QObject* parent) : QStyledItemDelegate(parent) {}

void ValueDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option,
                          const QModelIndex& index) const {
    if (QVariant bar = index.data(ValueTreeModel::BarFractionRole); bar.isValid()) {
        paintBar(painter, option, index, bar.toDouble());
        return;
    }
    QVariant fraction = index.data(ValueTreeModel::FractionRole);
    if (!fraction.isValid()) {
        QStyledItemDelegate::paint(painter, option, index);
        return;
    }
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    bool tree = index.data(ValueTreeModel::NameRole).isValid();
    QString valueText = tree ? index.data(ValueTreeModel::ValueTextRole).toString() : opt.text;
    QString name = tree ? index.data(ValueTreeModel::NameRole).toString() : QString();
    // A node found in one of two compared reports only carries its marker, in italics.
    QString marker;
    if (tree && index.data(ValueTreeModel::PresenceRole).toInt() != 0)
        if (auto* model = qobject_cast<const ValueTreeModel*>(index.model()))
            marker = model->presenceMarker(model->nodeOf(index));
    bool match = index.data(ValueTreeModel::MatchRole).toBool();
    opt.text.clear();
    QStyle* style = opt.widget ? opt.widget->style() : QApplication::style();
    style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, opt.widget);

    painter->save();
    QRect rect = opt.rect.adjusted(kPadding, 0, -kPadding, 0);
    int box = std::min(rect.height() - 6, opt.fontMetrics.height() - 2);
    QRect boxRect(rect.left(), rect.center().y() - box / 2, box, box);
    QVariant signedFraction = index.data(ValueTreeModel::SignedFractionRole);
    painter->fillRect(boxRect, signedFraction.isValid()
                                   ? differenceColourFor(signedFraction.toDouble())
                                   : colourFor(fraction.toDouble()));
    painter->setPen(QColor(0x60, 0x60, 0x60));
    painter->drawRect(boxRect.adjusted(0, 0, -1, -1));
    rect.setLeft(boxRect.right() + 2 * kPadding);

    bool selected = opt.state & QStyle::State_Selected;
    QColor text = opt.palette.color(selected ? QPalette::HighlightedText : QPalette::Text);
    painter->setPen(text);
    if (!tree) {
        painter->drawText(rect, Qt::AlignVCenter | Qt::AlignRight, valueText);
        painter->restore();
        return;
    }
    // A fixed-width value column keeps the names aligned, as in Cube.
    int valueWidth = valueColumnWidth(opt.fontMetrics, index);
    QRect valueRect(rect.left(), rect.top(), valueWidth, rect.height());
    painter->drawText(valueRect, Qt::AlignVCenter | Qt::AlignRight, valueText);
    QRect nameRect = rect.adjusted(valueWidth + 2 * kPadding, 0, 0, 0);
    if (match) {
        QFont bold = opt.font;
        bold.setBold(true);
        painter->setFont(bold);
        QRect used = QFontMetrics(bold).boundingRect(nameRect, Qt::AlignVCenter, name);
        if (!selected)
            painter->fillRect(used.adjusted(-2, 0, 2, 0), QColor(0xff, 0xe0, 0x4f));
        painter->setPen(selected ? text : QColor(Qt::black));
    }
    QFontMetrics nameMetrics(painter->font());
    painter->drawText(nameRect, Qt::AlignVCenter | Qt::AlignLeft,
                      nameMetrics.elidedText(name, Qt::ElideRight, nameRect.width()));
    if (!marker.isEmpty()) {
        QFont italic = painter->font();
        italic.setItalic(true);
        painter->setFont(italic);
        if (!selected)
            painter->setPen(QColor(0x80, 0x50, 0x00));
        QRect markerRect =
            nameRect.adjusted(nameMetrics.horizontalAdvance(name) + 2 * kPadding, 0, 0, 0);
        painter->drawText(markerRect, Qt::AlignVCenter | Qt::AlignLeft, marker);
    }
    painter->restore();
}

void ValueDelegate::paintBar(QPainter* painter, const QStyleOptionViewItem& option,
                             const QModelIndex& index, double fraction) const {
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    const QString text = opt.text;
    opt.text.clear();
    QStyle* style = opt.widget ? opt.widget->style() : QApplication::style();
    style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, opt.widget);
    painter->save();
    QRect rect = opt.rect.adjusted(kPadding, 3, -kPadding, -3);
    // Neutral greys, so that the bars do not read as the diverging scale's better or worse:
    // the baseline lighter, the report darker.
    // On a selected row the bars darken the highlight, so that its light text stays readable.
    const bool baseline = index.column() == ValueTreeModel::BaselineColumn;
    const bool selected = opt.state & QStyle::State_Selected;
    const QColor highlight = opt.palette.color(QPalette::Highlight);
    const int width = static_cast<int>(std::lround(rect.width() * std::clamp(fraction, 0.0, 1.0)));
    if (width > 0)
        painter->fillRect(QRect(rect.left(), rect.top(), width, rect.height()),
                          selected   ? highlight.darker(baseline ? 115 : 135)
                          : baseline ? QColor(0xdd, 0xdd, 0xdd)
                                     : QColor(0xb4, 0xb4, 0xb4));
    painter->setPen(opt.palette.color(selected ? QPalette::HighlightedText : QPalette::Text));
    painter->drawText(rect.adjusted(0, 0, -2, 0), Qt::AlignVCenter | Qt::AlignRight, text);
    painter->restore();
}

QSize ValueDelegate::sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const {
    QSize size = QStyledItemDelegate::sizeHint(option, index);
    if (index.data(ValueTreeModel::NameRole).isValid()) {
        QFontMetrics metrics(option.font);
        int width = 3 * kPadding + metrics.height() + 2 * kPadding +
                    valueColumnWidth(metrics, index) + 2 * kPadding +
                    metrics.horizontalAdvance(index.data(ValueTreeModel::NameRole).toString()) +
                    kPadding;
        if (index.data(ValueTreeModel::PresenceRole).toInt() != 0)
            width += metrics.horizontalAdvance(QStringLiteral("[only in baseline]")) + 2 * kPadding;
        size.setWidth(width);
    } else {
        size.setWidth(size.width() + option.fontMetrics.height() + 2 * kPadding);
    }
    size.setHeight(std::max(size.height(), option.fontMetrics.height() + 6));
    return size;
}

} // namespace waitscope::gui
