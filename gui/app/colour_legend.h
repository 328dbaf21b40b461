// ColourLegend: the legend of the colour scale (a gradient bar from 0 % to 100 %).
#pragma once

#include <QWidget>

namespace waitscope::gui {

/// Draws the colour scale of colourFor() with its 0 %, 50 % and 100 % marks and a caption.
class ColourLegend : public QWidget {
    Q_OBJECT
public:
    explicit ColourLegend(QWidget* parent = nullptr);
    QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;
};

} // namespace waitscope::gui
