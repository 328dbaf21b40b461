// The explorer's selection picks exactly the instances of the metric (with the metrics below
// it) on the call path (with the paths below it), and next, previous and worst step through
// them in time order.
#include "instance_finder.h"

#include <catch2/catch.hpp>
#include <memory>
#include <optional>

using namespace waitscope;
using namespace waitscope::timeline;
using analysis::Metric;

namespace {

// time > mpi > late sender > wrong order; call tree main > (a > recv, b > recv).
struct Fixture {
    report::Report report;
    report::MetricId time = 0, lateSender = 0, wrongOrder = 0, barrier = 0, visits = 0;
    report::CallNodeId main = 0, a = 0, aRecv = 0, b = 0, bRecv = 0;

    Fixture() {
        time = *report.addMetric("time");
        lateSender = *report.addMetric("mpi_latesender", time);
        wrongOrder = *report.addMetric("mpi_latesender_wo", lateSender);
        barrier = *report.addMetric("mpi_barrier_wait", time);
        visits = *report.addMetric("visits");
        const auto mainRegion = *report.addRegion({.name = "main"});
        const auto aRegion = *report.addRegion({.name = "a"});
        const auto bRegion = *report.addRegion({.name = "b"});
        const auto recvRegion = *report.addRegion({.name = "MPI_Recv"});
        main = *report.addCallNode(mainRegion, std::nullopt);
        a = *report.addCallNode(aRegion, main);
        aRecv = *report.addCallNode(recvRegion, a);
        b = *report.addCallNode(bRegion, main);
        bRecv = *report.addCallNode(recvRegion, b);
    }
};

analysis::PatternInstance instance(Metric metric, uint32_t node, uint32_t rank, double enter,
                                   double severity) {
    return {metric, node, rank, enter, enter + 1.0, severity};
}

// The finder over `instances` as an instances file holds them (in time order): its steps are
// told by the index of the current instance in `instances`.
struct Stepper {
    const std::vector<analysis::PatternInstance>& instances;
    InstanceFinder finder;

    explicit Stepper(const std::vector<analysis::PatternInstance>& written)
        : instances(written), finder(std::make_shared<const analysis::InstanceFile>(
                                  analysis::InstanceFile::fromInstances(written))) {}

    std::optional<size_t> told(std::optional<uint64_t> step) const {
        if (!step || !finder.currentInstance()) {
            return std::nullopt;
        }
        const analysis::PatternInstance& i = *finder.currentInstance();
        for (size_t k = 0; k < instances.size(); ++k) {
            const analysis::PatternInstance& w = instances[k];
            if (w.metric == i.metric && w.node == i.node && w.rank == i.rank &&
                w.enter == i.enter && w.exit == i.exit && w.severity == i.severity) {
                return k;
            }
        }
        return std::nullopt;
    }
    std::optional<size_t> next() { return told(finder.next()); }
    std::optional<size_t> previous() { return told(finder.previous()); }
    std::optional<size_t> worst() { return told(finder.worst()); }
    // Every picked instance, stepping from the first to the last (next() stays at the last).
    std::vector<size_t> picked() {
        std::vector<size_t> all;
        finder.select(InstanceFilter(filter));
        for (auto step = finder.next(); step;) {
            all.push_back(*told(step));
            const auto following = finder.next();
            if (following == step) {
                break;
            }
            step = following;
        }
        CHECK(all.size() == finder.pickedCount());
        finder.select(InstanceFilter(filter));
        return all;
    }
    InstanceFilter filter;
};

} // namespace

TEST_CASE("a selection picks the instances of its metric and call path subtrees", "[timeline]") {
    Fixture f;
    const std::vector<analysis::PatternInstance> instances = {
        instance(Metric::MpiLateSender, f.aRecv, 1, 5.0, 0.5),            // 0
        instance(Metric::MpiLateSenderWrongOrder, f.bRecv, 0, 2.0, 0.25), // 1
        instance(Metric::MpiLateSender, f.bRecv, 3, 2.0, 0.75),           // 2
        instance(Metric::MpiBarrierWait, f.main, 2, 9.0, 0.125),          // 3
        instance(Metric::MpiLateSender, f.aRecv, 0, 1.0, 0.75),           // 4
    };
    Stepper stepper(instances);
    InstanceFinder& finder = stepper.finder;
    const auto picked = [&](report::MetricId metric, report::CallNodeId node) {
        stepper.filter = filterOf(f.report, metric, node);
        return stepper.picked();
    };
    // Everything, in time order (waiting start, then rank).
    CHECK(picked(f.time, f.main) == std::vector<size_t>{4, 1, 2, 0, 3});
    // Late Sender holds Wrong Order below it; Wrong Order is alone.
    CHECK(picked(f.lateSender, f.main) == std::vector<size_t>{4, 1, 2, 0});
    CHECK(picked(f.wrongOrder, f.main) == std::vector<size_t>{1});
    // A call path holds the paths below it.
    CHECK(picked(f.time, f.b) == std::vector<size_t>{1, 2});
    CHECK(picked(f.lateSender, f.aRecv) == std::vector<size_t>{4, 0});
    CHECK(picked(f.barrier, f.a).empty());
    CHECK(picked(f.barrier, f.main) == std::vector<size_t>{3});
    // A metric that is no pattern picks nothing.
    CHECK(picked(f.visits, f.main).empty());
    CHECK(!finder.next());
    CHECK(!finder.worst());
}

TEST_CASE("next, previous and worst step through the picked instances", "[timeline]") {
    Fixture f;
    const std::vector<analysis::PatternInstance> instances = {
        instance(Metric::MpiLateSender, f.aRecv, 1, 5.0, 0.5),
        instance(Metric::MpiLateSender, f.bRecv, 0, 2.0, 0.75),
        instance(Metric::MpiLateSender, f.bRecv, 3, 7.0, 0.75),
        instance(Metric::MpiLateSender, f.aRecv, 2, 1.0, 0.25),
    };
    Stepper finder(instances);
    CHECK(finder.picked() == std::vector<size_t>{3, 1, 0, 2});
    CHECK(!finder.finder.current());
    CHECK(finder.next() == 3u);
    CHECK(finder.next() == 1u);
    CHECK(finder.finder.position() == 1u);
    CHECK(finder.previous() == 3u);
    CHECK(finder.previous() == 3u); // stays at the first
    CHECK(finder.worst() == 1u);    // 0.75 twice: the earlier
    CHECK(finder.finder.position() == 1u);
    CHECK(finder.next() == 0u);
    CHECK(finder.next() == 2u);
    CHECK(finder.next() == 2u); // stays at the last
    CHECK(finder.finder.position() == 3u);
    finder.finder.select({});
    CHECK(!finder.finder.current());
    CHECK(finder.previous() == 2u); // from nothing: the last
    CHECK(finder.finder.position() == 3u);
    // The window holds the call with its length on each side.
    const auto [from, to] = InstanceFinder::windowAround(instances[0], 0.0);
    CHECK(from == Approx(4.0));
    CHECK(to == Approx(7.0));
    const auto [wideFrom, wideTo] = InstanceFinder::windowAround(instances[0], 30.0);
    CHECK(wideTo - wideFrom == Approx(30.0));
}
