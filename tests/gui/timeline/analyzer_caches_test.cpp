// The timeline's caches written by the analyzer: waitscope-replay writes timeline_events.bin and
// timeline_summary.bin beside the report, byte for byte what waitscope-gui builds at a first
// open, and the store then opens from them without a pass over the trace.
#include "timeline_store.h"
#include "trace_text.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

using namespace waitscope::timeline;
namespace fs = std::filesystem;

namespace {

// A copy of a reference trace in the build tree, analyzed there by waitscope-replay.
fs::path analyzedCopyOf(const std::string& reference, const std::string& flags, int processes = 0) {
    // Its own directory with mpirun: the ctest cases run at once.
    fs::path dir = fs::path(WAITSCOPE_TEST_TMP_DIR) /
                   ("analyzer_caches_" + reference + (processes == 0 ? "" : "_mpi"));
    fs::remove_all(dir);
    fs::copy(fs::path(WAITSCOPE_REFERENCE_DIR) / reference / "trace", dir,
             fs::copy_options::recursive);
    const std::string command =
        processes == 0
            ? std::string(WAITSCOPE_TEST_REPLAY) + " --serial --quiet " + flags + " " +
                  dir.string() + " 2>&1"
            : waitscope::test::mpirunCommand(processes, {}, WAITSCOPE_TEST_REPLAY,
                                             "--quiet " + flags + " " + dir.string(), false) +
                  " 2>&1";
    REQUIRE(std::system(command.c_str()) == 0);
    return dir;
}

std::string bytesOf(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

} // namespace

TEST_CASE("the analyzer writes the timeline caches the GUI would build, and they are used",
          "[timeline]") {
    // Our Late Sender and NPB CG (NASA's benchmark, not ours).
    for (const std::string reference : {"late_sender", "npb_cg"}) {
        INFO(reference);
        const fs::path dir = analyzedCopyOf(reference, "");
        const fs::path events = dir / TimelineStore::kCacheFile;
        const fs::path summary = dir / TimelineSummary::kCacheFile;
        REQUIRE(fs::exists(events));
        REQUIRE(fs::exists(summary));
        const std::string analyzerEvents = bytesOf(events);
        const std::string analyzerSummary = bytesOf(summary);
        auto opened = TimelineStore::open(dir.string());
        REQUIRE(opened.ok());
        CHECK((*opened)->fromCache()); // no pass over the trace
        CHECK(bytesOf(events) == analyzerEvents);

        // Without them, the first open builds the same bytes.
        fs::remove(events);
        fs::remove(summary);
        auto built = TimelineStore::open(dir.string());
        REQUIRE(built.ok());
        CHECK(!(*built)->fromCache());
        CHECK(bytesOf(events) == analyzerEvents);
        CHECK(bytesOf(summary) == analyzerSummary);
    }
}

TEST_CASE("the analyzer writes no timeline caches when told not to", "[timeline]") {
    const fs::path dir = analyzedCopyOf("late_sender", "--no-timeline");
    CHECK(fs::exists(dir / "instances.txt"));
    CHECK(!fs::exists(dir / TimelineStore::kCacheFile));
    CHECK(!fs::exists(dir / TimelineSummary::kCacheFile));
}

TEST_CASE("the caches of several analysis processes are the ones the GUI would build",
          "[timeline][mpi]") {
    // NPB CG's 4 ranks (NASA's benchmark): a process per rank, three processes (M:N: one replays
    // two ranks), and four reading windows of 97 events: each process sums its rows' overview and
    // hands its visits in the cache's layout; process 0 copies them into the cache.
    for (const auto& [processes, flags] : std::vector<std::pair<int, std::string>>{
             {4, ""}, {3, ""}, {4, "--no-root-cause --window-events 97"}}) {
        INFO(processes << " processes " << flags);
        const fs::path dir = analyzedCopyOf("npb_cg", flags, processes);
        const fs::path events = dir / TimelineStore::kCacheFile;
        const fs::path summary = dir / TimelineSummary::kCacheFile;
        REQUIRE(fs::exists(events));
        REQUIRE(fs::exists(summary));
        for (const auto& entry : fs::directory_iterator(dir)) {
            CHECK(entry.path().filename().string().find(".part") == std::string::npos);
        }
        const std::string analyzerEvents = bytesOf(events);
        const std::string analyzerSummary = bytesOf(summary);
        fs::remove(events);
        fs::remove(summary);
        auto built = TimelineStore::open(dir.string());
        REQUIRE(built.ok());
        CHECK(!(*built)->fromCache());
        CHECK(bytesOf(events) == analyzerEvents);
        CHECK(bytesOf(summary) == analyzerSummary);
    }
}
