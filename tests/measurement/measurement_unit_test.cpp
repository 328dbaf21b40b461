// Unit tests of the measurement runtime's pieces that need no MPI job.
#include "waitscope/measure/clock.h"
#include "waitscope/measure/config.h"
#include "waitscope/measure/definitions.h"
#include "waitscope/measure/event_buffer.h"
#include "waitscope/measure/handle_map.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <random>
#include <unordered_map>
#include <vector>

using namespace waitscope::measure;

TEST_CASE("memory sizes accept suffixes and reject garbage", "[config]") {
    std::uint64_t bytes = 0;
    CHECK(parseMemorySize("16M", bytes));
    CHECK(bytes == 16u << 20);
    CHECK(parseMemorySize("512k", bytes));
    CHECK(bytes == 512u << 10);
    CHECK(parseMemorySize(" 2G ", bytes));
    CHECK(bytes == 2ull << 30);
    CHECK(parseMemorySize("4096", bytes));
    CHECK(bytes == 4096);
    CHECK_FALSE(parseMemorySize("lots", bytes));
    CHECK_FALSE(parseMemorySize("12Q", bytes));
    CHECK_FALSE(parseMemorySize("", bytes));
    CHECK_FALSE(parseMemorySize("-5M", bytes));
    CHECK_FALSE(parseMemorySize("99999999999999999999G", bytes));
}

TEST_CASE("MPI group lists add, remove and reject unknown names", "[config]") {
    std::uint32_t groups = 0;
    std::string bad;
    CHECK(parseMpiGroups("p2p,coll", groups, bad));
    CHECK(groups == (kGroupP2p | kGroupColl));
    CHECK(parseMpiGroups("default,-cg", groups, bad));
    CHECK(groups == (kGroupDefault & ~kGroupCg));
    CHECK(parseMpiGroups("-topo", groups, bad));
    CHECK(groups == (kGroupDefault & ~kGroupTopo));
    CHECK(parseMpiGroups("ALL", groups, bad));
    CHECK(groups == kGroupAll);
    CHECK(parseMpiGroups("p2p,rma,io", groups, bad));
    CHECK(groups == (kGroupP2p | kGroupRma | kGroupIo));
    CHECK_FALSE(parseMpiGroups("p2p,shmem", groups, bad));
    CHECK(bad == "shmem");
    CHECK_FALSE(parseMpiGroups(" , ", groups, bad));
    CHECK(mpiGroupNames(kGroupDefault) == "env,p2p,coll,cg,topo,io,rma");
    REQUIRE(parseMpiGroups(mpiGroupNames(kGroupP2p | kGroupReqTest), groups, bad));
    CHECK(groups == (kGroupP2p | kGroupReqTest));
}

TEST_CASE("the TSC's rate is measured at calibrate, from the anchor taken at loading", "[clock]") {
    const ClockAnchor loaded = Clock::anchorNow();
    Clock monotonic;
    monotonic.init(ClockKind::Monotonic, &loaded);
    monotonic.calibrate();
    CHECK_FALSE(monotonic.usesTsc());
    CHECK(monotonic.ticksPerSecond() == 1000000000ull);
    CHECK(monotonic.ticksAt(loaded) == loaded.ns);
    if (!hasInvariantTsc())
        return;
    Clock clock;
    clock.init(ClockKind::Tsc, &loaded);
    // init chooses the clock and waits for nothing (it spun up to 20 ms on every rank, a fixed
    // cost of instrumented programs, which start the measurement at their first function).
    REQUIRE(clock.usesTsc());
    CHECK(clock.ticksPerSecond() == 1000000000ull);
    CHECK(clock.ticksAt(loaded) == loaded.tsc);
    clock.calibrate();
    const ClockAnchor after = Clock::anchorNow();
    CHECK(after.ns - loaded.ns >= 20000000ull);
    // The rate over the calibration's interval and a little more: the same within 1 %.
    const double rate = static_cast<double>(after.tsc - loaded.tsc) * 1e9 /
                        static_cast<double>(after.ns - loaded.ns);
    CHECK(static_cast<double>(clock.ticksPerSecond()) == Approx(rate).epsilon(0.01));
    const std::uint64_t calibrated = clock.ticksPerSecond();
    clock.calibrate(); // once only: the rate every record was converted with stays
    CHECK(clock.ticksPerSecond() == calibrated);
}

TEST_CASE("bad environment values become one warning each and keep defaults", "[config]") {
    setenv("WAITSCOPE_TOTAL_MEMORY", "lots", 1);
    setenv("WAITSCOPE_CLOCK", "sundial", 1);
    setenv("WAITSCOPE_TRACING", "maybe", 1);
    setenv("WAITSCOPE_BUFFERSIZE", "1M", 1);
    Config config = configFromEnvironment();
    unsetenv("WAITSCOPE_TOTAL_MEMORY");
    unsetenv("WAITSCOPE_CLOCK");
    unsetenv("WAITSCOPE_TRACING");
    unsetenv("WAITSCOPE_BUFFERSIZE");
    CHECK(config.totalMemory == 16u << 20);
    CHECK(config.clock == ClockKind::Auto);
    CHECK(config.tracing);
    REQUIRE(config.warnings.size() == 4);
    std::string all;
    for (const std::string& w : config.warnings)
        all += w + "\n";
    CHECK_THAT(all, Catch::Contains("WAITSCOPE_TOTAL_MEMORY='lots' is not valid"));
    CHECK_THAT(all, Catch::Contains(
                        "WAITSCOPE_CLOCK='sundial' is not valid (valid: auto, tsc, monotonic)"));
    CHECK_THAT(all, Catch::Contains(
                        "WAITSCOPE_TRACING='maybe' is not valid (valid: true, false); using true"));
    CHECK_THAT(all, Catch::Contains("WAITSCOPE_BUFFERSIZE is not a Waitscope variable"));
}

TEST_CASE("every variable is documented with a default", "[config]") {
    for (const ConfigVariable& v : configVariables()) {
        INFO(v.name);
        CHECK(std::string(v.name).rfind("WAITSCOPE_", 0) == 0);
        CHECK(std::string(v.defaultValue).size() > 0);
        CHECK(std::string(v.description).size() > 10);
    }
}

TEST_CASE("the default experiment directory names the executable and rank count", "[config]") {
    CHECK(defaultExperimentDirectory("/usr/bin/hpcc", 64) == "waitscope_hpcc_64");
    CHECK(defaultExperimentDirectory("./a.out", 2) == "waitscope_a.out_2");
    CHECK(defaultExperimentDirectory("", 1) == "waitscope_program_1");
}

TEST_CASE("records round-trip through the buffer, far and backward times included", "[buffer]") {
    std::vector<std::uint64_t> memory(64);
    EventBuffer b;
    b.reset(memory.data(), memory.size());
    struct Expect {
        std::uint64_t time;
        EventKind kind;
        std::uint32_t a;
    };
    const Expect expected[] = {{1000, EventKind::Enter, 7},
                               {1000, EventKind::MpiCollectiveBegin, 0},
                               {1000 + 0xffffffffull, EventKind::MpiCollectiveEnd, 3},
                               {1000 + 0x100000000ull * 5, EventKind::Leave, 7},
                               {500, EventKind::MpiSend, 12345}, // clock went back: TimeBase
                               {501, EventKind::ProgramEnd, kUnknownExit}};
    for (const Expect& e : expected) {
        REQUIRE(b.fits(recordWords(b, e.time, e.kind)));
        std::uint64_t* x = writeRecord(b, e.time, e.kind, e.a);
        for (int i = 0; i < kExtraWords[static_cast<int>(e.kind)]; ++i)
            x[i] = 0xabc0 + i;
    }
    // Enter 1, Begin 1, End 3, TimeBase 2 + Leave 1, TimeBase 2 + Send 3, End 1.
    CHECK(b.usedBytes() == 8 * (1 + 1 + 3 + 3 + 5 + 1));
    std::uint64_t time = 0;
    RecordCursor cursor(b.begin, b.cursor, time);
    RecordHeader h;
    const std::uint64_t* x = nullptr;
    for (const Expect& e : expected) {
        REQUIRE(cursor.next(h, x));
        CHECK(h.time == e.time);
        CHECK(h.kind == static_cast<std::uint32_t>(e.kind));
        CHECK(h.a == e.a);
        if (kExtraWords[h.kind] > 0)
            CHECK(x[0] == 0xabc0);
    }
    CHECK_FALSE(cursor.next(h, x));
    CHECK(cursor.consumed() == b.cursor);
}

TEST_CASE("a record cut by the end of a range is left for the next range", "[buffer]") {
    std::vector<std::uint64_t> memory(16);
    EventBuffer b;
    b.reset(memory.data(), memory.size());
    writeRecord(b, 10, EventKind::Enter, 1);
    writeRecord(b, 20, EventKind::MpiSend, 1);
    std::uint64_t time = 0;
    RecordCursor cut(b.begin, b.cursor - 1, time);
    RecordHeader h;
    const std::uint64_t* x = nullptr;
    REQUIRE(cut.next(h, x));
    CHECK_FALSE(cut.next(h, x));
    CHECK(cut.consumed() == b.begin + 1);
    RecordCursor rest(cut.consumed(), b.cursor, time);
    REQUIRE(rest.next(h, x));
    CHECK(h.time == 20);
}

TEST_CASE("a damaged kind ends decoding instead of reading garbage", "[buffer]") {
    std::vector<std::uint64_t> memory = {0x3f, 0, 0};
    std::uint64_t time = 0;
    RecordCursor cursor(memory.data(), memory.data() + memory.size(), time);
    RecordHeader h;
    const std::uint64_t* x = nullptr;
    CHECK_FALSE(cursor.next(h, x));
}

TEST_CASE("definition sets merge by key and survive serialization", "[definitions]") {
    DefinitionSet a, b;
    a.add("beta", "");
    a.add("alpha", "A");
    b.add("beta", "B"); // a described entry replaces an undescribed one
    b.add("gamma", "G");
    a.merge(b);
    REQUIRE(a.entries.size() == 3);
    CHECK(a.find("alpha") == 0);
    CHECK(a.find("beta") == 1);
    CHECK(a.entries[1].second == "B");
    CHECK(a.find("delta") == -1);
    DefinitionSet copy;
    REQUIRE(copy.deserialize(a.serialize()));
    CHECK(copy.entries == a.entries);
    std::string damaged = a.serialize();
    damaged.resize(damaged.size() - 1);
    CHECK_FALSE(copy.deserialize(damaged));
}

TEST_CASE("region and communicator encodings round-trip", "[definitions]") {
    RegionDefinition r{"solve", "_Z5solvev",          "solver.cpp",      10,
                       42,      RegionRole::Function, Paradigm::Compiler};
    RegionDefinition back = regionFromKey(regionKey(r));
    CHECK(back.name == r.name);
    CHECK(back.canonicalName == r.canonicalName);
    CHECK(back.file == r.file);
    CHECK(back.beginLine == 10);
    CHECK(back.endLine == 42);
    CHECK(back.role == RegionRole::Function);
    CHECK(back.paradigm == Paradigm::Compiler);

    CommDefinition c;
    c.key = makeCommKey(3, 7);
    c.parent = kWorldKey;
    c.members = {3, 5, 9};
    c.describes = true;
    CommDefinition cb = commFromEntry(commKeyBytes(c.key), commDescription(c));
    CHECK(cb.key == c.key);
    CHECK(cb.parent == kWorldKey);
    CHECK(cb.members == c.members);
    // Keys sort like numbers, with the predefined communicators first: world, then self.
    CHECK(commKeyBytes(makeCommKey(0, 1)) < commKeyBytes(makeCommKey(1, 0)));
    CHECK(commKeyBytes(kWorldKey) < commKeyBytes(kSelfKey));
    CHECK(commKeyBytes(kSelfKey) < commKeyBytes(makeCommKey(0, 0)));
    CHECK(commFromEntry(commKeyBytes(kWorldKey), {}).key == kWorldKey);
}

TEST_CASE("the handle map agrees with std::unordered_map under random use", "[handles]") {
    waitscope::measure::HandleMap<int> map;
    std::unordered_map<std::uint64_t, int> reference;
    std::mt19937_64 random(42);
    for (int step = 0; step < 200000; ++step) {
        std::uint64_t key = (random() % 3000) * 64; // pointer-like keys, many collisions
        switch (random() % 3) {
        case 0:
            map.insert(key, step);
            reference[key] = step;
            break;
        case 1:
            map.erase(key);
            reference.erase(key);
            break;
        default: {
            int* found = map.find(key);
            auto it = reference.find(key);
            REQUIRE((found != nullptr) == (it != reference.end()));
            if (found)
                REQUIRE(*found == it->second);
        }
        }
    }
    CHECK(map.size() == reference.size());
    for (const auto& [key, value] : reference) {
        int* found = map.find(key);
        REQUIRE(found);
        CHECK(*found == value);
    }
}
