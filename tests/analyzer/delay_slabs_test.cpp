// The root-cause pass's walk in slabs of time (delay_pass.h, RankPass): over ranks read in
// windows it gives the report of the walk at once, while the payloads in flight stay within
// about a slab's posts instead of everything the ranks that only post have to tell.
#include "generated_trace.h"
#include "waitscope/analysis/canonical_text.h"
#include "waitscope/analysis/derived_metrics.h"
#include "waitscope/analysis/in_process_transport.h"
#include "waitscope/analysis/rank_pipeline.h"
#include "waitscope/analysis/serial_analysis.h"
#include "waitscope/trace/otf2_archive.h"

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <thread>

using namespace waitscope;
using namespace waitscope::analysis;

namespace {

constexpr uint32_t kRanks = 4;

// The canonical text of `result` with every instance and the critical path, exactly.
std::string textOf(AnalysisResult& result, const trace::Definitions& definitions) {
    std::string text = canonicalText(result, definitions);
    for (const PatternInstance& i : result.instances()) {
        char line[160];
        std::snprintf(line, sizeof line, "%d %u %u %a %a %a\n", static_cast<int>(i.metric),
                      static_cast<unsigned>(i.node), i.rank, i.enter, i.exit, i.severity);
        text += line;
    }
    for (const PathSegment& s : result.criticalPath()) {
        char line[160];
        std::snprintf(line, sizeof line, "path %u %a %a %u %u\n", s.rank, s.start, s.end,
                      static_cast<unsigned>(s.from), static_cast<unsigned>(s.to));
        text += line;
    }
    return text;
}

struct Walked {
    std::string text;
    size_t peakPayloads = 0;
};

// The full analysis of `anchor` in threads over an in-process world, each rank read in windows
// of 200 events, its root-cause state in blocks of `blockEntries` (the walk's slabs).
Walked walked(const std::string& anchor, const trace::Definitions& definitions,
              size_t blockEntries) {
    ReplayOptions options;
    options.windowEvents = 200;
    options.scratchDirectory = std::filesystem::temp_directory_path().string();
    options.scratchBlockEntries = blockEntries;
    std::vector<std::unique_ptr<trace::RankEventWindows>> windows(kRanks);
    for (uint32_t r = 0; r < kRanks; ++r) {
        auto opened = trace::RankEventWindows::open(anchor, definitions, r);
        REQUIRE(opened);
        windows[r] = std::move(*opened);
    }
    InProcessWorld world(definitions, kRanks);
    std::vector<std::optional<Result<RankResult>>> results(kRanks);
    std::vector<std::thread> threads;
    for (uint32_t r = 0; r < kRanks; ++r) {
        threads.emplace_back([&, r] {
            const RankInput input{.definitions = definitions,
                                  .events = nullptr,
                                  .windows = windows[r].get(),
                                  .options = options,
                                  .anchorFile = anchor};
            results[r] = analyzeRank(input, world.endpoint(r));
            world.finish(r);
        });
    }
    for (std::thread& thread : threads) {
        thread.join();
    }
    std::vector<RankResult> ordered;
    for (auto& result : results) {
        REQUIRE(result.has_value());
        INFO((*result ? std::string() : result->error().message()));
        REQUIRE(*result);
        ordered.push_back(std::move(**result));
    }
    AnalysisResult merged = AnalysisResult::merge(std::move(ordered));
    deriveMetrics(merged);
    return {textOf(merged, definitions), world.peakPayloads()};
}

std::string wholeText(const std::string& anchor, const trace::Definitions& definitions) {
    auto whole = analyzeArchiveInProcess(anchor, ReplayOptions{});
    REQUIRE(whole);
    return textOf(*whole, definitions);
}

} // namespace

TEST_CASE("the walk in slabs gives the report of the walk at once, with few payloads in flight",
          "[delay][slabs]") {
    // 4 ranks: the odd ones wait for the even ones in MPI_Recv (Late Sender) and only post in
    // the walk; a barrier every 8 iterations, whose members all post to the last to arrive.
    const std::string dir =
        (std::filesystem::temp_directory_path() / "waitscope_delay_slabs_test").string();
    testing::GeneratedTraceOptions generated;
    generated.ranks = kRanks;
    generated.eventsPerRank = 20000;
    REQUIRE(testing::writeGeneratedTrace(dir, generated));
    const std::string anchor = dir + "/traces.otf2";
    auto definitions = trace::readDefinitions(anchor);
    REQUIRE(definitions);
    const std::string whole = wholeText(anchor, *definitions);
    // Each rank has about 3,600 operations; every message is a Late Sender.
    for (const size_t block : {size_t{1}, size_t{16}, size_t{64}}) {
        INFO("slabs of " << block << " operations");
        const Walked w = walked(anchor, *definitions, block);
        CHECK(w.text == whole);
        // A slab holds at most `block` operations of the rank that proposed its start, and of
        // the others what falls into the same time: here about as many. Each operation posts
        // at most one payload; the barrier's members post theirs in the slab of the barrier.
        CHECK(w.peakPayloads <= kRanks * (block + 8));
    }
    // One slab for everything: the odd ranks post every Late Sender's payload at once.
    const Walked once = walked(anchor, *definitions, 100000);
    CHECK(once.text == whole);
    CHECK(once.peakPayloads > 1000);
    std::filesystem::remove_all(dir);
}

TEST_CASE("a trace whose clocks disagree walks at once, with the same report", "[delay][slabs]") {
    // The even ranks' clocks run ahead: their sends seem to begin after the receives end, so
    // the payloads would be posted before the slab that awaits them. Every rank then walks in
    // one slab, and nothing stalls.
    const std::string dir =
        (std::filesystem::temp_directory_path() / "waitscope_delay_slabs_clock_test").string();
    testing::GeneratedTraceOptions generated;
    generated.ranks = kRanks;
    generated.eventsPerRank = 4000;
    generated.clockOffset = 5000;
    REQUIRE(testing::writeGeneratedTrace(dir, generated));
    const std::string anchor = dir + "/traces.otf2";
    auto definitions = trace::readDefinitions(anchor);
    REQUIRE(definitions);
    const std::string whole = wholeText(anchor, *definitions);
    for (const size_t block : {size_t{1}, size_t{16}}) {
        INFO("slabs of " << block << " operations");
        CHECK(walked(anchor, *definitions, block).text == whole);
    }
    std::filesystem::remove_all(dir);
}
