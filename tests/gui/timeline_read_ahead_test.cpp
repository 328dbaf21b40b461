// The timeline view's reads of a trace's events, in-process and offscreen: a window a few zoom
// steps from being drawn from its events has them read ahead, so that zooming in draws them at
// once; a window drawn from its events whose pages are in the page cache is read at once; a read
// holds exactly the full load's events of its range, widened where the window holds few; the
// wait-state instances come with the events (a cold instances file is read on the worker); and
// each picture equals the one of the whole trace held in memory.
#include "generated_trace.h"
#include "test_application.h"
#include "timeline_view.h"
#include "waitscope/analysis/instance_file.h"

#include <QImage>
#include <catch2/catch.hpp>
#include <fcntl.h>
#include <filesystem>
#include <unistd.h>
#include <vector>

using namespace waitscope;
using namespace waitscope::gui;
using namespace waitscope::gui::test;
namespace fs = std::filesystem;

namespace {

// Reads `path` whole, so that its pages are in the page cache (the event cache is written past
// it, DirectFileWriter): what a GUI reading a window at once needs.
void intoPageCache(const fs::path& path) {
    const int file = ::open(path.c_str(), O_RDONLY);
    REQUIRE(file >= 0);
    std::vector<char> block(size_t{1} << 20);
    while (::read(file, block.data(), block.size()) > 0) {
    }
    ::close(file);
}

// The full load's visits overlapping [from, to] (end > from, start < to), brute force.
uint64_t visitsIn(const timeline::Timeline& full, double from, double to) {
    uint64_t count = 0;
    for (const timeline::Row& row : full.rows())
        for (const auto& depth : row.depths)
            for (const timeline::Visit& v : depth)
                count += v.end > from && v.start < to ? 1 : 0;
    return count;
}

// The width of a window centred at `centre` holding about `visits` visits (bisection).
double widthHolding(const timeline::Timeline& full, double centre, double visits) {
    double low = 0.0;
    double high = full.end() - full.begin();
    for (int k = 0; k < 60; ++k) {
        const double mid = (low + high) / 2;
        if (static_cast<double>(visitsIn(full, centre - mid / 2, centre + mid / 2)) < visits)
            low = mid;
        else
            high = mid;
    }
    return high;
}

// The view's events in memory are exactly the full load's over the range it read.
void checkHeld(const TimelineView& view, const timeline::Timeline& full) {
    const double from = view.loadedStart();
    const double to = view.loadedEnd();
    const auto& rows = view.timeline().rows();
    REQUIRE(rows.size() == full.rows().size());
    for (size_t r = 0; r < rows.size(); ++r) {
        REQUIRE(rows[r].depths.size() == full.rows()[r].depths.size());
        for (size_t d = 0; d < rows[r].depths.size(); ++d) {
            std::vector<timeline::Visit> expected;
            for (const timeline::Visit& v : full.rows()[r].depths[d])
                if (v.end > from && v.start < to)
                    expected.push_back(v);
            const auto& held = rows[r].depths[d];
            REQUIRE(held.size() == expected.size());
            for (size_t k = 0; k < held.size(); ++k) {
                CHECK(held[k].start == expected[k].start);
                CHECK(held[k].end == expected[k].end);
                CHECK(held[k].region == expected[k].region);
            }
        }
    }
}

QImage picture(TimelineView& view) {
    QImage image(view.size(), QImage::Format_ARGB32_Premultiplied);
    view.render(&image);
    return image;
}

// Shows [from, to] in both views; the store's picture must be the whole trace's.
void checkSamePicture(TimelineView& read, TimelineView& whole, double from, double to) {
    read.setWindow(from, to);
    whole.setWindow(from, to);
    CHECK(picture(read) == picture(whole));
}

// A generated trace of 2 ranks x 60,000 events in a fresh directory `name` of the build tree.
fs::path generatedTrace(const char* name) {
    fs::path dir = fs::path(WAITSCOPE_TEST_TMP_DIR) / name;
    fs::remove_all(dir);
    fs::create_directories(dir);
    testing::GeneratedTraceOptions options;
    options.ranks = 2;
    options.eventsPerRank = 60000;
    REQUIRE(testing::writeGeneratedTrace(dir.string(), options).ok());
    return dir;
}

} // namespace

TEST_CASE("the timeline reads a window's events ahead and draws them at once when zoomed in",
          "[widgets][timeline]") {
    const fs::path dir = generatedTrace("timeline_read_ahead");
    application();
    auto store = timeline::TimelineStore::open(dir.string());
    REQUIRE(store.ok());
    auto full = timeline::Timeline::load(dir.string());
    REQUIRE(full.ok());
    TimelineView view(*store);
    TimelineView whole(*full); // the same trace held whole: the reference picture
    view.resize(400, 300);     // 262 pixels of plot: at most 1,048 visits drawn one by one
    whole.resize(400, 300);
    const double limit = 4 * 262;
    view.waitForEvents();
    REQUIRE(visitsIn(*full, full->begin(), full->end()) > 20 * limit);
    CHECK(view.drawsFromSummary());
    CHECK(view.windowReads() == 0); // far too many to draw: nothing read

    // 2.5 draw limits: still the overview, but its events are read ahead.
    const double centre = (full->begin() + full->end()) / 2;
    const double width = widthHolding(*full, centre, 2.5 * limit);
    view.setWindow(centre - width / 2, centre + width / 2);
    CHECK(view.drawsFromSummary());
    CHECK(!view.detailPending());
    view.waitForEvents();
    CHECK(view.windowReads() == 1);
    CHECK(view.drawsFromSummary());
    // At least a width on either side (to rounding).
    CHECK(view.loadedStart() <= centre - 1.5 * width * (1 - 1e-9));
    CHECK(view.loadedEnd() >= centre + 1.5 * width * (1 - 1e-9));
    checkHeld(view, *full);
    // At most the read budget of twelve draw limits (the overview's estimate of a uniform trace,
    // within a tenth) once widened.
    CHECK(static_cast<double>(visitsIn(*full, view.loadedStart(), view.loadedEnd())) <
          13.2 * limit);

    // Four zoom steps in: drawn from the events at once, nothing read, the same picture.
    for (int step = 0; step < 4; ++step)
        view.zoom(0.72, 0.3 + 0.1 * step);
    CHECK(!view.drawsFromSummary());
    CHECK(!view.detailPending());
    CHECK(view.windowReads() == 1);
    checkSamePicture(view, whole, view.windowStart(), view.windowEnd());
    // Panning by a third of the width reads nothing either.
    view.pan(0.35);
    CHECK(view.eventsLoaded());
    CHECK(view.windowReads() == 1);
    checkSamePicture(view, whole, view.windowStart(), view.windowEnd());

    CHECK(view.windowReadsAtOnce() == 0); // read ahead on the worker

    // A narrow window elsewhere (a twentieth of a limit): the cache was just built and read
    // back whole for the overview (it is written past the page cache, DirectFileWriter), so its
    // pages are in the page cache and the GUI thread reads the window at once; the read is
    // widened well past a width on either side and holds exactly the full load's events.
    const double early = full->begin() + (full->end() - full->begin()) / 8;
    const double narrow = widthHolding(*full, early, limit / 20);
    view.setWindow(early - narrow / 2, early + narrow / 2);
    CHECK(!view.detailPending());
    CHECK(view.windowReads() == 2);
    CHECK(view.windowReadsAtOnce() == 1);
    CHECK(view.loadedEnd() - view.loadedStart() > 8 * narrow);
    CHECK(static_cast<double>(visitsIn(*full, view.loadedStart(), view.loadedEnd())) <
          13.2 * limit);
    checkHeld(view, *full);
    checkSamePicture(view, whole, early - narrow / 2, early + narrow / 2);
    // Zooming out until the overview: every step from memory.
    while (!view.drawsFromSummary()) {
        view.zoom(1.3, 0.5);
        CHECK(!view.detailPending());
    }
    CHECK(view.windowReads() == 2);
}

TEST_CASE("the timeline reads a window's wait states with its events, never on the GUI thread "
          "from the disk",
          "[widgets][timeline]") {
    const fs::path dir = generatedTrace("timeline_read_instances");
    // A Late Sender instance on every point-to-point call of the trace: many blocks of the
    // instances file, in every window.
    std::vector<analysis::PatternInstance> instances;
    {
        auto trace = timeline::Timeline::load(dir.string());
        REQUIRE(trace.ok());
        for (const timeline::Row& row : trace->rows())
            for (const auto& depth : row.depths)
                for (const timeline::Visit& v : depth)
                    if (trace->regionKind(v.region) == timeline::RegionKind::PointToPoint)
                        instances.push_back({analysis::Metric::MpiLateSender, 0, row.rank, v.start,
                                             v.end, (v.end - v.start) / 2});
    }
    REQUIRE(instances.size() > 3 * analysis::InstanceFile::kBlockRecords);
    const fs::path instanceFile = dir / analysis::kInstanceFile;
    REQUIRE(analysis::writeInstanceFile(instances, instanceFile.string()).ok());
    application();
    auto store = timeline::TimelineStore::open(dir.string());
    REQUIRE(store.ok());
    auto full = timeline::Timeline::load(dir.string());
    REQUIRE(full.ok());
    REQUIRE(full->instances().size() == instances.size());
    TimelineView view(*store);
    TimelineView whole(*full);
    view.resize(400, 300);
    whole.resize(400, 300);
    const double limit = 4 * 262;
    view.waitForEvents(); // the findings arrive on a worker
    intoPageCache(dir / timeline::TimelineStore::kCacheFile);

    // A window a tenth of a draw limit wide: the pages of both files are in the page cache
    // (the instances just written, the events just read), so the GUI thread reads the events and
    // the instances at once; the picture is final and shows the wait states as the whole trace's
    // does.
    const double early = full->begin() + (full->end() - full->begin()) / 5;
    const double narrow = widthHolding(*full, early, limit / 10);
    view.setWindow(early - narrow / 2, early + narrow / 2);
    CHECK(!view.detailPending());
    CHECK(!view.drawsFromSummary());
    CHECK(view.windowReadsAtOnce() == 1);
    checkSamePicture(view, whole, early - narrow / 2, early + narrow / 2);
    // The wait states are what differs from the picture without them.
    {
        timeline::Timeline withoutFindings = *full;
        withoutFindings.setInstances({});
        TimelineView none(std::move(withoutFindings));
        none.resize(400, 300);
        none.setWindow(early - narrow / 2, early + narrow / 2);
        CHECK(picture(none) != picture(view));
    }

    // The instances file's pages dropped from the page cache (written back first): a window
    // elsewhere, whose events are in the page cache, is read on the worker rather than by the
    // GUI thread from the disk; the overview is drawn until it arrives, then the same picture.
    const int file = ::open(instanceFile.c_str(), O_RDONLY);
    REQUIRE(file >= 0);
    CHECK(::fdatasync(file) == 0);
    CHECK(::posix_fadvise(file, 0, 0, POSIX_FADV_DONTNEED) == 0);
    ::close(file);
    const double late = full->begin() + 4 * (full->end() - full->begin()) / 5;
    const int reads = view.windowReads();
    view.setWindow(late - narrow / 2, late + narrow / 2);
    CHECK(view.detailPending()); // not read at once
    CHECK(view.drawsFromSummary());
    CHECK(view.windowReadsAtOnce() == 1);
    view.waitForEvents();
    CHECK(view.windowReads() == reads + 1);
    CHECK(!view.detailPending());
    CHECK(!view.drawsFromSummary());
    checkSamePicture(view, whole, late - narrow / 2, late + narrow / 2);
}
