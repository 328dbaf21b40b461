// The OpenMP wait states of a rank from its threads' constructs: barrier waits per team (tasks
// run in a barrier are work), idle threads on the master's call paths, critical contention.
#include "openmp_team.h"

#include <catch2/catch.hpp>

using namespace waitscope;
using namespace waitscope::analysis;
using Approx = Catch::Detail::Approx;
using testing::regionOf;

TEST_CASE("OpenMP barrier waits exclude tasks run in the barrier, idle threads sit on the "
          "master's paths",
          "[openmp]") {
    // Rank 1's stream stands for the master's worker thread (times in milliseconds).
    testing::TinyTrace t(2);
    t.rank(0).enter(0, "main").leave(100, "main");
    t.rank(1)
        .enter(11, "!$omp parallel")
        .enter(30, "!$omp implicit barrier")
        .leave(50, "!$omp implicit barrier")
        .leave(70, "!$omp parallel") // reported late: the runtime wakes the thread only now
        .enter(80, "!$omp parallel")
        .enter(82, "!$omp critical")
        .enter(83, "!$omp critical sblock")
        .leave(93, "!$omp critical sblock")
        .leave(93, "!$omp critical")
        .leave(95, "!$omp parallel");
    // The master: its own events fed as the profile stage feeds them.
    for (const char* name : {"!$omp parallel", "!$omp implicit barrier", "!$omp task",
                             "!$omp critical", "!$omp critical sblock"}) {
        if (regionOf(t.defs, name) == trace::kUndefined) {
            t.rank(0).enter(0, name).leave(0, name); // defines the region; not replayed below
        }
    }
    const std::vector<RegionClass> classes = testing::regionClasses(t.defs);
    const auto s = [&](double ms) { return ms / 1000.0; };
    RankResult result;
    CallTree& tree = result.tree;
    OpenmpTimeline master(t.defs, classes);
    REQUIRE(master.enabled());
    const NodeId main = tree.child(kNoNode, regionOf(t.defs, "main"));
    const NodeId parallel = tree.child(main, regionOf(t.defs, "!$omp parallel"));
    const NodeId barrier = tree.child(parallel, regionOf(t.defs, "!$omp implicit barrier"));
    const NodeId task = tree.child(barrier, regionOf(t.defs, "!$omp task"));
    const NodeId critical = tree.child(parallel, regionOf(t.defs, "!$omp critical"));
    const NodeId sblock = tree.child(critical, regionOf(t.defs, "!$omp critical sblock"));
    master.enter(regionOf(t.defs, "main"), main, s(0));
    master.charge(main, s(0), s(10));
    master.enter(regionOf(t.defs, "!$omp parallel"), parallel, s(10));
    master.enter(regionOf(t.defs, "!$omp implicit barrier"), barrier, s(20));
    master.enter(regionOf(t.defs, "!$omp task"), task, s(22)); // a task in the barrier: work
    master.leave(s(28));
    master.leave(s(50));
    master.leave(s(51));
    master.charge(main, s(51), s(79));
    master.enter(regionOf(t.defs, "!$omp parallel"), parallel, s(79));
    master.enter(regionOf(t.defs, "!$omp critical"), critical, s(80));
    master.enter(regionOf(t.defs, "!$omp critical sblock"), sblock, s(80));
    master.leave(s(83));
    master.leave(s(83));
    master.leave(s(96));
    master.charge(main, s(96), s(100));
    master.leave(s(100));

    std::vector<OpenmpTimeline> threads;
    testing::profileTeamThread(t, 1, classes, master, threads, result);
    analyzeOpenmp(master, threads, result);
    const SeverityRows& worker = result.threads[0].severities;

    // The thread's parallel region hangs below the master's path to it.
    CHECK(worker.get(Metric::Visits, parallel) == 2);
    // Last arrival at 30: the master waited 10 ms, less the 6 ms task; the thread none.
    CHECK(result.severities.get(Metric::OmpIbarrierWait, barrier) == Approx(s(4)));
    CHECK(worker.get(Metric::OmpIbarrierWait, barrier) == 0.0);
    // The thread's time after the join (51) is idle, not barrier time.
    CHECK(worker.get(Metric::Time, barrier) == Approx(s(20)));
    // Idle while the master is outside parallel regions: 10 + 28 + 4 ms on main.
    CHECK(worker.get(Metric::OmpIdleThreads, main) == Approx(s(42)));
    CHECK(result.severities.get(Metric::OmpIdleThreads, main) == 0.0);
    // The thread asked for the critical section at 82 while the master held it until 83.
    CHECK(worker.get(Metric::OmpLockContentionCritical, critical) == Approx(s(1)));
    CHECK(worker.get(Metric::OmpCritical, critical) == Approx(s(1)));
    CHECK(result.severities.get(Metric::OmpLockContentionCritical, critical) == 0.0);
}

TEST_CASE("an OpenMP barrier wait is charged as delay costs to the last thread's excess work",
          "[openmp]") {
    // Rank 1's stream stands for the master's worker thread (times in milliseconds): it works
    // 25 ms on `compute` and 15 ms on `extra` before the barrier, the master 10 ms on `compute`.
    testing::TinyTrace t(2);
    t.rank(0)
        .enter(0, "main")
        .enter(0, "!$omp parallel")
        .enter(0, "!$omp implicit barrier")
        .leave(0, "!$omp implicit barrier")
        .leave(0, "!$omp parallel")
        .leave(100, "main"); // defines the regions; not replayed below
    t.rank(1)
        .enter(10, "!$omp parallel")
        .enter(10, "compute")
        .leave(35, "compute")
        .enter(35, "extra")
        .leave(50, "extra")
        .enter(50, "!$omp implicit barrier")
        .leave(51, "!$omp implicit barrier")
        .leave(52, "!$omp parallel");
    const std::vector<RegionClass> classes = testing::regionClasses(t.defs);
    const auto s = [&](double ms) { return ms / 1000.0; };
    for (const bool delayCosts : {true, false}) {
        INFO("delay costs " << delayCosts);
        RankResult result;
        CallTree& tree = result.tree;
        OpenmpTimeline master(t.defs, classes);
        const NodeId main = tree.child(kNoNode, regionOf(t.defs, "main"));
        const NodeId parallel = tree.child(main, regionOf(t.defs, "!$omp parallel"));
        const NodeId compute = tree.child(parallel, regionOf(t.defs, "compute"));
        const NodeId barrier = tree.child(parallel, regionOf(t.defs, "!$omp implicit barrier"));
        master.enter(regionOf(t.defs, "main"), main, s(0));
        master.charge(main, s(0), s(10));
        master.enter(regionOf(t.defs, "!$omp parallel"), parallel, s(10));
        master.enter(regionOf(t.defs, "compute"), compute, s(10));
        master.charge(compute, s(10), s(20));
        master.leave(s(20));
        master.enter(regionOf(t.defs, "!$omp implicit barrier"), barrier, s(20));
        master.leave(s(51));
        master.leave(s(52));
        master.charge(main, s(52), s(100));
        master.leave(s(100));

        std::vector<OpenmpTimeline> threads;
        testing::profileTeamThread(t, 1, classes, master, threads, result);
        analyzeOpenmp(master, threads, result, delayCosts);
        const SeverityRows& worker = result.threads[0].severities;
        const NodeId extra = tree.child(parallel, regionOf(t.defs, "extra"));

        // The master waited 30 ms for the thread's arrival at 50.
        CHECK(result.severities.get(Metric::OmpIbarrierWait, barrier) == Approx(s(30)));
        // The thread's excess: 15 ms on compute (25 against 10), 15 ms on extra; the wait of
        // 30 ms splits in that proportion. Nothing on the master, who made nobody wait.
        CHECK(worker.get(Metric::DelayOmpbarrier, compute) == Approx(delayCosts ? s(15) : 0.0));
        CHECK(worker.get(Metric::DelayOmpbarrier, extra) == Approx(delayCosts ? s(15) : 0.0));
        // The metrics above hold them too.
        CHECK(worker.get(Metric::DelayOmpbarrierAggregate, compute) ==
              Approx(delayCosts ? s(15) : 0.0));
        CHECK(worker.get(Metric::Delay, extra) == Approx(delayCosts ? s(15) : 0.0));
        CHECK(worker.get(Metric::DelayOmpbarrier, parallel) == 0.0);
        CHECK(result.severities.get(Metric::DelayOmpbarrier, compute) == 0.0);
    }
}

TEST_CASE("the part of an OpenMP barrier wait the last thread's contention explains is charged "
          "long-term to the critical section it waited for",
          "[openmp]") {
    // Rank 1's stream stands for the worker (times in milliseconds): it holds the critical
    // section 0-30, computes 15 ms and waits in the barrier from 45. The master asks for the
    // section at 0, gets it at 30, holds it 10 ms, computes 20 ms and arrives last at 60.
    testing::TinyTrace t(2);
    t.rank(0)
        .enter(0, "main")
        .enter(0, "!$omp parallel")
        .enter(0, "!$omp critical")
        .enter(0, "!$omp critical sblock")
        .leave(0, "!$omp critical sblock")
        .leave(0, "!$omp critical")
        .enter(0, "compute")
        .leave(0, "compute")
        .enter(0, "!$omp implicit barrier")
        .leave(0, "!$omp implicit barrier")
        .leave(0, "!$omp parallel")
        .leave(100, "main"); // defines the regions; not replayed below
    t.rank(1)
        .enter(0, "!$omp parallel")
        .enter(0, "!$omp critical")
        .enter(0, "!$omp critical sblock")
        .leave(30, "!$omp critical sblock")
        .leave(30, "!$omp critical")
        .enter(30, "compute")
        .leave(45, "compute")
        .enter(45, "!$omp implicit barrier")
        .leave(61, "!$omp implicit barrier")
        .leave(62, "!$omp parallel");
    const std::vector<RegionClass> classes = testing::regionClasses(t.defs);
    const auto s = [&](double ms) { return ms / 1000.0; };
    const auto region = [&](const char* name) { return regionOf(t.defs, name); };
    for (const bool delayCosts : {true, false}) {
        INFO("delay costs " << delayCosts);
        RankResult result;
        CallTree& tree = result.tree;
        OpenmpTimeline master(t.defs, classes);
        const NodeId main = tree.child(kNoNode, region("main"));
        const NodeId parallel = tree.child(main, region("!$omp parallel"));
        const NodeId critical = tree.child(parallel, region("!$omp critical"));
        const NodeId sblock = tree.child(critical, region("!$omp critical sblock"));
        const NodeId compute = tree.child(parallel, region("compute"));
        const NodeId barrier = tree.child(parallel, region("!$omp implicit barrier"));
        master.enter(region("main"), main, s(0));
        master.enter(region("!$omp parallel"), parallel, s(0));
        master.enter(region("!$omp critical"), critical, s(0));
        master.enter(region("!$omp critical sblock"), sblock, s(30));
        master.charge(sblock, s(30), s(40));
        master.leave(s(40));
        master.leave(s(40));
        master.enter(region("compute"), compute, s(40));
        master.charge(compute, s(40), s(60));
        master.leave(s(60));
        master.enter(region("!$omp implicit barrier"), barrier, s(60));
        master.leave(s(61));
        master.leave(s(62));
        master.charge(main, s(62), s(100));
        master.leave(s(100));

        std::vector<OpenmpTimeline> threads;
        testing::profileTeamThread(t, 1, classes, master, threads, result);
        analyzeOpenmp(master, threads, result, delayCosts);
        const SeverityRows& worker = result.threads[0].severities;

        // The worker waited 15 ms for the master's arrival at 60; the master waited 30 ms for
        // the section the worker held.
        CHECK(worker.get(Metric::OmpIbarrierWait, barrier) == Approx(s(15)));
        CHECK(result.severities.get(Metric::OmpLockContentionCritical, critical) == Approx(s(30)));
        // Short-term: the master's excess work, 5 ms on compute (20 against 15; its 10 ms in
        // the section against the worker's 30 are none).
        CHECK(result.severities.get(Metric::DelayOmpbarrier, compute) ==
              Approx(delayCosts ? s(5) : 0.0));
        CHECK(result.severities.get(Metric::DelayOmpbarrier, sblock) == 0.0);
        // Long-term: the other 10 ms came from the master's contention, all of it the worker's
        // hold of the section, so on the worker's critical section.
        CHECK(worker.get(Metric::DelayOmpbarrierLongterm, sblock) ==
              Approx(delayCosts ? s(10) : 0.0));
        CHECK(result.severities.get(Metric::DelayOmpbarrierLongterm, sblock) == 0.0);
        CHECK(worker.get(Metric::DelayOmpbarrier, sblock) == 0.0);
    }
}

TEST_CASE("the master's MPI waiting before an OpenMP barrier is waiting, not work: its share of "
          "the barrier waits becomes costs of the MPI wait state",
          "[openmp]") {
    // Rank 1's stream stands for the worker (times in milliseconds): it computes 15 ms and
    // waits in the barrier from 25. The master spends 30 ms in MPI_Recv (25 of them waiting
    // for a late sender), computes 10 ms and arrives last at 50.
    testing::TinyTrace t(2);
    t.rank(0)
        .enter(0, "main")
        .enter(0, "!$omp parallel")
        .enter(0, "MPI_Recv")
        .leave(0, "MPI_Recv")
        .enter(0, "compute")
        .leave(0, "compute")
        .enter(0, "!$omp implicit barrier")
        .leave(0, "!$omp implicit barrier")
        .leave(0, "!$omp parallel")
        .leave(100, "main"); // defines the regions; not replayed below
    t.rank(1)
        .enter(10, "!$omp parallel")
        .enter(10, "compute")
        .leave(25, "compute")
        .enter(25, "!$omp implicit barrier")
        .leave(51, "!$omp implicit barrier")
        .leave(52, "!$omp parallel");
    const std::vector<RegionClass> classes = testing::regionClasses(t.defs);
    const auto s = [&](double ms) { return ms / 1000.0; };
    const auto region = [&](const char* name) { return regionOf(t.defs, name); };
    for (const bool withMpi : {true, false}) {
        INFO("the master's MPI wait states given " << withMpi);
        RankResult result;
        CallTree& tree = result.tree;
        OpenmpTimeline master(t.defs, classes);
        const NodeId main = tree.child(kNoNode, region("main"));
        const NodeId parallel = tree.child(main, region("!$omp parallel"));
        const NodeId recv = tree.child(parallel, region("MPI_Recv"));
        const NodeId compute = tree.child(parallel, region("compute"));
        const NodeId barrier = tree.child(parallel, region("!$omp implicit barrier"));
        master.enter(region("main"), main, s(0));
        master.charge(main, s(0), s(10));
        master.enter(region("!$omp parallel"), parallel, s(10));
        master.enter(region("MPI_Recv"), recv, s(10));
        master.charge(recv, s(10), s(40));
        master.leave(s(40));
        master.enter(region("compute"), compute, s(40));
        master.charge(compute, s(40), s(50));
        master.leave(s(50));
        master.enter(region("!$omp implicit barrier"), barrier, s(50));
        master.leave(s(51));
        master.leave(s(52));
        master.charge(main, s(52), s(100));
        master.leave(s(100));

        std::vector<OpenmpTimeline> threads;
        testing::profileTeamThread(t, 1, classes, master, threads, result);
        // A wait state before the region, one inside, one after it.
        std::vector<OmpMpiWait> waits = {
            {s(5), s(2), main, 3, 0.0}, {s(10), s(25), recv, 7, 0.0}, {s(60), s(4), main, 9, 0.0}};
        analyzeOpenmp(master, threads, result, true, withMpi ? &waits : nullptr);
        const SeverityRows& worker = result.threads[0].severities;

        CHECK(worker.get(Metric::OmpIbarrierWait, barrier) == Approx(s(25)));
        if (withMpi) {
            // The master's excess: 5 ms in MPI_Recv beyond its wait (compute: 10 against the
            // worker's 15, none). The worker's 25 ms split over that 5 ms and the 25 ms MPI
            // wait at the scale 25/30: 4.1667 ms short-term, 20.8333 ms of costs.
            CHECK(result.severities.get(Metric::DelayOmpbarrier, recv) == Approx(s(25.0 / 6)));
            CHECK(waits[1].cost == Approx(s(125.0 / 6)));
            CHECK(waits[0].cost == 0.0);
            CHECK(waits[2].cost == 0.0);
        } else {
            // Without them the MPI call is all work: the whole wait lands on it.
            CHECK(result.severities.get(Metric::DelayOmpbarrier, recv) == Approx(s(25)));
        }
        CHECK(result.severities.get(Metric::DelayOmpbarrier, compute) == 0.0);
        CHECK(worker.get(Metric::DelayOmpbarrier, compute) == 0.0);
    }
}
