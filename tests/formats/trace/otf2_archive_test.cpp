// Reading the Score-P reference archives: definitions, per-rank event streams and bad input.
#include "waitscope/trace/otf2_archive.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>

using namespace waitscope::trace;
namespace fs = std::filesystem;

namespace {

std::string anchorOf(const std::string& name) {
    return std::string(WAITSCOPE_REFERENCE_DIR) + "/" + name + "/trace/traces.otf2";
}

// Events per rank as listed by `otf2-print` (every event line of each location).
const std::map<std::string, std::vector<uint64_t>> kPrintedEventCounts = {
    {"early_reduce", {48, 68, 68, 68}},   {"late_broadcast", {68, 48, 48, 48}},
    {"late_receiver", {43, 63, 43, 63}},  {"late_sender", {63, 43, 63, 43}},
    {"nb_late_sender", {78, 58, 78, 58}}, {"wait_at_barrier", {60, 60, 60, 60}},
    {"wait_nxn", {64, 64, 64, 64}},
};

fs::path copyArchive(const std::string& name, const std::string& tag) {
    const fs::path target = fs::temp_directory_path() / ("waitscope_trace_test_" + tag);
    fs::remove_all(target);
    fs::copy(fs::path(WAITSCOPE_REFERENCE_DIR) / name / "trace", target,
             fs::copy_options::recursive);
    return target;
}

} // namespace

TEST_CASE("global definitions of a Score-P archive are read", "[otf2]") {
    auto defs = readDefinitions(anchorOf("late_sender"));
    REQUIRE(defs.ok());
    CHECK(defs->rankCount() == 4);
    CHECK(defs->clock.ticksPerSecond == 2600011648u);
    CHECK(defs->clock.globalOffset == 6285403165488u);
    REQUIRE(defs->regions.size() > 4);
    const Region& main = defs->regions[3];
    CHECK(main.name == "main");
    CHECK(main.file == "/opt/refsuite/progs/late_sender.c");
    CHECK(main.beginLine == 10);
    CHECK(main.endLine == 32);
    CHECK(main.paradigm == Paradigm::Compiler);
    CHECK(defs->regions[13].name == "MPI_Barrier");
    CHECK(defs->regions[13].role == RegionRole::Barrier);
    CHECK(defs->regions[13].paradigm == Paradigm::Mpi);
    REQUIRE(defs->communicators.size() == 3);
    CHECK(defs->communicators[1].name == "MPI_COMM_WORLD");
    CHECK(defs->communicators[1].worldRanks == std::vector<uint32_t>{0, 1, 2, 3});
    CHECK(defs->communicators[2].isSelf);
}

TEST_CASE("each rank's stream holds exactly the events otf2-print lists", "[otf2]") {
    for (const auto& [name, counts] : kPrintedEventCounts) {
        auto defs = readDefinitions(anchorOf(name));
        REQUIRE(defs.ok());
        for (uint32_t rank = 0; rank < 4; ++rank) {
            INFO(name << " rank " << rank);
            auto events = readRankEvents(anchorOf(name), *defs, rank);
            REQUIRE(events.ok());
            CHECK(events->size() + events->skippedEvents() == counts[rank]);
            CHECK(defs->locationOfRank(rank)->announcedEvents == counts[rank]);
            CHECK(events->nonMonotonicEvents() == 0);
        }
    }
}

TEST_CASE("a rank's stream keeps messages and collectives with their payload", "[otf2]") {
    auto defs = readDefinitions(anchorOf("late_sender"));
    REQUIRE(defs.ok());
    auto events = readRankEvents(anchorOf("late_sender"), *defs, 1);
    REQUIRE(events.ok());
    int recvs = 0, enters = 0, leaves = 0, collectives = 0;
    for (size_t i = 0; i < events->size(); ++i) {
        switch (events->kind(i)) {
        case EventKind::MpiRecv:
            ++recvs;
            CHECK(events->message(i).partner == 0);
            CHECK(events->message(i).tag == 42);
            CHECK(events->message(i).length == 1024);
            CHECK(events->message(i).comm == 1);
            break;
        case EventKind::Enter:
            ++enters;
            break;
        case EventKind::Leave:
            ++leaves;
            break;
        case EventKind::MpiCollectiveEnd:
            ++collectives;
            break;
        default:
            break;
        }
    }
    CHECK(recvs == 5);
    CHECK(enters == leaves);
    CHECK(enters == 12);
    CHECK(collectives == 4);
    CHECK(events->kind(0) == EventKind::ProgramBegin);
    CHECK(events->kind(events->size() - 1) == EventKind::ProgramEnd);
    CHECK(events->collective(events->size() - 4).op == CollectiveOp::DestroyHandle);
    CHECK(defs->seconds(events->time(0)) ==
          Approx((6285408091395.0 - 6285403165488.0) / 2600011648.0));
}

TEST_CASE("an experiment directory resolves to its anchor file", "[otf2]") {
    auto anchor = findAnchorFile(std::string(WAITSCOPE_REFERENCE_DIR) + "/late_sender/trace");
    REQUIRE(anchor.ok());
    CHECK(fs::path(*anchor).filename() == "traces.otf2");
    auto missing = findAnchorFile("/nonexistent/waitscope");
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.error().message() == "/nonexistent/waitscope: no such trace archive");
}

TEST_CASE("a missing event file is refused naming the rank", "[otf2][bad-input]") {
    const fs::path dir = copyArchive("late_sender", "missing");
    fs::remove(dir / "traces" / "2.evt");
    const std::string anchor = (dir / "traces.otf2").string();
    auto defs = readDefinitions(anchor);
    REQUIRE(defs.ok());
    CHECK(readRankEvents(anchor, *defs, 1).ok());
    auto events = readRankEvents(anchor, *defs, 2);
    REQUIRE_FALSE(events.ok());
    CHECK(events.error().message() ==
          anchor + ": rank 2: event file " + (dir / "traces" / "2.evt").string() + " is missing");
    fs::remove_all(dir);
}

TEST_CASE("a truncated event file is refused naming the rank", "[otf2][bad-input]") {
    const fs::path dir = copyArchive("late_sender", "truncated");
    const fs::path evt = dir / "traces" / "3.evt";
    fs::resize_file(evt, fs::file_size(evt) / 2);
    const std::string anchor = (dir / "traces.otf2").string();
    auto defs = readDefinitions(anchor);
    REQUIRE(defs.ok());
    auto events = readRankEvents(anchor, *defs, 3);
    REQUIRE_FALSE(events.ok());
    CHECK(events.error().message().rfind(anchor + ": rank 3: ", 0) == 0);
    CHECK(events.error().message().find("trunc") != std::string::npos);
    fs::remove_all(dir);
}

TEST_CASE("damaged or missing local definitions are refused naming the rank and the file",
          "[otf2][bad-input]") {
    const fs::path dir = copyArchive("late_sender", "local_definitions");
    const std::string anchor = (dir / "traces.otf2").string();
    const fs::path def = dir / "traces" / "1.def";
    const fs::path saved = dir / "1.def.saved";
    fs::copy_file(def, saved);
    auto defs = readDefinitions(anchor);
    REQUIRE(defs.ok());
    // Truncated: libotf2 reports the damage on stderr only; the reader refuses the rank.
    fs::resize_file(def, fs::file_size(def) / 2);
    auto truncated = readRankEvents(anchor, *defs, 1);
    REQUIRE_FALSE(truncated.ok());
    CHECK(truncated.error().message().rfind(anchor + ": rank 1: local definitions " + def.string() +
                                                " are truncated or corrupt",
                                            0) == 0);
    // Missing while the other ranks have theirs: its local ids would pass for global ones.
    fs::remove(def);
    auto missing = readRankEvents(anchor, *defs, 1);
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.error().message() == anchor + ": rank 1: local definitions " + def.string() +
                                           " are missing (the other locations have theirs)");
    CHECK(readRankEvents(anchor, *defs, 2).ok());
    fs::remove_all(dir);
}

TEST_CASE("an anchor file with a damaged chunk size is refused before libotf2 reads it",
          "[otf2][bad-input]") {
    const fs::path dir = copyArchive("late_sender", "anchor");
    const std::string anchor = (dir / "traces.otf2").string();
    // Byte 18 is in the event chunk size (64-bit little-endian at byte 12): 1 MiB becomes
    // about 72 PB, which libotf2 would try to allocate.
    {
        std::fstream file(anchor, std::ios::in | std::ios::out | std::ios::binary);
        file.seekp(18);
        file.put(static_cast<char>(0xFF));
    }
    auto defs = readDefinitions(anchor);
    REQUIRE_FALSE(defs.ok());
    CHECK(defs.error().message().rfind(anchor + ": corrupt anchor file: a chunk size of ", 0) == 0);
    fs::remove_all(dir);
}

TEST_CASE("an anchor file whose strings run into its property count is refused",
          "[otf2][bad-input]") {
    const fs::path dir = copyArchive("late_sender", "anchor_properties");
    const std::string anchor = (dir / "traces.otf2").string();
    // Byte 46 ends the empty machine name; without it the strings shift and the property
    // count read after them is text (libotf2 would allocate and walk gigabytes for it).
    {
        std::fstream file(anchor, std::ios::in | std::ios::out | std::ios::binary);
        file.seekp(46);
        file.put('\x01');
    }
    auto defs = readDefinitions(anchor);
    REQUIRE_FALSE(defs.ok());
    CHECK(defs.error().message().find(": corrupt anchor file: ") != std::string::npos);
    CHECK(defs.error().message().find(" properties in ") != std::string::npos);
    fs::remove_all(dir);
}
