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
