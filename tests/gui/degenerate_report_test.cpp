// Reports with empty trees (no metrics, no call paths, no system tree) open without crashing.
#include "test_reports.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <waitscope/gui/report_session.h>

using namespace waitscope::gui;
using namespace waitscope::gui::test;
using namespace waitscope::report;

namespace {

// Builds a session over `report` with the model tester on every model and reads every row.
void openAndTouch(Report report) {
    ReportSession session(std::make_shared<const Report>(std::move(report)));
    auto testers = {attachTester(session.metricTree()), attachTester(session.callTree()),
                    attachTester(session.systemTree()), attachTester(session.flatProfile())};
    (void)testers;
    touchAll(*session.metricTree());
    touchAll(*session.callTree());
    touchAll(*session.systemTree());
    touchAll(*session.flatProfile());
    session.callTree()->hottestPath();
    session.selection()->setCallPath(1, CallTreeMode::Exclusive);
    session.selection()->setValueMode(ValueMode::PeerPercent);
    touchAll(*session.systemTree());
    CHECK(std::isnan(session.selection()->selectedMetricValue()));
}

} // namespace

TEST_CASE("a report without metrics shows its call and system trees without values",
          "[degenerate]") {
    Report report = reportWithoutMetrics();
    ReportSession session(std::make_shared<const Report>(std::move(report)));
    CHECK(session.metricTree()->rowCount() == 0);
    CHECK(session.callTree()->rowCount() == 1);
    CHECK(session.systemTree()->rowCount() == 1);
    QModelIndex rank0 = findByName(*session.systemTree(), QStringLiteral("MPI Rank 0"));
    REQUIRE(rank0.isValid());
    CHECK(rank0.data(ValueTreeModel::ValueTextRole).toString() == QStringLiteral("n/a"));
    openAndTouch(reportWithoutMetrics());
}

TEST_CASE("a report file without metrics is refused with the reader's message", "[degenerate]") {
    auto session = ReportSession::open(QString::fromStdString(writeReportWithoutMetrics()));
    REQUIRE_FALSE(session.ok());
    CHECK(session.error().message().ends_with("no_metrics.cubex: anchor.xml: no metrics"));
}

TEST_CASE("an empty report opens", "[degenerate]") {
    openAndTouch(Report());
}
