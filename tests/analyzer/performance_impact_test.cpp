// Diff tests of the performance-impact stage on merged values set by hand: per call path and
// rank the time and the critical path, Scalasca's values expected.
#include "waitscope/analysis/analysis_result.h"
#include "waitscope/analysis/derived_metrics.h"

#include <catch2/catch.hpp>

using namespace waitscope::analysis;

TEST_CASE("performance impact: inter-partition imbalance is not capped by the imbalance impact",
          "[root-cause][performance-impact]") {
    // Call paths X, Y, V under main, each 10 ms on the path (rank 0 carries X, rank 1 Y,
    // rank 2 V: length 30). No wait states, so each rank's own time is its time:
    //   rank 0: X 10, Y 5, V 0            waits 15, falls short on Y (5) and V (10), skips V
    //   rank 1: X 0, Y 10, V 10           waits 10, falls short on X (10), skips X
    //   rank 2: X 4, Y 0, V 10, Z 30      "waits" 30 - 44 = -14 (it ran longer than the path,
    //                                     as a rank that began earlier does), short on X (6)
    //                                     and Y (10), skips Y
    // Imbalance cost of X: rank 1's 10 * 10/10 plus rank 2's -14 * 6/16 = 4.75 ms; headroom
    // of X: rank 1's (30 - 20) * 10/10 = 10 ms. Scalasca (SCOUT's INTER_PARTITION_IMBALANCE)
    // reports the 10 ms of inter-partition imbalance at X beside 4.75 of imbalance impact, and
    // derives intra-partition imbalance as their difference, -5.25; we capped inter at 4.75.
    // (Seed 60185 of differential.sh: 5.9 ms at an MPI_Reduce on a communicator without rank
    // 3, after ranks that began 0.3 s apart.)
    CallTree tree;
    const NodeId main = tree.child(kNoNode, 0);
    const NodeId x = tree.child(main, 1), y = tree.child(main, 2), v = tree.child(main, 3),
                 z = tree.child(main, 4);
    AnalysisResult result(tree, 3);
    const double ms = 1e-3;
    result.add(Metric::CriticalPath, x, 0, 10 * ms);
    result.add(Metric::CriticalPath, y, 1, 10 * ms);
    result.add(Metric::CriticalPath, v, 2, 10 * ms);
    const double times[3][4] = {{10, 5, 0, 0}, {0, 10, 10, 0}, {4, 0, 10, 30}};
    const NodeId nodes[4] = {x, y, v, z};
    for (uint32_t r = 0; r < 3; ++r) {
        for (int n = 0; n < 4; ++n) {
            result.add(Metric::Time, nodes[n], r, times[r][n] * ms);
        }
    }
    derivePerformanceImpact(result);
    CHECK(result.value(Metric::CriticalImbalanceImpact, x, 0) == Approx(4.75 * ms));
    CHECK(result.value(Metric::InterPartitionImbalance, x, 0) == Approx(10 * ms));
    CHECK(result.value(Metric::IntraPartitionImbalance, x, 0) == Approx(-5.25 * ms));
    // Y: cost 15 * 5/15 - 14 * 10/16 < 0 and headroom (30 - 50) * 10/10 < 0: nothing.
    CHECK(result.value(Metric::CriticalImbalanceImpact, y, 1) == 0.0);
    CHECK(result.value(Metric::InterPartitionImbalance, y, 1) == 0.0);
    CHECK(result.value(Metric::IntraPartitionImbalance, y, 1) == 0.0);
    // V: rank 0's cost 15 * 10/15 and headroom (30 - 20) * 10/10, both 10: all inter.
    CHECK(result.value(Metric::CriticalImbalanceImpact, v, 2) == Approx(10 * ms));
    CHECK(result.value(Metric::InterPartitionImbalance, v, 2) == Approx(10 * ms));
    CHECK(result.value(Metric::IntraPartitionImbalance, v, 2) == Approx(0.0).margin(1e-12));
}

TEST_CASE("performance impact: threads that carry the critical path count as locations",
          "[root-cause][performance-impact][openmp]") {
    // One rank, two threads: the further thread carries the path through X (40 ms, all its
    // time); the master works 10 ms on X and waits 30 ms in the barrier B (omp_ibarrier_wait).
    // Over both locations: C(X) = 40, own time on X 10 and 40, so the activities are 10 and 40;
    // the imbalance of X is 40 - mean(10, 40) = 15 ms, on the thread that carries it.
    RankResult rank;
    const NodeId main = rank.tree.child(kNoNode, 0);
    const NodeId x = rank.tree.child(main, 1), b = rank.tree.child(main, 2);
    const double ms = 1e-3;
    rank.severities.add(Metric::Time, x, 10 * ms);
    rank.severities.add(Metric::Time, b, 30 * ms);
    rank.severities.add(Metric::OmpIbarrierWait, b, 30 * ms);
    ThreadResult thread;
    thread.location = uint64_t{1} << 32;
    thread.severities.add(Metric::Time, x, 40 * ms);
    thread.severities.add(Metric::CriticalPath, x, 40 * ms);
    rank.threads.push_back(thread);
    std::vector<RankResult> ranks;
    ranks.push_back(std::move(rank));
    AnalysisResult result = AnalysisResult::merge(std::move(ranks));
    derivePerformanceImpact(result);
    const SeverityRows& worker = result.threads().at(0).severities;
    CHECK(worker.get(Metric::CriticalPathActivities, x) == Approx(40 * ms));
    CHECK(result.value(Metric::CriticalPathActivities, x, 0) == Approx(10 * ms));
    CHECK(worker.get(Metric::CriticalPathImbalance, x) == Approx(15 * ms));
    CHECK(result.value(Metric::CriticalPathImbalance, x, 0) == 0.0);
    // The master's barrier wait is waiting, not its own time on B.
    CHECK(result.value(Metric::NonCriticalPathActivities, b, 0) == 0.0);
}
