// The critical path and delay costs through a thread the main location created and joined:
// a join that waited hands the path to the thread's work, whose excess is the join's delay.
#include "path_cut.h"
#include "thread_joins.h"
#include "waitscope/analysis/metric.h"

#include <catch2/catch.hpp>

using namespace waitscope;
using namespace waitscope::analysis;
using Approx = Catch::Detail::Approx;

namespace {

double ms(double milliseconds) {
    return milliseconds / 1000.0;
}

/// A rank whose main location creates a thread at 10 ms, works until 20, joins it from 20 to
/// 50 and calls MPI until 60; the thread begins at 11, works (`slow`) until 49 and ends
/// (times in milliseconds):
///
///   main     main 0-10 | create 10 | main_part 10-20 | pthread_join 20-50 | MPI 50-60
///   thread               11 slow 49
///
/// The critical-path pass of the ranks (critical_path.cpp) has put the rank's whole time on
/// the main location's call paths, one stretch [0, 60].
struct Joined {
    RankResult result;
    ThreadJoins joins;
    NodeId main = kNoNode, part = kNoNode, join = kNoNode, mpi = kNoNode, worker = kNoNode,
           slow = kNoNode;

    explicit Joined(double threadEnd = 49.0) {
        CallTree& tree = result.tree;
        main = tree.child(kNoNode, 0);
        part = tree.child(main, 1);
        join = tree.child(main, 2);
        mpi = tree.child(main, 3);
        worker = tree.child(kNoNode, 4);
        slow = tree.child(worker, 5);
        const auto charge = [&](NodeId node, double from, double to) {
            result.severities.add(Metric::Time, node, ms(to - from));
            result.severities.add(Metric::CriticalPath, node, ms(to - from));
            joins.charge(node, ms(from), ms(to));
        };
        charge(main, 0, 10);
        joins.create(7, ms(10), main);
        charge(part, 10, 20);
        charge(join, 20, 50);
        joins.join(7, ms(20), ms(50), join);
        charge(mpi, 50, 60);
        ThreadResult thread;
        thread.location = uint64_t{1} << 32;
        thread.sequence = 7;
        thread.begin = ms(11);
        thread.end = ms(threadEnd);
        thread.severities.add(Metric::Time, slow, ms(threadEnd - 11));
        result.threads.push_back(std::move(thread));
        result.criticalPath.push_back(PathSegment{0, 0.0, ms(60), kNoNode, kNoNode});
    }
    double path(NodeId node) const { return result.severities.get(Metric::CriticalPath, node); }
    double threadPath(NodeId node) const {
        return result.threads[0].severities.get(Metric::CriticalPath, node);
    }
};

} // namespace

TEST_CASE("the critical path runs through a joined thread where the join waited",
          "[threads][critical-path]") {
    Joined j;
    REQUIRE(j.joins.joins().size() == 1);
    CHECK(j.joins.joins()[0].between.size() == 2); // part and join: none of main before it
    traceThreadCriticalPath(j.joins, j.result);
    // The main location keeps its time before the creation and after the join, the join from
    // the thread's end and the thread's start; the thread holds its whole work.
    CHECK(j.path(j.main) == Approx(ms(10 + 1)));
    CHECK(j.path(j.part) == 0.0);
    CHECK(j.path(j.join) == Approx(ms(1)));
    CHECK(j.path(j.mpi) == Approx(ms(10)));
    CHECK(j.threadPath(j.slow) == Approx(ms(38)));
    // The path keeps its length.
    CHECK(j.path(j.main) + j.path(j.part) + j.path(j.join) + j.path(j.mpi) + j.threadPath(j.slow) ==
          Approx(ms(60)));
}

TEST_CASE("the stretch of the critical path is cut where it runs on the joined thread",
          "[threads][critical-path]") {
    Joined j;
    j.result.criticalPath[0].to = j.mpi; // the path reached the rank's end in its MPI call
    traceThreadCriticalPath(j.joins, j.result);
    // Latest first: the main location from the thread's end (in the join) to the rank's end,
    // the thread from its begin to its end on its own location, and the main location from
    // the start to the thread's begin (in the create).
    const std::vector<PathSegment>& path = j.result.criticalPath;
    REQUIRE(path.size() == 3);
    CHECK(path[0].location == PathSegment::kMainLocation);
    CHECK(path[0].start == Approx(ms(49)));
    CHECK(path[0].end == Approx(ms(60)));
    CHECK(path[0].from == j.join);
    CHECK(path[0].to == j.mpi);
    CHECK(path[1].location == (uint64_t{1} << 32));
    CHECK(path[1].start == Approx(ms(11)));
    CHECK(path[1].end == Approx(ms(49)));
    CHECK(path[2].location == PathSegment::kMainLocation);
    CHECK(path[2].start == 0.0);
    CHECK(path[2].end == Approx(ms(11)));
    CHECK(path[2].to == j.main);
    for (const PathSegment& s : path) {
        CHECK(s.rank == 0);
    }
}

TEST_CASE("a join that did not wait keeps the critical path on the main location",
          "[threads][critical-path]") {
    Joined j(18.0); // the thread ended before the join began
    traceThreadCriticalPath(j.joins, j.result);
    CHECK(j.path(j.part) == Approx(ms(10)));
    CHECK(j.path(j.join) == Approx(ms(30)));
    CHECK(j.threadPath(j.slow) == 0.0);
    REQUIRE(j.result.criticalPath.size() == 1); // not cut
    CHECK(j.result.criticalPath[0].location == PathSegment::kMainLocation);
    addThreadJoinDelays(j.joins, j.result);
    CHECK(j.result.threads[0].severities.get(Metric::DelayPthreadJoin, j.slow) == 0.0);
}

TEST_CASE("a join outside the rank's stretches of the path leaves the path alone",
          "[threads][critical-path]") {
    Joined j;
    // The path left the rank inside [create, join]: it holds [30, 60] only.
    j.result.criticalPath[0].start = ms(30);
    traceThreadCriticalPath(j.joins, j.result);
    CHECK(j.path(j.part) == Approx(ms(10)));
    CHECK(j.threadPath(j.slow) == 0.0);
}

TEST_CASE("a join's wait is the delay cost of the thread's excess work", "[threads][delay]") {
    Joined j;
    addThreadJoinDelays(j.joins, j.result);
    const SeverityRows& rows = j.result.threads[0].severities;
    // Waited 49 - 20 = 29 ms; the thread's excess is its 38 ms of slow (the main location's
    // work since the creation is on other call paths): at most the excess, all of the wait.
    CHECK(rows.get(Metric::DelayPthreadJoin, j.slow) == Approx(ms(29)));
    CHECK(rows.get(Metric::Delay, j.slow) == Approx(ms(29)));
    CHECK(j.result.severities.get(Metric::DelayPthreadJoin, j.part) == 0.0);
}

TEST_CASE("pieces on threads cut the main location's stretches; touching ones on one thread "
          "merge, and pieces no stretch holds whole are left out",
          "[threads][critical-path]") {
    RankResult result;
    result.rank = 2;
    // Latest first: [60, 100] and [0, 50] on the main location, [50, 60] on rank 3.
    result.criticalPath = {PathSegment{2, ms(60), ms(100), 4, kNoNode},
                           PathSegment{3, ms(50), ms(60), kNoNode, 4},
                           PathSegment{2, 0.0, ms(50), kNoNode, 5}};
    const uint64_t a = (uint64_t{1} << 32) | 2;
    const uint64_t b = (uint64_t{2} << 32) | 2;
    cutPathOntoThreads(result,
                       {ThreadPiece{ms(70), ms(80), a, 7, 8}, ThreadPiece{ms(80), ms(90), a, 9, 10},
                        ThreadPiece{ms(10), ms(20), b, 11, 12},
                        ThreadPiece{ms(45), ms(55), b, 13, 14}}); // across two stretches
    const std::vector<PathSegment>& path = result.criticalPath;
    REQUIRE(path.size() == 7);
    const auto check = [&](size_t k, uint32_t rank, double start, double end, uint64_t location,
                           NodeId from, NodeId to) {
        INFO("stretch " << k);
        CHECK(path[k].rank == rank);
        CHECK(path[k].start == Approx(start));
        CHECK(path[k].end == Approx(end));
        CHECK(path[k].location == location);
        CHECK(path[k].from == from);
        CHECK(path[k].to == to);
    };
    const uint64_t main = PathSegment::kMainLocation;
    check(0, 2, ms(90), ms(100), main, 10, kNoNode); // after the merged piece [70, 90]
    check(1, 2, ms(70), ms(90), a, kNoNode, kNoNode);
    check(2, 2, ms(60), ms(70), main, 4, 7);
    check(3, 3, ms(50), ms(60), main, kNoNode, 4); // another rank's: as it was
    check(4, 2, ms(20), ms(50), main, 12, 5);
    check(5, 2, ms(10), ms(20), b, kNoNode, kNoNode);
    check(6, 2, 0.0, ms(10), main, kNoNode, 11);
}
