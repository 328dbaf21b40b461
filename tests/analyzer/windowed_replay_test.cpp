// The windowed replay (traces larger than memory; without root causes the windowed replay, with
// them the windowed profile before the whole-rank replays): for any window size it writes what
// the whole-rank analysis writes, value for value and instance for instance, on the reference
// traces and the corpus of third-party codes.
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

// The analysis of `anchor` with or without root causes, its events read in windows of `window`
// (0: whole), as canonical text followed by every instance and the critical path.
// With `blockEntries`, the windowed root-cause passes spill the time profile in blocks of that
// many entries (else of the default size; always to the system's temporary directory).
std::string analyzed(const std::string& anchor, const trace::Definitions& definitions,
                     uint64_t window, bool rootCause, size_t blockEntries = 0) {
    ReplayOptions options;
    options.rootCause = rootCause;
    options.windowEvents = window;
    if (blockEntries > 0) {
        options.scratchDirectory = std::filesystem::temp_directory_path().string();
        options.scratchBlockEntries = blockEntries;
    }
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
    for (const PathSegment& s : result->criticalPath()) {
        char line[160];
        std::snprintf(line, sizeof line, "path %u %a %a %u %u\n", s.rank, s.start, s.end,
                      static_cast<unsigned>(s.from), static_cast<unsigned>(s.to));
        text += line;
    }
    return text;
}

} // namespace

TEST_CASE("the windowed replay gives the whole-rank report for windows of any size",
          "[.windowed]") {
    const bool rootCause = GENERATE(false, true);
    INFO((rootCause ? "with" : "without") << " root causes");
    const auto traces = referenceTraces();
    REQUIRE(traces.size() >= 20);
    for (const std::string& anchor : traces) {
        INFO(anchor);
        auto definitions = trace::readDefinitions(anchor);
        REQUIRE(definitions);
        const std::string whole = analyzed(anchor, *definitions, 0, rootCause);
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
            CHECK(analyzed(anchor, *definitions, window, rootCause) == whole);
        }
        if (rootCause) {
            // The time profile spilled in blocks of 1 and 7 entries (above: of the default size).
            for (const size_t block : {size_t{1}, size_t{7}}) {
                INFO("time profile spilled in blocks of " << block);
                CHECK(analyzed(anchor, *definitions, 13, rootCause, block) == whole);
            }
        }
    }
}

TEST_CASE("the time profile spilled in blocks gives the whole-rank report", "[windowed]") {
    // Blocks of one entry up to more than a rank holds, read back by the critical path and the
    // delay pass across block boundaries; windows of one event and of 13.
    for (const std::string_view code : kExamples) {
        const std::string anchor =
            std::string(WAITSCOPE_REFERENCE_DIR) + "/" + std::string(code) + "/trace/traces.otf2";
        INFO(anchor);
        auto definitions = trace::readDefinitions(anchor);
        REQUIRE(definitions);
        const std::string whole = analyzed(anchor, *definitions, 0, true);
        for (const uint64_t window : {uint64_t{1}, uint64_t{13}}) {
            for (const size_t block : {size_t{1}, size_t{2}, size_t{5}, size_t{1000}}) {
                INFO("window " << window << ", blocks of " << block);
                CHECK(analyzed(anchor, *definitions, window, true, block) == whole);
            }
        }
    }
}

TEST_CASE("root-cause state that cannot be spilled fails its rank, naming the directory",
          "[windowed]") {
    const std::string anchor =
        std::string(WAITSCOPE_REFERENCE_DIR) + "/late_sender/trace/traces.otf2";
    ReplayOptions options;
    options.windowEvents = 13;
    options.scratchDirectory = "/nonexistent/waitscope-scratch";
    auto refused = analyzeArchiveInProcess(anchor, options);
    REQUIRE(!refused);
    CHECK_THAT(refused.error().message(),
               Catch::Contains("cannot create a scratch file of the root-cause passes in "
                               "/nonexistent/waitscope-scratch: No such file or directory"));
}

TEST_CASE("the windowed replay needs the analysis without clock correction", "[windowed]") {
    const std::string anchor =
        std::string(WAITSCOPE_REFERENCE_DIR) + "/late_sender/trace/traces.otf2";
    ReplayOptions options;
    options.windowEvents = 16;
    options.correction.emplace();
    auto refused = analyzeArchiveInProcess(anchor, options);
    REQUIRE(!refused);
    CHECK(refused.error().message() ==
          anchor + ": reading in windows (--window-events) needs no --time-correct");
    options.rootCause = false;
    CHECK(!analyzeArchiveInProcess(anchor, options));
}

TEST_CASE("a budget too small for whole ranks reads them in windows, with root causes if their "
          "operations fit",
          "[windowed]") {
    const std::string anchor = std::string(WAITSCOPE_REFERENCE_DIR) + "/npb_cg/trace/traces.otf2";
    auto definitions = trace::readDefinitions(anchor);
    REQUIRE(definitions);
    uint64_t events = 0;
    const uint64_t ranks = definitions->rankCount();
    for (uint32_t r = 0; r < ranks; ++r) {
        events += rankEventCount(*definitions, anchor, r);
    }
    for (const bool rootCause : {false, true}) {
        INFO((rootCause ? "with" : "without") << " root causes");
        ReplayOptions options;
        options.rootCause = rootCause;
        // Room for the process, its windows and (with root causes) the operations, not for
        // the ranks' events whole.
        options.memoryLimit = kProcessBaseBytes + ranks * kMinWindowEvents * kBytesPerWindowEvent +
                              events * kBytesPerEventRootCauseWindowed;
        REQUIRE(options.memoryLimit < kProcessBaseBytes + events * kBytesPerEventFull);
        auto windowed = analyzeArchiveInProcess(anchor, options);
        REQUIRE(windowed);
        options.memoryLimit = 0;
        auto whole = analyzeArchiveInProcess(anchor, options);
        REQUIRE(whole);
        CHECK(canonicalText(*windowed, *definitions) == canonicalText(*whole, *definitions));
    }
    // With root causes a budget that cannot hold the operations is refused before any event is
    // read; without them the windows fit.
    ReplayOptions options;
    options.memoryLimit = kProcessBaseBytes + ranks * kMinWindowEvents * kBytesPerWindowEvent +
                          events * kBytesPerEventRootCauseWindowed - 1;
    auto refused = analyzeArchiveInProcess(anchor, options);
    REQUIRE(!refused);
    CHECK_THAT(refused.error().message(),
               Catch::Contains("read in windows, its ") &&
                   Catch::Contains("the root-cause passes hold a rank's communication "
                                   "operations whole") &&
                   Catch::Contains("--no-root-cause: only windows of events are then held"));
    options.rootCause = false;
    CHECK(analyzeArchiveInProcess(anchor, options));
}
