// Profiles of a rank's further threads: call paths shared with the rank's tree, time, visits.
#include "tiny_trace.h"
#include "waitscope/analysis/thread_profile.h"

#include <catch2/catch.hpp>

using namespace waitscope;
using namespace waitscope::analysis;
using Approx = Catch::Detail::Approx;
using testing::regionOf;
using K = trace::EventKind;

namespace {

// The node of `path` (region names) in `tree`, or kNoNode.
NodeId nodeOf(const CallTree& tree, const trace::Definitions& defs,
              const std::vector<std::string>& path) {
    NodeId node = kNoNode;
    for (const std::string& name : path) {
        node = tree.find(node, regionOf(defs, name));
        if (node == kNoNode) {
            return kNoNode;
        }
    }
    return node;
}

const trace::Location kThread{(uint64_t{1} << 32), "thread 1", 0, 0};

} // namespace

TEST_CASE("a thread's samples hang below its start routine on the rank's call tree", "[threads]") {
    // Rank 1's stream stands for the thread's events (its definitions are the trace's).
    testing::TinyTrace t(2);
    const uint32_t compute = t.addContext("compute", trace::kUndefined);
    const uint32_t reduce = t.addContext("reduce_part", compute);
    t.rank(0).enter(0, "main").leave(100, "main");
    t.rank(1)
        .enter(10, "worker_fn")
        .context(K::CallingContextSample, 20, compute)
        .context(K::CallingContextSample, 35, reduce)
        .context(K::CallingContextSample, 40, compute)
        .leave(48, "worker_fn")
        .enter(50, "main")
        .enter(52, "omp_parallel")
        .leave(60, "omp_parallel")
        .leave(61, "main");
    CallTree tree;
    // The main location's path, there before.
    const NodeId main = tree.child(kNoNode, regionOf(t.defs, "main"));
    Diagnostics diagnostics;
    const ThreadResult thread = profileThread(t.defs, kThread, t.streams()[1], tree, diagnostics);
    CHECK(thread.location == (uint64_t{1} << 32));
    CHECK(thread.name == "thread 1");
    CHECK(thread.events == 9);
    CHECK(diagnostics.empty());
    const NodeId worker = nodeOf(tree, t.defs, {"worker_fn"});
    const NodeId computeNode = nodeOf(tree, t.defs, {"worker_fn", "compute"});
    const NodeId reduceNode = nodeOf(tree, t.defs, {"worker_fn", "compute", "reduce_part"});
    REQUIRE(computeNode != kNoNode);
    REQUIRE(reduceNode != kNoNode);
    // Each sample covers the time since the previous event; the tail before the Leave stays
    // on the sampled path.
    const auto& s = thread.severities;
    CHECK(s.get(Metric::Time, worker) == 0.0);
    CHECK(s.get(Metric::Time, computeNode) == Approx(0.010 + 0.005 + 0.008));
    CHECK(s.get(Metric::Time, reduceNode) == Approx(0.015));
    CHECK(s.get(Metric::Comp, computeNode) == s.get(Metric::Time, computeNode));
    CHECK(s.get(Metric::Execution, reduceNode) == s.get(Metric::Time, reduceNode));
    CHECK(s.get(Metric::Visits, worker) == 1);
    CHECK(s.get(Metric::Visits, computeNode) == 1);
    // A path the main location has already is the same node.
    CHECK(nodeOf(tree, t.defs, {"main"}) == main);
    CHECK(s.get(Metric::Time, main) == Approx(0.003));
    CHECK(s.get(Metric::Time, nodeOf(tree, t.defs, {"main", "omp_parallel"})) == Approx(0.008));
    CHECK(s.get(Metric::Mpi, main) == 0.0);
}

TEST_CASE("a thread's communication is counted, not replayed, and anomalies are diagnosed",
          "[threads]") {
    testing::TinyTrace t(2);
    t.rank(1).enter(0, "worker_fn").send(10, 20, 0, 5).leave(30, "worker_fn").leave(40, "other");
    t.rank(1).enter(50, "worker_fn");
    CallTree tree;
    Diagnostics diagnostics;
    const ThreadResult thread = profileThread(t.defs, kThread, t.streams()[1], tree, diagnostics);
    CHECK(diagnostics.value(experiment::Diagnostic::ThreadMpiEvents) == 1);
    CHECK(diagnostics.value(experiment::Diagnostic::UnmatchedLeave) == 1);
    CHECK(diagnostics.value(experiment::Diagnostic::RegionsLeftOpen) == 1);
    // The MPI call's time is MPI time on the thread's path; no message metrics, no waits.
    const NodeId send = nodeOf(tree, t.defs, {"worker_fn", "MPI_Send"});
    REQUIRE(send != kNoNode);
    CHECK(thread.severities.get(Metric::Mpi, send) == Approx(0.010));
    CHECK(thread.severities.get(Metric::Comms, send) == 0.0);
    CHECK(thread.severities.get(Metric::BytesSent, send) == 0.0);
}
