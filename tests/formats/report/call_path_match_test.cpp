// findCallPathsBySuffix and the "did you mean" message on a small call tree.
#include <catch2/catch.hpp>
#include <waitscope/report/call_path_match.h>

using namespace waitscope::report;

namespace {

// prog/main/receive_block/MPI_Recv, prog/main/send_block/MPI_Send, prog/main/MPI_Recv,
// prog/main/MPI_Irecv.
struct Tree {
    Report report;
    CallNodeId main = 0;
    CallNodeId blockRecv = 0;
    CallNodeId mainRecv = 0;
    CallNodeId send = 0;
    CallNodeId irecv = 0;
    Tree() {
        auto region = [this](const char* name) { return *report.addRegion({.name = name}); };
        RegionId recv = region("MPI_Recv");
        CallNodeId prog = *report.addCallNode(region("prog"), std::nullopt);
        main = *report.addCallNode(region("main"), prog);
        CallNodeId receiveBlock = *report.addCallNode(region("receive_block"), main);
        blockRecv = *report.addCallNode(recv, receiveBlock);
        CallNodeId sendBlock = *report.addCallNode(region("send_block"), main);
        send = *report.addCallNode(region("MPI_Send"), sendBlock);
        mainRecv = *report.addCallNode(recv, main);
        irecv = *report.addCallNode(region("MPI_Irecv"), main);
    }
};

} // namespace

TEST_CASE("a full call path names its node alone", "[report][callpath]") {
    Tree tree;
    CHECK(findCallPathsBySuffix(tree.report, "prog/main/MPI_Recv") ==
          std::vector<CallNodeId>{tree.mainRecv});
    CHECK(findCallPathsBySuffix(tree.report, "prog/main") == std::vector<CallNodeId>{tree.main});
}

TEST_CASE("a call path suffix names every node it ends", "[report][callpath]") {
    Tree tree;
    CHECK(findCallPathsBySuffix(tree.report, "receive_block/MPI_Recv") ==
          std::vector<CallNodeId>{tree.blockRecv});
    CHECK(findCallPathsBySuffix(tree.report, "main/MPI_Recv") ==
          std::vector<CallNodeId>{tree.mainRecv});
    CHECK(findCallPathsBySuffix(tree.report, "MPI_Recv") ==
          std::vector<CallNodeId>{tree.blockRecv, tree.mainRecv});
}

TEST_CASE("a call path suffix matches whole region names only", "[report][callpath]") {
    Tree tree;
    CHECK(findCallPathsBySuffix(tree.report, "Recv").empty());
    CHECK(findCallPathsBySuffix(tree.report, "block/MPI_Recv").empty());
    CHECK(findCallPathsBySuffix(tree.report, "send_block/MPI_Recv").empty());
    CHECK(findCallPathsBySuffix(tree.report, "").empty());
}

TEST_CASE("a call path that matches nothing suggests paths with its last region",
          "[report][callpath]") {
    Tree tree;
    CHECK(noCallPathMessage(tree.report, "solver/mpi_recv") ==
          "no call path 'solver/mpi_recv' in this report; did you mean "
          "'prog/main/receive_block/MPI_Recv' or 'prog/main/MPI_Recv'?");
    // No region of that name: those whose name contains it.
    CHECK(suggestCallPaths(tree.report, "x/send") ==
          std::vector<std::string>{"prog/main/send_block", "prog/main/send_block/MPI_Send"});
    CHECK(noCallPathMessage(tree.report, "MPI_Bcast") == "no call path 'MPI_Bcast' in this report");
    CHECK(suggestCallPaths(tree.report, "recv", 1) ==
          std::vector<std::string>{"prog/main/receive_block/MPI_Recv"});
}
