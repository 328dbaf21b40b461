// TimelineView: the trace over time, one row per location, with messages and wait states.
#pragma once

#include "instance_finder.h"
#include "timeline_data.h"
#include "timeline_store.h"
#include "timeline_summary.h"

#include <QPainter>
#include <QWidget>
#include <array>
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
    /// and the events of the window it shows (with a margin of at least one width on either
    /// side, more where the window holds few), read on a worker thread whenever the window
    /// leaves them, and read ahead while the window is a few zoom steps from being drawn from
    /// them; until they arrive the rows are drawn from the overview. The wait-state instances
    /// of the same range are read with them (from the instances file), so that no frame reads
    /// that file; whether a window holds too many to draw is told from the file's index of
    /// blocks, or counted in memory. When the picture needs them and every page of both reads
    /// is in the page cache, the GUI thread reads them itself (a copy bounded like a frame's
    /// drawing); it never waits for the disk.
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
    /// Whether the window is drawn from its events and they are still being read on the worker
    /// (until then its picture is the overview's).
    bool detailPending() const;
    /// The events in memory cover [loadedStart(), loadedEnd()] (empty without a store).
    double loadedStart() const { return m_loadedFrom; }
    double loadedEnd() const { return m_loadedTo; }
    /// For batch use (screenshots, benchmarks): runs the event loop until the findings
    /// (instances, critical path) and the window's events have arrived.
    void waitForEvents();
    /// Window reads done, those done at once on the GUI thread (from the page cache) and the
    /// time the last one took (ms), for the benchmark.
    int windowReads() const { return m_reads; }
    int windowReadsAtOnce() const { return m_readsAtOnce; }
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
    using Instances = std::vector<std::pair<uint64_t, analysis::PatternInstance>>;
    /// A window's events and the instances overlapping it, read together.
    struct WindowRead {
        timeline::Timeline events;
        Instances instances;
    };
    /// Reads [from, to] of `store` and `instances`; with `fromMemory` only from the page cache
    /// (an error as soon as a page is not there). Instances that cannot be read are left out
    /// (none drawn, as without the file).
    static Result<WindowRead> readWindow(const timeline::TimelineStore& store,
                                         const analysis::InstanceFile& instances, double from,
                                         double to, bool fromMemory);
    /// Takes a read of [from, to] as the window's events and instances in memory.
    void takeRead(WindowRead&& read, double from, double to);
    void initialise();
    void takeFindings(const std::shared_ptr<timeline::Timeline>& findings);
    /// Whether the window holds too many visits or wait states to draw one by one.
    bool tooManyToDraw() const;
    /// The most visits or wait states drawn one by one: four per pixel column.
    double drawLimit() const;
    /// The visits in [from, to] as the overview's `level` counts them (bins partly inside by
    /// their share).
    double estimatedVisits(double from, double to, size_t level) const;
    /// Starts reading events on a worker when the window is drawn from them, or is a few zoom
    /// steps from it, and they are not in memory: the window with a margin (readRange()).
    void requestEvents();
    /// What requestEvents() reads: the window and at least its width on either side, widened
    /// while the overview counts at most kReadAhead draw limits of visits in it.
    std::pair<double, double> readRange() const;
    /// Takes a worker's read of [from, to] unless a read on the GUI thread came after it was
    /// asked for (`generation` is m_generation's then).
    void takeEvents(const std::shared_ptr<WindowRead>& window, double from, double to,
                    double milliseconds, uint64_t generation);
    QRectF rowRect(uint32_t row) const;
    double xOf(double time) const;
    double timeAt(double x) const;
    QString describeAt(QPointF point) const;
    QRectF plotArea() const;
    void drawCriticalPath(QPainter& painter) const;
    void drawCollectives(QPainter& painter) const;
    bool startsNode(uint32_t position) const;
    bool onCriticalPath(uint32_t row, double time, double slack) const;
    bool showInstance(std::optional<uint64_t> instance);
    /// The instances whose waiting overlaps [from, to] with their numbers, in time order (the
    /// last window's are kept: a frame looks for nothing again).
    const Instances& instancesIn(double from, double to) const;
    /// The same, not kept: with a store, those read with the events in memory (none outside
    /// them); without, read from the instances file.
    Instances instancesOverlapping(double from, double to) const;
    /// How many instances begin waiting in (from, to] (kept for the last window). With a store
    /// from the instances file's index of blocks, exact when the blocks tell or when the window's
    /// instances are in memory; else the least the blocks allow (the window's events are then
    /// read and the count made exact): never a read of the file.
    uint64_t instancesStartingIn(double from, double to) const;
    int bandHeight() const;
    size_t drawnLevel(double pixel) const;
    /// The band's MPI and waiting shares of every bin of `level` (summed at its first use).
    const std::array<std::vector<timeline::ShareRange>, 2>& bandShares(size_t level) const;
    void drawBand(QPainter& painter) const;
    void drawRowsFromSummary(QPainter& painter) const;

    timeline::Timeline m_timeline;
    timeline::InstanceFinder m_finder; ///< on m_timeline's instances
    std::optional<timeline::TimelineSummary> m_summary;
    // The instances of the last window asked for (instancesIn()), and the count of the last
    // instancesStartingIn(): the file is read when the window changes, not every frame.
    mutable std::pair<double, double> m_shownWindow{0.0, -1.0};
    mutable Instances m_shown;
    mutable std::pair<double, double> m_countedWindow{0.0, -1.0};
    mutable uint64_t m_counted = 0;
    mutable std::vector<std::array<std::vector<timeline::ShareRange>, 2>> m_bandShares;
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
    Instances m_loadedInstances;    ///< those overlapping [m_loadedFrom, m_loadedTo], time order
    bool m_reading = false;         ///< a worker reads a window
    bool m_readingFindings = false; ///< a worker reads instances.txt and critical_path.txt
    int m_reads = 0;
    int m_readsAtOnce = 0;
    uint64_t m_generation = 0; ///< reads on the GUI thread: a worker's older read is stale
    double m_lastRead = 0.0;
};

} // namespace waitscope::gui
