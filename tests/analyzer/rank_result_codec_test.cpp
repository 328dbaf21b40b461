// The byte encoding of rank results round-trips and refuses damaged buffers.
#include "waitscope/analysis/rank_result_codec.h"

#include <catch2/catch.hpp>

using namespace waitscope::analysis;

namespace {

RankResult sample() {
    RankResult r;
    r.rank = 3;
    r.events = 1234;
    const NodeId main = r.tree.child(kNoNode, 7);
    const NodeId recv = r.tree.child(main, 9);
    r.severities.add(Metric::Time, main, 1.5);
    r.severities.add(Metric::MpiLateSender, recv, 0.25);
    r.severities.add(Metric::Visits, recv, 5);
    r.patterns[static_cast<size_t>(Metric::MpiLateSender)].add(
        {Metric::MpiLateSender, recv, 3, 1.0, 2.0, 0.25});
    r.patterns[static_cast<size_t>(Metric::MpiLateSender)].add(
        {Metric::MpiLateSender, recv, 3, 3.0, 4.0, 0.5});
    r.instances.push_back({Metric::MpiLateSender, recv, 3, 1.0, 2.0, 0.25});
    r.instances.push_back({Metric::MpiLateSender, recv, 3, 3.0, 4.0, 0.5});
    r.spilledRuns.push_back({2, 3, 4096, 17});
    r.diagnostics[waitscope::experiment::Diagnostic::ClockViolationsP2p] = 2;
    return r;
}

} // namespace

TEST_CASE("a rank result survives encoding and decoding", "[codec]") {
    const RankResult original = sample();
    const std::vector<uint8_t> bytes = encodeRankResult(original);
    auto decoded = decodeRankResult(bytes.data(), bytes.size());
    REQUIRE(decoded.ok());
    CHECK(decoded->rank == 3);
    CHECK(decoded->events == 1234);
    REQUIRE(decoded->tree.size() == 2);
    CHECK(decoded->tree.node(1).parent == 0);
    CHECK(decoded->tree.node(1).region == 9);
    CHECK(decoded->severities.get(Metric::Time, 0) == 1.5);
    CHECK(decoded->severities.get(Metric::MpiLateSender, 1) == 0.25);
    CHECK(decoded->severities.get(Metric::Visits, 1) == 5);
    const PatternSamples& ls = decoded->patterns[static_cast<size_t>(Metric::MpiLateSender)];
    CHECK(ls.count() == 2);
    CHECK(ls.sum == 0.75);
    CHECK(ls.maximum == 0.5);
    REQUIRE(ls.mostSevere.size() == 2);
    CHECK(ls.mostSevere[0].severity == 0.5);
    CHECK(ls.mostSevere[0].enter == 3.0);
    REQUIRE(decoded->instances.size() == 2);
    CHECK(decoded->instances[1].metric == Metric::MpiLateSender);
    CHECK(decoded->instances[1].node == 1);
    CHECK(decoded->instances[1].rank == 3);
    CHECK(decoded->instances[1].enter == 3.0);
    CHECK(decoded->instances[1].exit == 4.0);
    CHECK(decoded->instances[1].severity == 0.5);
    REQUIRE(decoded->spilledRuns.size() == 1);
    CHECK(decoded->spilledRuns[0].process == 2);
    CHECK(decoded->spilledRuns[0].rank == 3);
    CHECK(decoded->spilledRuns[0].first == 4096);
    CHECK(decoded->spilledRuns[0].count == 17);
    CHECK(decoded->diagnostics.value(waitscope::experiment::Diagnostic::ClockViolationsP2p) == 2);
    CHECK(encodeRankResult(*decoded) == bytes);
}

TEST_CASE("a truncated or padded rank result is refused", "[codec]") {
    const std::vector<uint8_t> bytes = encodeRankResult(sample());
    auto truncated = decodeRankResult(bytes.data(), bytes.size() - 3);
    REQUIRE_FALSE(truncated.ok());
    CHECK(truncated.error().message().rfind("rank result: malformed at byte ", 0) == 0);
    std::vector<uint8_t> padded = bytes;
    padded.push_back(0);
    CHECK_FALSE(decodeRankResult(padded.data(), padded.size()).ok());
}

TEST_CASE("a rank result's diagnostics travel by registry index, counted zeros included",
          "[codec][diagnostics]") {
    using waitscope::experiment::Diagnostic;
    RankResult original = sample();
    original.diagnostics[Diagnostic::UnmatchedLeave] = 0;
    original.diagnostics[Diagnostic::ClockCorrectionMaxShiftNs] = uint64_t{1} << 40;
    const std::vector<uint8_t> bytes = encodeRankResult(original);
    auto decoded = decodeRankResult(bytes.data(), bytes.size());
    REQUIRE(decoded.ok());
    CHECK(decoded->diagnostics == original.diagnostics);
    CHECK(decoded->diagnostics.size() == 3);
    CHECK(decoded->diagnostics.counted(Diagnostic::UnmatchedLeave));
    CHECK(decoded->diagnostics.value(Diagnostic::ClockCorrectionMaxShiftNs) == uint64_t{1} << 40);
    CHECK_FALSE(decoded->diagnostics.counted(Diagnostic::MismatchedLeave));

    // sample()'s one diagnostic: its index, its count, then no threads and no warnings.
    std::vector<uint8_t> unknown = encodeRankResult(sample());
    const size_t index = unknown.size() - 8 - 8 - 8 - 1;
    REQUIRE(unknown[index] ==
            static_cast<uint8_t>(waitscope::experiment::Diagnostic::ClockViolationsP2p));
    unknown[index] = static_cast<uint8_t>(waitscope::experiment::kDiagnosticCount);
    auto refused = decodeRankResult(unknown.data(), unknown.size());
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().message() ==
          "rank result: malformed at byte " + std::to_string(index + 1));
}

TEST_CASE("a rank result's threads and warnings survive encoding and decoding", "[codec]") {
    RankResult original = sample();
    // A worker thread whose sampled path adds a node to the rank's tree.
    const NodeId worker = original.tree.child(kNoNode, 11);
    const NodeId compute = original.tree.child(worker, 12);
    ThreadResult thread;
    thread.location = (uint64_t{1} << 32) | 3;
    thread.name = "thread 1";
    thread.events = 7;
    thread.severities.add(Metric::Time, compute, 0.125);
    thread.severities.add(Metric::Comp, compute, 0.125);
    thread.severities.add(Metric::Visits, worker, 1);
    original.threads.push_back(thread);
    original.threads.push_back(ThreadResult{(uint64_t{2} << 32) | 3, "thread 2", {}, 0});
    original.warnings.emplace_back("traces.otf2: rank 3: location 12884901891 (thread 3): event "
                                   "file traces/12884901891.evt is missing");
    const std::vector<uint8_t> bytes = encodeRankResult(original);
    auto decoded = decodeRankResult(bytes.data(), bytes.size());
    REQUIRE(decoded.ok());
    REQUIRE(decoded->tree.size() == 4);
    REQUIRE(decoded->threads.size() == 2);
    const ThreadResult& first = decoded->threads[0];
    CHECK(first.location == ((uint64_t{1} << 32) | 3));
    CHECK(first.name == "thread 1");
    CHECK(first.events == 7);
    CHECK(first.severities.get(Metric::Time, compute) == 0.125);
    CHECK(first.severities.get(Metric::Comp, compute) == 0.125);
    CHECK(first.severities.get(Metric::Visits, worker) == 1);
    CHECK(first.severities.get(Metric::Time, 0) == 0.0);
    CHECK(decoded->threads[1].name == "thread 2");
    CHECK(decoded->threads[1].severities.row(Metric::Time).empty());
    CHECK(decoded->warnings == original.warnings);
    CHECK(encodeRankResult(*decoded) == bytes);
    // Every shorter prefix is refused.
    for (size_t cut = bytes.size() - 40; cut < bytes.size(); ++cut) {
        CHECK_FALSE(decodeRankResult(bytes.data(), cut).ok());
    }
}

TEST_CASE("severity rows are encoded sparse and decoded at their length", "[codec]") {
    RankResult r = sample();
    const size_t withoutZeros = encodeRankResult(r).size();
    for (NodeId n = 0; n < 2; ++n) {
        r.severities.add(Metric::MpiLateReceiver, n, 0.0); // zeros are not sent
    }
    const std::vector<uint8_t> bytes = encodeRankResult(r);
    CHECK(bytes.size() == withoutZeros);
    auto decoded = decodeRankResult(bytes.data(), bytes.size());
    REQUIRE(decoded.ok());
    CHECK(decoded->severities.row(Metric::MpiLateReceiver).size() == 2);
    CHECK(decoded->severities.get(Metric::MpiLateReceiver, 1) == 0.0);
    CHECK(decoded->severities.row(Metric::MpiLateSender) == std::vector<double>{0.0, 0.25});
}

TEST_CASE("a call tree survives encoding alone, and a damaged one is refused", "[codec]") {
    const RankResult r = sample();
    const std::vector<uint8_t> bytes = encodeCallTree(r.tree);
    auto tree = decodeCallTree(bytes.data(), bytes.size());
    REQUIRE(tree.ok());
    REQUIRE(tree->size() == 2);
    CHECK(tree->find(tree->find(kNoNode, 7), 9) == 1);
    std::vector<uint8_t> damaged = bytes;
    damaged[8] = 5; // the root's parent: a node after it
    CHECK_FALSE(decodeCallTree(damaged.data(), damaged.size()).ok());
    CHECK_FALSE(decodeCallTree(bytes.data(), bytes.size() - 1).ok());
}
