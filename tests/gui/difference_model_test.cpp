// Tests of the explorer's baseline mode: a difference of two reports in the three models under
// QAbstractItemModelTester, with hand-computed signed values, the diverging colour share and the
// marks of call paths and metrics found in one report only.
#include "test_reports.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <waitscope/gui/report_session.h>
#include <waitscope/gui/value_format.h>

using namespace waitscope::gui;
using namespace waitscope::gui::test;
using namespace waitscope::report;
using Approx = Catch::Detail::Approx;

namespace {

QModelIndex metricIndex(const ReportSession& session, const std::string& name) {
    auto id = session.report().findMetric(name);
    REQUIRE(id);
    return session.metricTree()->indexOfNode(*id);
}

} // namespace

TEST_CASE("a difference to a baseline passes the model tester and shows signed values",
          "[difference]") {
    auto opened = ReportSession::openDifference(QString::fromStdString(writeAfterReport()),
                                                QString::fromStdString(writeBeforeReport()));
    INFO((opened ? std::string() : opened.error().message()));
    REQUIRE(opened);
    ReportSession& session = **opened;
    auto metricTester = attachTester(session.metricTree());
    auto callTester = attachTester(session.callTree());
    auto systemTester = attachTester(session.systemTree());
    REQUIRE(session.isDifference());
    CHECK(session.path().endsWith(QStringLiteral("after.cubex")));
    CHECK(session.baselinePath().endsWith(QStringLiteral("written.cubex")));
    CHECK(session.notes().isEmpty()); // both have ranks 0 and 1

    // Late Sender: rank 0 waited 1 s before, 0.25 s after.
    const MetricId late = *session.report().findMetric("mpi_latesender");
    session.selection()->setMetric(late, MetricMode::Inclusive);
    touchAll(*session.metricTree());
    touchAll(*session.callTree());
    touchAll(*session.systemTree());
    CHECK(metricIndex(session, "mpi_latesender").data(ValueTreeModel::ValueTextRole).toString() ==
          QStringLiteral("\u2212750 ms"));
    CallTreeModel& calls = *session.callTree();
    QModelIndex main = findByName(calls, QStringLiteral("main"));
    REQUIRE(main.isValid());
    CHECK(main.data(ValueTreeModel::AbsoluteValueRole).toDouble() == Approx(-0.75));
    CHECK(main.data(ValueTreeModel::ValueTextRole).toString() == QStringLiteral("\u2212750 ms"));
    QModelIndex recv = findByName(calls, QStringLiteral("MPI_Recv"), main);
    QModelIndex waitall = findByName(calls, QStringLiteral("MPI_Waitall"), main);
    QModelIndex compute = findByName(calls, QStringLiteral("compute"), main);
    REQUIRE(recv.isValid());
    REQUIRE(waitall.isValid());
    REQUIRE(compute.isValid());
    CHECK(recv.data(ValueTreeModel::ValueTextRole).toString() == QStringLiteral("\u22121.00 s"));
    CHECK(waitall.data(ValueTreeModel::ValueTextRole).toString() == QStringLiteral("+250 ms"));
    CHECK(compute.data(ValueTreeModel::ValueTextRole).toString() == QStringLiteral("0 s"));
    // Each call path found in one report only is marked, in the row as the views list it.
    CHECK(recv.data(ValueTreeModel::PresenceRole).toInt() ==
          static_cast<int>(Presence::OnlyBefore));
    CHECK(waitall.data(ValueTreeModel::PresenceRole).toInt() ==
          static_cast<int>(Presence::OnlyAfter));
    CHECK(compute.data(ValueTreeModel::PresenceRole).toInt() == static_cast<int>(Presence::Both));
    CHECK(recv.data(Qt::DisplayRole).toString() ==
          QStringLiteral("\u22121.00 s  MPI_Recv  [only in baseline]"));
    CHECK(waitall.data(Qt::DisplayRole).toString() ==
          QStringLiteral("+250 ms  MPI_Waitall  [only in report]"));
    // The diverging colour share: the largest magnitude below the root (MPI_Recv's 1 s) is -1.
    CHECK(recv.data(ValueTreeModel::SignedFractionRole).toDouble() == Approx(-1.0));
    CHECK(waitall.data(ValueTreeModel::SignedFractionRole).toDouble() == Approx(0.25));
    CHECK(compute.data(ValueTreeModel::SignedFractionRole).toDouble() == 0.0);
    // A metric found only in the report.
    CHECK(metricIndex(session, "mpi_latereceiver").data(ValueTreeModel::PresenceRole).toInt() ==
          static_cast<int>(Presence::OnlyAfter));
    CHECK(metricIndex(session, "mpi_latesender").data(ValueTreeModel::PresenceRole).toInt() ==
          static_cast<int>(Presence::Both));

    // The system tree of the selected call path, per rank.
    session.selection()->setCallPath(calls.nodeOf(main), CallTreeMode::Inclusive);
    SystemTreeModel& system = *session.systemTree();
    QModelIndex rank0 = findByName(system, QStringLiteral("MPI Rank 0"));
    QModelIndex rank1 = findByName(system, QStringLiteral("MPI Rank 1"));
    REQUIRE(rank0.isValid());
    REQUIRE(rank1.isValid());
    CHECK(rank0.data(ValueTreeModel::AbsoluteValueRole).toDouble() == Approx(-0.75));
    CHECK(rank1.data(ValueTreeModel::AbsoluteValueRole).toDouble() == 0.0);

    // Time on compute: rank 0 computes 1 s less (exclusive time metric, all ranks).
    session.selection()->setMetric(*session.report().findMetric("time"), MetricMode::Exclusive);
    CHECK(compute.data(ValueTreeModel::AbsoluteValueRole).toDouble() == Approx(-1.0));
    CHECK(compute.data(ValueTreeModel::ValueTextRole).toString() == QStringLiteral("\u22121.00 s"));
    // Percent modes are signed by the value, not by the reference: the root's time without MPI
    // changed by -1 s too (rank 0: 3.5 s before, 2.5 s after), so compute holds all of it.
    session.selection()->setValueMode(ValueMode::PercentOfRoot);
    CHECK(compute.data(ValueTreeModel::ValueTextRole).toString() == QStringLiteral("\u2212100 %"));
}

TEST_CASE("a report without a baseline shows no signs or marks", "[difference]") {
    ReportSession session(writtenReport());
    CHECK_FALSE(session.isDifference());
    QModelIndex main = findByName(*session.callTree(), QStringLiteral("main"));
    REQUIRE(main.isValid());
    CHECK_FALSE(main.data(ValueTreeModel::SignedFractionRole).isValid());
    CHECK_FALSE(main.data(ValueTreeModel::PresenceRole).isValid());
    CHECK_FALSE(main.data(ValueTreeModel::ValueTextRole).toString().startsWith(QLatin1Char('+')));
}

TEST_CASE("a difference names the baseline that cannot be opened", "[difference]") {
    auto opened = ReportSession::openDifference(QString::fromStdString(writeAfterReport()),
                                                QStringLiteral("/no/such/baseline.cubex"));
    REQUIRE_FALSE(opened);
    CHECK(opened.error().message().find("/no/such/baseline.cubex") != std::string::npos);
}

TEST_CASE("signed values have a plus or a true minus sign, zero none", "[difference]") {
    CHECK(formatSignedValue(0.84, "sec") == QStringLiteral("+840 ms"));
    CHECK(formatSignedValue(-0.84, "sec") == QStringLiteral("\u2212840 ms"));
    CHECK(formatSignedValue(0.0, "sec") == QStringLiteral("0 s"));
    CHECK(formatSignedValue(1e-12, "sec") == QStringLiteral("0 s"));
    CHECK(formatSignedValue(-20.0, "occ") == QStringLiteral("\u221220"));
    CHECK(formatSignedPercent(-71.0) == QStringLiteral("\u221271.0 %"));
    CHECK(formatSignedPercent(0.0) == QStringLiteral("0 %"));
    CHECK(formatSignedValue(std::nan(""), "sec") == QStringLiteral("n/a"));
}
