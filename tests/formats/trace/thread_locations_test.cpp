// Reading every location of a rank: the list of a rank's locations and a thread's events.
#include "threaded_trace.h"
#include "waitscope/trace/otf2_archive.h"

#include <catch2/catch.hpp>
#include <filesystem>

using namespace waitscope::trace;
using namespace waitscope::testing;
namespace fs = std::filesystem;

namespace {

// Writes the threaded trace into a fresh temporary directory; returns its anchor file.
std::string threadedAnchor(const std::string& tag) {
    const fs::path dir = fs::temp_directory_path() / ("waitscope_trace_threads_" + tag);
    REQUIRE(writeThreadedTrace(dir.string()));
    return (dir / "traces.otf2").string();
}

} // namespace

TEST_CASE("definitions keep every location of a rank, the main location first", "[otf2][threads]") {
    auto defs = readDefinitions(threadedAnchor("list"));
    REQUIRE(defs.ok());
    CHECK(defs->rankCount() == 2);
    CHECK(defs->locations.size() == 5);
    const std::vector<const Location*> rank0 = defs->locationsOfRank(0);
    REQUIRE(rank0.size() == 3);
    CHECK(rank0[0] == defs->locationOfRank(0));
    CHECK(rank0[0]->id == 0);
    CHECK(rank0[0]->name == "Master thread");
    CHECK(rank0[1]->id == threadLocationId(0, 1));
    CHECK(rank0[1]->name == "thread 1");
    CHECK(rank0[1]->type == LocationType::CpuThread);
    CHECK(rank0[1]->announcedEvents == 5);
    CHECK(rank0[2]->id == threadLocationId(0, 2));
    CHECK(rank0[2]->name == "thread 2");
    const std::vector<const Location*> rank1 = defs->locationsOfRank(1);
    REQUIRE(rank1.size() == 2);
    CHECK(rank1[0]->id == 1);
    CHECK(rank1[1]->id == threadLocationId(1, 1));
    CHECK(rank1[1]->group == 1);
    CHECK(defs->locationsOfRank(2).empty());
    // The communicator still resolves to the main locations' ranks.
    REQUIRE(!defs->communicators.empty());
    CHECK(defs->communicators[0].worldRanks == std::vector<uint32_t>{0, 1});
}

TEST_CASE("a thread location's events are read into a stream of their own", "[otf2][threads]") {
    const std::string anchor = threadedAnchor("events");
    auto defs = readDefinitions(anchor);
    REQUIRE(defs.ok());
    auto main = readRankEvents(anchor, *defs, 0);
    REQUIRE(main.ok());
    CHECK(main->size() == 9);
    auto thread = readLocationEvents(anchor, *defs->locationsOfRank(0)[1]);
    REQUIRE(thread.ok());
    REQUIRE(thread->size() == 5);
    CHECK(thread->kind(0) == EventKind::Enter);
    CHECK(thread->ref(0) == kWorkerRegion);
    CHECK(thread->time(0) == 12);
    CHECK(thread->kind(1) == EventKind::CallingContextSample);
    CHECK(thread->ref(1) == kComputeContext);
    CHECK(thread->time(1) == 20);
    CHECK(thread->ref(2) == kComputeReduceContext);
    CHECK(thread->time(3) == 40);
    CHECK(thread->kind(4) == EventKind::Leave);
    CHECK(thread->time(4) == 48);
    CHECK(thread->skippedEvents() == 0);
    // The thread order records (ThreadBegin/ThreadEnd) are kept, with their sequence number.
    auto second = readLocationEvents(anchor, *defs->locationsOfRank(0)[2]);
    REQUIRE(second.ok());
    REQUIRE(second->size() == 5);
    CHECK(second->skippedEvents() == 0);
    CHECK(second->kind(0) == EventKind::ThreadBegin);
    CHECK(second->ref(0) == 1);
    CHECK(second->kind(1) == EventKind::Enter);
    CHECK(second->time(1) == 14);
    CHECK(second->kind(4) == EventKind::ThreadEnd);
    CHECK(second->time(4) == 34);
}

TEST_CASE("a thread location without events is refused naming the file and location",
          "[otf2][threads][bad-input]") {
    const std::string anchor = threadedAnchor("missing");
    const fs::path evt = fs::path(anchor).parent_path() / "traces" /
                         (std::to_string(threadLocationId(1, 1)) + ".evt");
    REQUIRE(fs::remove(evt));
    auto defs = readDefinitions(anchor);
    REQUIRE(defs.ok());
    CHECK(readRankEvents(anchor, *defs, 1).ok());
    auto events = readLocationEvents(anchor, *defs->locationsOfRank(1)[1]);
    REQUIRE_FALSE(events.ok());
    CHECK(events.error().message() == anchor + ": rank 1: location 4294967297 (thread 1): " +
                                          "event file " + evt.string() + " is missing");
}
