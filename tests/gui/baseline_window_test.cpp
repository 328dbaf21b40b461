// The explorer's window in baseline mode, in-process and offscreen: opened with a baseline, it
// names both reports, shows signed values with the marks in its panes, and paints the diverging
// colours.
#include "colour_scale.h"
#include "main_window.h"
#include "report_view.h"
#include "test_application.h"
#include "test_reports.h"

#include <QAction>
#include <QApplication>
#include <QImage>
#include <QMenuBar>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTreeView>
#include <catch2/catch.hpp>

using namespace waitscope::gui;
using namespace waitscope::gui::test;

namespace {

// Opens `after` against `before` in `window` and waits for it.
bool openWithBaseline(MainWindow& window, const std::string& after, const std::string& before) {
    QSignalSpy opened(&window, &MainWindow::reportOpened);
    window.openReport(QString::fromStdString(after), QString::fromStdString(before));
    if (!opened.wait(20000))
        return false;
    return opened.front().front().toBool();
}

// How many pixels of `image` have `colour`.
int pixelsOf(const QImage& image, QColor colour) {
    int count = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x)
            count += image.pixelColor(x, y).rgb() == colour.rgb() ? 1 : 0;
    return count;
}

} // namespace

TEST_CASE("the window opened with a baseline names both reports and shows the differences",
          "[widgets][difference]") {
    const std::string after = writeAfterReport();
    const std::string before = writeBeforeReport();
    application();
    MainWindow window(false);
    window.resize(1200, 700);
    REQUIRE(openWithBaseline(window, after, before));
    ReportView* view = window.reportView();
    REQUIRE(view != nullptr);
    CHECK(view->session().isDifference());
    // The status line and the title name both.
    const QString summary = view->summary();
    CHECK(summary.contains(QStringLiteral("after.cubex")));
    CHECK(summary.contains(QStringLiteral("baseline")));
    CHECK(summary.contains(QStringLiteral("written.cubex")));
    CHECK(window.windowTitle().contains(QStringLiteral("after.cubex \u2212 ")));
    CHECK(window.windowTitle().contains(QStringLiteral("written.cubex")));

    REQUIRE(view->selectMetric(QStringLiteral("mpi_latesender")));
    // The view computes the call tree's values in the background.
    CallTreeModel* callModel = view->session().callTree();
    if (callModel->isComputing()) {
        QSignalSpy computed(callModel, &CallTreeModel::computingChanged);
        REQUIRE(computed.wait(20000));
    }
    view->expandHottestPath();
    const QString rows = view->visibleRows();
    INFO(rows.toStdString());
    CHECK(rows.contains(QStringLiteral("\u2212750 ms  Late Sender\n")));
    CHECK(rows.contains(QStringLiteral("\u22121.00 s  MPI_Recv  [only in baseline]\n")));
    CHECK(rows.contains(QStringLiteral("+250 ms  MPI_Waitall  [only in report]\n")));
    CHECK(rows.contains(QStringLiteral("+125 ms  Late Receiver  [only in report]\n")));

    // The call tree paints MPI_Recv's box in the full improvement hue (it is the largest
    // difference) and MPI_Waitall's in a pale regression hue.
    QTreeView* calls = view->treeView(QStringLiteral("call"));
    REQUIRE(calls != nullptr);
    const QImage picture = calls->viewport()->grab().toImage();
    CHECK(pixelsOf(picture, differenceColourFor(-1.0)) >= 20);
    CHECK(pixelsOf(picture, differenceColourFor(0.25)) >= 20);

    // File > Compare with baseline... is there.
    bool found = false;
    for (QAction* menu : window.menuBar()->actions())
        if (menu->menu())
            for (QAction* action : menu->menu()->actions())
                found =
                    found || action->text().startsWith(QStringLiteral("&Compare with baseline"));
    CHECK(found);
}

TEST_CASE("a baseline that cannot be opened leaves a message naming it", "[widgets][difference]") {
    application();
    MainWindow window(false);
    CHECK_FALSE(openWithBaseline(window, writeAfterReport(), "/no/such/baseline.cubex"));
    CHECK(window.lastError().contains(QStringLiteral("/no/such/baseline.cubex")));
}

TEST_CASE("the diverging colours are white at zero and two hues apart", "[widgets][difference]") {
    CHECK(differenceColourFor(0.0) == QColor(Qt::white));
    CHECK(differenceColourFor(-1.0) == QColor(0x21, 0x66, 0xac));
    CHECK(differenceColourFor(1.0) == QColor(0xb2, 0x18, 0x2b));
    // Half way: lighter than the full hue, still blue or red.
    QColor better = differenceColourFor(-0.5);
    QColor worse = differenceColourFor(0.5);
    CHECK(better.blue() > better.red());
    CHECK(worse.red() > worse.blue());
    CHECK(better.lightness() > differenceColourFor(-1.0).lightness());
}
