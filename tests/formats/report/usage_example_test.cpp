// The usage example at the top of report.h, compiled and checked.
#include <catch2/catch.hpp>
#include <unistd.h>
#include <waitscope/report/cubex_reader.h>
#include <waitscope/report/cubex_writer.h>
#include <waitscope/report/report.h>

TEST_CASE("the usage example of report.h works", "[report][example]") {
    REQUIRE(::chdir(WAITSCOPE_TEST_TMP_DIR) == 0);
    using namespace waitscope::report;

    Report report;
    MetricId time = *report.addMetric("time");                 // names, units, descriptions
    MetricId late = *report.addMetric("mpi_latesender", time); // come from share/metrics
    RegionId mainRegion = *report.addRegion({.name = "main", .paradigm = "user"});
    RegionId recv = *report.addRegion({.name = "MPI_Recv", .file = "MPI", .paradigm = "mpi"});
    CallNodeId root = *report.addCallNode(mainRegion, std::nullopt);
    CallNodeId call = *report.addCallNode(recv, root, 42);
    SystemNodeId machine = *report.addMachine("cluster");
    SystemNodeId node = *report.addNode(machine, "node0");
    SystemNodeId rank0 = *report.addProcess(node, "MPI Rank 0", 0);
    SystemNodeId thread = *report.addThread(rank0, "Master thread", 0);
    LocationId loc = report.systemNodes()[thread].location;
    (void)report.setSeverity(time, call, loc, 2.5); // time includes its child metrics
    (void)report.setSeverity(late, call, loc, 2.0);
    if (waitscope::Status s = writeCubex(report, "out.cubex"); !s) {
        FAIL(s.error().message());
    }

    waitscope::Result<Report> back = readCubex("out.cubex"); // data load on first use
    waitscope::Result<double> v = back->value(late, root, machine, CallTreeMode::Inclusive,
                                              SystemMode::Inclusive); // 2.0
    REQUIRE(v);
    CHECK(*v == 2.0);
    CHECK(back->metrics()[late].displayName == "Late Sender");
    CHECK(*back->total(time, MetricMode::Exclusive) == 0.5);
}
