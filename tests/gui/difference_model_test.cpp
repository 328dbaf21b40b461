// Tests of the explorer's baseline mode: a difference of two reports in the three models under
// QAbstractItemModelTester, with hand-computed signed values, the diverging colour share and the
// marks of call paths and metrics found in one report only.
#include "test_reports.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <waitscope/gui/report_session.h>
#include <waitscope/gui/value_format.h>
#include <waitscope/report/cubex_writer.h>

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

/// The difference of two files; fails the test if it cannot be opened.
std::unique_ptr<ReportSession> openDifference(const std::string& after, const std::string& before) {
    auto opened = ReportSession::openDifference(QString::fromStdString(after),
                                                QString::fromStdString(before));
    INFO((opened ? std::string() : opened.error().message()));
    REQUIRE(opened);
    return std::move(*opened);
}

/// writtenReport()'s program on 3 ranks: rank r waits r s in MPI_Recv (Late Sender) and
/// computes 1 s. Written to three_ranks.cubex in the test directory; returns its path.
std::string writeThreeRankReport() {
    Report report;
    MetricId time = *report.addMetric("time");
    MetricId mpi = *report.addMetric("mpi", time);
    MetricId late = *report.addMetric("mpi_latesender", mpi);
    RegionId mainRegion = *report.addRegion({.name = "main", .paradigm = "user"});
    RegionId compute = *report.addRegion({.name = "compute", .paradigm = "user"});
    RegionId recv = *report.addRegion({.name = "MPI_Recv", .paradigm = "mpi"});
    CallNodeId root = *report.addCallNode(mainRegion, std::nullopt);
    CallNodeId work = *report.addCallNode(compute, root, 10);
    CallNodeId call = *report.addCallNode(recv, root, 12);
    SystemNodeId machine = *report.addMachine("cluster");
    SystemNodeId node = *report.addNode(machine, "node0");
    std::vector<LocationId> locations; // all of them before the first value
    for (int r = 0; r < 3; ++r) {
        SystemNodeId process = *report.addProcess(node, "MPI Rank " + std::to_string(r), r);
        locations.push_back(
            report.systemNodes()[*report.addThread(process, "Master thread", 0)].location);
    }
    for (int r = 0; r < 3; ++r) {
        const LocationId location = locations[static_cast<std::size_t>(r)];
        REQUIRE(report.setSeverity(time, work, location, 1.0));
        const double wait = r;
        REQUIRE(report.setSeverity(time, call, location, wait));
        REQUIRE(report.setSeverity(mpi, call, location, wait));
        REQUIRE(report.setSeverity(late, call, location, wait));
    }
    std::string path = std::string(WAITSCOPE_TEST_TMP_DIR) + "/three_ranks.cubex";
    REQUIRE(writeCubex(report, path).ok());
    return path;
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

TEST_CASE("a difference shows each node's baseline and report values and the percent change",
          "[difference]") {
    auto session = openDifference(writeAfterReport(), writeBeforeReport());
    auto metricTester = attachTester(session->metricTree());
    auto callTester = attachTester(session->callTree());
    auto systemTester = attachTester(session->systemTree());
    CHECK(session->ranksAligned());
    session->selection()->setMetric(*session->report().findMetric("mpi_latesender"),
                                    MetricMode::Inclusive);
    touchAll(*session->metricTree());
    touchAll(*session->callTree());
    touchAll(*session->systemTree());

    // Late Sender: 1 s before (rank 0), 0.25 s after.
    QModelIndex late = metricIndex(*session, "mpi_latesender");
    CHECK(late.data(ValueTreeModel::BaselineValueRole).toDouble() == Approx(1.0));
    CHECK(late.data(ValueTreeModel::ReportValueRole).toDouble() == Approx(0.25));
    CHECK(late.data(ValueTreeModel::ChangeTextRole).toString() == QStringLiteral("\u221275.0 %"));
    const QString tip = late.data(Qt::ToolTipRole).toString();
    CHECK(tip.contains(QStringLiteral("report \u2212 baseline: \u2212750 ms (\u221275.0 % of the "
                                      "baseline)")));
    CHECK(tip.contains(QStringLiteral("baseline: 1.00 s, report: 250 ms")));

    // A call path only in the baseline went down by all of it; one only in the report is new:
    // its baseline is zero and it has no percentage, in the text nor as a number.
    CallTreeModel& calls = *session->callTree();
    QModelIndex main = findByName(calls, QStringLiteral("main"));
    QModelIndex recv = findByName(calls, QStringLiteral("MPI_Recv"), main);
    QModelIndex waitall = findByName(calls, QStringLiteral("MPI_Waitall"), main);
    REQUIRE(recv.isValid());
    REQUIRE(waitall.isValid());
    CHECK(recv.data(ValueTreeModel::ChangeTextRole).toString() == QStringLiteral("\u2212100 %"));
    CHECK(waitall.data(ValueTreeModel::BaselineValueRole).toDouble() == 0.0);
    CHECK(waitall.data(ValueTreeModel::ReportValueRole).toDouble() == Approx(0.25));
    CHECK(waitall.data(ValueTreeModel::ChangeTextRole).toString() == QStringLiteral("new"));
    session->selection()->setValueMode(ValueMode::PercentOfBaseline);
    CHECK(late.data(ValueTreeModel::ValueTextRole).toString() == QStringLiteral("\u221275.0 %"));
    CHECK(late.data(ValueTreeModel::ValueRole).toDouble() == Approx(-75.0));
    CHECK(recv.data(Qt::DisplayRole).toString() ==
          QStringLiteral("\u2212100 %  MPI_Recv  [only in baseline]"));
    CHECK(waitall.data(Qt::DisplayRole).toString() ==
          QStringLiteral("new  MPI_Waitall  [only in report]"));
    CHECK(std::isnan(waitall.data(ValueTreeModel::ValueRole).toDouble()));
    // Zero in both: no change, not "new".
    QModelIndex compute = findByName(calls, QStringLiteral("compute"), main);
    CHECK(compute.data(ValueTreeModel::ValueTextRole).toString() == QStringLiteral("0 %"));
    // The flat profile has no baseline values: it shows the differences as they are.
    CHECK(session->flatProfile()
              ->index(0, FlatProfileModel::ExclusiveColumn)
              .data(Qt::DisplayRole)
              .toString()
              .endsWith(QStringLiteral("s")));

    // Time, exclusive: compute took 3 + 1 = 4 s before and 2 + 1 = 3 s after.
    session->selection()->setMetric(*session->report().findMetric("time"), MetricMode::Exclusive);
    CHECK(compute.data(ValueTreeModel::BaselineValueRole).toDouble() == Approx(4.0));
    CHECK(compute.data(ValueTreeModel::ReportValueRole).toDouble() == Approx(3.0));
    CHECK(compute.data(ValueTreeModel::ValueTextRole).toString() == QStringLiteral("\u221225.0 %"));
    // main expanded shows its own time, in both runs: 0.5 + 0.5 s, unchanged.
    calls.setExpanded(main, true);
    CHECK(main.data(ValueTreeModel::BaselineValueRole).toDouble() == Approx(1.0));
    CHECK(main.data(ValueTreeModel::ReportValueRole).toDouble() == Approx(1.0));
    CHECK(main.data(ValueTreeModel::ValueTextRole).toString() == QStringLiteral("0 %"));
    calls.setExpanded(main, false);
    // Collapsed: time without its MPI part (exclusive along the metric tree), 0.5 + 3 + 0.5 +
    // 1 = 5 s before, 0.5 + 2 + 0.5 + 1 = 4 s after.
    CHECK(main.data(ValueTreeModel::BaselineValueRole).toDouble() == Approx(5.0));
    CHECK(main.data(ValueTreeModel::ReportValueRole).toDouble() == Approx(4.0));
}

TEST_CASE("a difference's system tree has the baseline, report and change columns per rank",
          "[difference]") {
    auto session = openDifference(writeAfterReport(), writeBeforeReport());
    SystemTreeModel& system = *session->systemTree();
    auto tester = attachTester(&system);
    REQUIRE(system.showsComparedColumns());
    CHECK(system.columnCount() == ValueTreeModel::ComparedColumnCount);
    CHECK(system.headerData(ValueTreeModel::BaselineColumn, Qt::Horizontal).toString() ==
          QStringLiteral("Baseline"));
    CHECK(system.headerData(ValueTreeModel::ReportColumn, Qt::Horizontal).toString() ==
          QStringLiteral("Report"));
    // The other trees keep one column.
    CHECK(session->callTree()->columnCount() == 1);
    CHECK(session->metricTree()->columnCount() == 1);

    const MetricId late = *session->report().findMetric("mpi_latesender");
    session->selection()->setMetric(late, MetricMode::Inclusive);
    QModelIndex main = findByName(*session->callTree(), QStringLiteral("main"));
    session->selection()->setCallPath(session->callTree()->nodeOf(main), CallTreeMode::Inclusive);
    touchAll(system);
    QModelIndex rank0 = findByName(system, QStringLiteral("MPI Rank 0"));
    QModelIndex rank1 = findByName(system, QStringLiteral("MPI Rank 1"));
    REQUIRE(rank0.isValid());
    REQUIRE(rank1.isValid());
    auto cell = [&system](const QModelIndex& row, int column) {
        return system.index(row.row(), column, row.parent());
    };
    CHECK(cell(rank0, ValueTreeModel::BaselineColumn).data().toString() ==
          QStringLiteral("1.00 s"));
    CHECK(cell(rank0, ValueTreeModel::ReportColumn).data().toString() == QStringLiteral("250 ms"));
    CHECK(cell(rank0, ValueTreeModel::ChangeColumn).data().toString() ==
          QStringLiteral("\u221275.0 %"));
    CHECK(cell(rank1, ValueTreeModel::BaselineColumn).data().toString() == QStringLiteral("0 s"));
    CHECK(cell(rank1, ValueTreeModel::ChangeColumn).data().toString() == QStringLiteral("0 %"));
    // The bars of the ranks share a scale: rank 0's baseline is the largest.
    CHECK(cell(rank0, ValueTreeModel::BaselineColumn)
              .data(ValueTreeModel::BarFractionRole)
              .toDouble() == Approx(1.0));
    CHECK(cell(rank0, ValueTreeModel::ReportColumn)
              .data(ValueTreeModel::BarFractionRole)
              .toDouble() == Approx(0.25));
    CHECK_FALSE(rank0.data(ValueTreeModel::BarFractionRole).isValid());
    CHECK_FALSE(
        cell(rank0, ValueTreeModel::ChangeColumn).data(ValueTreeModel::BarFractionRole).isValid());
    // Another call path: the columns follow it (MPI_Recv, only in the baseline).
    QModelIndex recv = findByName(*session->callTree(), QStringLiteral("MPI_Recv"));
    session->selection()->setCallPath(session->callTree()->nodeOf(recv), CallTreeMode::Inclusive);
    CHECK(cell(rank0, ValueTreeModel::ReportColumn).data().toString() == QStringLiteral("0 s"));
    CHECK(cell(rank0, ValueTreeModel::ChangeColumn).data().toString() ==
          QStringLiteral("\u2212100 %"));
}

TEST_CASE("Scalasca's reports of two programs: per-rank Late Sender against the baseline",
          "[difference]") {
    // Baseline late_sender (MPI_Recv), report nb_late_sender (MPI_Waitall); values from
    // their scalasca.json. Their root regions differ, so each call path is in one report.
    auto session = openDifference(referenceReport("nb_late_sender", "trace"),
                                  referenceReport("late_sender", "trace"));
    auto systemTester = attachTester(session->systemTree());
    CHECK(session->ranksAligned());
    session->selection()->setMetric(*session->report().findMetric("mpi_latesender"),
                                    MetricMode::Inclusive);
    // Totals: 2.043251 s against 2.025888 s, +0.857 %.
    QModelIndex late = metricIndex(*session, "mpi_latesender");
    CHECK(late.data(ValueTreeModel::BaselineValueRole).toDouble() ==
          Approx(2.0258883).epsilon(1e-6));
    CHECK(late.data(ValueTreeModel::ReportValueRole).toDouble() == Approx(2.0432510).epsilon(1e-6));
    CHECK(late.data(ValueTreeModel::ChangeTextRole).toString() == QStringLiteral("+0.86 %"));

    auto rankCell = [&session](qint64 rank, int column) {
        SystemTreeModel& system = *session->systemTree();
        QModelIndex row = system.indexOfNode(*session->report().findProcess(rank));
        return system.index(row.row(), column, row.parent());
    };
    auto select = [&session](const std::string& path) {
        auto cnode = session->report().findCallPath(path);
        REQUIRE(cnode);
        session->selection()->setCallPath(*cnode, CallTreeMode::Inclusive);
    };
    // The baseline's MPI_Recv: rank 1 waited 1.026080 s, rank 3 0.999808 s; gone in the report.
    select("late_sender/main/MPI_Recv");
    CHECK(rankCell(1, ValueTreeModel::BaselineColumn)
              .data(ValueTreeModel::BaselineValueRole)
              .toDouble() == Approx(1.0260800).epsilon(1e-6));
    CHECK(rankCell(3, ValueTreeModel::TreeColumn)
              .data(ValueTreeModel::AbsoluteValueRole)
              .toDouble() == Approx(-0.9998083).epsilon(1e-6));
    CHECK(rankCell(3, ValueTreeModel::ChangeColumn).data().toString() ==
          QStringLiteral("\u2212100 %"));
    CHECK(rankCell(0, ValueTreeModel::ChangeColumn).data().toString() == QStringLiteral("0 %"));
    // The report's MPI_Waitall: rank 1 waits 0.999461 s, rank 3 1.043790 s, new.
    select("nb_late_sender/main/MPI_Waitall");
    CHECK(rankCell(3, ValueTreeModel::ReportColumn)
              .data(ValueTreeModel::ReportValueRole)
              .toDouble() == Approx(1.0437900).epsilon(1e-6));
    CHECK(rankCell(1, ValueTreeModel::ReportColumn).data().toString() == QStringLiteral("999 ms"));
    CHECK(rankCell(1, ValueTreeModel::ChangeColumn).data().toString() == QStringLiteral("new"));
}

TEST_CASE("runs with different rank counts are compared over the whole program", "[difference]") {
    auto session = openDifference(writeThreeRankReport(), writeBeforeReport());
    auto systemTester = attachTester(session->systemTree());
    CHECK_FALSE(session->ranksAligned());
    REQUIRE(session->notes().size() == 1);
    CHECK(session->notes().front().contains(QStringLiteral("per-rank values do not align")));
    CHECK(session->notes().front().contains(QStringLiteral("ranks: 3, 2")));
    session->selection()->setMetric(*session->report().findMetric("mpi_latesender"),
                                    MetricMode::Inclusive);
    QModelIndex recv = findByName(*session->callTree(), QStringLiteral("MPI_Recv"));
    session->selection()->setCallPath(session->callTree()->nodeOf(recv), CallTreeMode::Inclusive);
    SystemTreeModel& system = *session->systemTree();
    touchAll(system);
    // One location over all ranks: 0 + 1 + 2 = 3 s of Late Sender after, 1 s before.
    QModelIndex all = findByName(system, QStringLiteral("all locations"));
    REQUIRE(all.isValid());
    CHECK(all.data(ValueTreeModel::BaselineValueRole).toDouble() == Approx(1.0));
    CHECK(all.data(ValueTreeModel::ReportValueRole).toDouble() == Approx(3.0));
    CHECK(all.data(ValueTreeModel::AbsoluteValueRole).toDouble() == Approx(2.0));
    CHECK(all.data(ValueTreeModel::ChangeTextRole).toString() == QStringLiteral("+200 %"));
    CHECK_FALSE(findByName(system, QStringLiteral("MPI Rank 0")).isValid());
}
