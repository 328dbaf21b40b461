// TimelineView: the trace over time, one row per location, with messages and wait states.
#pragma once

#include "instance_finder.h"
#include "timeline_data.h"
#include "timeline_store.h"
#include "timeline_summary.h"

#include <QPainter>
#include <QWidget>
#include <memory>
#include <optional>

namespace waitscope::gui {

/// Draws a Timeline: a time ruler, one row per location (ranks, their threads below) with the
/// region visits coloured by kind (the deepest visit on top, or one strip per call depth), an
/// arrow per message, every wait-state instance shaded over the waiting part of its call, and
/// the critical path as a line through the ranks (C toggles it), and
/// a legend. Mouse wheel or +/- zoom around the cursor (or the centre), dragging or the arrow
/// keys pan, Home shows the whole run, D toggles the call-depth mode (one strip per depth, as
/// Vampir's process timeline), G groups the rows by node; each collective operation is
/// bracketed across its members with a line where its last member began; hovering shows the visit,
/// message or wait state under the cursor. The instances the finder picks (all, or those of the
/// explorer's selection) are drawn in full colour, the others faded; N, P and W step to the
/// next, previous and worst picked instance, zoomed to it with context and outlined. Above the
/// rows a band shows per time bin the MPI share and the waiting share of the ranks (min to max
/// shaded, the mean as a line), from the overview; when the window holds too many visits or
/// wait states to draw one by one (more than four per pixel column), the rows are drawn from
/// the overview's bins too (the dominant kind, and the waiting share as a red bar), so that a
/// frame's work is bounded by its width.
class TimelineView : public QWidget {
    Q_OBJECT
public:
    /// A timeline held whole in memory (built ones, tests).
    explicit TimelineView(timeline::Timeline timeline, QWidget* parent = nullptr);
    /// A trace's timeline read by window: the view holds the store's skeleton and overview,
    /// and the events of the window it shows (with a margin of one width on either side), read
    /// on a worker thread whenever the window leaves them; until they arrive the rows are drawn
    /// from the overview. The GUI thread never waits for the trace.
    explicit TimelineView(std::shared_ptr<const timeline::TimelineStore> store,
                          QWidget* parent = nullptr);

    /// Shows [from, to] (clamped to the run).
    void setWindow(double from, double to);
    double windowStart() const { return m_from; }
    double windowEnd() const { return m_to; }
    /// Zooms by `factor` (< 1 zooms in) keeping the time at `anchor` (0..1 of the width) fixed.
    void zoom(double factor, double anchor = 0.5);
    /// Pans by `fraction` of the visible width.
    void pan(double fraction);
    void setDepthMode(bool on);
    void setCriticalPathShown(bool on);
    /// Groups the rows by the node their rank ran on, under the node's name (G toggles).
    void setGroupByNode(bool on);
    const timeline::Timeline& timeline() const { return m_timeline; }
    /// The picked instances and the current one.
    const timeline::InstanceFinder& finder() const { return m_finder; }
    /// Picks the instances of `filter` (redrawn; no current instance).
    void pick(const timeline::InstanceFilter& filter);
    /// Steps to the next, previous or worst picked instance and shows it; false when none.
    bool showNext();
    bool showPrevious();
    bool showWorst();
    /// The overview (built at the first open, then read from the experiment's cache).
    const timeline::TimelineSummary* summary() const { return m_summary ? &*m_summary : nullptr; }
    /// Whether the rows are drawn from the overview's bins at this zoom (too many visits to
    /// draw one by one) rather than from the events.
    bool drawsFromSummary() const;
    /// What is picked and the current instance, for a status line.
    QString pickedText() const;
    /// Whether the events of the window shown are in memory (always without a store).
    bool eventsLoaded() const;
    /// For batch use (screenshots, benchmarks): runs the event loop until the findings
    /// (instances, critical path) and the window's events have arrived.
    void waitForEvents();
    /// Window reads done and the time the last one took (ms), for the benchmark.
    int windowReads() const { return m_reads; }
    double lastReadMilliseconds() const { return m_lastRead; }

signals:
    /// The picked instances or the current one changed.
    void pickedChanged(const QString& text);
    /// The events of a window arrived from the worker.
    void eventsArrived();

protected:
    void paintEvent(QPaintEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;

private:
    void initialise();
    void takeFindings(const std::shared_ptr<timeline::Timeline>& findings);
    /// Whether the window holds too many visits or wait states to draw one by one.
    bool tooManyToDraw() const;
    /// Starts reading the window's events on a worker when they are needed and not in memory.
    void requestEvents();
    void takeEvents(const std::shared_ptr<timeline::Timeline>& window, double from, double to,
                    double milliseconds);
    QRectF rowRect(uint32_t row) const;
    double xOf(double time) const;
    double timeAt(double x) const;
    QString describeAt(QPointF point) const;
    QRectF plotArea() const;
    void drawCriticalPath(QPainter& painter) const;
    void drawCollectives(QPainter& painter) const;
    bool startsNode(uint32_t position) const;
    bool onCriticalPath(uint32_t rank, double time, double slack) const;
    bool showInstance(std::optional<uint64_t> instance);
    /// The instances whose waiting overlaps [from, to] with their numbers, in time order, read
    /// from the instances file (the last window's are kept: a frame reads nothing again).
    const std::vector<std::pair<uint64_t, analysis::PatternInstance>>& instancesIn(double from,
                                                                                   double to) const;
    /// How many instances begin waiting in [from, to] (kept for the last window).
    uint64_t instancesStartingIn(double from, double to) const;
    int bandHeight() const;
    size_t drawnLevel(double pixel) const;
    void drawBand(QPainter& painter) const;
    void drawRowsFromSummary(QPainter& painter) const;

    timeline::Timeline m_timeline;
    timeline::InstanceFinder m_finder; ///< on m_timeline's instances
    std::optional<timeline::TimelineSummary> m_summary;
    // The instances of the last window asked for (instancesIn()), and the count of the last
    // instancesStartingIn(): the file is read when the window changes, not every frame.
    mutable std::pair<double, double> m_shownWindow{0.0, -1.0};
    mutable std::vector<std::pair<uint64_t, analysis::PatternInstance>> m_shown;
    mutable std::pair<double, double> m_countedWindow{0.0, -1.0};
    mutable uint64_t m_counted = 0;
    double m_from = 0.0;
    double m_to = 1.0;
    bool m_depthMode = false;
    bool m_showPath = true;
    bool m_byNode = false;
    std::vector<uint32_t> m_order;    ///< display position -> row
    std::vector<uint32_t> m_position; ///< row -> display position
    std::optional<QPointF> m_dragFrom;
    double m_dragStart = 0.0;
    std::shared_ptr<const timeline::TimelineStore> m_store;
    double m_loadedFrom = 0.0; ///< the events in memory cover [m_loadedFrom, m_loadedTo]
    double m_loadedTo = -1.0;
    bool m_reading = false;         ///< a worker reads a window
    bool m_readingFindings = false; ///< a worker reads instances.txt and critical_path.txt
    int m_reads = 0;
    double m_lastRead = 0.0;
};

} // namespace waitscope::gui
