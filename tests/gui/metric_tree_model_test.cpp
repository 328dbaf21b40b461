// Tests of MetricTreeModel: structure under the model tester, totals against waitscope-report.
#include "test_reports.h"

#include <catch2/catch.hpp>
#include <waitscope/gui/metric_tree_model.h>

using namespace waitscope::gui;
using namespace waitscope::gui::test;
using Approx = Catch::Detail::Approx;

TEST_CASE("metric tree passes the model tester on every reference report", "[metric]") {
    for (const std::string& path : allReferenceReports()) {
        INFO(path);
        SelectionState selection(openReport(path));
        MetricTreeModel model(&selection);
        auto tester = attachTester(&model);
        int shown = 0;
        for (const auto& metric : selection.report().metrics())
            shown += metric.ghost ? 0 : 1; // ghosts are roots or leaves in Scalasca's reports
        CHECK(touchAll(model) == shown);
        model.setSortByValue(true);
        model.setExpanded(model.index(0, 0), true);
        selection.setValueMode(ValueMode::PercentOfRoot);
        touchAll(model);
        model.setSortByValue(false);
    }
}

TEST_CASE("metric totals match waitscope-report on late_sender", "[metric]") {
    // Numbers printed by `waitscope-report tests/data/reference/late_sender/trace.cubex`.
    SelectionState selection(openReport(referenceReport("late_sender", "trace")));
    MetricTreeModel model(&selection);
    auto tester = attachTester(&model);
    QModelIndex time = findByName(model, QStringLiteral("Time"));
    QModelIndex late = findByName(model, QStringLiteral("Late Sender"));
    REQUIRE(time.isValid());
    REQUIRE(late.isValid());
    CHECK(time.data(ValueTreeModel::ValueRole).toDouble() == Approx(5.610027).margin(1e-6));
    CHECK(late.data(ValueTreeModel::ValueRole).toDouble() == Approx(2.025888).margin(1e-6));
    CHECK(time.data().toString() == QStringLiteral("5.61 s  Time"));

    SECTION("an expanded metric shows its own part, and the selection follows") {
        auto& report = selection.report();
        auto id = *report.findMetric("time");
        double own = *report.total(id, waitscope::report::MetricMode::Exclusive);
        model.setExpanded(time, true);
        CHECK(time.data(ValueTreeModel::ValueRole).toDouble() == Approx(own));
        CHECK(selection.metricMode() == waitscope::report::MetricMode::Exclusive);
        model.setExpanded(time, false);
        CHECK(selection.metricMode() == waitscope::report::MetricMode::Inclusive);
    }
    SECTION("percent of root and of the selection") {
        selection.setValueMode(ValueMode::PercentOfRoot);
        CHECK(time.data(ValueTreeModel::ValueRole).toDouble() == Approx(100.0));
        CHECK(late.data(ValueTreeModel::ValueRole).toDouble() ==
              Approx(100.0 * 2.025888 / 5.610027).margin(1e-4));
        selection.setMetric(*selection.report().findMetric("mpi_latesender"),
                            waitscope::report::MetricMode::Inclusive);
        selection.setValueMode(ValueMode::PercentOfSelection);
        CHECK(late.data(ValueTreeModel::ValueRole).toDouble() == Approx(100.0));
        CHECK(late.data(ValueTreeModel::FractionRole).toDouble() == Approx(1.0));
        CHECK(late.data(ValueTreeModel::ValueTextRole).toString() == QStringLiteral("100 %"));
    }
    SECTION("sorting by value keeps the largest child first") {
        model.setSortByValue(true);
        QModelIndex root = model.index(0, 0);
        for (int row = 1; row < model.rowCount(root); ++row)
            CHECK(model.index(row - 1, 0, root).data(ValueTreeModel::ValueRole).toDouble() >=
                  model.index(row, 0, root).data(ValueTreeModel::ValueRole).toDouble());
    }
}

TEST_CASE("metric descriptions come from share/ for Scalasca metrics", "[metric]") {
    SelectionState selection(openReport(referenceReport("late_sender", "trace")));
    MetricTreeModel model(&selection);
    QString text = model.description(*selection.report().findMetric("mpi_latesender"));
    CHECK(text.contains(QStringLiteral("Late Sender")));
    CHECK(text.contains(QStringLiteral("Waitscope's description")));
}

TEST_CASE("percent of selection relates the selected metric's parts to it", "[metric]") {
    SelectionState selection(openReport(referenceReport("late_sender", "trace")));
    MetricTreeModel model(&selection);
    auto tester = attachTester(&model);
    const auto& report = selection.report();
    selection.setMetric(*report.findMetric("mpi"), waitscope::report::MetricMode::Inclusive);
    selection.setValueMode(ValueMode::PercentOfSelection);
    QModelIndex late = findByName(model, QStringLiteral("Late Sender"));
    QModelIndex comp = findByName(model, QStringLiteral("Computation"));
    double mpi = *report.total(*report.findMetric("mpi"));
    CHECK(late.data(ValueTreeModel::ValueRole).toDouble() ==
          Approx(100.0 * 2.025888 / mpi).margin(1e-3));
    // Not a part of MPI: percent of its root (Time).
    double computation = *report.total(*report.findMetric("comp"));
    CHECK(comp.data(ValueTreeModel::ValueRole).toDouble() ==
          Approx(100.0 * computation / 5.610027).margin(1e-3));
    // Sorting keeps the roots, which have different units, in report order.
    model.setSortByValue(true);
    CHECK(model.index(0, 0).data(ValueTreeModel::NameRole).toString() == QStringLiteral("Time"));
}
