// The critical path through a rank's OpenMP team: inside a parallel region on the path it
// follows the thread that arrived last at each barrier, on that thread's call paths.
#include "critical_path.h"
#include "openmp_team.h"

#include <catch2/catch.hpp>

using namespace waitscope;
using namespace waitscope::analysis;
using Approx = Catch::Detail::Approx;
using testing::regionOf;

namespace {

double ms(double milliseconds) {
    return milliseconds / 1000.0;
}

/// A rank with a master and two further threads (times in milliseconds): one parallel region
/// [10, 72] with two barriers.
///
///   master    main 0-10 | compute 10-20 | barrier 20-41 | compute 41-45 | barrier 45-70 | 70-72
///   thread 1             12 compute 40  | barrier 40-41 | compute 41-50 | barrier 50-70
///   thread 2             12 compute 30  | barrier 30-41 | extra 41-65   | barrier 65-70
///
/// Last at barrier 0: thread 1 (40); at barrier 1: thread 2 (65).
struct Team {
    testing::TinyTrace t{3};
    std::vector<RegionClass> classes;
    RankResult result;
    OpenmpTimeline master;
    std::vector<OpenmpTimeline> threads;
    NodeId main = kNoNode, parallel = kNoNode, compute = kNoNode, extra = kNoNode,
           barrier = kNoNode;

    Team() : master(definitions(t, classes), classes) {
        CallTree& tree = result.tree;
        const auto region = [&](const char* name) { return regionOf(t.defs, name); };
        main = tree.child(kNoNode, region("main"));
        parallel = tree.child(main, region("!$omp parallel"));
        compute = tree.child(parallel, region("compute"));
        extra = tree.child(parallel, region("extra"));
        barrier = tree.child(parallel, region("!$omp implicit barrier"));
        master.enter(region("main"), main, ms(0));
        master.charge(main, ms(0), ms(10));
        master.enter(region("!$omp parallel"), parallel, ms(10));
        master.enter(region("compute"), compute, ms(10));
        master.charge(compute, ms(10), ms(20));
        master.leave(ms(20));
        master.enter(region("!$omp implicit barrier"), barrier, ms(20));
        master.charge(barrier, ms(20), ms(41));
        master.leave(ms(41));
        master.enter(region("compute"), compute, ms(41));
        master.charge(compute, ms(41), ms(45));
        master.leave(ms(45));
        master.enter(region("!$omp implicit barrier"), barrier, ms(45));
        master.charge(barrier, ms(45), ms(70));
        master.leave(ms(70));
        master.charge(parallel, ms(70), ms(72));
        master.leave(ms(72));
        master.charge(main, ms(72), ms(100));
        master.leave(ms(100));
        threads.reserve(2);
        for (uint32_t k = 1; k <= 2; ++k) {
            testing::profileTeamThread(t, k, classes, master, threads, result);
        }
        // The master's critical path as the MPI pass charged it: all its time in [0, 100].
        for (const auto& [node, seconds] :
             {std::pair{main, ms(38)}, {compute, ms(14)}, {barrier, ms(46)}, {parallel, ms(2)}}) {
            result.severities.add(Metric::CriticalPath, node, seconds);
        }
    }

    static const trace::Definitions& definitions(testing::TinyTrace& t,
                                                 std::vector<RegionClass>& classes) {
        t.rank(0)
            .enter(0, "main")
            .enter(0, "!$omp parallel")
            .enter(0, "compute")
            .leave(0, "compute")
            .enter(0, "extra")
            .leave(0, "extra")
            .enter(0, "!$omp implicit barrier")
            .leave(0, "!$omp implicit barrier")
            .leave(0, "!$omp parallel")
            .leave(100, "main"); // defines the regions; fed to the master's timeline by hand
        t.rank(1)
            .enter(12, "!$omp parallel")
            .enter(12, "compute")
            .leave(40, "compute")
            .enter(40, "!$omp implicit barrier")
            .leave(41, "!$omp implicit barrier")
            .enter(41, "compute")
            .leave(50, "compute")
            .enter(50, "!$omp implicit barrier")
            .leave(70, "!$omp implicit barrier")
            .leave(80, "!$omp parallel"); // reported late: the join was at 72
        t.rank(2)
            .enter(12, "!$omp parallel")
            .enter(12, "compute")
            .leave(30, "compute")
            .enter(30, "!$omp implicit barrier")
            .leave(41, "!$omp implicit barrier")
            .enter(41, "extra")
            .leave(65, "extra")
            .enter(65, "!$omp implicit barrier")
            .leave(70, "!$omp implicit barrier")
            .leave(80, "!$omp parallel");
        classes = testing::regionClasses(t.defs);
        return t.defs;
    }
};

} // namespace

TEST_CASE("the critical path follows the last thread at each OpenMP barrier back to the fork",
          "[openmp][critical-path]") {
    Team team;
    team.result.criticalPath.push_back(PathSegment{0, 0.0, ms(100), kNoNode, kNoNode});
    traceOpenmpCriticalPath(team.master, team.threads, team.result);
    const SeverityRows& master = team.result.severities;
    const SeverityRows& thread1 = team.result.threads[0].severities;
    const SeverityRows& thread2 = team.result.threads[1].severities;
    const NodeId main = team.main, compute = team.compute, extra = team.extra,
                 barrier = team.barrier, parallel = team.parallel;
    // Back from the join (72): the master's tail (2 ms on the region), barrier 1 from the last
    // arrival (65) to its leave (5 ms); thread 2's extra work before it (24 ms), its barrier 0
    // from the last arrival (40) to its leave (1 ms); thread 1's work before that (28 ms); the
    // fork until thread 1 began (2 ms, the master's, on the region).
    CHECK(master.get(Metric::CriticalPath, main) == Approx(ms(38)));
    CHECK(master.get(Metric::CriticalPath, compute) == 0.0);
    CHECK(master.get(Metric::CriticalPath, barrier) == Approx(ms(5)));
    CHECK(master.get(Metric::CriticalPath, parallel) == Approx(ms(4)));
    CHECK(thread2.get(Metric::CriticalPath, extra) == Approx(ms(24)));
    CHECK(thread2.get(Metric::CriticalPath, barrier) == Approx(ms(1)));
    CHECK(thread2.get(Metric::CriticalPath, compute) == 0.0);
    CHECK(thread1.get(Metric::CriticalPath, compute) == Approx(ms(28)));
    CHECK(thread1.get(Metric::CriticalPath, barrier) == 0.0);
    // The path keeps its length: 100 ms over the three threads.
    double total = 0.0;
    for (const SeverityRows* rows : {&master, &thread1, &thread2}) {
        for (const double v : rows->row(Metric::CriticalPath)) {
            total += v;
        }
    }
    CHECK(total == Approx(ms(100)));
}

TEST_CASE("a parallel region the critical path leaves inside keeps the path on the master",
          "[openmp][critical-path]") {
    Team team;
    // The master's MPI call at 50 handed the path on, it came back at 60: the region is not
    // wholly on one stretch. A stretch of another rank over the region is not this rank's.
    team.result.criticalPath = {PathSegment{1, 0.0, ms(100), kNoNode, kNoNode},
                                PathSegment{0, ms(60), ms(100), kNoNode, kNoNode},
                                PathSegment{0, 0.0, ms(50), kNoNode, kNoNode}};
    traceOpenmpCriticalPath(team.master, team.threads, team.result);
    CHECK(team.result.severities.get(Metric::CriticalPath, team.compute) == Approx(ms(14)));
    CHECK(team.result.severities.get(Metric::CriticalPath, team.barrier) == Approx(ms(46)));
    for (const ThreadResult& thread : team.result.threads) {
        for (const double v : thread.severities.row(Metric::CriticalPath)) {
            CHECK(v == 0.0);
        }
    }
}

TEST_CASE("a task that outlasts the last arrival at an OpenMP barrier carries the critical path",
          "[openmp][critical-path]") {
    // The master works 20 ms and arrives last at the barrier (20); the thread's task, run in the
    // barrier from 12 to 40, holds the barrier up until then; the barrier ends at 45, the
    // region at 50 (times in milliseconds).
    testing::TinyTrace t(2);
    t.rank(0)
        .enter(0, "main")
        .enter(0, "!$omp parallel")
        .enter(0, "compute")
        .leave(0, "compute")
        .enter(0, "!$omp implicit barrier")
        .enter(0, "!$omp task")
        .leave(0, "!$omp task")
        .leave(0, "!$omp implicit barrier")
        .leave(0, "!$omp parallel")
        .leave(60, "main"); // defines the regions; fed to the master's timeline by hand
    t.rank(1)
        .enter(2, "!$omp parallel")
        .enter(2, "compute")
        .leave(10, "compute")
        .enter(10, "!$omp implicit barrier")
        .enter(12, "!$omp task")
        .leave(40, "!$omp task")
        .leave(45, "!$omp implicit barrier")
        .leave(50, "!$omp parallel");
    const std::vector<RegionClass> classes = testing::regionClasses(t.defs);
    RankResult result;
    CallTree& tree = result.tree;
    const auto region = [&](const char* name) { return regionOf(t.defs, name); };
    const NodeId main = tree.child(kNoNode, region("main"));
    const NodeId parallel = tree.child(main, region("!$omp parallel"));
    const NodeId compute = tree.child(parallel, region("compute"));
    const NodeId barrier = tree.child(parallel, region("!$omp implicit barrier"));
    const NodeId task = tree.child(barrier, region("!$omp task"));
    OpenmpTimeline master(t.defs, classes);
    master.enter(region("main"), main, ms(0));
    master.enter(region("!$omp parallel"), parallel, ms(0));
    master.enter(region("compute"), compute, ms(0));
    master.charge(compute, ms(0), ms(20));
    master.leave(ms(20));
    master.enter(region("!$omp implicit barrier"), barrier, ms(20));
    master.charge(barrier, ms(20), ms(45));
    master.leave(ms(45));
    master.charge(parallel, ms(45), ms(50));
    master.leave(ms(50));
    master.charge(main, ms(50), ms(60));
    master.leave(ms(60));
    std::vector<OpenmpTimeline> threads;
    testing::profileTeamThread(t, 1, classes, master, threads, result);
    for (const auto& [node, seconds] :
         {std::pair{main, ms(10)}, {compute, ms(20)}, {barrier, ms(25)}, {parallel, ms(5)}}) {
        result.severities.add(Metric::CriticalPath, node, seconds);
    }
    result.criticalPath.push_back(PathSegment{0, 0.0, ms(60), kNoNode, kNoNode});
    traceOpenmpCriticalPath(master, threads, result);
    // Back from the join: the tail (5 ms), the barrier after the task (5 ms), the task from the
    // last arrival until it ended (20 ms, on the thread), the master's work (20 ms).
    const SeverityRows& worker = result.threads[0].severities;
    CHECK(result.severities.get(Metric::CriticalPath, parallel) == Approx(ms(5)));
    CHECK(result.severities.get(Metric::CriticalPath, barrier) == Approx(ms(5)));
    CHECK(result.severities.get(Metric::CriticalPath, compute) == Approx(ms(20)));
    CHECK(result.severities.get(Metric::CriticalPath, main) == Approx(ms(10)));
    CHECK(worker.get(Metric::CriticalPath, task) == Approx(ms(20)));
    CHECK(worker.get(Metric::CriticalPath, compute) == 0.0);
    CHECK(worker.get(Metric::CriticalPath, barrier) == 0.0);
}
