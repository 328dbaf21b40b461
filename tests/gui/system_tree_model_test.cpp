// Tests of SystemTreeModel: model tester, per-rank values against waitscope-report, peer percent.
#include "test_reports.h"

#include <catch2/catch.hpp>
#include <waitscope/gui/call_tree_model.h>
#include <waitscope/gui/system_tree_model.h>

using namespace waitscope::gui;
using namespace waitscope::gui::test;
using namespace waitscope::report;
using Approx = Catch::Detail::Approx;

TEST_CASE("system tree passes the model tester on every reference report", "[system]") {
    for (const std::string& path : allReferenceReports()) {
        INFO(path);
        SelectionState selection(openReport(path));
        SystemTreeModel model(&selection);
        auto tester = attachTester(&model);
        CHECK(touchAll(model) == static_cast<int>(selection.report().systemNodes().size()));
        selection.setValueMode(ValueMode::PeerPercent);
        model.setExpanded(model.index(0, 0), true);
        selection.setCallPath(static_cast<CallNodeId>(selection.report().callNodes().size() - 1),
                              CallTreeMode::Exclusive);
        touchAll(model);
    }
}

TEST_CASE("per-rank values match waitscope-report on late_sender", "[system]") {
    SelectionState selection(openReport(referenceReport("late_sender", "trace")));
    SystemTreeModel model(&selection);
    auto tester = attachTester(&model);
    const Report& report = selection.report();
    // `waitscope-report ranks trace.cubex mpi_latesender late_sender/main/MPI_Recv`
    selection.setMetric(*report.findMetric("mpi_latesender"), MetricMode::Inclusive);
    selection.setCallPath(*report.findCallPath("late_sender/main/MPI_Recv"),
                          CallTreeMode::Exclusive);
    auto rank = [&](int r) { return model.indexOfNode(*report.findProcess(r)); };
    CHECK(rank(0).data(ValueTreeModel::ValueRole).toDouble() == Approx(0.0));
    CHECK(rank(1).data(ValueTreeModel::ValueRole).toDouble() == Approx(1.026080).margin(1e-6));
    CHECK(rank(3).data(ValueTreeModel::ValueRole).toDouble() == Approx(0.999808).margin(1e-6));
    CHECK(model.index(0, 0).data(ValueTreeModel::ValueRole).toDouble() ==
          Approx(2.025888).margin(1e-6));

    SECTION("peer percent compares with the largest process") {
        selection.setValueMode(ValueMode::PeerPercent);
        CHECK(rank(1).data(ValueTreeModel::ValueRole).toDouble() == Approx(100.0));
        CHECK(rank(3).data(ValueTreeModel::ValueRole).toDouble() ==
              Approx(100.0 * 0.999808 / 1.026080).margin(1e-3));
        CHECK(model.index(0, 0).data(ValueTreeModel::ValueRole).toDouble() == Approx(100.0));
    }
    SECTION("an expanded process shows 0: only threads hold values") {
        model.setExpanded(rank(1), true);
        CHECK(rank(1).data(ValueTreeModel::ValueRole).toDouble() == 0.0);
        CHECK(model.index(0, 0, rank(1)).data(ValueTreeModel::ValueRole).toDouble() ==
              Approx(1.026080).margin(1e-6));
    }
}

TEST_CASE("expanding the selected call path in the call tree changes the system tree", "[system]") {
    SelectionState selection(openReport(referenceReport("late_sender", "trace")));
    CallTreeModel calls(&selection);
    SystemTreeModel system(&selection);
    auto tester = attachTester(&system);
    const Report& report = selection.report();
    CallNodeId mainPath = *report.findCallPath("late_sender/main");
    selection.setCallPath(mainPath, CallTreeMode::Inclusive);
    // `waitscope-report --inclusive ranks trace.cubex time late_sender/main`
    QModelIndex rank0 = system.indexOfNode(*report.findProcess(0));
    CHECK(rank0.data(ValueTreeModel::ValueRole).toDouble() == Approx(1.408708).margin(1e-6));
    calls.setExpanded(calls.indexOfNode(mainPath), true);
    double own = *report.value(selection.metric(), mainPath, *report.findProcess(0),
                               CallTreeMode::Exclusive, SystemMode::Inclusive);
    CHECK(rank0.data(ValueTreeModel::ValueRole).toDouble() == Approx(own));
}

TEST_CASE("a process shows its master thread first and its sampled threads below it",
          "[system][threads]") {
    SelectionState selection(threadedReport());
    SystemTreeModel model(&selection);
    auto tester = attachTester(&model);
    const Report& report = selection.report();
    CHECK(touchAll(model) == static_cast<int>(report.systemNodes().size()));
    selection.setMetric(*report.findMetric("time"), MetricMode::Inclusive);
    selection.setCallPath(*report.findCallPath("worker_fn/compute"), CallTreeMode::Exclusive);
    const QModelIndex rank0 = model.indexOfNode(*report.findProcess(0));
    const QModelIndex rank1 = model.indexOfNode(*report.findProcess(1));
    REQUIRE(model.rowCount(rank0) == 3);
    REQUIRE(model.rowCount(rank1) == 2);
    const auto name = [](const QModelIndex& index) {
        return index.data(ValueTreeModel::NameRole).toString();
    };
    const auto value = [](const QModelIndex& index) {
        return index.data(ValueTreeModel::ValueRole).toDouble();
    };
    CHECK(name(model.index(0, 0, rank0)) == QStringLiteral("Master thread"));
    CHECK(name(model.index(1, 0, rank0)) == QStringLiteral("thread 1"));
    CHECK(name(model.index(2, 0, rank0)) == QStringLiteral("thread 2"));
    CHECK(name(model.index(1, 0, rank1)) == QStringLiteral("thread 1"));
    // Collapsed, a process sums its threads; expanded, each thread shows its own value.
    CHECK(value(rank0) == 2.5);
    CHECK(value(rank1) == 0.25);
    model.setExpanded(rank0, true);
    CHECK(value(rank0) == 0.0);
    CHECK(value(model.index(0, 0, rank0)) == 0.0);
    CHECK(value(model.index(1, 0, rank0)) == 2.0);
    CHECK(value(model.index(2, 0, rank0)) == 0.5);
    selection.setCallPath(*report.findCallPath("main"), CallTreeMode::Exclusive);
    CHECK(value(model.index(0, 0, rank0)) == 1.0);
    CHECK(value(model.index(1, 0, rank0)) == 0.0);
    touchAll(model);
}
