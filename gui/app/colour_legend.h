// ColourLegend: the legend of the colour scale (a gradient bar from 0 % to 100 %).
#pragma once

#include <QWidget>

namespace waitscope::gui {

/// Draws the colour scale of colourFor() with its 0 %, 50 % and 100 % marks and a caption (or,
/// for a difference, the scale of differenceColourFor()).
class ColourLegend : public QWidget {
    Q_OBJECT
public:
    explicit ColourLegend(QWidget* parent = nullptr);
    QSize sizeHint() const override;
    /// Sets the caption left of the bar (what 100 % means in the current value mode).
    void setCaption(const QString& caption);
    /// Shows the diverging scale of differenceColourFor() instead: improvement, 0, regression.
    void setDifference(bool difference);

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    QString m_caption;
    bool m_difference = false;
};

} // namespace waitscope::gui
