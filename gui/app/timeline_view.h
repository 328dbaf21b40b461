// TimelineView: the trace over time, one row per location, with messages and wait states.
#pragma once

#include "timeline_data.h"

#include <QWidget>
#include <optional>

namespace waitscope::gui {

/// Draws a Timeline: a time ruler, one row per location (ranks, their threads below) with the
/// region visits coloured by kind (the deepest visit on top, or one strip per call depth), an
/// arrow per message, every wait-state instance shaded over the waiting part of its call, and
/// a legend. Mouse wheel or +/- zoom around the cursor (or the centre), dragging or the arrow
/// keys pan, Home shows the whole run, D toggles the call-depth mode; hovering shows the visit,
/// message or wait state under the cursor.
class TimelineView : public QWidget {
    Q_OBJECT
public:
    explicit TimelineView(timeline::Timeline timeline, QWidget* parent = nullptr);

    /// Shows [from, to] (clamped to the run).
    void setWindow(double from, double to);
    double windowStart() const { return m_from; }
    double windowEnd() const { return m_to; }
    /// Zooms by `factor` (< 1 zooms in) keeping the time at `anchor` (0..1 of the width) fixed.
    void zoom(double factor, double anchor = 0.5);
    /// Pans by `fraction` of the visible width.
    void pan(double fraction);
    void setDepthMode(bool on);
    const timeline::Timeline& timeline() const { return m_timeline; }

protected:
    void paintEvent(QPaintEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;

private:
    QRectF rowRect(uint32_t row) const;
    double xOf(double time) const;
    double timeAt(double x) const;
    QString describeAt(QPointF point) const;
    QRectF plotArea() const;

    timeline::Timeline m_timeline;
    double m_from = 0.0;
    double m_to = 1.0;
    bool m_depthMode = false;
    std::optional<QPointF> m_dragFrom;
    double m_dragStart = 0.0;
};

} // namespace waitscope::gui
