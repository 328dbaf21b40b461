// The windowed replay (traces larger than memory, without root causes): for any window size it
// writes what the whole-rank replay writes, value for value and instance for instance, on the
// reference traces and the corpus of third-party codes.
#include "waitscope/analysis/canonical_text.h"
#include "waitscope/analysis/memory_budget.h"
#include "waitscope/analysis/serial_analysis.h"
#include "waitscope/trace/otf2_archive.h"

#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <string_view>

using namespace waitscope;
using namespace waitscope::analysis;

namespace {

// The reference traces of share/examples (a few hundred events per rank).
constexpr std::array<std::string_view, 7> kExamples = {
    "early_reduce",   "late_broadcast",  "late_receiver", "late_sender",
    "nb_late_sender", "wait_at_barrier", "wait_nxn"};

// Every trace below tests/data/reference (the examples and the corpus).
std::vector<std::string> referenceTraces() {
    std::vector<std::string> traces;
    for (const auto& entry : std::filesystem::directory_iterator(WAITSCOPE_REFERENCE_DIR)) {
        const auto anchor = entry.path() / "trace" / "traces.otf2";
        if (std::filesystem::exists(anchor)) {
            traces.push_back(anchor.string());
        }
    }
    std::sort(traces.begin(), traces.end());
    return traces;
}

// The analysis of `anchor` without root causes, its events read in windows of `window` (0:
// whole), as canonical text followed by every instance.
std::string analyzed(const std::string& anchor, const trace::Definitions& definitions,
                     uint64_t window) {
    ReplayOptions options;
    options.rootCause = false;
    options.windowEvents = window;
    auto result = analyzeArchiveInProcess(anchor, options);
    REQUIRE(result);
    std::string text = canonicalText(*result, definitions);
    // Instances exactly, in their order (hexadecimal floating point).
    for (const PatternInstance& i : result->instances()) {
        char line[160];
        std::snprintf(line, sizeof line, "%d %u %u %a %a %a\n", static_cast<int>(i.metric),
                      static_cast<unsigned>(i.node), i.rank, i.enter, i.exit, i.severity);
        text += line;
    }
    return text;
}

} // namespace

TEST_CASE("the windowed replay gives the whole-rank report for windows of any size",
          "[.windowed]") {
    const auto traces = referenceTraces();
    REQUIRE(traces.size() >= 20);
    for (const std::string& anchor : traces) {
        INFO(anchor);
        auto definitions = trace::readDefinitions(anchor);
        REQUIRE(definitions);
        const std::string whole = analyzed(anchor, *definitions, 0);
        REQUIRE(!whole.empty());
        // One event at a time (every call and every pairing split across windows) on the
        // examples' small traces, a few events on all, and more than a rank holds.
        const std::string code =
            std::filesystem::path(anchor).parent_path().parent_path().filename().string();
        std::vector<uint64_t> windows = {13, 4096};
        if (std::find(kExamples.begin(), kExamples.end(), code) != kExamples.end()) {
            windows.insert(windows.begin(), 1);
        }
        for (const uint64_t window : windows) {
            INFO("window " << window);
            CHECK(analyzed(anchor, *definitions, window) == whole);
        }
    }
}

TEST_CASE("the windowed replay needs the analysis without root causes and clock correction",
          "[windowed]") {
    const std::string anchor =
        std::string(WAITSCOPE_REFERENCE_DIR) + "/late_sender/trace/traces.otf2";
    ReplayOptions options;
    options.windowEvents = 16;
    auto refused = analyzeArchiveInProcess(anchor, options);
    REQUIRE(!refused);
    CHECK(refused.error().message() ==
          anchor + ": reading in windows (--window-events) needs --no-root-cause and no "
                   "--time-correct");
    options.rootCause = false;
    options.correction.emplace();
    CHECK(!analyzeArchiveInProcess(anchor, options));
}

TEST_CASE("a budget too small for whole ranks reads them in windows without root causes",
          "[windowed]") {
    const std::string anchor = std::string(WAITSCOPE_REFERENCE_DIR) + "/npb_cg/trace/traces.otf2";
    auto definitions = trace::readDefinitions(anchor);
    REQUIRE(definitions);
    ReplayOptions options;
    options.rootCause = false;
    // Room for the process, not for its ranks' events whole.
    options.memoryLimit = kProcessBaseBytes + 1024;
    auto windowed = analyzeArchiveInProcess(anchor, options);
    REQUIRE(windowed);
    options.memoryLimit = 0;
    auto whole = analyzeArchiveInProcess(anchor, options);
    REQUIRE(whole);
    CHECK(canonicalText(*windowed, *definitions) == canonicalText(*whole, *definitions));
    // With root causes the same budget is refused before any event is read.
    options.rootCause = true;
    options.memoryLimit = kProcessBaseBytes + 1024;
    auto refused = analyzeArchiveInProcess(anchor, options);
    REQUIRE(!refused);
    CHECK_THAT(refused.error().message(),
               Catch::Contains("--no-root-cause: the events are then read in windows"));
}
