// The memory budget: sizes as --memory-limit takes them, and the check of each process's ranks
// against it on a reference trace (announced event counts).
#include "waitscope/analysis/memory_budget.h"
#include "waitscope/trace/otf2_archive.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

using namespace waitscope;
using namespace waitscope::analysis;

TEST_CASE("memory sizes take bytes and binary K, M, G, T suffixes", "[memory_budget]") {
    CHECK(*parseMemorySize("4096") == 4096);
    CHECK(*parseMemorySize("512K") == 512ull * 1024);
    CHECK(*parseMemorySize("512kb") == 512ull * 1024);
    CHECK(*parseMemorySize("64M") == 64ull << 20);
    CHECK(*parseMemorySize("1G") == 1ull << 30);
    CHECK(*parseMemorySize("1GiB") == 1ull << 30);
    CHECK(*parseMemorySize("1.5g") == 3ull << 29);
    CHECK(*parseMemorySize("2T") == 2ull << 40);
    CHECK(*parseMemorySize("100b") == 100);
}

TEST_CASE("memory sizes that are not sizes are refused naming the text", "[memory_budget]") {
    CHECK(parseMemorySize("").error().message() ==
          "'' is not a memory size (expected bytes or a number with K, M, G or T, such as 512M "
          "or 2G)");
    CHECK(parseMemorySize("12x").error().message() ==
          "'12x' is not a memory size (unknown unit 'x'; use K, M, G or T)");
    CHECK(parseMemorySize("0").error().message() ==
          "'0' is not a memory size (it must be at least one byte)");
    CHECK(!parseMemorySize("G"));
    CHECK(!parseMemorySize("1.2.3M"));
}

TEST_CASE("memory sizes print in binary units", "[memory_budget]") {
    CHECK(formatMemorySize(512) == "0.5 KiB");
    CHECK(formatMemorySize(64ull << 20) == "64.0 MiB");
    CHECK(formatMemorySize(3ull << 29) == "1.5 GiB");
}

TEST_CASE("the default memory limit is shared by the processes of a node", "[memory_budget]") {
    const uint64_t one = defaultMemoryLimit(1);
    CHECK(one > 0);
    CHECK(defaultMemoryLimit(4) == one / 4);
    CHECK(defaultMemoryLimit(0) == one);
}

TEST_CASE("the memory budget refuses the first process whose ranks do not fit", "[memory_budget]") {
    const std::string anchor =
        std::string(WAITSCOPE_REFERENCE_DIR) + "/late_sender/trace/traces.otf2";
    auto definitions = trace::readDefinitions(anchor);
    REQUIRE(definitions);
    REQUIRE(definitions->rankCount() == 4);
    uint64_t events[4] = {};
    for (uint32_t r = 0; r < 4; ++r) {
        events[r] = rankEventCount(*definitions, anchor, r);
        REQUIRE(events[r] == definitions->locationOfRank(r)->announcedEvents);
        REQUIRE(events[r] > 0);
    }
    const uint64_t all =
        kProcessBaseBytes + kBytesPerEventFull * (events[0] + events[1] + events[2] + events[3]);
    // Exactly enough for all ranks in one process fits; a byte less does not.
    CHECK(checkMemoryBudget(*definitions, anchor, {{0, 4}}, all, true));
    const auto refused = checkMemoryBudget(*definitions, anchor, {{0, 4}}, all - 1, true);
    REQUIRE(!refused);
    CHECK_THAT(refused.error().message(),
               Catch::StartsWith("rank ") && Catch::Contains("the 4 ranks 0-3 together") &&
                   Catch::Contains("but --memory-limit allows " + formatMemorySize(all - 1) +
                                   " per analysis process") &&
                   Catch::Contains("or analyze with more processes") &&
                   Catch::Contains("--no-root-cause: 52 bytes per event)"));
    // Without the root-cause passes the same budget holds twice as many events or more.
    CHECK(checkMemoryBudget(*definitions, anchor, {{0, 4}}, all - 1, false));
    // Two processes of two ranks each: the second one is named when only it is too large.
    const uint64_t first = kProcessBaseBytes + kBytesPerEventFull * (events[0] + events[1]);
    const uint64_t second = kProcessBaseBytes + kBytesPerEventFull * (events[2] + events[3]);
    const auto blocks = std::vector<std::pair<uint32_t, uint32_t>>{{0, 2}, {2, 4}};
    if (first < second) {
        const auto two = checkMemoryBudget(*definitions, anchor, blocks, first, true);
        REQUIRE(!two);
        CHECK_THAT(two.error().message(), Catch::Contains("ranks 2-3 of analysis process 1"));
    }
    CHECK(checkMemoryBudget(*definitions, anchor, blocks, std::max(first, second), true));
    // One rank per process: the message names the rank and its own events.
    const uint64_t rank3 = kProcessBaseBytes + kBytesPerEventFull * events[3];
    CHECK(checkMemoryBudget(*definitions, anchor, {{3, 4}}, rank3 - 1, false));
    const auto tight = checkMemoryBudget(*definitions, anchor, {{3, 4}}, rank3 - 1, true);
    REQUIRE(!tight);
    CHECK(tight.error().message() ==
          "rank 3: its " + std::to_string(events[3]) + " events need about " +
              formatMemorySize(kBytesPerEventFull * events[3]) +
              " in memory (96 bytes per event with the root-cause passes), and the process "
              "itself 32.0 MiB: " +
              formatMemorySize(rank3) + " in all, but --memory-limit allows " +
              formatMemorySize(rank3 - 1) +
              " per analysis process (with --time-correct, or one-sided windows, MPI file I/O or "
              "MPI from several threads in the trace, the replay holds a rank's events whole; "
              "otherwise it reads them in windows); raise --memory-limit, or skip the root-cause "
              "passes (--no-root-cause: 52 bytes per event)");
}

TEST_CASE("the memory budget counts what an event observer holds to the end", "[memory_budget]") {
    // The timeline's collector holds its visits and message ends until the caches are written:
    // its bytes per event come on top, whole and in windows.
    const std::string anchor =
        std::string(WAITSCOPE_REFERENCE_DIR) + "/late_sender/trace/traces.otf2";
    auto definitions = trace::readDefinitions(anchor);
    REQUIRE(definitions);
    uint64_t events = 0;
    for (uint32_t r = 0; r < 4; ++r) {
        events += rankEventCount(*definitions, anchor, r);
    }
    REQUIRE(events > 0);
    constexpr uint64_t kObserved = 16;
    const uint64_t whole = kProcessBaseBytes + (kBytesPerEventFull + kObserved) * events;
    CHECK(checkMemoryBudget(*definitions, anchor, {{0, 4}}, whole, true, kObserved));
    CHECK(checkMemoryBudget(*definitions, anchor, {{0, 4}}, whole - 1, true));
    const auto refused =
        checkMemoryBudget(*definitions, anchor, {{0, 4}}, whole - 1, true, kObserved);
    REQUIRE(!refused);
    CHECK_THAT(refused.error().message(),
               Catch::Contains("(112 bytes per event with the root-cause passes, 16 of them the "
                               "timeline's caches)"));

    // In windows without the root-cause passes only the observer's bytes are held to the end,
    // besides the instances' fixed spill buffers.
    CHECK(windowedHeldBytes(*definitions, anchor, {{0, 4}}, false) == kInstanceSpillBytes);
    CHECK(windowedHeldBytes(*definitions, anchor, {{0, 4}}, false, kObserved) ==
          kInstanceSpillBytes + kObserved * events);
    CHECK(windowedHeldBytes(*definitions, anchor, {{0, 4}}, true, kObserved) ==
          kInstanceSpillBytes + (kBytesPerEventRootCauseWindowed + kObserved) * events);
    const uint64_t windows =
        kProcessBaseBytes + kObserved * events + 4 * kMinWindowEvents * kBytesPerWindowEvent;
    CHECK(checkWindowedMemoryBudget(*definitions, anchor, {{0, 4}}, 1, false));
    CHECK(checkWindowedMemoryBudget(*definitions, anchor, {{0, 4}}, windows, false, kObserved));
    const auto tight =
        checkWindowedMemoryBudget(*definitions, anchor, {{0, 4}}, windows - 1, false, kObserved);
    REQUIRE(!tight);
    CHECK_THAT(tight.error().message(),
               Catch::Contains("(16 bytes per event: the timeline's caches hold 16 bytes per "
                               "event (--no-timeline: not))") &&
                   !Catch::Contains("--no-root-cause"));
}
