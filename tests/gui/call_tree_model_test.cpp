// Tests of CallTreeModel: model tester, call-path values against waitscope-report, Cube's
// inclusive/exclusive-on-expand rule, search and the hottest path.
#include "test_reports.h"

#include <QCoreApplication>
#include <QSignalSpy>
#include <QThread>
#include <catch2/catch.hpp>
#include <thread>
#include <waitscope/gui/call_tree_model.h>
#include <waitscope/gui/report_session.h>

using namespace waitscope::gui;
using namespace waitscope::gui::test;
using namespace waitscope::report;
using Approx = Catch::Detail::Approx;

TEST_CASE("call tree passes the model tester on every reference report", "[call]") {
    for (const std::string& path : allReferenceReports()) {
        INFO(path);
        SelectionState selection(openReport(path));
        CallTreeModel model(&selection);
        auto tester = attachTester(&model);
        CHECK(touchAll(model) == static_cast<int>(selection.report().callNodes().size()));
        model.setSortByValue(true);
        for (std::uint32_t node : model.hottestPath())
            model.setExpanded(model.indexOfNode(node), true);
        // Switching the metric while nodes are expanded and sorted.
        for (MetricId m = 0; m < selection.report().metrics().size(); m += 7)
            selection.setMetric(m, MetricMode::Inclusive);
        touchAll(model);
    }
}

TEST_CASE("call-path values match waitscope-report on late_sender", "[call]") {
    SelectionState selection(openReport(referenceReport("late_sender", "trace")));
    CallTreeModel model(&selection);
    auto tester = attachTester(&model);
    const Report& report = selection.report();
    REQUIRE(report.metrics()[selection.metric()].uniqueName == "time");
    // `waitscope-report --inclusive top trace.cubex time`
    QModelIndex root = model.index(0, 0);
    QModelIndex mainPath = model.indexOfNode(*report.findCallPath("late_sender/main"));
    QModelIndex recv = model.indexOfNode(*report.findCallPath("late_sender/main/MPI_Recv"));
    CHECK(root.data(ValueTreeModel::ValueRole).toDouble() == Approx(5.610027).margin(1e-6));
    CHECK(mainPath.data(ValueTreeModel::ValueRole).toDouble() == Approx(5.586914).margin(1e-6));
    CHECK(recv.data(ValueTreeModel::ValueRole).toDouble() == Approx(2.032293).margin(1e-6));

    SECTION("expanding shows the exclusive value, as in Cube") {
        double own = (*report.callNodeValues(selection.metric(),
                                             CallTreeMode::Exclusive))[model.nodeOf(mainPath)];
        model.setExpanded(mainPath, true);
        CHECK(mainPath.data(ValueTreeModel::ValueRole).toDouble() == Approx(own));
        CHECK(own < 5.586914);
        // The exclusive values of an expanded subtree add up to the collapsed value.
        double sum = own;
        for (int row = 0; row < model.rowCount(mainPath); ++row)
            sum += model.index(row, 0, mainPath).data(ValueTreeModel::ValueRole).toDouble();
        CHECK(sum == Approx(5.586914).margin(1e-6));
    }
    SECTION("the selected metric drives the values") {
        selection.setMetric(*report.findMetric("mpi_latesender"), MetricMode::Inclusive);
        CHECK(recv.data(ValueTreeModel::ValueRole).toDouble() == Approx(2.025888).margin(1e-6));
        selection.setValueMode(ValueMode::PercentOfRoot);
        CHECK(recv.data(ValueTreeModel::ValueRole).toDouble() == Approx(100.0).margin(1e-6));
    }
    SECTION("expanding the selected call path switches the selection to exclusive") {
        selection.setCallPath(model.nodeOf(mainPath), CallTreeMode::Inclusive);
        model.setExpanded(mainPath, true);
        CHECK(selection.callMode() == CallTreeMode::Exclusive);
    }
    SECTION("search marks matches; the hottest path follows the largest child") {
        auto matches = model.setSearchText(QStringLiteral("mpi_r"));
        REQUIRE(matches.size() == 1);
        CHECK(model.indexOfNode(matches[0]) == recv);
        CHECK(recv.data(ValueTreeModel::MatchRole).toBool());
        CHECK_FALSE(root.data(ValueTreeModel::MatchRole).toBool());
        auto path = model.hottestPath();
        REQUIRE(path.size() >= 3);
        CHECK(model.indexOfNode(path[2]) == recv);
    }
}

TEST_CASE("call tree of a report written by Waitscope", "[call]") {
    SelectionState selection(writtenReport());
    CallTreeModel model(&selection);
    auto tester = attachTester(&model);
    QModelIndex root = model.index(0, 0);
    CHECK(root.data(ValueTreeModel::ValueRole).toDouble() == Approx(6.5));
    CHECK(root.data().toString() == QStringLiteral("6.50 s  main"));
    model.setSortByValue(true);
    CHECK(model.index(0, 0, root).data(ValueTreeModel::NameRole).toString() ==
          QStringLiteral("compute"));
    CHECK(model.location(model.nodeOf(root)).contains(QStringLiteral("prog.c, lines 3-40")));
}

TEST_CASE("asynchronous values arrive, and the last request wins", "[call]") {
    int argc = 1;
    char name[] = "gui_tests";
    char* argv[] = {name, nullptr};
    QCoreApplication app(argc, argv);
    SelectionState selection(openReport(referenceReport("late_sender", "trace")));
    CallTreeModel model(&selection);
    auto tester = attachTester(&model);
    model.setAsynchronous(true);
    const Report& report = selection.report();
    QModelIndex recv = model.indexOfNode(*report.findCallPath("late_sender/main/MPI_Recv"));
    QSignalSpy done(&model, &CallTreeModel::computingChanged);
    selection.setMetric(*report.findMetric("comp"), MetricMode::Inclusive);
    selection.setMetric(*report.findMetric("mpi_latesender"), MetricMode::Inclusive);
    CHECK(model.isComputing());
    while (model.isComputing())
        REQUIRE(done.wait(10000));
    CHECK(recv.data(ValueTreeModel::ValueRole).toDouble() == Approx(2.025888).margin(1e-6));
    CHECK(recv.data(ValueTreeModel::ValueTextRole).toString() == QStringLiteral("2.03 s"));
}

TEST_CASE("asynchronous values arrive after the model moved threads", "[call]") {
    int argc = 1;
    char name[] = "gui_tests";
    char* argv[] = {name, nullptr};
    QCoreApplication app(argc, argv);
    // As in the window: the session is built on a worker thread, then moved to this one.
    std::unique_ptr<ReportSession> session;
    QThread* here = QThread::currentThread();
    std::thread worker([&] {
        auto opened =
            ReportSession::open(QString::fromStdString(referenceReport("late_sender", "trace")));
        REQUIRE(opened.ok());
        session = std::move(opened.value());
        session->moveToThread(here);
    });
    worker.join();
    CallTreeModel& model = *session->callTree();
    model.setAsynchronous(true);
    QSignalSpy done(&model, &CallTreeModel::computingChanged);
    session->selection()->setMetric(*session->report().findMetric("mpi_latesender"),
                                    MetricMode::Inclusive);
    while (model.isComputing())
        REQUIRE(done.wait(10000));
    CHECK(model.index(0, 0).data(ValueTreeModel::ValueRole).toDouble() ==
          Approx(2.025888).margin(1e-6));
}

TEST_CASE("the hottest path ends at the node that keeps more than its largest callee", "[call]") {
    // solve / {exchange (3 s inclusive) / MPI_Send (2 s), MPI_Recv (1 s)}: what solve keeps for
    // itself decides whether the path goes on into its callees.
    auto pathFor = [](double solveOwn) {
        Report report;
        MetricId time = *report.addMetric("time");
        auto region = [&report](const char* name) { return *report.addRegion({.name = name}); };
        CallNodeId solve = *report.addCallNode(region("solve"), std::nullopt);
        CallNodeId exchange = *report.addCallNode(region("exchange"), solve);
        CallNodeId send = *report.addCallNode(region("MPI_Send"), exchange);
        CallNodeId recv = *report.addCallNode(region("MPI_Recv"), solve);
        SystemNodeId process = *report.addProcess(*report.addMachine("m"), "MPI Rank 0", 0);
        LocationId location =
            report.systemNodes()[*report.addThread(process, "Master thread", 0)].location;
        REQUIRE(report.setSeverity(time, solve, location, solveOwn));
        REQUIRE(report.setSeverity(time, exchange, location, 1.0));
        REQUIRE(report.setSeverity(time, send, location, 2.0));
        REQUIRE(report.setSeverity(time, recv, location, 1.0));
        SelectionState selection(std::make_shared<const Report>(std::move(report)));
        CallTreeModel model(&selection);
        std::vector<std::string> names;
        for (std::uint32_t node : model.hottestPath())
            names.push_back(
                model.indexOfNode(node).data(ValueTreeModel::NameRole).toString().toStdString());
        return names;
    };
    // solve keeps 6 s, exchange holds 3 s: the time is in solve itself (as on hpcc, where the
    // path went on to a 185 ms MPI_Send below a node of 14 s).
    CHECK(pathFor(6.0) == std::vector<std::string>{"solve"});
    // solve keeps 0.5 s: into exchange (3 s), which keeps 1 s, then MPI_Send (2 s).
    CHECK(pathFor(0.5) == std::vector<std::string>{"solve", "exchange", "MPI_Send"});
}
