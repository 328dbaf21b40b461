// The timeline collected from the analysis's own read: the caches TimelineCollector writes after
// an in-process analysis (whole ranks, or read in windows) are byte for byte the ones
// TimelineStore::open() builds with a pass over the trace; times are rounded as instances.txt
// stores them.
#include "timeline_collector.h"
#include "timeline_store.h"
#include "timeline_summary.h"
#include "waitscope/analysis/instance_file.h"
#include "waitscope/analysis/serial_analysis.h"
#include "waitscope/analysis/wait_instances.h"
#include "waitscope/trace/otf2_archive.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

using namespace waitscope;
using namespace waitscope::timeline;
namespace fs = std::filesystem;

namespace {

fs::path copyOf(const std::string& reference, const std::string& suffix) {
    fs::path dir = fs::path(WAITSCOPE_TEST_TMP_DIR) / ("collector_" + reference + suffix);
    fs::remove_all(dir);
    fs::copy(fs::path(WAITSCOPE_REFERENCE_DIR) / reference / "trace", dir,
             fs::copy_options::recursive);
    return dir;
}

std::string bytesOf(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// What instances.txt makes of `seconds`: printed with "%.9f", read back with from_chars.
double throughText(double seconds) {
    char text[64];
    const int length = std::snprintf(text, sizeof text, "%.9f", seconds);
    double value = 0.0;
    std::from_chars(text, text + length, value);
    return value;
}

} // namespace

TEST_CASE("a time is rounded as instances.txt stores it", "[timeline]") {
    // Ties at the ninth decimal (exact in binary) go to the even neighbour, as printf rounds.
    for (const double tie : {1.0 / 1024, 3.0 / 1024, 0.5 + 1.0 / 2048, 1e-9 / 2, 3e-9 / 2}) {
        INFO(tie);
        CHECK(TimelineCollector::asStored(tie) == throughText(tie));
        CHECK(TimelineCollector::asStored(-tie) == throughText(-tie));
    }
    std::mt19937_64 random(23);
    std::uniform_real_distribution<double> seconds(0.0, 5000.0);
    std::uniform_int_distribution<int64_t> nanoseconds(0, 5'000'000'000'000);
    for (int k = 0; k < 200'000; ++k) {
        const double any = seconds(random);
        // Near a half nanosecond, where the product's rounding matters.
        const double half = (static_cast<double>(nanoseconds(random)) + 0.5) / 1e9;
        const double near = std::nextafter(half, k % 2 == 0 ? 0.0 : 1e9);
        for (const double value : {any, half, near}) {
            INFO(value);
            REQUIRE(TimelineCollector::asStored(value) == throughText(value));
        }
    }
}

TEST_CASE("the caches collected from the analysis's read are the ones built from the trace",
          "[timeline]") {
    // Our Late Sender and NPB CG (NASA's benchmark, not ours), read whole and in windows: of 97
    // events without the root-cause passes (the windowed replay), of 13 with them (the windowed
    // profile stage).
    for (const std::string reference : {"late_sender", "npb_cg"}) {
        for (const uint64_t window : {uint64_t{0}, uint64_t{97}, uint64_t{13}}) {
            INFO(reference << " window " << window);
            const fs::path dir = copyOf(reference, "_" + std::to_string(window));
            auto archive = trace::readArchiveDefinitions(dir.string());
            REQUIRE(archive.ok());
            TimelineCollector collector;
            analysis::ReplayOptions options;
            options.windowEvents = window;
            options.rootCause = window != 97;
            options.observer = &collector;
            auto result = analysis::analyzeArchiveInProcess(dir.string(), options);
            REQUIRE(result.ok());
            REQUIRE(collector.complete());
            REQUIRE(
                analysis::writeWaitInstances(*result, (dir / analysis::kWaitInstancesFile).string())
                    .ok());
            // As waitscope-replay writes them: the GUI reads the indexed file.
            REQUIRE(analysis::writeInstanceFile(result->instances(),
                                                (dir / analysis::kInstanceFile).string())
                        .ok());
            REQUIRE(
                collector.write(archive->anchor, archive->definitions, result->instances()).ok());
            const std::string events = bytesOf(dir / TimelineStore::kCacheFile);
            const std::string summary = bytesOf(dir / TimelineSummary::kCacheFile);
            REQUIRE(!events.empty());
            REQUIRE(!summary.empty());

            fs::remove(dir / TimelineStore::kCacheFile);
            fs::remove(dir / TimelineSummary::kCacheFile);
            auto built = TimelineStore::open(dir.string());
            REQUIRE(built.ok());
            CHECK(!(*built)->fromCache());
            CHECK(bytesOf(dir / TimelineStore::kCacheFile) == events);
            CHECK(bytesOf(dir / TimelineSummary::kCacheFile) == summary);
            // Waiting time is in the overview (the instances reached it).
            double waiting = 0.0;
            const TimelineSummary& overview = (*built)->summary();
            for (uint32_t row = 0; row < overview.rows(); ++row) {
                waiting += overview.bin(overview.levels() - 1, row, 0).waiting;
            }
            CHECK(waiting > 0.0);
        }
    }
}

TEST_CASE("a collector that did not see every location asks for a pass over the trace",
          "[timeline]") {
    const fs::path dir = copyOf("late_sender", "_partial");
    auto archive = trace::readArchiveDefinitions(dir.string());
    REQUIRE(archive.ok());
    TimelineCollector collector;
    CHECK(!collector.complete());
    // Only rank 0's location.
    auto events = trace::readRankEvents(archive->anchor, archive->definitions, 0);
    REQUIRE(events.ok());
    collector.observe(archive->definitions, *archive->definitions.locationOfRank(0), *events, 0,
                      events->size());
    CHECK(!collector.complete());
    CHECK(!collector.write(archive->anchor, archive->definitions, {}).ok());
    CHECK(!fs::exists(dir / TimelineStore::kCacheFile));
}

TEST_CASE("the rows of several collectors join through their part files", "[timeline]") {
    const fs::path dir = copyOf("npb_cg", "_parts");
    auto archive = trace::readArchiveDefinitions(dir.string());
    REQUIRE(archive.ok());
    const uint32_t ranks = archive->definitions.rankCount();
    REQUIRE(ranks == 4);
    // Ranks 0 and 1 in one collector, 2 and 3 in another (two analysis processes).
    TimelineCollector first;
    TimelineCollector second;
    for (uint32_t rank = 0; rank < ranks; ++rank) {
        auto events = trace::readRankEvents(archive->anchor, archive->definitions, rank);
        REQUIRE(events.ok());
        (rank < 2 ? first : second)
            .observe(archive->definitions, *archive->definitions.locationOfRank(rank), *events, 0,
                     events->size());
    }
    // The run's span, as the analysis processes combine theirs.
    const TimelineCollector::Span one = first.span();
    const TimelineCollector::Span two = second.span();
    REQUIRE(one.any);
    REQUIRE(two.any);
    const TimelineCollector::Span run{true, std::min(one.begin, two.begin),
                                      std::max(one.end, two.end)};
    const fs::path part = dir / "part";
    REQUIRE(second.savePart(part.string(), archive->definitions, run).ok());
    // A part cut short anywhere (in its message ends too, which are taken from the mapped file)
    // is damaged, named, and taken no further.
    {
        auto events = trace::readRankEvents(archive->anchor, archive->definitions, 0);
        REQUIRE(events.ok());
        const std::string bytes = bytesOf(part);
        for (size_t sixteenth = 1; sixteenth < 16; ++sixteenth) {
            const size_t cut = bytes.size() * sixteenth / 16;
            const fs::path shorter = dir / ("part_cut_" + std::to_string(cut));
            std::ofstream(shorter, std::ios::binary)
                .write(bytes.data(), static_cast<std::streamsize>(cut));
            TimelineCollector other;
            other.observe(archive->definitions, *archive->definitions.locationOfRank(0), *events, 0,
                          events->size());
            const auto taken = other.loadPart(shorter.string());
            REQUIRE(!taken.ok());
            CHECK(taken.error().message() == shorter.string() + ": not a timeline part (damaged)");
            fs::remove(shorter);
        }
    }
    REQUIRE(first.loadPart(part.string()).ok());
    REQUIRE(first.complete());
    // A part taken twice names its file.
    auto again = first.loadPart(part.string());
    REQUIRE(!again.ok());
    CHECK(again.error().message().find(part.string()) != std::string::npos);
    fs::remove(part);

    // The first writes the caches with room for the second's visits, under the partial name.
    std::vector<uint64_t> rowStarts;
    REQUIRE(first.awaitsOtherRows());
    CHECK(!second.awaitsOtherRows());
    REQUIRE(first.write(archive->anchor, archive->definitions, {}, &rowStarts).ok());
    REQUIRE(rowStarts.size() == ranks);
    const fs::path cache = dir / TimelineStore::kCacheFile;
    const fs::path partial = TimelineCollector::partialCacheOf(archive->anchor);
    CHECK(partial == TimelineStore::partialPath(cache.string()));
    REQUIRE(fs::exists(partial));
    CHECK(!fs::exists(cache));
    const std::string summary = bytesOf(dir / TimelineSummary::kCacheFile);

    // The second process died before writing its rows: the cache with their holes is never
    // read; the GUI builds it from the trace (with the overview written), whole.
    {
        auto rebuilt = TimelineStore::open(dir.string());
        REQUIRE(rebuilt.ok());
        CHECK(!(*rebuilt)->fromCache());
    }
    const std::string whole = bytesOf(cache);
    REQUIRE(whole.size() == fs::file_size(partial));
    CHECK(bytesOf(partial) != whole); // the holes
    fs::remove(cache);

    // The second writes its visits there, then the cache gets its name.
    REQUIRE(second.writeVisitsInto(partial.string(), rowStarts).ok());
    const auto missing = second.writeVisitsInto((dir / "none.bin").string(), rowStarts);
    REQUIRE(!missing.ok());
    CHECK(missing.error().message() == (dir / "none.bin").string() + ": cannot open");
    REQUIRE(TimelineCollector::publish(archive->anchor).ok());
    CHECK(!fs::exists(partial));
    CHECK(bytesOf(cache) == whole);
    CHECK(bytesOf(dir / TimelineSummary::kCacheFile) == summary);
    auto opened = TimelineStore::open(dir.string());
    REQUIRE(opened.ok());
    CHECK((*opened)->fromCache());
    // Nothing left to publish: the error names the file.
    const auto nothing = TimelineCollector::publish(archive->anchor);
    REQUIRE(!nothing.ok());
    CHECK(nothing.error().message().find(partial.string()) != std::string::npos);
}
