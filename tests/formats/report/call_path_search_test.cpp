// Finding call paths by their end, and the tool's messages when a name matches none or several.
#include "report_printer.h"
#include "test_support.h"

#include <catch2/catch.hpp>
#include <sstream>
#include <waitscope/report/call_path_search.h>
#include <waitscope/report/cubex_reader.h>
#include <waitscope/report/cubex_writer.h>

using namespace waitscope::report;
using namespace waitscope::report::test;

namespace {

// prog/main/{receive_block/MPI_Recv, MPI_Recv, domain/MPI_Recv, MPI_Send}, second root "other".
Report searchReport() {
    Report r;
    auto region = [&](const char* name) { return *r.addRegion({.name = name}); };
    RegionId prog = region("prog"), main = region("main"), block = region("receive_block"),
             recv = region("MPI_Recv"), domain = region("domain"), send = region("MPI_Send"),
             other = region("other");
    CallNodeId root = *r.addCallNode(prog, std::nullopt); // 0
    CallNodeId m = *r.addCallNode(main, root);            // 1
    CallNodeId b = *r.addCallNode(block, m);              // 2
    REQUIRE(*r.addCallNode(recv, b) == 3);                // 3
    REQUIRE(*r.addCallNode(recv, m) == 4);                // 4
    CallNodeId d = *r.addCallNode(domain, m);             // 5
    REQUIRE(*r.addCallNode(recv, d) == 6);                // 6
    REQUIRE(*r.addCallNode(send, m) == 7);                // 7
    REQUIRE(*r.addCallNode(other, std::nullopt) == 8);    // 8
    SystemNodeId machine = *r.addMachine("m");
    SystemNodeId p0 = *r.addProcess(machine, "MPI Rank 0", 0);
    REQUIRE(r.addThread(p0, "t", 0));
    MetricId time = *r.addMetric("time");
    REQUIRE(r.setSeverity(time, 3, 0, 1.5));
    return r;
}

std::string rankError(const Report& r, const std::string& metric, const std::string& path) {
    std::ostringstream out;
    auto status =
        printRankDistribution(r, metric, path, CallTreeMode::Exclusive, out, OutputFormat::Csv);
    return status ? "(printed) " + out.str() : status.error().message();
}

} // namespace

TEST_CASE("call paths are found by their end at a component boundary", "[report][callpath]") {
    Report r = searchReport();
    using V = std::vector<CallNodeId>;
    CHECK(findCallPathsBySuffix(r, "MPI_Recv") == V{3, 4, 6});
    CHECK(findCallPathsBySuffix(r, "main/MPI_Recv") == V{4});
    CHECK(findCallPathsBySuffix(r, "receive_block/MPI_Recv") == V{3});
    CHECK(findCallPathsBySuffix(r, "prog/main/receive_block/MPI_Recv") == V{3});
    CHECK(findCallPathsBySuffix(r, "/main/MPI_Recv").empty()); // anchored: main is no root
    CHECK(findCallPathsBySuffix(r, "/prog/main") == V{1});
    CHECK(findCallPathsBySuffix(r, "ain/MPI_Recv").empty()); // not a whole component
    CHECK(findCallPathsBySuffix(r, "x/prog/main").empty());  // longer than the path
    CHECK(findCallPathsBySuffix(r, "").empty());
    CHECK(findCallPathsBySuffix(r, "main//MPI_Recv").empty());
    CHECK(findCallPathsBySuffix(r, "MPI_Recv/").empty());
    CHECK(findCallPathsBySuffix(r, "other") == V{8});
}

TEST_CASE("suggestions name the region of the path's last component", "[report][callpath]") {
    Report r = searchReport();
    using V = std::vector<CallNodeId>;
    CHECK(suggestCallPaths(r, "nowhere/MPI_Recv") == V{3, 4, 6});
    CHECK(suggestCallPaths(r, "nowhere/MPI_Recv", 2) == V{3, 4});
    CHECK(suggestCallPaths(r, "x/mpi_") == V{3, 4, 6, 7}); // then by part, ignoring case
    CHECK(suggestCallPaths(r, "main/MPI_Sendx") == V{7});  // a name the last part contains
    CHECK(suggestCallPaths(r, "zzz").empty());
}

TEST_CASE("the ranks view takes the end of a path, and says which when it is ambiguous",
          "[report][callpath][printer]") {
    Report r = searchReport();
    CHECK(rankError(r, "time", "receive_block/MPI_Recv") ==
          "(printed) rank,process,value\n0,MPI Rank 0,1.5\n");
    CHECK(rankError(r, "time", "prog/main/receive_block/MPI_Recv") ==
          "(printed) rank,process,value\n0,MPI Rank 0,1.5\n");
    CHECK(rankError(r, "time", "3") == "(printed) rank,process,value\n0,MPI Rank 0,1.5\n");
    CHECK(rankError(r, "time", "MPI_Recv") ==
          "call path 'MPI_Recv' matches 3 call paths; give more of the path or a call node id:\n"
          "  prog/main/receive_block/MPI_Recv (id 3)\n"
          "  prog/main/MPI_Recv (id 4)\n"
          "  prog/main/domain/MPI_Recv (id 6)");
    CHECK(rankError(r, "time", "main/block/MPI_Recv") ==
          "no call path 'main/block/MPI_Recv' in this report; did you mean:\n"
          "  prog/main/receive_block/MPI_Recv (id 3)\n"
          "  prog/main/MPI_Recv (id 4)\n"
          "  prog/main/domain/MPI_Recv (id 6)");
    CHECK(rankError(r, "time", "nothing_like_it") ==
          "no call path 'nothing_like_it' in this report");
    CHECK(rankError(r, "time", "9") == "call node id 9 out of range (9 call nodes)");
    CHECK(rankError(r, "time", "2147483647") ==
          "call node id 2147483647 out of range (9 call nodes)");
    CHECK(rankError(r, "time", "99999999999999999999") ==
          "call node id 99999999999999999999 out of range (9 call nodes)");
}

TEST_CASE("a metric display name shared by several metrics is reported as ambiguous",
          "[report][printer]") {
    auto report = readCubex(referenceDir() + "/late_sender/trace.cubex");
    REQUIRE(report);
    std::ostringstream out;
    REQUIRE(!printTopCallPaths(*report, "Late Sender", 1, CallTreeMode::Exclusive, out,
                               OutputFormat::Csv));
    auto status = printTopCallPaths(*report, "Late Senders", 1, CallTreeMode::Exclusive, out,
                                    OutputFormat::Csv);
    REQUIRE(!status);
    CHECK(status.error().message() ==
          "metric name 'Late Senders' matches 2 metrics; give the unique name of one:\n"
          "  mpi_sls_count (under syncs_recv)\n"
          "  mpi_cls_count (under comms_recv)");
    // A display name only one metric has works like its unique name.
    std::ostringstream byDisplay, byUnique;
    REQUIRE(printTopCallPaths(*report, "Execution", 3, CallTreeMode::Exclusive, byDisplay,
                              OutputFormat::Csv));
    REQUIRE(printTopCallPaths(*report, "execution", 3, CallTreeMode::Exclusive, byUnique,
                              OutputFormat::Csv));
    CHECK(byDisplay.str() == byUnique.str());
}

TEST_CASE("call path lookups stay linear on a very deep call tree", "[report][callpath]") {
    // 200,000 nested calls: building each node's path string (or walking to the root per node)
    // would take minutes; these lookups must take well under a second.
    Report r;
    RegionId f = *r.addRegion({.name = "f"});
    RegionId leaf = *r.addRegion({.name = "leaf"});
    std::optional<CallNodeId> parent;
    constexpr CallNodeId kDepth = 200000;
    for (CallNodeId i = 0; i < kDepth; ++i)
        parent = *r.addCallNode(i + 1 == kDepth ? leaf : f, parent);
    SystemNodeId machine = *r.addMachine("m");
    SystemNodeId p0 = *r.addProcess(machine, "MPI Rank 0", 0);
    REQUIRE(r.addThread(p0, "t", 0));
    MetricId time = *r.addMetric("time");
    REQUIRE(r.setSeverity(time, kDepth - 1, 0, 2.0));
    CHECK(findCallPathsBySuffix(r, "f/leaf") == std::vector<CallNodeId>{kDepth - 1});
    CHECK(findCallPathsBySuffix(r, "f/f/f").size() == kDepth - 3);
    CHECK(!r.findCallPath("f/f/leaf"));
    CHECK(rankError(r, "time", "0") == "(printed) rank,process,value\n0,MPI Rank 0,0\n");
    CHECK(rankError(r, "time", "leaf") == "(printed) rank,process,value\n0,MPI Rank 0,2\n");
    std::ostringstream inclusive;
    REQUIRE(printRankDistribution(r, "time", "0", CallTreeMode::Inclusive, inclusive,
                                  OutputFormat::Csv));
    CHECK(inclusive.str() == "rank,process,value\n0,MPI Rank 0,2\n");
}

TEST_CASE("a 100,000-deep metric tree is written, read and printed in linear time",
          "[report][printer]") {
    Report r;
    RegionId f = *r.addRegion({.name = "main"});
    CallNodeId root = *r.addCallNode(f, std::nullopt);
    SystemNodeId machine = *r.addMachine("m");
    SystemNodeId p0 = *r.addProcess(machine, "MPI Rank 0", 0);
    REQUIRE(r.addThread(p0, "t", 0));
    constexpr int kDepth = 100000;
    std::optional<MetricId> parent;
    for (int i = 0; i < kDepth; ++i) {
        Metric m;
        m.uniqueName = "m" + std::to_string(i);
        m.parent = parent;
        parent = *r.addMetric(m);
    }
    REQUIRE(r.setSeverity(*parent, root, 0, 4.0));
    REQUIRE(r.setSeverity(0, root, 0, 5.0));
    auto bytes = writeCubexToMemory(r);
    REQUIRE(bytes);
    auto back = readCubexFromMemory(*bytes, "deep_metrics.cubex");
    REQUIRE(back);
    CHECK(*back->total(*back->findMetric("m99999")) == 4.0);
    CHECK(*back->total(0) == 5.0);
    std::ostringstream out;
    REQUIRE(printMetricTotals(*back, out, OutputFormat::Text));
    CHECK(out.str().size() < 200u * kDepth);
    CHECK(out.str().find(std::string(80, ' ') + "m99999 ") != std::string::npos);
}
