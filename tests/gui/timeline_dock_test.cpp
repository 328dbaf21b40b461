// The explorer's timeline dock, in-process and offscreen: on a trace without the timeline's
// caches (Score-P's, here Scalasca's Late Sender reference) the interactive window opens the
// timeline on a worker behind a progress bar, never waiting, and shows it when built.
#include "main_window.h"
#include "test_application.h"
#include "timeline_panel.h"

#include <QDockWidget>
#include <QProgressBar>
#include <QSignalSpy>
#include <catch2/catch.hpp>
#include <filesystem>

using namespace waitscope::gui;
using namespace waitscope::gui::test;
namespace fs = std::filesystem;

TEST_CASE("the timeline of an uncached trace opens on a worker behind a progress bar",
          "[widgets][timeline]") {
    // The reference trace with Scalasca's report beside it: no caches, no instances.txt.
    const fs::path reference = fs::path(WAITSCOPE_REFERENCE_DIR) / "late_sender";
    const fs::path dir = fs::path(WAITSCOPE_TEST_TMP_DIR) / "timeline_dock_late_sender";
    fs::remove_all(dir);
    fs::copy(reference / "trace", dir, fs::copy_options::recursive);
    fs::copy_file(reference / "trace.cubex", dir / "report.cubex");
    application();
    MainWindow window(true);
    QSignalSpy opened(&window, &MainWindow::reportOpened);
    window.openReport(QString::fromStdString((dir / "report.cubex").string()));
    REQUIRE(opened.wait(20000));
    REQUIRE(opened.front().front().toBool());

    qRegisterMetaType<TimelinePanel*>("TimelinePanel*");
    QSignalSpy shown(&window, &MainWindow::timelineShown);
    CHECK(window.showTimeline() == nullptr); // returned at once: a worker reads the trace
    CHECK(window.timelineOpening());
    auto* dock = window.findChild<QDockWidget*>(QStringLiteral("timeline"));
    REQUIRE(dock != nullptr);
    CHECK(qobject_cast<QProgressBar*>(dock->widget()) != nullptr);
    REQUIRE(shown.wait(30000));
    TimelinePanel* panel = window.timelinePanel();
    REQUIRE(panel != nullptr);
    CHECK(shown.count() == 1);
    CHECK(dock->widget() == panel);
    CHECK(!window.timelineOpening());
    CHECK(panel->view()->timeline().rows().size() == 4);
    CHECK(fs::exists(dir / "timeline_events.bin")); // cached for the next open
    CHECK(window.showTimeline() == panel);          // shown again, not opened again
}
