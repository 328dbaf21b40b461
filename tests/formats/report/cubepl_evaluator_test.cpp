// The CubePL evaluator and its expression parser on their own: linear expressions become
// merged terms, and one evaluator answers a query in every call-tree and metric view.
#include "cubepl_evaluator.h"
#include "cubepl_linear.h"

#include <catch2/catch.hpp>
#include <map>
#include <string>

using namespace waitscope::report;
using waitscope::report::detail::CubePLEvaluator;
using waitscope::report::detail::LinearTerm;
using waitscope::report::detail::parseLinearCubePL;
using waitscope::report::detail::SeverityStorage;

namespace {

std::optional<MetricId> lookup(std::string_view name) {
    static const std::map<std::string, MetricId, std::less<>> ids{{"a", 0}, {"b", 1}};
    const auto it = ids.find(name);
    return it == ids.end() ? std::nullopt : std::optional<MetricId>(it->second);
}

// time (exclusive) with child mpi; main -> MPI_Recv; two locations.
//   time: main 3 | 5, MPI_Recv 2 | 1    mpi: MPI_Recv 2 | 1
struct TwoRanks {
    Report report;
    MetricId time = 0, mpi = 0;
    CallNodeId main = 0, recv = 0;

    TwoRanks() {
        time = *report.addMetric("time");
        mpi = *report.addMetric("mpi", time);
        const RegionId mainRegion = *report.addRegion({.name = "main", .paradigm = "user"});
        const RegionId recvRegion =
            *report.addRegion({.name = "MPI_Recv", .file = "MPI", .paradigm = "mpi"});
        main = *report.addCallNode(mainRegion, std::nullopt);
        recv = *report.addCallNode(recvRegion, main);
        const SystemNodeId machine = *report.addMachine("cluster");
        const SystemNodeId node = *report.addNode(machine, "node0");
        for (std::int64_t rank = 0; rank < 2; ++rank) {
            const SystemNodeId process =
                *report.addProcess(node, "MPI Rank " + std::to_string(rank), rank);
            REQUIRE(report.addThread(process, "Master thread", 0));
        }
        REQUIRE(report.setSeverity(time, main, 0, 3.0));
        REQUIRE(report.setSeverity(time, main, 1, 5.0));
        REQUIRE(report.setSeverity(time, recv, 0, 2.0));
        REQUIRE(report.setSeverity(time, recv, 1, 1.0));
        REQUIRE(report.setSeverity(mpi, recv, 0, 2.0));
        REQUIRE(report.setSeverity(mpi, recv, 1, 1.0));
    }

    MetricId derived(const std::string& name, const std::string& expression) {
        Metric metric;
        metric.uniqueName = name;
        metric.kind = MetricKind::PostDerived;
        metric.expression = expression;
        return *report.addMetric(metric);
    }

    CubePLEvaluator evaluator() const {
        return CubePLEvaluator(report, SeverityStorage::of(report));
    }
};

} // namespace

TEST_CASE("a linear CubePL expression becomes one term per metric", "[report][cubepl]") {
    std::string why;
    const auto terms =
        parseLinearCubePL("metric::a() + 2 * metric::a(i) - metric::b(e)", lookup, why);
    REQUIRE(terms);
    std::map<MetricId, double> byMetric;
    for (const LinearTerm& term : *terms) {
        byMetric[term.metric] += term.coefficient;
    }
    CHECK(terms->size() == 2);
    CHECK(byMetric == std::map<MetricId, double>{{0, 3.0}, {1, -1.0}});
}

TEST_CASE("a CubePL expression that is not linear is refused with its reason", "[report][cubepl]") {
    std::string why;
    CHECK_FALSE(parseLinearCubePL("metric::a() * metric::b()", lookup, why));
    CHECK(why == "products of metrics are not supported");
    CHECK_FALSE(parseLinearCubePL("metric::c()", lookup, why));
    CHECK(why == "unknown metric 'c'");
}

TEST_CASE("the evaluator answers every call-tree and metric view at one call node",
          "[report][cubepl]") {
    TwoRanks r;
    const MetricId compute = r.derived("compute", "metric::time() - metric::mpi()");
    auto evaluator = r.evaluator();
    using Values = std::vector<double>;
    CHECK(*evaluator.atNode(compute, r.main, CallTreeMode::Inclusive, MetricMode::Inclusive) ==
          Values{3.0, 5.0});
    CHECK(*evaluator.atNode(r.time, r.main, CallTreeMode::Inclusive, MetricMode::Inclusive) ==
          Values{5.0, 6.0});
    CHECK(*evaluator.atNode(r.time, r.main, CallTreeMode::Inclusive, MetricMode::Exclusive) ==
          Values{3.0, 5.0});

    auto exclusive = r.evaluator();
    CHECK(*exclusive.atNode(r.time, r.main, CallTreeMode::Exclusive, MetricMode::Inclusive) ==
          Values{3.0, 5.0});
}

TEST_CASE("the evaluator sums each call node over all locations", "[report][cubepl]") {
    TwoRanks r;
    const MetricId compute = r.derived("compute", "metric::time() - metric::mpi()");
    using Values = std::vector<double>;
    CHECK(*r.evaluator().perNode(r.time, CallTreeMode::Inclusive, MetricMode::Inclusive) ==
          Values{11.0, 3.0});
    CHECK(*r.evaluator().perNode(r.time, CallTreeMode::Exclusive, MetricMode::Inclusive) ==
          Values{8.0, 3.0});
    CHECK(*r.evaluator().perNode(compute, CallTreeMode::Exclusive, MetricMode::Inclusive) ==
          Values{8.0, 0.0});
}

TEST_CASE("the evaluator fails on cyclic derived metrics and on unknown ids", "[report][cubepl]") {
    TwoRanks r;
    const MetricId a = r.derived("cycle_a", "metric::cycle_b()");
    r.derived("cycle_b", "metric::cycle_a()");
    auto cyclic = r.evaluator().atNode(a, r.main, CallTreeMode::Inclusive, MetricMode::Inclusive);
    REQUIRE_FALSE(cyclic);
    CHECK(cyclic.error().message().find("nest too deeply") != std::string::npos);
    auto unknown = r.evaluator().perNode(99, CallTreeMode::Inclusive, MetricMode::Inclusive);
    REQUIRE_FALSE(unknown);
    CHECK(unknown.error().message() == "metric id 99 out of range");
}
