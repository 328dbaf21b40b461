// Tests of the explorer's widgets in-process (offscreen): the start state of ReportView, its
// context menus and the metric documentation window.
#include "metric_help.h"
#include "report_view.h"
#include "test_reports.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QMenu>
#include <QTabWidget>
#include <QTreeView>
#include <catch2/catch.hpp>
#include <waitscope/report/metric_catalog.h>

using namespace waitscope::gui;
using namespace waitscope::gui::test;

namespace {

// One QApplication for the whole executable (widgets need one; Catch runs cases in turn).
QApplication& application() {
    static int argc = 1;
    static char name[] = "gui_widget_tests";
    static char* argv[] = {name, nullptr};
    static QApplication app(argc, argv);
    return app;
}

QStringList texts(const QMenu& menu) {
    QStringList out;
    for (QAction* action : menu.actions())
        out << (action->isSeparator() ? QStringLiteral("-") : action->text());
    return out;
}

QAction* find(const QMenu& menu, const QString& prefix) {
    for (QAction* action : menu.actions())
        if (action->text().startsWith(prefix))
            return action;
    FAIL("no action " << prefix.toStdString());
    return nullptr;
}

// A view over writtenReport(): main (1 s own) / {compute 4 s, MPI_Recv 1.5 s} on 2 ranks.
std::unique_ptr<ReportView> writtenView() {
    application();
    return std::make_unique<ReportView>(std::make_unique<ReportSession>(writtenReport()));
}

} // namespace

TEST_CASE("the view opens on the hottest path with the ranks shown", "[widgets]") {
    auto view = writtenView();
    QTreeView* calls = view->treeView(QStringLiteral("call"));
    CHECK(calls->currentIndex().data(ValueTreeModel::NameRole).toString() ==
          QStringLiteral("compute"));
    CHECK(calls->isExpanded(calls->model()->index(0, 0))); // main
    QTreeView* system = view->treeView(QStringLiteral("system"));
    QModelIndex machine = system->model()->index(0, 0);
    QModelIndex node = system->model()->index(0, 0, machine);
    CHECK(system->isExpanded(machine));
    CHECK(system->isExpanded(node));
    CHECK(system->model()->rowCount(node) == 2);
    CHECK(node.data(ValueTreeModel::NameRole).toString() == QStringLiteral("node0"));
}

TEST_CASE("the call tree's context menu copies the path and expands and collapses below",
          "[widgets]") {
    auto view = writtenView();
    QTreeView* calls = view->treeView(QStringLiteral("call"));
    QModelIndex main = calls->model()->index(0, 0);
    QModelIndex recv = findByName(*calls->model(), QStringLiteral("MPI_Recv"));
    REQUIRE(recv.isValid());
    std::unique_ptr<QMenu> menu(view->contextMenu(calls, recv));
    CHECK(texts(*menu) == QStringList{"Copy call path", "Copy value (1.50 s)", "-",
                                      "Expand all below", "Collapse all below", "Expand all",
                                      "Collapse all", "Expand hottest path", "Show source"});
    CHECK(calls->currentIndex() == recv); // the row right-clicked is selected
    find(*menu, QStringLiteral("Copy call path"))->trigger();
    CHECK(QGuiApplication::clipboard()->text() == QStringLiteral("main/MPI_Recv"));
    find(*menu, QStringLiteral("Copy value"))->trigger();
    CHECK(QGuiApplication::clipboard()->text() == QStringLiteral("1.50 s"));
    find(*menu, QStringLiteral("Show source"))->trigger();
    CHECK(view->findChild<QTabWidget*>()->currentIndex() == 1);

    menu.reset(view->contextMenu(calls, main));
    find(*menu, QStringLiteral("Collapse all below"))->trigger();
    CHECK_FALSE(calls->isExpanded(main));
    // Collapsed, main shows its inclusive time again (the model was told).
    CHECK(main.data(ValueTreeModel::ValueTextRole).toString() == QStringLiteral("6.50 s"));
    find(*menu, QStringLiteral("Expand all below"))->trigger();
    CHECK(calls->isExpanded(main));
    CHECK(main.data(ValueTreeModel::ValueTextRole).toString() == QStringLiteral("1.00 s"));
}

TEST_CASE("the system and metric trees' context menus copy names and fit their tree", "[widgets]") {
    auto view = writtenView();
    QTreeView* system = view->treeView(QStringLiteral("system"));
    QModelIndex rank0 = findByName(*system->model(), QStringLiteral("MPI Rank 0"));
    REQUIRE(rank0.isValid());
    std::unique_ptr<QMenu> menu(view->contextMenu(system, rank0));
    CHECK(texts(*menu).last() == QStringLiteral("Expand to the processes"));
    find(*menu, QStringLiteral("Copy name"))->trigger();
    CHECK(QGuiApplication::clipboard()->text() == QStringLiteral("MPI Rank 0"));
    // The empty area below the rows: only the whole-tree actions.
    menu.reset(view->contextMenu(system, {}));
    CHECK(texts(*menu) == QStringList{"Expand all", "Collapse all", "Expand to the processes"});
    QTreeView* metrics = view->treeView(QStringLiteral("metric"));
    menu.reset(view->contextMenu(metrics, metrics->model()->index(0, 0)));
    CHECK(texts(*menu).last() == QStringLiteral("Show description"));
}

TEST_CASE("the metric documentation lists Waitscope's metrics and the report's others",
          "[widgets]") {
    application();
    waitscope::report::Report report;
    (void)*report.addMetric("time");
    waitscope::report::Metric counter;
    counter.uniqueName = "PAPI_TOT_CYC";
    counter.unit = "occ";
    counter.description = "Total cycles";
    (void)*report.addMetric(counter);
    MetricHelp help(&report, QStringLiteral("mpi_latesender"));
    CHECK(help.metricCount() == static_cast<int>(waitscope::report::metricCatalog().size()) + 1);
    CHECK(help.shownText().startsWith(QStringLiteral("Late Sender\nmpi_latesender, unit sec\n")));
    REQUIRE(help.showMetric(QStringLiteral("PAPI_TOT_CYC")));
    CHECK(help.shownText().contains(QStringLiteral("Total cycles")));
    CHECK(help.shownText().contains(QStringLiteral("description from the report")));
    CHECK_FALSE(help.showMetric(QStringLiteral("no_such_metric")));
}
