// The windowed loader: for random windows, TimelineStore reads exactly the visits, messages and
// collectives a full Timeline::load() holds of the window, from a cache it builds at the first
// open and reads at the next; its overview equals the one built from the full load; and one
// message of very long flight does not make every narrow window's read large.
#include "generated_trace.h"
#include "timeline_store.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <fcntl.h>
#include <filesystem>
#include <random>
#include <tuple>
#include <unistd.h>

using namespace waitscope::timeline;
namespace fs = std::filesystem;

namespace {

// A copy of a reference trace in the build tree (the store writes its caches beside it).
fs::path copyOf(const std::string& reference) {
    fs::path dir = fs::path(WAITSCOPE_TEST_TMP_DIR) / ("store_" + reference);
    fs::remove_all(dir);
    fs::copy(fs::path(WAITSCOPE_REFERENCE_DIR) / reference / "trace", dir,
             fs::copy_options::recursive);
    return dir;
}

using MessageKey = std::tuple<uint32_t, uint32_t, double, double, uint64_t>;

std::vector<MessageKey> keys(const std::vector<Message>& messages) {
    std::vector<MessageKey> out;
    out.reserve(messages.size());
    for (const Message& m : messages) {
        out.emplace_back(m.fromRow, m.toRow, m.sendTime, m.receiveTime, m.bytes);
    }
    std::sort(out.begin(), out.end());
    return out;
}

// Checks a window read of [from, to] against a brute-force filter of the full load.
void checkRead(const waitscope::Result<Timeline>& window, const Timeline& full, double from,
               double to) {
    REQUIRE(window.ok());
    REQUIRE(window->rows().size() == full.rows().size());
    for (size_t r = 0; r < full.rows().size(); ++r) {
        const Row& all = full.rows()[r];
        REQUIRE(window->rows()[r].depths.size() == all.depths.size());
        for (size_t d = 0; d < all.depths.size(); ++d) {
            std::vector<Visit> expected;
            for (const Visit& v : all.depths[d]) {
                if (v.end > from && v.start < to) {
                    expected.push_back(v);
                }
            }
            const std::vector<Visit>& got = window->rows()[r].depths[d];
            REQUIRE(got.size() == expected.size());
            for (size_t k = 0; k < got.size(); ++k) {
                CHECK(got[k].start == expected[k].start);
                CHECK(got[k].end == expected[k].end);
                CHECK(got[k].region == expected[k].region);
            }
        }
    }
    std::vector<Message> expectedMessages;
    for (const Message& m : full.messages()) {
        if (std::min(m.sendTime, m.receiveTime) <= to &&
            std::max(m.sendTime, m.receiveTime) >= from) {
            expectedMessages.push_back(m);
        }
    }
    CHECK(keys(window->messages()) == keys(expectedMessages));
    std::vector<const Collective*> expectedCollectives;
    for (const Collective& c : full.collectives()) {
        if (c.start <= to && c.end >= from) {
            expectedCollectives.push_back(&c);
        }
    }
    REQUIRE(window->collectives().size() == expectedCollectives.size());
    for (size_t k = 0; k < expectedCollectives.size(); ++k) {
        const Collective& got = window->collectives()[k];
        CHECK(got.start == expectedCollectives[k]->start);
        CHECK(got.lastBegin == expectedCollectives[k]->lastBegin);
        CHECK(got.end == expectedCollectives[k]->end);
        CHECK(got.region == expectedCollectives[k]->region);
        CHECK(got.rows == expectedCollectives[k]->rows);
    }
}

// Checks store.window(from, to), and the same read from the page cache only, against a
// brute-force filter of the full load.
void checkWindow(const TimelineStore& store, const Timeline& full, double from, double to) {
    for (const bool inMemory : {false, true}) {
        INFO("from the page cache only: " << inMemory);
        // The cache was just written or read: its pages are in the page cache.
        checkRead(inMemory ? store.windowInMemory(from, to) : store.window(from, to), full, from,
                  to);
    }
}

} // namespace

TEST_CASE("the windowed loader returns exactly the events of a full load for random windows",
          "[timeline]") {
    // Our Late Sender, a collective-heavy trace, and NPB CG (not ours: NASA's benchmark).
    for (const std::string reference : {"late_sender", "wait_nxn", "npb_cg"}) {
        INFO(reference);
        const fs::path dir = copyOf(reference);
        auto full = Timeline::load(dir.string());
        REQUIRE(full.ok());
        for (const bool second : {false, true}) {
            auto store = TimelineStore::open(dir.string());
            REQUIRE(store.ok());
            CHECK((*store)->fromCache() == second); // built at the first open, read at the next
            CHECK(fs::exists(dir / TimelineStore::kCacheFile));
            const Timeline& skeleton = (*store)->skeleton();
            REQUIRE(skeleton.rows().size() == full->rows().size());
            CHECK(skeleton.begin() == full->begin());
            CHECK(skeleton.end() == full->end());
            CHECK(skeleton.events() == full->events());
            REQUIRE(skeleton.regions() == full->regions());
            for (uint32_t r = 0; r < skeleton.regions(); ++r) {
                CHECK(skeleton.regionName(r) == full->regionName(r));
            }
            for (size_t r = 0; r < skeleton.rows().size(); ++r) {
                CHECK(skeleton.rows()[r].name == full->rows()[r].name);
                CHECK(skeleton.rows()[r].depths.size() == full->rows()[r].depths.size());
                for (const auto& depth : skeleton.rows()[r].depths) {
                    CHECK(depth.empty()); // the skeleton holds no visits
                }
            }
            // The whole run, then random windows from a microsecond to most of the run.
            const double span = full->end() - full->begin();
            checkWindow(**store, *full, full->begin() - 1.0, full->end() + 1.0);
            std::mt19937 random(23);
            std::uniform_real_distribution<double> unit(0.0, 1.0);
            for (int k = 0; k < 60; ++k) {
                const double width = span * std::pow(10.0, -6.0 * unit(random));
                const double from = full->begin() + (span - width) * unit(random);
                checkWindow(**store, *full, from, from + width);
            }
        }
    }
}

TEST_CASE("a window read from the page cache only fails rather than wait for the disk",
          "[timeline]") {
    const fs::path dir = copyOf("npb_cg");
    auto store = TimelineStore::open(dir.string());
    REQUIRE(store.ok());
    auto full = Timeline::load(dir.string());
    REQUIRE(full.ok());
    // The cache's pages dropped from the page cache (written back first: only clean pages go).
    const fs::path cache = dir / TimelineStore::kCacheFile;
    const int file = ::open(cache.c_str(), O_RDONLY);
    REQUIRE(file >= 0);
    CHECK(::fdatasync(file) == 0);
    CHECK(::posix_fadvise(file, 0, 0, POSIX_FADV_DONTNEED) == 0);
    ::close(file);
    const double middle = (full->begin() + full->end()) / 2;
    auto cold = (*store)->windowInMemory(middle, middle + (full->end() - full->begin()) / 100);
    REQUIRE(!cold.ok());
    CHECK(cold.error().message() == cache.string() + ": not in memory");
    // Read from the disk, the same window is then in memory.
    checkWindow(**store, *full, middle, middle + (full->end() - full->begin()) / 100);
}

TEST_CASE("the store's overview bins equal those built from a full load", "[timeline]") {
    const fs::path dir = copyOf("npb_cg");
    auto full = Timeline::load(dir.string());
    REQUIRE(full.ok());
    const TimelineSummary expected = TimelineSummary::build(*full);
    auto store = TimelineStore::open(dir.string());
    REQUIRE(store.ok());
    const TimelineSummary& got = (*store)->summary();
    REQUIRE(got.rows() == expected.rows());
    REQUIRE(got.levels() == expected.levels());
    for (size_t level = 0; level < got.levels(); level += 3) {
        for (uint32_t r = 0; r < got.rows(); ++r) {
            for (uint32_t b = 0; b < got.binsAt(level); ++b) {
                const Bin& x = got.bin(level, r, b);
                const Bin& y = expected.bin(level, r, b);
                CHECK(x.kinds == y.kinds);
                CHECK(x.waiting == y.waiting);
                CHECK(x.visits == y.visits);
            }
        }
    }
}

TEST_CASE("a damaged event cache is built again", "[timeline]") {
    const fs::path dir = copyOf("late_sender");
    auto first = TimelineStore::open(dir.string());
    REQUIRE(first.ok());
    const fs::path cache = dir / TimelineStore::kCacheFile;
    fs::resize_file(cache, fs::file_size(cache) - 7); // the directory's end cut off
    auto again = TimelineStore::open(dir.string());
    REQUIRE(again.ok());
    CHECK(!(*again)->fromCache());
    auto full = Timeline::load(dir.string());
    REQUIRE(full.ok());
    checkWindow(**again, *full, full->begin(), full->end());
}

TEST_CASE("the store refuses a missing trace naming the path", "[timeline]") {
    auto store = TimelineStore::open("/nonexistent/experiment");
    REQUIRE(!store.ok());
    CHECK(store.error().message().find("/nonexistent/experiment") != std::string::npos);
}

TEST_CASE("one very long message keeps a narrow window's read of the messages small",
          "[timeline]") {
    const fs::path dir = fs::path(WAITSCOPE_TEST_TMP_DIR) / "store_long_flight";
    fs::remove_all(dir);
    fs::create_directories(dir);
    waitscope::testing::GeneratedTraceOptions options;
    options.ranks = 4;
    options.eventsPerRank = 40000;
    REQUIRE(waitscope::testing::writeGeneratedTrace(dir.string(), options).ok());
    auto full = Timeline::load(dir.string());
    REQUIRE(full.ok());
    // A message from rank 0 sent at the start of the run and received by the last rank at its
    // end, among the trace's own (stable by send time, as the loader orders them).
    std::vector<Message> messages = full->messages();
    REQUIRE(messages.size() > 5000);
    const double span = full->end() - full->begin();
    const Message longest{0, static_cast<uint32_t>(full->rows().size() - 1),
                          full->begin() + span / 1000, full->end() - span / 1000, 64};
    messages.insert(std::upper_bound(messages.begin(), messages.end(), longest.sendTime,
                                     [](double t, const Message& m) { return t < m.sendTime; }),
                    longest);
    full->setMessages(messages);
    // The event cache written from this timeline (open() reads it: it names the trace).
    std::vector<std::string> records;
    std::vector<std::vector<TimelineStore::EncodedVisits>> visits(full->rows().size());
    for (size_t r = 0; r < full->rows().size(); ++r) {
        for (const auto& depth : full->rows()[r].depths) {
            std::string& bytes = records.emplace_back();
            for (const Visit& v : depth) {
                bytes.append(reinterpret_cast<const char*>(&v.start), 8);
                bytes.append(reinterpret_cast<const char*>(&v.end), 8);
                bytes.append(reinterpret_cast<const char*>(&v.region), 4);
            }
            visits[r].push_back({{}, depth.size(), false});
        }
    }
    size_t next = 0;
    for (auto& row : visits) {
        for (TimelineStore::EncodedVisits& depth : row) {
            depth.pieces.emplace_back(records[next++].data(), depth.count);
        }
    }
    REQUIRE(TimelineStore::write((dir / TimelineStore::kCacheFile).string(),
                                 TimelineSummary::signatureOf(full->anchor()), *full, visits)
                .ok());
    auto store = TimelineStore::open(dir.string());
    REQUIRE(store.ok());
    // The cache read is the one written (built again from the trace it would lack the message).
    auto all = (*store)->window(full->begin(), full->end());
    REQUIRE(all.ok());
    REQUIRE(all->messages().size() == messages.size());

    // Narrow windows (a millionth to a thousandth of the run) across the run: the messages read
    // equal a brute-force scan (the long one in each), and the records looked at are those of
    // the window and a few near it, not the thousands sent within the longest flight.
    std::mt19937 random(25);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    for (int k = 0; k < 40; ++k) {
        const double width = span * std::pow(10.0, -3.0 - 3.0 * unit(random));
        const double from = full->begin() + span / 100 + (span * 0.98 - width) * unit(random);
        const double to = from + width;
        std::vector<Message> expected;
        for (const Message& m : messages) {
            if (std::min(m.sendTime, m.receiveTime) <= to &&
                std::max(m.sendTime, m.receiveTime) >= from) {
                expected.push_back(m);
            }
        }
        const uint64_t before = (*store)->messagesLookedAt();
        auto window = (*store)->window(from, to);
        REQUIRE(window.ok());
        const uint64_t looked = (*store)->messagesLookedAt() - before;
        INFO("window " << from << " to " << to << ": " << expected.size() << " in it, " << looked
                       << " looked at");
        REQUIRE(window->messages().size() == expected.size());
        for (size_t m = 0; m < expected.size(); ++m) { // in the same (send-time) order
            CHECK(keys({window->messages()[m]}) == keys({expected[m]}));
        }
        CHECK(looked <= expected.size() + 40);
        // The same found in memory by visibleMessages(), looking at as few.
        const auto shown = full->visibleMessages(from, to);
        REQUIRE(shown.size() == expected.size());
        for (size_t m = 0; m < expected.size(); ++m) {
            CHECK(keys({*shown[m]}) == keys({expected[m]}));
        }
        CHECK(full->messagesLookedAt() <= expected.size() + 40);
    }
}
