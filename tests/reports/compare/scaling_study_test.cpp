// Scaling study: efficiency per call path against the smallest run, the call paths that stop
// scaling and the wait states that grow, on synthetic runs with known costs.
#include <catch2/catch.hpp>
#include <sstream>
#include <waitscope/compare/scaling_study.h>

using namespace waitscope;
using namespace waitscope::report;

namespace {

/// A run on `ranks` ranks: main/solve scales perfectly (4 s of work shared by the ranks),
/// main/MPI_Allreduce takes 0.5 s on every rank, 0.25 s of it Wait at N x N.
Report makeRun(int ranks) {
    Report r;
    const MetricId time = *r.addMetric("time");
    const MetricId wait = *r.addMetric("mpi_wait_nxn", time);
    const CallNodeId main = *r.addCallNode(*r.addRegion({.name = "main"}), std::nullopt);
    const CallNodeId solve = *r.addCallNode(*r.addRegion({.name = "solve"}), main);
    const CallNodeId reduce =
        *r.addCallNode(*r.addRegion({.name = "MPI_Allreduce", .paradigm = "mpi"}), main);
    const SystemNodeId machine = *r.addMachine("m");
    for (int rank = 0; rank < ranks; ++rank)
        (void)r.addThread(*r.addProcess(machine, "rank", rank), "t", 0);
    for (LocationId loc = 0; loc < r.locations().size(); ++loc) {
        REQUIRE(r.setSeverity(time, solve, loc, 4.0 / ranks));
        REQUIRE(r.setSeverity(time, reduce, loc, 0.5));
        REQUIRE(r.setSeverity(wait, reduce, loc, 0.25));
    }
    return r;
}

} // namespace

TEST_CASE("scaling study finds the call path that stops scaling and the growing wait state") {
    Report four = makeRun(4);
    Report two = makeRun(2);
    const Report* runs[] = {&four, &two}; // any order: sorted by rank count
    auto study = compare::studyScaling(runs);
    REQUIRE(study);
    CHECK(study->ranks == std::vector<std::int64_t>{2, 4});
    // Cost at 2 ranks: 4 + 2 × 0.5 = 5 s; at 4 ranks: 4 + 4 × 0.5 = 6 s.
    CHECK(study->program.cost[0] == Approx(5.0));
    CHECK(study->program.cost[1] == Approx(6.0));
    CHECK(study->program.efficiency() == Approx(5.0 / 6.0));
    REQUIRE(study->stopScaling.size() == 1); // solve scales perfectly
    CHECK(study->stopScaling[0].name == "main/MPI_Allreduce");
    CHECK(study->stopScaling[0].efficiency() == Approx(0.5));
    REQUIRE(study->growingWaits.size() == 1);
    CHECK(study->growingWaits[0].name == "Wait at N x N (mpi_wait_nxn)");
    CHECK(study->growingWaits[0].cost[0] == Approx(0.5));
    CHECK(study->growingWaits[0].cost[1] == Approx(1.0));
    std::ostringstream text;
    compare::printScalingStudy(*study, text);
    CHECK(text.str().find("  main/MPI_Allreduce: 1.000 s -> 2.000 s, efficiency 50 %") !=
          std::string::npos);
    CHECK(text.str().find("  whole program: 5.000 s -> 6.000 s, efficiency 83 %") !=
          std::string::npos);
}

TEST_CASE("scaling study needs runs at different rank counts") {
    Report a = makeRun(2);
    Report b = makeRun(2);
    const Report* same[] = {&a, &b};
    auto study = compare::studyScaling(same);
    REQUIRE_FALSE(study);
    CHECK(study.error().message() ==
          "compare --scaling: two runs with 2 ranks; give one run per rank count");
    const Report* one[] = {&a};
    CHECK_FALSE(compare::studyScaling(one));
}
