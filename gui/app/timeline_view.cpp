// Painting the timeline: blocks per row and depth from Timeline::visible(), so the cost of a
// frame follows the pixels, not the events.
#include "timeline_view.h"

#include "waitscope/analysis/metric.h"
#include "waitscope/analysis/wait_instances.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QPointer>
#include <QThreadPool>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <optional>
#include <unordered_set>

namespace waitscope::gui {
namespace {

constexpr int kLabelWidth = 130;
constexpr int kRulerHeight = 28;
constexpr int kLegendHeight = 26;
constexpr int kRowHeight = 34;
constexpr int kDepthHeight = 12;
constexpr int kNodeHeader = 18; ///< the node's name above its rows, when grouped by node
constexpr int kBandStrip = 22;  ///< one strip of the metrics band (MPI share, waiting share)
const QColor kPathColour(0xc0, 0x10, 0xc0);
/// Up to this many points the critical path is one smooth wide line, beyond it bars and thin lines.
constexpr qsizetype kSmoothPathPoints = 64;
/// Up to this many messages in view they are drawn with a wider smooth pen.
constexpr size_t kSmoothMessages = 64;
/// The events are read ahead while the window holds at most this many draw limits of visits
/// (drawn from the overview until it holds one: about four zoom steps of 0.72 in), so that the
/// step that first draws them finds them in memory.
constexpr double kReadAhead = 4.0;
/// A read is widened (in doublings of its margin) while it holds at most this many draw limits:
/// zooming out and panning then stay in memory until the window is drawn from the overview again.
constexpr double kReadBudget = 12.0;

QColor kindColour(timeline::RegionKind kind) {
    using timeline::RegionKind;
    switch (kind) {
    case RegionKind::Computation:
        return QColor(0x9c, 0xc6, 0x8f);
    case RegionKind::PointToPoint:
        return QColor(0x3f, 0x7f, 0xd0);
    case RegionKind::Collective:
        return QColor(0xe6, 0x8a, 0x2e);
    case RegionKind::Synchronization:
        return QColor(0xd8, 0xc0, 0x30);
    case RegionKind::Io:
        return QColor(0x8e, 0x5f, 0xb5);
    case RegionKind::OneSided:
        return QColor(0x2c, 0xae, 0xa6);
    case RegionKind::Management:
        return QColor(0xa0, 0xa0, 0xa0);
    case RegionKind::Threads:
        return QColor(0xc4, 0x8b, 0xc0);
    default:
        return QColor(0x60, 0x60, 0x60);
    }
}

// Wait states in shades of red, one per pattern.
QColor patternColour(analysis::Metric metric) {
    static const QColor kShades[] = {QColor(0xd7, 0x30, 0x27), QColor(0xb2, 0x18, 0x2b),
                                     QColor(0xf4, 0x6d, 0x43), QColor(0x99, 0x00, 0x0d)};
    return kShades[static_cast<size_t>(metric) % std::size(kShades)];
}

// "1.5 s", "12.3 ms", "4 us" for ruler labels and tooltips.
QString formatSeconds(double seconds) {
    const double magnitude = std::abs(seconds);
    if (magnitude >= 1.0 || magnitude == 0.0)
        return QStringLiteral("%1 s").arg(seconds, 0, 'g', 6);
    if (magnitude >= 1e-3)
        return QStringLiteral("%1 ms").arg(seconds * 1e3, 0, 'g', 6);
    if (magnitude >= 1e-6)
        return QStringLiteral("%1 us").arg(seconds * 1e6, 0, 'g', 6);
    return QStringLiteral("%1 ns").arg(seconds * 1e9, 0, 'g', 6);
}

} // namespace

TimelineView::TimelineView(timeline::Timeline timeline, QWidget* parent)
    : QWidget(parent), m_timeline(std::move(timeline)), m_finder(m_timeline.sharedInstances()),
      m_summary(timeline::TimelineSummary::cached(m_timeline)) {
    initialise();
}

TimelineView::TimelineView(std::shared_ptr<const timeline::TimelineStore> store, QWidget* parent)
    : QWidget(parent), m_timeline(store->skeleton()), m_finder(m_timeline.sharedInstances()),
      m_summary(store->summary()), m_store(std::move(store)) {
    initialise();
}

void TimelineView::initialise() {
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setWindowTitle(QStringLiteral("Waitscope timeline"));
    setGroupByNode(false);
    m_from = m_timeline.begin();
    m_to = m_timeline.end() > m_timeline.begin() ? m_timeline.end() : m_timeline.begin() + 1.0;
    if (m_store) {
        // The findings (instances.txt can be hundreds of MB) on a worker, as the events.
        m_readingFindings = true;
        const QPointer<TimelineView> view(this);
        QThreadPool::globalInstance()->start([view, anchor = m_timeline.anchor()] {
            auto findings = std::make_shared<timeline::Timeline>();
            findings->setAnchor(anchor);
            const bool read = static_cast<bool>(findings->loadFindings());
            // Qt owns the functor it allocates for the queued call (the analyzer cannot see it).
            // NOLINTNEXTLINE(clang-analyzer-cplusplus.NewDeleteLeaks)
            QMetaObject::invokeMethod(
                QCoreApplication::instance(),
                [view, findings, read] {
                    if (view)
                        view->takeFindings(read ? findings : nullptr);
                },
                Qt::QueuedConnection);
        });
    }
    requestEvents();
}

void TimelineView::takeFindings(const std::shared_ptr<timeline::Timeline>& findings) {
    m_readingFindings = false;
    if (findings) { // unreadable: the timeline shows no instances, as without the files
        m_timeline.takeFindings(std::move(*findings));
        m_finder.reset(m_timeline.sharedInstances());
        m_shownWindow = m_countedWindow = {0.0, -1.0};
        if (m_store && !m_timeline.instances().empty()) {
            // The events in memory, or in flight, were read without the instances: again with
            // them (a worker's read in flight is then stale).
            m_loadedFrom = 0.0;
            m_loadedTo = -1.0;
            m_loadedInstances.clear();
            ++m_generation;
            requestEvents();
        }
    }
    update();
    emit pickedChanged(pickedText());
}

bool TimelineView::eventsLoaded() const {
    return !m_store || (m_loadedFrom <= m_from && m_to <= m_loadedTo);
}

bool TimelineView::detailPending() const {
    return !eventsLoaded() && !tooManyToDraw();
}

std::pair<double, double> TimelineView::readRange() const {
    // At least one width of margin on either side: panning by less than a width reads nothing.
    // Where the window holds few visits the margin doubles while the read stays within the
    // budget, so that a read holds about as many visits at any zoom (a few hundred kB), and the
    // steps after it (zooming out up to the overview, panning) need no other.
    const double width = m_to - m_from;
    const double budget = kReadBudget * drawLimit();
    const double span = m_timeline.end() - m_timeline.begin();
    double margin = width;
    while (m_summary && margin < span) {
        const double from = m_from - 2 * margin;
        const double to = m_to + 2 * margin;
        if (estimatedVisits(from, to, m_summary->levelFor((to - from) / 256)) > budget)
            break;
        margin *= 2;
    }
    return {m_from - margin, m_to + margin};
}

void TimelineView::requestEvents() {
    if (!m_store || eventsLoaded())
        return;
    const bool needed = !tooManyToDraw();
    if (needed) {
        // The picture needs them now: read here when every page of the read is in the page
        // cache (a copy bounded by the read budget, about what drawing them costs), never
        // waiting for the disk; else on the worker, the overview drawn meanwhile. A worker's
        // read still in flight is then stale.
        const auto [from, to] = readRange();
        QElapsedTimer clock;
        clock.start();
        if (auto read = readWindow(*m_store, m_timeline.instances(), from, to, true)) {
            ++m_generation;
            ++m_reads;
            ++m_readsAtOnce;
            m_lastRead = static_cast<double>(clock.nsecsElapsed()) / 1e6;
            takeRead(std::move(*read), from, to);
            return;
        }
    }
    if (m_reading)
        return; // asked again when the read in flight arrives
    // Read ahead while the window holds few enough visits that a few zoom steps in will draw
    // them (on the worker: the GUI thread draws the overview meanwhile).
    if (!needed && m_summary) {
        const double ahead = kReadAhead * drawLimit();
        if (static_cast<double>(instancesStartingIn(m_from, m_to)) > ahead ||
            estimatedVisits(m_from, m_to, m_summary->levelFor((m_to - m_from) / 256)) > ahead)
            return;
    }
    // Named, not bound: a lambda cannot capture a structured binding before C++20.
    const std::pair<double, double> range = readRange();
    const double from = range.first;
    const double to = range.second;
    m_reading = true;
    const QPointer<TimelineView> view(this);
    QThreadPool::globalInstance()->start([view, store = m_store,
                                          instances = m_timeline.sharedInstances(), from, to,
                                          generation = m_generation] {
        QElapsedTimer clock;
        clock.start();
        auto read = readWindow(*store, *instances, from, to, false);
        // An unreadable cache leaves the overview drawn: the window stays without events.
        auto window = read ? std::make_shared<WindowRead>(std::move(*read)) : nullptr;
        const double milliseconds = static_cast<double>(clock.nsecsElapsed()) / 1e6;
        QMetaObject::invokeMethod(
            QCoreApplication::instance(),
            [view, window, from, to, milliseconds, generation] {
                if (view)
                    view->takeEvents(window, from, to, milliseconds, generation);
            },
            Qt::QueuedConnection);
    });
}

Result<TimelineView::WindowRead> TimelineView::readWindow(const timeline::TimelineStore& store,
                                                          const analysis::InstanceFile& instances,
                                                          double from, double to, bool fromMemory) {
    auto events = fromMemory ? store.windowInMemory(from, to) : store.window(from, to);
    if (!events)
        return events.error();
    WindowRead read{std::move(*events), {}};
    const auto mode = fromMemory ? analysis::InstanceFile::ReadMode::FromMemory
                                 : analysis::InstanceFile::ReadMode::Wait;
    if (Status status = instances.window(from, to, read.instances, mode); !status) {
        if (fromMemory)
            return status.error(); // not in memory (or unreadable): the worker reads it
        read.instances.clear();    // unreadable: none drawn (the finder's steps say why)
    }
    read.events.indexMessages(); // here rather than in the first frame
    return read;
}

void TimelineView::takeRead(WindowRead&& read, double from, double to) {
    m_timeline.takeEvents(std::move(read.events));
    m_loadedInstances = std::move(read.instances);
    m_loadedFrom = from;
    m_loadedTo = to;
    m_shownWindow = m_countedWindow = {0.0, -1.0}; // counted from memory now
}

void TimelineView::takeEvents(const std::shared_ptr<WindowRead>& window, double from, double to,
                              double milliseconds, uint64_t generation) {
    m_reading = false;
    if (generation == m_generation) { // else read here meanwhile: dropped
        ++m_reads;
        m_lastRead = milliseconds;
        if (window) {
            takeRead(std::move(*window), from, to);
        } else {
            m_store.reset(); // cannot read: keep what is in memory, stop reading
        }
        if (!tooManyToDraw())
            update(); // else read ahead: the overview shown stays
        emit eventsArrived();
    }
    requestEvents(); // the window moved on while this one was read
}

void TimelineView::waitForEvents() {
    requestEvents();
    while (m_reading || m_readingFindings)
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
}

void TimelineView::setWindow(double from, double to) {
    const double begin = m_timeline.begin();
    const double end = std::max(m_timeline.end(), begin + 1e-9);
    const double width = std::clamp(to - from, 1e-9, end - begin);
    from = std::clamp(from, begin, end - width);
    m_from = from;
    m_to = from + width;
    requestEvents();
    update();
}

void TimelineView::zoom(double factor, double anchor) {
    const double at = m_from + anchor * (m_to - m_from);
    setWindow(at - (at - m_from) * factor, at + (m_to - at) * factor);
}

void TimelineView::pan(double fraction) {
    const double shift = fraction * (m_to - m_from);
    setWindow(m_from + shift, m_to + shift);
}

void TimelineView::pick(const timeline::InstanceFilter& filter) {
    m_finder.select(filter);
    update();
    emit pickedChanged(pickedText());
}

bool TimelineView::showInstance(std::optional<uint64_t> instance) {
    if (instance && m_finder.currentInstance()) {
        const auto [from, to] =
            timeline::InstanceFinder::windowAround(*m_finder.currentInstance(), 1e-6);
        setWindow(from, to);
    }
    update();
    emit pickedChanged(pickedText());
    return instance.has_value();
}

bool TimelineView::showNext() {
    return showInstance(m_finder.next());
}

bool TimelineView::showPrevious() {
    return showInstance(m_finder.previous());
}

bool TimelineView::showWorst() {
    return showInstance(m_finder.worst());
}

QString TimelineView::pickedText() const {
    const uint64_t picked = m_finder.pickedCount();
    if (m_timeline.instances().empty())
        return QStringLiteral("no wait-state instances (no instances.bin or instances.txt)");
    if (!m_finder.error().empty())
        return QString::fromStdString(m_finder.error());
    const auto& current = m_finder.currentInstance();
    if (!current)
        return QStringLiteral("%1 of %2 wait-state instances picked")
            .arg(picked)
            .arg(m_timeline.instances().size());
    const analysis::PatternInstance& i = *current;
    const std::string_view name = analysis::metricInfo(i.metric).displayName;
    return QStringLiteral("instance %1 of %2: %3, rank %4, cnode %5, at %6, %7 waiting")
        .arg(*m_finder.position() + 1)
        .arg(picked)
        .arg(QString::fromLatin1(name.data(), static_cast<qsizetype>(name.size())))
        .arg(i.rank)
        .arg(i.node)
        .arg(formatSeconds(i.enter), formatSeconds(i.severity));
}

const std::vector<std::pair<uint64_t, analysis::PatternInstance>>&
TimelineView::instancesIn(double from, double to) const {
    if (m_shownWindow != std::pair(from, to)) {
        m_shown = instancesOverlapping(from, to);
        m_shownWindow = {from, to};
    }
    return m_shown;
}

TimelineView::Instances TimelineView::instancesOverlapping(double from, double to) const {
    Instances found;
    if (!m_store) {
        // Unreadable: none drawn (the finder's steps say why).
        if (!m_timeline.instances().window(from, to, found))
            found.clear();
        return found;
    }
    for (const auto& entry : m_loadedInstances) {
        const auto [start, end] = analysis::waitingInterval(entry.second);
        if (start > to)
            break;
        if (end >= from)
            found.push_back(entry);
    }
    return found;
}

uint64_t TimelineView::instancesStartingIn(double from, double to) const {
    if (m_countedWindow == std::pair(from, to))
        return m_counted;
    m_countedWindow = {from, to};
    const analysis::InstanceFile& file = m_timeline.instances();
    if (!m_store) {
        const auto last = file.startsBy(to);
        const auto first = file.startsBy(from);
        m_counted = last && first && *last > *first ? *last - *first : 0;
        return m_counted;
    }
    // How many begin by `time`, as the blocks bound it: the blocks that begin by then hold
    // them, all but the last's first record may begin later.
    const auto startsBy = [&file](double time) -> std::pair<uint64_t, uint64_t> {
        const auto& blocks = file.blocks();
        const auto b = static_cast<uint64_t>(
            std::partition_point(blocks.begin(), blocks.end(),
                                 [time](const auto& block) { return block.firstStart <= time; }) -
            blocks.begin());
        constexpr uint64_t kBlock = analysis::InstanceFile::kBlockRecords;
        if (b == 0)
            return {0, 0};
        return {(b - 1) * kBlock + 1, std::min(b * kBlock, file.size())};
    };
    const auto [lastLow, lastHigh] = startsBy(to);
    const auto [firstLow, firstHigh] = startsBy(from);
    const uint64_t low = lastLow > firstHigh ? lastLow - firstHigh : 0;
    const uint64_t high = lastHigh > firstLow ? lastHigh - firstLow : 0;
    m_counted = low;
    if (low != high && m_loadedFrom <= from && to <= m_loadedTo) {
        m_counted = 0;
        for (const auto& entry : m_loadedInstances) {
            const double start = analysis::waitingInterval(entry.second).first;
            if (start > to)
                break;
            m_counted += start > from ? 1 : 0;
        }
    }
    return m_counted;
}

void TimelineView::setCriticalPathShown(bool on) {
    m_showPath = on;
    update();
}

void TimelineView::setDepthMode(bool on) {
    m_depthMode = on;
    update();
}

QRectF TimelineView::plotArea() const {
    return QRectF(kLabelWidth, kRulerHeight, std::max(1, width() - kLabelWidth - 8),
                  std::max(1, height() - kRulerHeight - kLegendHeight));
}

int TimelineView::bandHeight() const {
    return m_summary ? 2 * kBandStrip + 8 : 0;
}

bool TimelineView::drawsFromSummary() const {
    return m_summary && (tooManyToDraw() || !eventsLoaded());
}

double TimelineView::drawLimit() const {
    return std::floor(4 * plotArea().width());
}

double TimelineView::estimatedVisits(double from, double to, size_t level) const {
    const double width = m_summary->binWidth(level);
    const auto first = static_cast<uint32_t>(
        std::clamp((from - m_summary->begin()) / width, 0.0, m_summary->binsAt(level) - 1.0));
    // A bin partly in the window counts by the share of it in the window (a narrow window in
    // one bin of thousands of visits holds a few of them).
    double visits = 0.0;
    for (uint32_t r = 0; r < m_summary->rows(); ++r)
        for (uint32_t b = first;
             b < m_summary->binsAt(level) && m_summary->begin() + b * width < to; ++b) {
            const double start = m_summary->begin() + b * width;
            const double inside = std::min(to, start + width) - std::max(from, start);
            visits += m_summary->bin(level, r, b).visits * std::clamp(inside / width, 0.0, 1.0);
        }
    return visits;
}

bool TimelineView::tooManyToDraw() const {
    const double pixel = (m_to - m_from) / plotArea().width();
    if (!m_summary)
        return false;
    // The events when there are few enough to draw (exact, with messages and wait states);
    // else the overview, even with bins a few pixels wide (a long run's finest bin can hold
    // thousands of visits): a frame's work stays bounded, and no window of millions is read.
    const double limit = drawLimit();
    if (static_cast<double>(instancesStartingIn(m_from, m_to)) > limit)
        return true; // more wait states than can be drawn one by one
    return estimatedVisits(m_from, m_to, m_summary->levelFor(pixel)) > limit;
}

size_t TimelineView::drawnLevel(double pixel) const {
    // Bins one to two pixels wide: narrower ones would overlap when drawn.
    size_t level = m_summary->levelFor(pixel);
    if (m_summary->binWidth(level) < pixel && level + 1 < m_summary->levels())
        ++level;
    return level;
}

const std::array<std::vector<timeline::ShareRange>, 2>&
TimelineView::bandShares(size_t level) const {
    // Summed over every bin of the level once: a frame then reads only the bins in view.
    m_bandShares.resize(m_summary->levels());
    auto& shares = m_bandShares[level];
    if (shares[0].empty()) {
        std::vector<uint32_t> mainRows;
        for (uint32_t r = 0; r < m_timeline.rows().size(); ++r)
            if (m_timeline.rows()[r].thread == 0)
                mainRows.push_back(r);
        shares = {m_summary->mpiShare(level, mainRows), m_summary->waitingShare(level, mainRows)};
    }
    return shares;
}

void TimelineView::drawBand(QPainter& painter) const {
    if (!m_summary)
        return;
    const QRectF area = plotArea();
    const double pixel = (m_to - m_from) / area.width();
    const size_t level = drawnLevel(pixel);
    const double width = m_summary->binWidth(level);
    const auto& strips = bandShares(level);
    const QString names[] = {QStringLiteral("MPI share"), QStringLiteral("waiting share")};
    const QColor colours[] = {kindColour(timeline::RegionKind::PointToPoint),
                              patternColour(analysis::Metric::MpiLateSender)};
    const auto first = static_cast<uint32_t>(
        std::clamp((m_from - m_summary->begin()) / width, 0.0, m_summary->binsAt(level) - 1.0));
    for (int s = 0; s < 2; ++s) {
        const double top = kRulerHeight + 2 + s * (kBandStrip + 2);
        painter.setPen(palette().text().color());
        painter.drawText(QRectF(4, top, kLabelWidth - 8, kBandStrip),
                         Qt::AlignVCenter | Qt::AlignLeft, names[s]);
        painter.fillRect(QRectF(area.left(), top, area.width(), kBandStrip),
                         palette().alternateBase());
        QColor range = colours[s];
        range.setAlpha(90);
        for (uint32_t b = first; b < m_summary->binsAt(level); ++b) {
            const double start = m_summary->begin() + b * width;
            if (start > m_to)
                break;
            const double left = std::max(area.left(), xOf(start));
            const double right = std::min(area.right(), xOf(start + width));
            const timeline::ShareRange& share = strips[s][b];
            const auto yOf = [&](double v) { return top + kBandStrip * (1.0 - v); };
            painter.fillRect(QRectF(left, yOf(share.max), std::max(1.0, right - left),
                                    std::max(1.0, yOf(share.min) - yOf(share.max))),
                             range);
            painter.fillRect(QRectF(left, yOf(share.mean) - 1, std::max(1.0, right - left), 2),
                             colours[s]);
        }
    }
}

void TimelineView::drawRowsFromSummary(QPainter& painter) const {
    const QRectF area = plotArea();
    const double pixel = (m_to - m_from) / area.width();
    const size_t level = drawnLevel(pixel);
    const double width = m_summary->binWidth(level);
    const auto first = static_cast<uint32_t>(
        std::clamp((m_from - m_summary->begin()) / width, 0.0, m_summary->binsAt(level) - 1.0));
    const QColor waitColour = patternColour(analysis::Metric::MpiLateSender);
    for (uint32_t r = 0; r < m_summary->rows() && r < m_timeline.rows().size(); ++r) {
        const QRectF box = rowRect(r);
        for (uint32_t b = first; b < m_summary->binsAt(level); ++b) {
            const double start = m_summary->begin() + b * width;
            if (start > m_to)
                break;
            const timeline::Bin& bin = m_summary->bin(level, r, b);
            const double covered = bin.covered() / width;
            if (covered <= 0.0)
                continue;
            const double left = std::max(area.left() - 1, xOf(start));
            const double right = std::min(area.right() + 1, xOf(start + width));
            QColor colour = kindColour(bin.dominant());
            colour.setAlpha(static_cast<int>(90 + 165 * std::min(1.0, covered)));
            painter.fillRect(QRectF(left, box.top(), std::max(1.0, right - left), box.height()),
                             colour);
            const double waiting = std::min(1.0, static_cast<double>(bin.waiting) / width);
            if (waiting > 0.0) {
                const double h = box.height() * 0.55 * waiting;
                painter.fillRect(QRectF(left, box.bottom() - h, std::max(1.0, right - left), h),
                                 waitColour);
            }
        }
    }
}

void TimelineView::setGroupByNode(bool on) {
    m_byNode = on;
    // Display order: as read (rank order), or stably by node, so each node's ranks are together.
    m_order.resize(m_timeline.rows().size());
    for (uint32_t r = 0; r < m_order.size(); ++r)
        m_order[r] = r;
    if (on)
        std::stable_sort(m_order.begin(), m_order.end(), [this](uint32_t a, uint32_t b) {
            return m_timeline.rows()[a].node < m_timeline.rows()[b].node;
        });
    m_position.resize(m_order.size());
    for (uint32_t p = 0; p < m_order.size(); ++p)
        m_position[m_order[p]] = p;
    update();
}

bool TimelineView::startsNode(uint32_t position) const {
    return m_byNode && (position == 0 || m_timeline.rows()[m_order[position]].node !=
                                             m_timeline.rows()[m_order[position - 1]].node);
}

QRectF TimelineView::rowRect(uint32_t row) const {
    double y = kRulerHeight + bandHeight() + 4;
    const uint32_t position = m_position.empty() ? row : m_position[row];
    const auto heightOf = [this](uint32_t r) {
        const size_t depths = std::max<size_t>(1, m_timeline.rows()[r].depths.size());
        return m_depthMode ? static_cast<double>(depths * kDepthHeight) : kRowHeight;
    };
    for (uint32_t p = 0; p < position; ++p)
        y += heightOf(m_order.empty() ? p : m_order[p]) + 6 + (startsNode(p) ? kNodeHeader : 0);
    if (startsNode(position))
        y += kNodeHeader;
    return QRectF(kLabelWidth, y, plotArea().width(), heightOf(row));
}

double TimelineView::xOf(double time) const {
    const QRectF area = plotArea();
    return area.left() + (time - m_from) / (m_to - m_from) * area.width();
}

double TimelineView::timeAt(double x) const {
    const QRectF area = plotArea();
    return m_from + (x - area.left()) / area.width() * (m_to - m_from);
}

void TimelineView::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.fillRect(rect(), palette().base());
    const QRectF area = plotArea();
    const double pixel = (m_to - m_from) / area.width();

    // Ruler: about one label per 120 pixels at a round step.
    painter.setPen(palette().text().color());
    const double rawStep = (m_to - m_from) / std::max(1.0, area.width() / 120.0);
    const double magnitude = std::pow(10.0, std::floor(std::log10(rawStep)));
    double step = magnitude;
    for (const double m : {1.0, 2.0, 5.0, 10.0})
        if (magnitude * m >= rawStep) {
            step = magnitude * m;
            break;
        }
    const double first = std::ceil(m_from / step);
    for (int64_t k = 0; (first + static_cast<double>(k)) * step <= m_to; ++k) {
        const double t = (first + static_cast<double>(k)) * step;
        const double x = xOf(t);
        painter.drawLine(QPointF(x, kRulerHeight - 8), QPointF(x, kRulerHeight - 2));
        painter.drawText(QPointF(x + 3, kRulerHeight - 10), formatSeconds(t));
    }
    painter.drawLine(QPointF(area.left(), kRulerHeight - 2),
                     QPointF(area.right(), kRulerHeight - 2));

    drawBand(painter);
    painter.save();
    const bool fromSummary = drawsFromSummary();
    for (uint32_t r = 0; r < m_timeline.rows().size(); ++r) {
        const timeline::Row& row = m_timeline.rows()[r];
        const QRectF box = rowRect(r);
        painter.setClipping(false);
        painter.setPen(palette().text().color());
        const QString label = row.thread == 0 ? QStringLiteral("rank %1").arg(row.rank)
                                              : QStringLiteral("  thread %1").arg(row.thread);
        painter.drawText(QRectF(m_byNode ? 14 : 4, box.top(), kLabelWidth - 8, box.height()),
                         Qt::AlignVCenter | Qt::AlignLeft, label);
        if (startsNode(m_position[r])) {
            // The node's name and a rule above its rows.
            const double top = box.top() - kNodeHeader;
            painter.drawText(
                QRectF(4, top, width() - 8, kNodeHeader), Qt::AlignVCenter | Qt::AlignLeft,
                QStringLiteral("node %1").arg(row.node.empty() ? QStringLiteral("(unknown)")
                                                               : QString::fromStdString(row.node)));
            painter.drawLine(QPointF(kLabelWidth, top + kNodeHeader / 2.0),
                             QPointF(area.right(), top + kNodeHeader / 2.0));
        }
        painter.setClipRect(area);
        painter.setPen(Qt::NoPen);
        for (size_t depth = 0; depth < row.depths.size() && !fromSummary; ++depth) {
            const double top =
                m_depthMode ? box.top() + static_cast<double>(depth * kDepthHeight) : box.top();
            const double height = m_depthMode ? kDepthHeight - 1 : box.height();
            for (const timeline::Block& block : m_timeline.visible(r, depth, m_from, m_to, pixel)) {
                const double left = std::max(area.left() - 1, xOf(block.start));
                const double right = std::min(area.right() + 1, xOf(block.end));
                QColor colour = kindColour(m_timeline.regionKind(block.region));
                if (block.visits > 1)
                    colour = colour.darker(115);
                painter.fillRect(QRectF(left, top, std::max(1.0, right - left), height), colour);
            }
        }
    }
    // Wait states: shaded over the waiting part of the call, hatched so the call shows through;
    // those not picked faded, the current one outlined.
    if (fromSummary)
        drawRowsFromSummary(painter);
    // From the overview no instance is drawn: none is looked for (millions in a wide window).
    static const std::vector<std::pair<uint64_t, analysis::PatternInstance>> kNone;
    const auto& shown = fromSummary ? kNone : instancesIn(m_from, m_to);
    // Shades of one row within a pixel of each other, of one pattern and picked alike, are
    // drawn as one: a frame costs at most a few rectangles per pixel column and row.
    struct Pending {
        QRectF shade;
        QColor colour;
    };
    std::vector<std::optional<Pending>> pending(m_timeline.rows().size());
    const QBrush hatch(QColor(255, 255, 255, 110), Qt::BDiagPattern); // made once a frame
    const auto draw = [&painter, &hatch](const Pending& p) {
        painter.fillRect(p.shade, p.colour);
        painter.fillRect(p.shade, hatch);
    };
    for (size_t n = 0; n < shown.size() && !fromSummary; ++n) {
        const analysis::PatternInstance& instance = shown[n].second;
        const auto [from, to] = analysis::waitingInterval(instance);
        if (to < m_from || from > m_to)
            continue;
        const uint32_t row = m_timeline.rowOfRank(instance.rank);
        const QRectF box = rowRect(row);
        const double left = std::max(area.left() - 4, xOf(from));
        const double right = std::min(area.right() + 4, xOf(to));
        const QRectF shade(left, box.top() + box.height() * 0.45, std::max(2.0, right - left),
                           box.height() * 0.55);
        QColor colour = patternColour(instance.metric);
        if (!m_finder.isPicked(instance))
            colour.setAlpha(60);
        std::optional<Pending>& open = pending[row];
        if (open && open->colour == colour && shade.left() <= open->shade.right() + 1) {
            open->shade.setRight(std::max(open->shade.right(), shade.right()));
            continue;
        }
        if (open)
            draw(*open);
        open = Pending{shade, colour};
    }
    for (const std::optional<Pending>& open : pending)
        if (open)
            draw(*open);
    if (const auto& current = m_finder.currentInstance()) {
        const analysis::PatternInstance& instance = *current;
        const QRectF box = rowRect(m_timeline.rowOfRank(instance.rank));
        // Clamped to the area: a dashed outline far wider than the view is slow to draw.
        const double left = std::max(area.left() - 8, xOf(instance.enter) - 2);
        const double right = std::min(area.right() + 8, xOf(instance.exit) + 2);
        painter.setPen(QPen(palette().text().color(), 2, Qt::DashLine));
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(
            QRectF(left, box.top() - 2, std::max(4.0, right - left), box.height() + 4));
        painter.setPen(Qt::NoPen);
    }
    // Messages: an arrow from the send to the receive.
    if (!fromSummary)
        drawCollectives(painter);
    painter.setRenderHint(QPainter::Antialiasing);
    drawCriticalPath(painter);
    const std::vector<const timeline::Message*> messages =
        fromSummary ? std::vector<const timeline::Message*>{}
                    : m_timeline.visibleMessages(m_from, m_to);
    // Dense messages: plain one-pixel lines without heads (they would cover each other anyway),
    // one per rows and pixel ends, drawn in one call: a wide pen per line is what costs.
    const bool dense = static_cast<double>(messages.size()) > area.width();
    // A few: 1.2-pixel smooth lines; more: one-pixel (cosmetic) ones, which are not stroked as
    // outlines (a thousand wide smooth lines took tens of ms a frame).
    const bool few = messages.size() <= kSmoothMessages;
    painter.setRenderHint(QPainter::Antialiasing, few && !dense);
    painter.setPen(QPen(QColor(0x20, 0x20, 0x20), dense || !few ? 0.0 : 1.2));
    std::unordered_set<uint64_t> drawn; // dense: one line per rows and pixel ends
    std::vector<QLineF> lines;
    lines.reserve(messages.size());
    QPainterPath heads;
    std::vector<QRectF> ends;
    for (const timeline::Message* m : messages) {
        const QRectF from = rowRect(m->fromRow);
        const QRectF to = rowRect(m->toRow);
        QPointF a(xOf(m->sendTime), from.center().y());
        QPointF b(xOf(m->receiveTime), to.center().y());
        if (dense) {
            const auto pixelOf = [&area](double x) {
                return static_cast<uint64_t>(std::clamp(x, area.left() - 10, area.right() + 10) +
                                             16) &
                       0xFFFF;
            };
            const uint64_t key = (uint64_t{m->fromRow & 0xFFFF} << 48) |
                                 (uint64_t{m->toRow & 0xFFFF} << 32) | (pixelOf(a.x()) << 16) |
                                 pixelOf(b.x());
            if (!drawn.insert(key).second)
                continue;
        }
        // Cut to the area: lines thousands of times wider than the view are slow to draw.
        const bool headShown = b.x() >= area.left() - 10 && b.x() <= area.right() + 10;
        const auto cut = [&](QPointF& end, const QPointF& other) {
            const double bound = std::clamp(end.x(), area.left() - 10, area.right() + 10);
            if (bound != end.x() && other.x() != end.x())
                end = other + (end - other) * ((bound - other.x()) / (end.x() - other.x()));
        };
        const QPointF originalA = a;
        cut(a, b);
        cut(b, originalA);
        lines.emplace_back(a, b);
        if (dense || !headShown)
            continue;
        if (!few) {
            // A small block at the receive end: a path of a thousand heads filled took tens of
            // ms a frame.
            ends.emplace_back(b.x() - 2, b.y() - 2, 4, 4);
            continue;
        }
        const double angle = std::atan2(b.y() - a.y(), b.x() - a.x());
        heads.moveTo(b);
        heads.lineTo(b - QPointF(std::cos(angle - 0.4), std::sin(angle - 0.4)) * 8);
        heads.lineTo(b - QPointF(std::cos(angle + 0.4), std::sin(angle + 0.4)) * 8);
        heads.closeSubpath();
    }
    painter.drawLines(lines.data(), static_cast<int>(lines.size()));
    if (!heads.isEmpty())
        painter.fillPath(heads, QColor(0x20, 0x20, 0x20));
    painter.setPen(Qt::NoPen);
    painter.setBrush(QColor(0x20, 0x20, 0x20));
    painter.drawRects(ends.data(), static_cast<int>(ends.size()));
    painter.setBrush(Qt::NoBrush);
    painter.restore();

    // Legend.
    double x = 8;
    const double y = height() - kLegendHeight + 6;
    for (size_t k = 0; k < static_cast<size_t>(timeline::RegionKind::Count_); ++k) {
        const auto kind = static_cast<timeline::RegionKind>(k);
        painter.fillRect(QRectF(x, y, 14, 14), kindColour(kind));
        const QString name = QString::fromLatin1(timeline::kindName(kind));
        painter.setPen(palette().text().color());
        painter.drawText(QPointF(x + 18, y + 12), name);
        x += 26 + painter.fontMetrics().horizontalAdvance(name);
    }
    painter.fillRect(QRectF(x, y, 14, 14), patternColour(analysis::Metric::MpiLateSender));
    painter.drawText(QPointF(x + 18, y + 12), QStringLiteral("wait state"));
    x += 26 + painter.fontMetrics().horizontalAdvance(QStringLiteral("wait state"));
    painter.drawLine(QPointF(x, y + 7), QPointF(x + 16, y + 7));
    painter.drawText(QPointF(x + 20, y + 12), QStringLiteral("message"));
    x += 28 + painter.fontMetrics().horizontalAdvance(QStringLiteral("message"));
    painter.setPen(QPen(QColor(0x9a, 0x4a, 0x00), 2));
    painter.drawLine(QPointF(x + 8, y), QPointF(x + 8, y + 14));
    painter.setPen(palette().text().color());
    painter.drawText(QPointF(x + 20, y + 12), QStringLiteral("collective"));
    x += 28 + painter.fontMetrics().horizontalAdvance(QStringLiteral("collective"));
    if (!m_timeline.criticalPath().empty()) {
        painter.setPen(QPen(kPathColour, 3));
        painter.drawLine(QPointF(x, y + 7), QPointF(x + 16, y + 7));
        painter.setPen(palette().text().color());
        painter.drawText(QPointF(x + 20, y + 12), QStringLiteral("critical path"));
    }
}

void TimelineView::drawCollectives(QPainter& painter) const {
    // Each collective: a bracket over its members' rows from the first begin to the last end,
    // and a line at the last member's begin, before which none could finish.
    const QRectF area = plotArea();
    const QColor colour(0x9a, 0x4a, 0x00);
    painter.setBrush(Qt::NoBrush);
    for (const timeline::Collective& c : m_timeline.collectives()) {
        if (c.start > m_to)
            break;
        if (c.end < m_from || c.rows.size() < 2)
            continue;
        double top = 1e300;
        double bottom = -1e300;
        for (const uint32_t row : c.rows) {
            const QRectF box = rowRect(row);
            top = std::min(top, box.top());
            bottom = std::max(bottom, box.bottom());
        }
        const double left = std::max(area.left() - 2, xOf(c.start));
        const double right = std::min(area.right() + 2, xOf(c.end));
        const double last = xOf(c.lastBegin);
        if (right - left >= 3) {
            painter.setPen(QPen(colour, 1, Qt::DotLine));
            painter.drawRect(QRectF(left, top - 1, right - left, bottom - top + 2));
        }
        if (last >= area.left() && last <= area.right()) {
            painter.setPen(QPen(colour, 2));
            painter.drawLine(QPointF(last, top), QPointF(last, bottom));
        }
    }
    painter.setPen(Qt::NoPen);
}

void TimelineView::drawCriticalPath(QPainter& painter) const {
    const std::vector<analysis::PathSegment>& path = m_timeline.criticalPath();
    if (!m_showPath || path.empty())
        return;
    // The stretches are one chain in time order: their ends are in order too.
    auto it = std::upper_bound(path.begin(), path.end(), m_from,
                               [](double t, const analysis::PathSegment& s) { return t < s.end; });
    if (it != path.begin())
        --it; // the hand-over into the first visible stretch
    // One polyline; points closer than half a pixel on the same row add nothing.
    QPolygonF line;
    const auto add = [&line](QPointF point) {
        if (line.isEmpty() || std::abs(point.x() - line.back().x()) >= 0.5 ||
            point.y() != line.back().y())
            line << point;
    };
    const QRectF area = plotArea();
    // The stretches starting by the end of the window (starts are in order as the ends are).
    const auto last = std::upper_bound(
        it, path.end(), m_to, [](double t, const analysis::PathSegment& s) { return t < s.start; });
    const bool sampled = last - it > 4 * static_cast<std::ptrdiff_t>(area.width());
    if (sampled) {
        // Far more stretches than pixels (a wide window of a long run): per pixel column the
        // rank the path is on there, found by binary search, so a frame's work is bounded by
        // its width, not by the run's length.
        const double pixel = (m_to - m_from) / area.width();
        const auto columns = static_cast<int>(area.width());
        double x = area.left();
        for (int column = 0; column <= columns; ++column) {
            x = area.left() + column;
            const double time = m_from + column * pixel;
            auto at = std::upper_bound(
                it, last, time, [](double t, const analysis::PathSegment& s) { return t < s.end; });
            if (at == last)
                break;
            const double y = rowRect(m_timeline.rowOfPath(*at)).top() + 3;
            if (line.isEmpty() || line.back().y() != y) {
                if (!line.isEmpty())
                    line << QPointF(x, line.back().y()); // the stretch ends, handed over here
                line << QPointF(x, y);
            }
        }
        if (!line.isEmpty())
            line << QPointF(x, line.back().y());
    }
    for (; !sampled && it != last; ++it) {
        const double y = rowRect(m_timeline.rowOfPath(*it)).top() + 3;
        add(QPointF(std::max(xOf(it->start), area.left() - 4), y));
        add(QPointF(std::min(xOf(it->end), area.right() + 4), y));
    }
    if (line.size() <= kSmoothPathPoints) {
        painter.setPen(QPen(kPathColour, 3, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
        painter.drawPolyline(line);
        return;
    }
    // Many stretches: stroking a wide smooth pen along hundreds of points is what made a frame
    // slow (tens of ms). The stretches on a rank as 3-pixel bars (axis-aligned fills) and the
    // hand-overs between ranks as two plain one-pixel lines: the same picture at a fraction.
    std::vector<QRectF> bars;
    std::vector<QLineF> handOvers;
    bars.reserve(static_cast<size_t>(line.size()));
    handOvers.reserve(2 * static_cast<size_t>(line.size()));
    for (qsizetype k = 1; k < line.size(); ++k) {
        const QPointF a = line[k - 1];
        const QPointF b = line[k];
        if (a.y() == b.y()) {
            bars.emplace_back(std::min(a.x(), b.x()) - 1, a.y() - 1.5, std::abs(b.x() - a.x()) + 2,
                              3);
        } else {
            handOvers.emplace_back(a, b);
            handOvers.emplace_back(a + QPointF(1, 0), b + QPointF(1, 0));
        }
    }
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, false);
    painter.setPen(Qt::NoPen);
    painter.setBrush(kPathColour);
    painter.drawRects(bars.data(), static_cast<int>(bars.size()));
    painter.setPen(QPen(kPathColour, 0));
    painter.drawLines(handOvers.data(), static_cast<int>(handOvers.size()));
    painter.restore();
}

bool TimelineView::onCriticalPath(uint32_t row, double time, double slack) const {
    for (const analysis::PathSegment& s : m_timeline.criticalPath())
        if (s.start - slack <= time && time <= s.end + slack && m_timeline.rowOfPath(s) == row)
            return true;
    return false;
}

QString TimelineView::describeAt(QPointF point) const {
    const double time = timeAt(point.x());
    const double pixel = (m_to - m_from) / plotArea().width();
    for (uint32_t r = 0; r < m_timeline.rows().size(); ++r) {
        const QRectF box = rowRect(r);
        if (!box.contains(point))
            continue;
        const timeline::Row& row = m_timeline.rows()[r];
        QStringList lines;
        lines << QStringLiteral("rank %1, %2").arg(row.rank).arg(QString::fromStdString(row.name));
        for (const auto& [number, instance] : instancesOverlapping(time - pixel, time + pixel)) {
            const auto [from, to] = analysis::waitingInterval(instance);
            if (instance.rank == row.rank && row.thread == 0 && from - pixel <= time &&
                time <= to + pixel)
                lines << QStringLiteral("wait state: %1, %2 (call path %3)")
                             .arg(QString::fromLatin1(
                                 analysis::metricInfo(instance.metric).displayName.data(),
                                 static_cast<qsizetype>(
                                     analysis::metricInfo(instance.metric).displayName.size())))
                             .arg(formatSeconds(instance.severity))
                             .arg(instance.node);
        }
        if (m_showPath && onCriticalPath(r, time, pixel))
            lines << QStringLiteral("on the critical path");
        // The visits under the cursor, outermost first.
        QStringList path;
        const timeline::Visit* innermost = nullptr;
        for (size_t depth = 0; depth < row.depths.size(); ++depth) {
            if (m_depthMode && point.y() < box.top() + static_cast<double>(depth * kDepthHeight))
                break;
            for (const timeline::Block& block :
                 m_timeline.visible(r, depth, time - pixel, time + pixel, pixel))
                if (block.visits == 1) {
                    path << QString::fromStdString(m_timeline.regionName(block.region));
                    const auto& visits = row.depths[depth];
                    const auto it = std::lower_bound(
                        visits.begin(), visits.end(), block.start,
                        [](const timeline::Visit& v, double t) { return v.start < t; });
                    if (it != visits.end())
                        innermost = &*it;
                    break;
                }
        }
        if (innermost != nullptr) {
            lines << QStringLiteral("%1 (%2)")
                         .arg(QString::fromStdString(m_timeline.regionName(innermost->region)))
                         .arg(QString::fromLatin1(
                             timeline::kindName(m_timeline.regionKind(innermost->region))));
            lines << QStringLiteral("call path: %1").arg(path.join(QLatin1Char('/')));
            lines << QStringLiteral("from %1 to %2 (%3)")
                         .arg(formatSeconds(innermost->start), formatSeconds(innermost->end),
                              formatSeconds(innermost->end - innermost->start));
        }
        for (const timeline::Message* m :
             m_timeline.visibleMessages(time - 3 * pixel, time + 3 * pixel)) {
            if ((m->fromRow == r && std::abs(m->sendTime - time) <= 3 * pixel) ||
                (m->toRow == r && std::abs(m->receiveTime - time) <= 3 * pixel))
                lines << QStringLiteral("message rank %1 -> rank %2, %3 bytes")
                             .arg(m_timeline.rows()[m->fromRow].rank)
                             .arg(m_timeline.rows()[m->toRow].rank)
                             .arg(m->bytes);
        }
        for (const timeline::Collective& c : m_timeline.collectives()) {
            if (c.start > time + pixel)
                break;
            if (c.end >= time - pixel && std::binary_search(c.rows.begin(), c.rows.end(), r))
                lines << QStringLiteral("collective %1 of %2 ranks: the last began at %3, "
                                        "%4 after the first")
                             .arg(QString::fromStdString(m_timeline.regionName(c.region)))
                             .arg(c.rows.size())
                             .arg(formatSeconds(c.lastBegin), formatSeconds(c.lastBegin - c.start));
        }
        return lines.join(QLatin1Char('\n'));
    }
    return {};
}

void TimelineView::wheelEvent(QWheelEvent* event) {
    const QRectF area = plotArea();
    const double anchor =
        std::clamp((event->position().x() - area.left()) / area.width(), 0.0, 1.0);
    zoom(event->angleDelta().y() > 0 ? 0.8 : 1.25, anchor);
    event->accept();
}

void TimelineView::mousePressEvent(QMouseEvent* event) {
    if (event->button() == Qt::LeftButton) {
        m_dragFrom = event->position();
        m_dragStart = m_from;
    }
}

void TimelineView::mouseMoveEvent(QMouseEvent* event) {
    if (m_dragFrom) {
        const double shift =
            (m_dragFrom->x() - event->position().x()) / plotArea().width() * (m_to - m_from);
        setWindow(m_dragStart + shift, m_dragStart + shift + (m_to - m_from));
        return;
    }
    const QString text = describeAt(event->position());
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(event->globalPosition().toPoint(), text, this);
}

void TimelineView::mouseReleaseEvent(QMouseEvent*) {
    m_dragFrom.reset();
}

void TimelineView::keyPressEvent(QKeyEvent* event) {
    switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        zoom(0.8);
        break;
    case Qt::Key_Minus:
        zoom(1.25);
        break;
    case Qt::Key_Left:
        pan(-0.2);
        break;
    case Qt::Key_Right:
        pan(0.2);
        break;
    case Qt::Key_Home:
        setWindow(m_timeline.begin(), m_timeline.end());
        break;
    case Qt::Key_D:
        setDepthMode(!m_depthMode);
        break;
    case Qt::Key_G:
        setGroupByNode(!m_byNode);
        break;
    case Qt::Key_N:
        showNext();
        break;
    case Qt::Key_P:
        showPrevious();
        break;
    case Qt::Key_W:
        showWorst();
        break;
    case Qt::Key_C:
        setCriticalPathShown(!m_showPath);
        break;
    default:
        QWidget::keyPressEvent(event);
    }
}

} // namespace waitscope::gui
