// Report algebra: difference, mean and merge against hand-computed values, on small built
// reports (trees that differ, ranks that differ) and on Scalasca's reference reports.
#include "report_algebra_command.h"
#include "test_support.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <waitscope/report/cubex_reader.h>
#include <waitscope/report/cubex_writer.h>
#include <waitscope/report/report_algebra.h>

using namespace waitscope::report;
using namespace waitscope::report::test;

namespace {

/// A small report: metrics time > mpi_latesender and visits; call tree main > {solve,
/// MPI_Recv} (or MPI_Recv first if `recvFirst`), plus main > `extra` if not empty; `ranks`
/// ranks of one thread. Value of time at (path, rank) = base + 10 × rank + index of the path.
struct Small {
    Report report;
    MetricId time, late, visits;
    CallNodeId main, solve, recv;
};

Small makeSmall(double base, int ranks, bool recvFirst = false, const std::string& extra = "") {
    Small s;
    Report& r = s.report;
    s.time = *r.addMetric("time");
    s.late = *r.addMetric("mpi_latesender", s.time);
    s.visits = *r.addMetric("visits", std::nullopt, DataType::Uint64);
    const RegionId mainRegion = *r.addRegion({.name = "main", .paradigm = "user"});
    const RegionId solveRegion = *r.addRegion({.name = "solve", .paradigm = "user"});
    const RegionId recvRegion = *r.addRegion({.name = "MPI_Recv", .paradigm = "mpi"});
    s.main = *r.addCallNode(mainRegion, std::nullopt);
    if (recvFirst) {
        s.recv = *r.addCallNode(recvRegion, s.main, 7);
        s.solve = *r.addCallNode(solveRegion, s.main, 5);
    } else {
        s.solve = *r.addCallNode(solveRegion, s.main, 5);
        s.recv = *r.addCallNode(recvRegion, s.main, 7);
    }
    std::optional<CallNodeId> extraNode;
    if (!extra.empty())
        extraNode = *r.addCallNode(*r.addRegion({.name = extra}), s.main);
    const SystemNodeId machine = *r.addMachine("cluster");
    const SystemNodeId node = *r.addNode(machine, "node0");
    for (int rank = 0; rank < ranks; ++rank) {
        const SystemNodeId process = *r.addProcess(node, "MPI Rank " + std::to_string(rank), rank);
        (void)r.addThread(process, "Master thread", 0);
    }
    for (LocationId loc = 0; loc < r.locations().size(); ++loc) {
        const double rankPart = 10.0 * loc;
        REQUIRE(r.setSeverity(s.time, s.main, loc, base + rankPart));
        REQUIRE(r.setSeverity(s.time, s.solve, loc, base + rankPart + 1));
        REQUIRE(r.setSeverity(s.time, s.recv, loc, base + rankPart + 2));
        REQUIRE(r.setSeverity(s.late, s.recv, loc, base / 2 + loc));
        REQUIRE(r.setSeverityUint64(s.visits, s.recv, loc, 3 + loc));
        if (extraNode)
            REQUIRE(r.setSeverity(s.time, *extraNode, loc, 100));
    }
    return s;
}

/// The value of `metric` at call path `path` and MPI rank `rank` (exclusive along the call
/// tree), or at the whole program if rank < 0.
double at(const Report& r, const std::string& metric, const std::string& path, int rank) {
    auto m = r.findMetric(metric);
    REQUIRE(m);
    auto c = r.findCallPath(path);
    REQUIRE(c);
    SystemNodeId where = r.rootSystemNodes().front();
    if (rank >= 0) {
        auto p = r.findProcess(rank);
        REQUIRE(p);
        where = *p;
    }
    auto v = r.value(*m, *c, where, CallTreeMode::Exclusive, SystemMode::Inclusive);
    REQUIRE(v);
    return *v;
}

/// Writes and reads back, so that every check also covers what Cube's tools would open.
Report roundTrip(const Report& report, const std::string& name) {
    auto bytes = writeCubexToMemory(report);
    REQUIRE(bytes);
    auto back = readCubexFromMemory(*bytes, name);
    REQUIRE(back);
    return std::move(*back);
}

double total(const Report& r, const std::string& metric) {
    auto m = r.findMetric(metric);
    REQUIRE(m);
    auto t = r.total(*m);
    REQUIRE(t);
    return *t;
}

} // namespace

TEST_CASE("report diff subtracts per metric, call path and rank, with trees unified by path") {
    Small a = makeSmall(4.0, 2);
    Small b = makeSmall(1.0, 2, /*recvFirst=*/true, "setup"); // other order, one more path
    auto d = diffReports(a.report, b.report);
    REQUIRE(d);
    CHECK(d->ranksAligned);
    CHECK(d->notes.empty());
    const Report r = roundTrip(d->report, "diff.cubex");
    CHECK(r.callNodes().size() == 4); // main, solve, MPI_Recv, setup
    // time at main/solve, rank 1: (4 + 10 + 1) − (1 + 10 + 1) = 3
    CHECK(at(r, "time", "main/solve", 1) == Approx(3.0));
    CHECK(at(r, "time", "main/MPI_Recv", 0) == Approx(3.0));
    // Late Sender is part of time: exclusive metric value 4/2 − 1/2 = 1.5 at each rank.
    CHECK(at(r, "mpi_latesender", "main/MPI_Recv", 0) == Approx(1.5));
    CHECK(at(r, "mpi_latesender", "main/MPI_Recv", 1) == Approx(1.5));
    // A path only in B counts as 0 in A.
    CHECK(at(r, "time", "main/setup", 0) == Approx(-100.0));
    // Counts become doubles (they may be negative) and subtract to 0 here.
    CHECK(r.metrics()[*r.findMetric("visits")].dataType == DataType::Double);
    CHECK(at(r, "visits", "main/MPI_Recv", 1) == Approx(0.0).margin(1e-12));
    CHECK(r.metrics()[*r.findMetric("mpi_latesender")].parent == r.findMetric("time"));
}

TEST_CASE("report mean averages the values of every report") {
    Small a = makeSmall(1.0, 2);
    Small b = makeSmall(2.0, 2, true);
    Small c = makeSmall(6.0, 2, false, "setup");
    const Report* inputs[] = {&a.report, &b.report, &c.report};
    auto m = meanReports(inputs);
    REQUIRE(m);
    const Report r = roundTrip(m->report, "mean.cubex");
    // time at main, rank 1: ((1 + 10) + (2 + 10) + (6 + 10)) / 3 = 13
    CHECK(at(r, "time", "main", 1) == Approx(13.0));
    CHECK(at(r, "time", "main/setup", 0) == Approx(100.0 / 3));
    // visits at MPI_Recv, rank 1: 4 in each report, mean 4 (as a double).
    CHECK(at(r, "visits", "main/MPI_Recv", 1) == Approx(4.0));
    CHECK(r.metrics()[*r.findMetric("visits")].dataType == DataType::Double);
    CHECK_FALSE(meanReports({}));
}

TEST_CASE("report merge puts the metrics of several reports into one") {
    Small a = makeSmall(1.0, 2);
    Report bytes;
    const MetricId sent = *bytes.addMetric("bytes_sent", std::nullopt, DataType::Uint64);
    const RegionId mainRegion = *bytes.addRegion({.name = "main"});
    const RegionId sendRegion = *bytes.addRegion({.name = "MPI_Send", .paradigm = "mpi"});
    const CallNodeId mainNode = *bytes.addCallNode(mainRegion, std::nullopt);
    const CallNodeId send = *bytes.addCallNode(sendRegion, mainNode);
    const SystemNodeId machine = *bytes.addMachine("other machine name");
    for (int rank = 1; rank >= 0; --rank) // ranks in the other order: matched by rank
        (void)bytes.addThread(*bytes.addProcess(machine, "rank", rank), "t", 0);
    REQUIRE(bytes.setSeverityUint64(sent, send, 0, 800)); // location 0 is rank 1
    REQUIRE(bytes.setSeverityUint64(sent, send, 1, 8));
    // The time metric also in the second report: the first report's values win.
    Small again = makeSmall(50.0, 2);
    const Report* inputs[] = {&a.report, &bytes, &again.report};
    auto m = mergeReports(inputs);
    REQUIRE(m);
    CHECK(m->ranksAligned);
    const Report r = roundTrip(m->report, "merge.cubex");
    CHECK(r.metrics().size() == 4);
    CHECK(r.metrics()[*r.findMetric("bytes_sent")].dataType == DataType::Uint64);
    CHECK(at(r, "bytes_sent", "main/MPI_Send", 1) == 800);
    CHECK(at(r, "bytes_sent", "main/MPI_Send", 0) == 8);
    CHECK(at(r, "time", "main/solve", 1) == Approx(12.0));
    CHECK(at(r, "visits", "main/MPI_Recv", 0) == 3);
}

TEST_CASE("reports with different rank counts are compared over the whole program") {
    Small two = makeSmall(1.0, 2);
    Small three = makeSmall(1.0, 3);
    auto d = diffReports(three.report, two.report);
    REQUIRE(d);
    CHECK_FALSE(d->ranksAligned);
    REQUIRE(d->notes.size() == 1);
    CHECK(d->notes[0].find("per-rank values do not align") != std::string::npos);
    CHECK(d->notes[0].find("ranks: 3, 2") != std::string::npos);
    const Report r = roundTrip(d->report, "ranks.cubex");
    CHECK(r.locations().size() == 1);
    // time at main/solve: (2 + 12 + 22) − (2 + 12) = 22
    CHECK(at(r, "time", "main/solve", -1) == Approx(22.0));
    CHECK(at(r, "visits", "main/MPI_Recv", -1) == Approx(5.0)); // (3+4+5) − (3+4)
}

TEST_CASE("aligned reports hold each input's values on the ids of their difference") {
    Small a = makeSmall(4.0, 2);
    Small b = makeSmall(1.0, 2, /*recvFirst=*/true, "setup");
    auto aligned = alignReports(a.report, b.report);
    REQUIRE(aligned);
    CHECK(aligned->ranksAligned);
    const Report& first = aligned->first;
    const Report& second = aligned->second;
    const Report& diff = aligned->difference;
    // The same trees, node for node.
    REQUIRE(first.callNodes().size() == diff.callNodes().size());
    REQUIRE(second.callNodes().size() == diff.callNodes().size());
    REQUIRE(second.metrics().size() == diff.metrics().size());
    REQUIRE(second.locations().size() == diff.locations().size());
    for (CallNodeId c = 0; c < diff.callNodes().size(); ++c)
        CHECK(second.callPath(c) == diff.callPath(c));
    // time at main/solve on rank 1: 4 + 10 + 1 = 15 in A, 1 + 10 + 1 = 12 in B.
    CHECK(at(first, "time", "main/solve", 1) == Approx(15.0));
    CHECK(at(second, "time", "main/solve", 1) == Approx(12.0));
    CHECK(at(diff, "time", "main/solve", 1) == Approx(3.0));
    // main/setup is only in B: 0 in A, 100 in B.
    CHECK(at(first, "time", "main/setup", 0) == 0.0);
    CHECK(at(second, "time", "main/setup", 0) == Approx(100.0));
    CHECK(at(diff, "time", "main/setup", 0) == Approx(-100.0));

    // Different rank counts: all three over the whole program.
    Small three = makeSmall(1.0, 3);
    auto wide = alignReports(three.report, b.report);
    REQUIRE(wide);
    CHECK_FALSE(wide->ranksAligned);
    REQUIRE(wide->notes.size() == 1);
    CHECK(wide->second.locations().size() == 1);
    // time at main/solve: 2 + 12 + 22 = 36 over three ranks, 2 + 12 = 14 over two.
    CHECK(at(wide->first, "time", "main/solve", -1) == Approx(36.0));
    CHECK(at(wide->second, "time", "main/solve", -1) == Approx(14.0));
    CHECK(at(wide->difference, "time", "main/solve", -1) == Approx(22.0));
}

TEST_CASE("report algebra on Scalasca's reference reports matches their printed totals") {
    // Totals from tests/data/reference/README.md (printed by Scalasca, 4 decimals).
    auto lateSender = readCubex(referenceDir() + "/late_sender/trace.cubex");
    auto barrier = readCubex(referenceDir() + "/wait_at_barrier/trace.cubex");
    auto lateReceiver = readCubex(referenceDir() + "/late_receiver/trace.cubex");
    REQUIRE(lateSender);
    REQUIRE(barrier);
    REQUIRE(lateReceiver);
    auto d = diffReports(*lateSender, *barrier);
    REQUIRE(d);
    const Report diff = roundTrip(d->report, "reference_diff.cubex");
    CHECK(total(diff, "time") == Approx(5.6100 - 9.6406).margin(1e-4));
    CHECK(total(diff, "visits") == Approx(72 - 84).margin(1e-9));
    CHECK(total(diff, "mpi_latesender") == Approx(2.0259).margin(1e-4));
    CHECK(total(diff, "mpi_barrier_wait") == Approx(0.0639 - 2.9232).margin(1e-4));

    const Report* inputs[] = {&*lateSender, &*lateReceiver};
    auto m = meanReports(inputs);
    REQUIRE(m);
    const Report mean = roundTrip(m->report, "reference_mean.cubex");
    CHECK(total(mean, "time") == Approx((5.6100 + 5.5886) / 2).margin(1e-4));
    CHECK(total(mean, "visits") == Approx(72).margin(1e-9));
    CHECK(total(mean, "mpi_latereceiver") == Approx(1.9933 / 2).margin(1e-4));

    // A report minus itself is zero everywhere, per rank.
    auto self = diffReports(*lateSender, *lateSender);
    REQUIRE(self);
    CHECK(self->ranksAligned);
    const Report zero = roundTrip(self->report, "reference_zero.cubex");
    for (MetricId metric = 0; metric < zero.metrics().size(); ++metric) {
        auto values = zero.callNodeValues(metric, CallTreeMode::Exclusive);
        REQUIRE(values);
        for (double v : *values)
            CHECK(v == Approx(0.0).margin(1e-12));
    }
}

TEST_CASE("report merge of a Score-P profile and a Scalasca trace analysis keeps both") {
    auto profile = readCubex(referenceDir() + "/late_sender/profile.cubex");
    auto trace = readCubex(referenceDir() + "/late_sender/trace.cubex");
    REQUIRE(profile);
    REQUIRE(trace);
    const Report* inputs[] = {&*trace, &*profile};
    auto m = mergeReports(inputs);
    REQUIRE(m);
    const Report merged = roundTrip(m->report, "reference_merge.cubex");
    CHECK(total(merged, "mpi_latesender") == Approx(2.0259).margin(1e-4));
    CHECK(total(merged, "visits") == Approx(72).margin(1e-9));
    for (const Metric& metric : profile->metrics())
        if (!isDerived(metric.kind))
            CHECK(merged.findMetric(metric.uniqueName));
}

TEST_CASE("report algebra finds an experiment directory's report") {
    const std::string dir = std::string(WAITSCOPE_TEST_TMP_DIR) + "/algebra_experiment";
    std::filesystem::create_directories(dir);
    CHECK(reportFileOf(dir) == dir + "/report.cubex");
    CHECK(reportFileOf(dir + "/x.cubex") == dir + "/x.cubex");
}

TEST_CASE("report diff of a metric stored exclusively and one stored inclusively") {
    // The same values, stored per call node without callees (A) and with them (B).
    Small a = makeSmall(2.0, 2);
    Report b;
    Metric inclusiveTime;
    inclusiveTime.uniqueName = "time";
    inclusiveTime.kind = MetricKind::Inclusive;
    const MetricId time = *b.addMetric(inclusiveTime);
    const CallNodeId main = *b.addCallNode(*b.addRegion({.name = "main"}), std::nullopt);
    const CallNodeId solve = *b.addCallNode(*b.addRegion({.name = "solve"}), main, 5);
    const CallNodeId recv = *b.addCallNode(*b.addRegion({.name = "MPI_Recv"}), main, 7);
    const SystemNodeId machine = *b.addMachine("cluster");
    for (int rank = 0; rank < 2; ++rank)
        (void)b.addThread(*b.addProcess(machine, "MPI Rank", rank), "Master thread", 0);
    for (LocationId loc = 0; loc < 2; ++loc) {
        const double base = 2.0 + 10.0 * loc;
        REQUIRE(b.setSeverity(time, solve, loc, base + 1));
        REQUIRE(b.setSeverity(time, recv, loc, base + 2));
        REQUIRE(b.setSeverity(time, main, loc, 3 * base + 3)); // main + solve + MPI_Recv
    }
    auto d = diffReports(a.report, b);
    REQUIRE(d);
    const Report r = roundTrip(d->report, "kinds.cubex");
    CHECK(r.metrics()[*r.findMetric("time")].kind == MetricKind::Exclusive);
    for (const char* path : {"main", "main/solve", "main/MPI_Recv"})
        for (int rank = 0; rank < 2; ++rank)
            CHECK(at(r, "time", path, rank) == Approx(0.0).margin(1e-12));
}
