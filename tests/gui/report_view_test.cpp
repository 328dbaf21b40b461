// Tests of the explorer's widgets in-process (offscreen): the start state of ReportView, its
// context menus and the metric documentation window.
#include "metric_help.h"
#include "report_view.h"
#include "test_application.h"
#include "test_reports.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QMenu>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>
#include <QTreeView>
#include <catch2/catch.hpp>
#include <waitscope/report/cubex_writer.h>
#include <waitscope/report/metric_catalog.h>

using namespace waitscope::gui;
using namespace waitscope::gui::test;

namespace {

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

namespace {

// Walking to the root per node or recursing per level takes minutes or overflows the stack on
// these: the tests' timeout catches the former, a crash the latter.
constexpr std::uint32_t kDeep = 100000;

// A report with `calls` nested calls f/f/.../leaf and `metrics` nested metrics m0/m1/...; at the
// leaf m0 has 5 s, each metric below it 4 s (all in the innermost one). Written to FILE in the test
// directory, read back the way the explorer reads it.
std::unique_ptr<ReportSession> deepSession(std::uint32_t calls, std::uint32_t metrics,
                                           const std::string& file) {
    using namespace waitscope::report;
    Report r;
    RegionId f = *r.addRegion({.name = "f"});
    RegionId leaf = *r.addRegion({.name = "leaf"});
    std::optional<CallNodeId> call;
    for (std::uint32_t i = 0; i < calls; ++i)
        call = *r.addCallNode(i + 1 == calls ? leaf : f, call);
    SystemNodeId machine = *r.addMachine("m");
    SystemNodeId p0 = *r.addProcess(machine, "MPI Rank 0", 0);
    REQUIRE(r.addThread(p0, "t", 0));
    std::optional<MetricId> metric;
    for (std::uint32_t i = 0; i < metrics; ++i) {
        Metric m;
        m.uniqueName = "m" + std::to_string(i);
        m.unit = "sec";
        m.parent = metric;
        metric = *r.addMetric(m);
    }
    // Metric values include their child metrics': m0 keeps 1 s, the innermost metric 4 s.
    REQUIRE(r.setSeverity(0, *call, 0, 5.0));
    bool stored = true;
    for (MetricId m = 1; m < metrics; ++m)
        stored = r.setSeverity(m, *call, 0, 4.0) && stored;
    REQUIRE(stored);
    std::string path = std::string(WAITSCOPE_TEST_TMP_DIR) + "/" + file;
    REQUIRE(writeCubex(r, path));
    application();
    auto session = ReportSession::open(QString::fromStdString(path));
    REQUIRE(session);
    return std::move(*session);
}

// The view computes call-tree values in the background: waits for them.
void waitForValues(ReportView& view) {
    CallTreeModel* calls = view.session().callTree();
    for (int i = 0; i < 1200 && calls->isComputing(); ++i)
        QTest::qWait(50);
    REQUIRE(!calls->isComputing());
}

} // namespace

TEST_CASE("a 100,000-deep metric tree opens and reveals its innermost metric", "[widgets]") {
    auto session = deepSession(3, kDeep, "deep_metrics.cubex");
    auto tester = attachTester(session->metricTree());
    ReportView view(std::move(session));
    QTreeView* calls = view.treeView(QStringLiteral("call"));
    CHECK(calls->currentIndex().data(ValueTreeModel::NameRole).toString() ==
          QStringLiteral("leaf"));
    CHECK(calls->currentIndex().data(ValueTreeModel::AbsoluteValueRole).toDouble() == 5.0);
    // The tree is expanded down to its deepest shown level, whose metric holds the 4 s below.
    QSignalSpy messages(&view, &ReportView::message);
    REQUIRE(view.selectMetric(QStringLiteral("m99999")));
    REQUIRE(messages.size() >= 1); // then maybe "computing the call-tree values ..."
    CHECK(messages[0][0].toString() ==
          QStringLiteral("m99999 is 99999 levels deep; the tree shows 10000 levels, down to its "
                         "ancestor m10000"));
    waitForValues(view);
    QTreeView* metrics = view.treeView(QStringLiteral("metric"));
    CHECK(metrics->currentIndex().data(ValueTreeModel::NameRole).toString() ==
          QStringLiteral("m10000"));
    CHECK(metrics->currentIndex().data(ValueTreeModel::AbsoluteValueRole).toDouble() == 4.0);
    CHECK(calls->currentIndex().data(ValueTreeModel::AbsoluteValueRole).toDouble() == 4.0);
    CHECK(metrics->isExpanded(metrics->currentIndex().parent()));
    // m0 is expanded on the way: it shows its own 1 s.
    QModelIndex m0 = metrics->model()->index(0, 0);
    CHECK(metrics->isExpanded(m0));
    CHECK(m0.data(ValueTreeModel::AbsoluteValueRole).toDouble() == 1.0);
    view.setValueMode(ValueMode::PercentOfSelection);
    CHECK(metrics->currentIndex().data(ValueTreeModel::ValueRole).toDouble() == 100.0);
    CHECK(m0.data(ValueTreeModel::ValueRole).toDouble() == 20.0);
}

TEST_CASE("a 100,000-deep call tree opens on its hottest path as deep as the tree shows",
          "[widgets]") {
    auto session = deepSession(kDeep, 2, "deep_calls.cubex");
    auto tester = attachTester(session->callTree());
    ReportView view(std::move(session));
    QTreeView* calls = view.treeView(QStringLiteral("call"));
    QModelIndex current = calls->currentIndex();
    // The path ends collapsed at the deepest expanded level, with the leaf's 5 s below it.
    int depth = 0;
    for (QModelIndex up = current.parent(); up.isValid(); up = up.parent())
        ++depth;
    CHECK(depth == static_cast<int>(ReportView::kMaxExpandedDepth) - 1);
    CHECK(current.data(ValueTreeModel::NameRole).toString() == QStringLiteral("f"));
    CHECK(!calls->isExpanded(current));
    CHECK(calls->isExpanded(current.parent()));
    CHECK(current.data(ValueTreeModel::AbsoluteValueRole).toDouble() == 5.0);
    // Another metric: the expanded path shows its values (the model computes synchronously).
    REQUIRE(view.selectMetric(QStringLiteral("m1")));
    waitForValues(view);
    QTreeView* metrics = view.treeView(QStringLiteral("metric"));
    CHECK(metrics->currentIndex().data(ValueTreeModel::NameRole).toString() ==
          QStringLiteral("m1"));
    CHECK(calls->currentIndex().data(ValueTreeModel::AbsoluteValueRole).toDouble() == 4.0);
    CHECK(calls->model()->index(0, 0).data(ValueTreeModel::AbsoluteValueRole).toDouble() == 0.0);
    // A search reveals the leaf by its ancestor at the deepest shown level.
    CHECK(view.search(QStringLiteral("leaf")) == 1);
    CHECK(calls->currentIndex() == current);
    // Expanding all stops at the same depth: the level below it stays collapsed.
    QModelIndex root = calls->model()->index(0, 0);
    QModelIndex below = calls->model()->index(0, 0, current);
    std::unique_ptr<QMenu> menu(view.contextMenu(calls, root));
    find(*menu, QStringLiteral("Expand all below"))->trigger();
    CHECK(calls->isExpanded(current));
    CHECK(!calls->isExpanded(below));
    find(*menu, QStringLiteral("Collapse all below"))->trigger();
    CHECK(!calls->isExpanded(root));
    CHECK(!calls->isExpanded(current));
    find(*menu, QStringLiteral("Expand all"))->trigger();
    CHECK(calls->isExpanded(root));
    CHECK(calls->isExpanded(current));
    CHECK(!calls->isExpanded(below));
}
