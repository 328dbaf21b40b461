// The explorer's window in baseline mode, in-process and offscreen: opened with a baseline, it
// names both reports, shows signed values with the marks in its panes, and paints the diverging
// colours.
#include "colour_scale.h"
#include "image_pixels.h"
#include "main_window.h"
#include "report_view.h"
#include "test_application.h"
#include "test_reports.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QHeaderView>
#include <QImage>
#include <QLabel>
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

TEST_CASE("the window's system tree shows both runs side by side and percent of the baseline",
          "[widgets][difference]") {
    const std::string after = writeAfterReport();
    const std::string before = writeBeforeReport();
    application();
    MainWindow window(false);
    window.resize(1400, 800);
    REQUIRE(openWithBaseline(window, after, before));
    ReportView* view = window.reportView();
    REQUIRE(view != nullptr);
    CHECK(view->systemNote() == nullptr); // the ranks align
    REQUIRE(view->selectMetric(QStringLiteral("mpi_latesender")));
    CallTreeModel* callModel = view->session().callTree();
    if (callModel->isComputing()) {
        QSignalSpy computed(callModel, &CallTreeModel::computingChanged);
        REQUIRE(computed.wait(20000));
    }
    // MPI_Recv, only in the baseline: rank 0 waited 1 s there before, not at all after.
    REQUIRE(view->selectCallPath(QStringLiteral("MPI_Recv")).isEmpty());
    REQUIRE(view->selectRank(0));
    // The system tree's header names the columns; the other trees have none.
    QTreeView* system = view->treeView(QStringLiteral("system"));
    REQUIRE(system != nullptr);
    CHECK_FALSE(system->isHeaderHidden());
    CHECK(system->model()->columnCount() == 4);
    CHECK(view->treeView(QStringLiteral("call"))->isHeaderHidden());
    QString rows = view->visibleRows();
    INFO(rows.toStdString());
    CHECK(rows.contains(QStringLiteral(
        "\u22121.00 s  MPI Rank 0  |  baseline 1.00 s  report 0 s  vs baseline \u2212100 %\n")));
    CHECK(rows.contains(
        QStringLiteral("0 s  MPI Rank 1  |  baseline 0 s  report 0 s  vs baseline 0 %\n")));
    // MPI_Waitall, only in the report: new on rank 0.
    REQUIRE(view->selectCallPath(QStringLiteral("MPI_Waitall")).isEmpty());
    rows = view->visibleRows();
    CHECK(rows.contains(
        QStringLiteral("+250 ms  MPI Rank 0  |  baseline 0 s  report 250 ms  vs baseline new\n")));
    // The baseline's bar of rank 0 (the largest of its level) fills its cell; rank 0 is
    // selected, so the bar darkens the highlight.
    const QRect cell = system->visualRect(
        system->model()->index(0, ValueTreeModel::BaselineColumn,
                               view->session()
                                   .systemTree()
                                   ->indexOfNode(*view->session().report().findProcess(0))
                                   .parent()));
    CHECK(cell.width() > 40);

    // The value selector offers percent of the baseline; every tree follows.
    auto* modes = window.findChild<QComboBox*>();
    REQUIRE(modes != nullptr);
    const int percent = modes->findText(QStringLiteral("Percent of baseline"));
    REQUIRE(percent >= 0);
    CHECK(modes->itemText(0) == QStringLiteral("Difference (report \u2212 baseline)"));
    modes->setCurrentIndex(percent);
    rows = view->visibleRows();
    CHECK(rows.contains(QStringLiteral("\u221275.0 %  Late Sender\n")));
    CHECK(rows.contains(QStringLiteral("new  Late Receiver  [only in report]\n")));
    CHECK_FALSE(rows.contains(QStringLiteral("inf")));
    CHECK_FALSE(rows.contains(QStringLiteral("nan")));
}

TEST_CASE("the window says that per-rank values do not align for different rank counts",
          "[widgets][difference]") {
    application();
    MainWindow window(false);
    window.resize(1400, 800);
    // nb_late_sender's 4 ranks against our 2.
    REQUIRE(
        openWithBaseline(window, referenceReport("nb_late_sender", "trace"), writeBeforeReport()));
    ReportView* view = window.reportView();
    REQUIRE(view != nullptr);
    REQUIRE(view->systemNote() != nullptr);
    CHECK(view->systemNote()->text().contains(QStringLiteral("report 4 ranks, baseline 2")));
    CHECK(view->systemNote()->text().contains(QStringLiteral("per-rank values do not align")));
    CHECK(view->summary().contains(QStringLiteral("ranks do not align")));
    CHECK_FALSE(view->selectRank(1)); // no per-rank rows to select
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
