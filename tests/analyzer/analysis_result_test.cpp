// Merging rank results: call trees unified in any grouping give the same ids, and results
// added one at a time give what the merge of all gives.
#include "waitscope/analysis/analysis_result.h"

#include <catch2/catch.hpp>

using namespace waitscope::analysis;

namespace {

// Rank r calls region 10 + r under main (0), and region 5 under main on odd ranks; its time
// is r + 1 on main, its late-sender time 0.5 r on the last path, one instance each.
std::vector<RankResult> ranks(uint32_t count) {
    std::vector<RankResult> results(count);
    for (uint32_t r = 0; r < count; ++r) {
        RankResult& result = results[r];
        result.rank = r;
        result.events = 100 + r;
        const NodeId main = result.tree.child(kNoNode, 0);
        NodeId last = result.tree.child(main, 10 + r);
        if (r % 2 == 1) {
            last = result.tree.child(main, 5);
        }
        result.severities.add(Metric::Time, main, r + 1.0);
        result.severities.add(Metric::MpiLateSender, last, 0.5 * r);
        result.instances.push_back({Metric::MpiLateSender, last, r, 1.0, 2.0, 0.5 * r});
        result.diagnostics[waitscope::experiment::Diagnostic::ClockViolationsP2p] = r;
    }
    return results;
}

} // namespace

TEST_CASE("call trees unified in a reduction tree have the ids of unifying them in order",
          "[merge]") {
    const std::vector<RankResult> results = ranks(5);
    CallTree inOrder;
    for (const RankResult& result : results) {
        unifyCallTree(inOrder, result.tree);
    }
    // As the gather does: (0 1) (2 3) (4), then (0 1 2 3) (4).
    CallTree left, right, last;
    unifyCallTree(left, results[0].tree);
    unifyCallTree(left, results[1].tree);
    unifyCallTree(right, results[2].tree);
    unifyCallTree(right, results[3].tree);
    unifyCallTree(last, results[4].tree);
    const std::vector<NodeId> where = unifyCallTree(left, right);
    unifyCallTree(left, last);
    REQUIRE(left.size() == inOrder.size());
    REQUIRE(inOrder.size() == 7); // main, 10..14, 5
    for (NodeId n = 0; n < inOrder.size(); ++n) {
        CHECK(left.node(n).parent == inOrder.node(n).parent);
        CHECK(left.node(n).region == inOrder.node(n).region);
    }
    // Region 5 first appears on rank 1: before rank 2's region 12.
    CHECK(inOrder.node(3).region == 5);
    CHECK(where == std::vector<NodeId>{0, 4, 5, 3});
}

TEST_CASE("results added one at a time give the merge of all", "[merge]") {
    const AnalysisResult all = AnalysisResult::merge(ranks(4));
    CallTree tree;
    for (const RankResult& result : ranks(4)) {
        unifyCallTree(tree, result.tree);
    }
    AnalysisResult oneByOne(tree, 4);
    for (RankResult& result : ranks(4)) {
        const auto added = oneByOne.addRank(std::move(result));
        REQUIRE(added.ok());
    }
    REQUIRE(oneByOne.tree().size() == all.tree().size());
    for (size_t m = 0; m < kMetricCount; ++m) {
        for (NodeId n = 0; n < all.tree().size(); ++n) {
            for (uint32_t r = 0; r < 4; ++r) {
                CHECK(oneByOne.value(static_cast<Metric>(m), n, r) ==
                      all.value(static_cast<Metric>(m), n, r));
            }
        }
    }
    CHECK(all.value(Metric::Time, 0, 3) == 4.0);
    CHECK(all.value(Metric::MpiLateSender, 3, 3) == 1.5); // rank 3's main/5
    CHECK(all.value(Metric::MpiLateSender, 3) == 2.0);    // ranks 1 and 3
    CHECK(all.total(Metric::MpiLateSender) == 3.0);
    REQUIRE(oneByOne.instances().size() == 4);
    CHECK(oneByOne.instances()[3].node == 3);
    CHECK(oneByOne.instances()[3].rank == 3);
    CHECK(oneByOne.diagnostic(waitscope::experiment::Diagnostic::ClockViolationsP2p) == 6);
    CHECK(oneByOne.events() == std::vector<uint64_t>{100, 101, 102, 103});
    // A fifth rank is refused, as is a rank with a path the tree lacks.
    CHECK_FALSE(oneByOne.addRank(std::move(ranks(5)[4])).ok());
    AnalysisResult small(CallTree(), 1);
    CHECK_FALSE(small.addRank(std::move(ranks(1)[0])).ok());
}

TEST_CASE("an added value creates a row for its metric and call path only", "[merge]") {
    CallTree tree;
    const NodeId main = tree.child(kNoNode, 0);
    AnalysisResult result(tree, 3);
    result.add(Metric::Time, main, 2, 0.0);
    CHECK(result.value(Metric::Time, main, 2) == 0.0);
    result.add(Metric::Time, main, 2, 1.25);
    result.add(Metric::Time, main, 2, 1.0);
    CHECK(result.value(Metric::Time, main, 2) == 2.25);
    CHECK(result.value(Metric::Time, main, 0) == 0.0);
    CHECK(result.value(Metric::Visits, main, 2) == 0.0);
    CHECK(result.total(Metric::Time) == 2.25);
}
