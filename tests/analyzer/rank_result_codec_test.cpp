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
    r.diagnostics["clock_violations_p2p"] = 2;
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
    CHECK(decoded->diagnostics.at("clock_violations_p2p") == 2);
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
