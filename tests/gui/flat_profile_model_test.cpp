// Tests of FlatProfileModel: model tester, sums over regions.
#include "test_reports.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <waitscope/gui/flat_profile_model.h>

using namespace waitscope::gui;
using namespace waitscope::gui::test;
using namespace waitscope::report;
using Approx = Catch::Detail::Approx;

TEST_CASE("flat profile passes the model tester and sums to the total", "[flat]") {
    for (const std::string& path : allReferenceReports()) {
        INFO(path);
        SelectionState selection(openReport(path));
        CallTreeModel calls(&selection);
        FlatProfileModel flat(&selection, &calls);
        auto tester = attachTester(&flat);
        double sum = 0.0;
        for (int row = 0; row < flat.rowCount(); ++row)
            sum += flat.exclusiveValue(row);
        double total = *selection.report().total(selection.metric());
        CHECK(sum == Approx(total).margin(1e-6));
        selection.setMetric(static_cast<MetricId>(selection.report().metrics().size() - 1),
                            MetricMode::Inclusive);
        selection.setValueMode(ValueMode::PercentOfRoot);
        for (int row = 0; row < flat.rowCount(); ++row)
            for (int column = 0; column < flat.columnCount(); ++column)
                (void)flat.data(flat.index(row, column));
    }
}

TEST_CASE("flat profile rows of late_sender", "[flat]") {
    SelectionState selection(openReport(referenceReport("late_sender", "trace")));
    CallTreeModel calls(&selection);
    FlatProfileModel flat(&selection, &calls);
    const Report& report = selection.report();
    RegionId recv = report.callNodes()[*report.findCallPath("late_sender/main/MPI_Recv")].region;
    int row = flat.rowOfRegion(recv);
    REQUIRE(row >= 0);
    CHECK(flat.exclusiveValue(row) == Approx(2.032293).margin(1e-6));
    CHECK(flat.index(row, FlatProfileModel::RegionColumn).data().toString() ==
          QStringLiteral("MPI_Recv"));
    CHECK(flat.index(row, FlatProfileModel::ExclusiveColumn).data().toString() ==
          QStringLiteral("2.03 s"));
}
