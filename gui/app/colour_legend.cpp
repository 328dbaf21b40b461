// ColourLegend: the legend of the colour scale.
#include "colour_legend.h"

#include "colour_scale.h"

#include <QLinearGradient>
#include <QPainter>

namespace waitscope::gui {

ColourLegend::ColourLegend(QWidget* parent) : QWidget(parent), m_caption(tr("share of root")) {
    setToolTip(tr("Colour of each value: its share of the root of its tree (or of the "
                  "reference of the selected value mode)"));
    setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
}

QSize ColourLegend::sizeHint() const {
    QFontMetrics metrics(font());
    return {metrics.horizontalAdvance(tr("share of largest peer") + QStringLiteral("  ")) + 190,
            metrics.height() * 2 + 4};
}

void ColourLegend::setCaption(const QString& caption) {
    m_caption = caption;
    update();
}

void ColourLegend::setDifference(bool difference) {
    m_difference = difference;
    setToolTip(difference ? tr("Colour of each difference (report − baseline): its share of "
                               "the largest difference in its tree; blue where the report has "
                               "less (an improvement), red where it has more (a regression)")
                          : toolTip());
    update();
}

void ColourLegend::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    QFontMetrics metrics(font());
    int captionWidth =
        metrics.horizontalAdvance(tr("share of largest peer") + QStringLiteral("  "));
    painter.setPen(palette().color(QPalette::WindowText));
    painter.drawText(QRect(0, 0, captionWidth - 6, height()), Qt::AlignVCenter | Qt::AlignRight,
                     m_caption);
    QRect bar(captionWidth, 2, width() - captionWidth - 12, metrics.height() - 2);
    QLinearGradient gradient(bar.topLeft(), bar.topRight());
    for (int i = 0; i <= 10; ++i)
        gradient.setColorAt(i / 10.0, m_difference ? differenceColourFor(i / 5.0 - 1.0)
                                                   : colourFor(i / 10.0));
    painter.fillRect(bar, gradient);
    painter.setPen(palette().color(QPalette::Mid));
    painter.drawRect(bar.adjusted(0, 0, -1, -1));
    painter.setPen(palette().color(QPalette::WindowText));
    int y = bar.bottom() + 2;
    int h = height() - y;
    if (m_difference) {
        painter.drawText(QRect(bar.left(), y, bar.width(), h), Qt::AlignLeft | Qt::AlignTop,
                         tr("− better"));
        painter.drawText(QRect(bar.left(), y, bar.width(), h), Qt::AlignHCenter | Qt::AlignTop,
                         QStringLiteral("0"));
        painter.drawText(QRect(bar.left(), y, bar.width() + 12, h), Qt::AlignRight | Qt::AlignTop,
                         tr("worse +"));
        return;
    }
    painter.drawText(QRect(bar.left(), y, bar.width(), h), Qt::AlignLeft | Qt::AlignTop,
                     QStringLiteral("0 %"));
    painter.drawText(QRect(bar.left(), y, bar.width(), h), Qt::AlignHCenter | Qt::AlignTop,
                     QStringLiteral("50 %"));
    painter.drawText(QRect(bar.left(), y, bar.width() + 12, h), Qt::AlignRight | Qt::AlignTop,
                     QStringLiteral("100 %"));
}

} // namespace waitscope::gui
