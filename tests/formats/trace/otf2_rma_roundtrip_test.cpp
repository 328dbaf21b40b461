// The one-sided (RMA) definitions and records as a writer/reader pair: windows with their
// communicator, the world ranks of the groups PSCW names, and every RMA record with its payload,
// through a location's window and group mapping tables.
#include "archive_builder.h"
#include "waitscope/trace/otf2_archive.h"
#include "waitscope/trace/otf2_writer.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <sstream>

using namespace waitscope::trace;
namespace fs = std::filesystem;

namespace {

constexpr uint32_t kMain = 0, kPut = 1;
constexpr uint32_t kAllTargets = 0xFFFFFFFFu; // OTF2_UNDEFINED_UINT32: MPI_Win_lock_all

Definitions rmaDefinitions() {
    Definitions d;
    d.strings = {""};
    d.clock = {1000, 0, 1000};
    d.systemTreeNodes = {{"machine", "machine", kUndefined}};
    d.locationGroups = {{"MPI Rank 0", true, 0}, {"MPI Rank 1", true, 0}};
    d.locations = {{0, "Master thread", 0, 23, LocationType::CpuThread},
                   {1, "Master thread", 1, 3, LocationType::CpuThread}};
    d.regions = {{"main", "main", "", 0, 0, RegionRole::Function, Paradigm::User},
                 {"MPI_Put", "MPI_Put", "", 0, 0, RegionRole::Rma, Paradigm::Mpi}};
    // Locations, world, self, the group {1} (rank 0's partner) and {1, 0} (world, reversed).
    d.groups = {{"", GroupKind::Locations, Paradigm::Mpi, {0, 1}},
                {"", GroupKind::CommGroup, Paradigm::Mpi, {0, 1}},
                {"", GroupKind::CommSelf, Paradigm::Mpi, {}},
                {"", GroupKind::CommGroup, Paradigm::Mpi, {1}},
                {"", GroupKind::CommGroup, Paradigm::Mpi, {1, 0}}};
    d.communicators.resize(3);
    d.communicators[0].name = "MPI_COMM_WORLD";
    d.communicators[0].group = 1;
    d.communicators[1].name = "MPI_COMM_SELF";
    d.communicators[1].group = 2;
    d.communicators[2].name = "reversed";
    d.communicators[2].group = 4;
    d.communicators[2].parent = 0;
    return d;
}

// Rank 0 in global ids: every RMA record.
void writeRank0(Otf2EventWriter& w) {
    w.enter(10, kMain);
    w.rmaCollectiveBegin(11);
    w.rmaWinCreate(12, 1);
    w.rmaCollectiveEnd(13, CollectiveOp::CreateHandle, 1, 1, kUndefined, 0, 0);
    w.rmaGroupSync(14, 3, 1, 3);
    w.rmaRequestLock(15, 1, 1, 0, OTF2_LOCK_EXCLUSIVE);
    w.rmaAcquireLock(16, 0, 1, 2, OTF2_LOCK_SHARED);
    w.rmaTryLock(17, 0, kAllTargets, 3, OTF2_LOCK_SHARED);
    w.rmaReleaseLock(18, 1, 1, 0);
    w.rmaSync(19, 1, 1, OTF2_RMA_SYNC_TYPE_MEMORY);
    w.rmaWaitChange(20, 1);
    w.enter(21, kPut);
    w.rmaPut(22, 1, 1, 4096, 7);
    w.leave(23, kPut);
    w.rmaGet(24, 1, 0, uint64_t{1} << 33, 8);
    w.rmaAtomic(25, 1, 1, OTF2_RMA_ATOMIC_TYPE_FETCH_AND_ACCUMULATE, 8, 16, 9);
    w.rmaOpCompleteBlocking(26, 1, 7);
    w.rmaOpCompleteNonBlocking(27, 1, 8);
    w.rmaOpTest(28, 1, 9);
    w.rmaOpCompleteRemote(29, 1, 9);
    w.rmaWinDestroy(30, 1);
    // A failed window creation: no window.
    w.rmaCollectiveEnd(30, CollectiveOp::CreateHandle, 1, kUndefined, kUndefined, 0, 0);
    w.leave(31, kMain);
}

// Rank 1 in local ids: its window 0 is global window 1, its group 0 global group 4.
void writeRank1(Otf2EventWriter& w) {
    w.enter(10, kMain);
    w.rmaGroupSync(14, 1, 0, 0);
    w.leave(31, kMain);
}

std::string writeRmaArchive() {
    const fs::path dir = fs::temp_directory_path() / "waitscope_trace_rma_roundtrip";
    fs::remove_all(dir);
    Otf2Writer writer;
    REQUIRE(writer.open(dir.string()));
    for (const uint64_t location : {uint64_t{0}, uint64_t{1}}) {
        Otf2EventWriter w = writer.openEvents(location);
        REQUIRE(w.valid());
        location == 0 ? writeRank0(w) : writeRank1(w);
        CHECK(writer.closeEvents(w) == OTF2_SUCCESS);
    }
    LocalDefinitions rank1;
    rank1.rmaWins = {1};
    rank1.groups = {4};
    REQUIRE(writer.writeLocalDefinitions({{0, {}}, {1, rank1}}));
    REQUIRE(writer.writeGlobalDefinitions(rmaDefinitions()));
    REQUIRE(writer.writeRmaWin(0, "MPI_Win_allocate window", 2));
    REQUIRE(writer.writeRmaWin(1, "MPI_Win_create window", 0));
    REQUIRE(writer.close());
    CHECK(writer.errors().count == 0);
    return (dir / "traces.otf2").string();
}

// One event as text: kind, time and its one-sided payload (or reference).
std::string describe(const EventStream& s, size_t i) {
    std::ostringstream out;
    out << static_cast<int>(s.kind(i)) << " " << s.time(i);
    if (isRmaEvent(s.kind(i))) {
        const RmaRecord& r = s.rma(i);
        out << " win " << r.window << " remote " << r.remote << " level " << r.level << " op "
            << static_cast<int>(r.op) << " excl " << r.exclusive << " sent " << r.sent
            << " received " << r.received << " id " << r.id;
    } else {
        out << " ref " << s.ref(i);
    }
    return out.str();
}

std::string rma(EventKind kind, uint64_t time, uint32_t win, uint32_t remote, uint32_t level,
                int op, bool exclusive, uint64_t sent, uint64_t received, uint64_t id) {
    std::ostringstream out;
    out << static_cast<int>(kind) << " " << time << " win " << win << " remote " << remote
        << " level " << level << " op " << op << " excl " << exclusive << " sent " << sent
        << " received " << received << " id " << id;
    return out.str();
}

std::string region(EventKind kind, uint64_t time, uint32_t ref) {
    return std::to_string(static_cast<int>(kind)) + " " + std::to_string(time) + " ref " +
           std::to_string(ref);
}

} // namespace

TEST_CASE("windows read back with their communicators and PSCW groups with their world ranks",
          "[otf2][roundtrip][rma]") {
    const std::string anchor = writeRmaArchive();
    auto defs = readDefinitions(anchor);
    REQUIRE(defs.ok());
    REQUIRE(defs->rmaWindows.size() == 2);
    CHECK(defs->rmaWindows[0].name == "MPI_Win_allocate window");
    CHECK(defs->windowComm(0) == 2);
    CHECK(defs->windowComm(1) == 0);
    CHECK(defs->windowComm(2) == kUndefined);
    CHECK(defs->groups[3].worldRanks == std::vector<uint32_t>{1});
    CHECK(defs->groups[4].worldRanks == std::vector<uint32_t>{1, 0});
    CHECK(defs->groups[0].worldRanks.empty()); // the locations group is no MPI group
}

TEST_CASE("every RMA record reads back in order with its payload, through the mapping tables",
          "[otf2][roundtrip][rma]") {
    const std::string anchor = writeRmaArchive();
    auto defs = readDefinitions(anchor);
    REQUIRE(defs.ok());
    auto rank0 = readRankEvents(anchor, *defs, 0);
    REQUIRE(rank0.ok());
    const auto op = [](CollectiveOp o) { return static_cast<int>(o); };
    const int other = op(CollectiveOp::Other);
    const std::vector<std::string> expected = {
        region(EventKind::Enter, 10, kMain),
        rma(EventKind::RmaCollectiveBegin, 11, 0, 0, 0, other, false, 0, 0, 0),
        rma(EventKind::RmaWinCreate, 12, 1, 0, 0, other, false, 0, 0, 0),
        rma(EventKind::RmaCollectiveEnd, 13, 1, kUndefined, 1, op(CollectiveOp::CreateHandle),
            false, 0, 0, 0),
        rma(EventKind::RmaGroupSync, 14, 1, 3, 3, other, false, 0, 0, 0),
        rma(EventKind::RmaRequestLock, 15, 1, 1, 0, other, true, 0, 0, 0),
        rma(EventKind::RmaAcquireLock, 16, 0, 1, 0, other, false, 0, 0, 2),
        rma(EventKind::RmaTryLock, 17, 0, kUndefined, 0, other, false, 0, 0, 3),
        rma(EventKind::RmaReleaseLock, 18, 1, 1, 0, other, false, 0, 0, 0),
        rma(EventKind::RmaSync, 19, 1, 1, OTF2_RMA_SYNC_TYPE_MEMORY, other, false, 0, 0, 0),
        rma(EventKind::RmaWaitChange, 20, 1, 0, 0, other, false, 0, 0, 0),
        region(EventKind::Enter, 21, kPut),
        rma(EventKind::RmaPut, 22, 1, 1, 0, other, false, 4096, 0, 7),
        region(EventKind::Leave, 23, kPut),
        rma(EventKind::RmaGet, 24, 1, 0, 0, other, false, 0, uint64_t{1} << 33, 8),
        rma(EventKind::RmaAtomic, 25, 1, 1, OTF2_RMA_ATOMIC_TYPE_FETCH_AND_ACCUMULATE, other, false,
            8, 16, 9),
        rma(EventKind::RmaOpCompleteBlocking, 26, 1, 0, 0, other, false, 0, 0, 7),
        rma(EventKind::RmaOpCompleteNonBlocking, 27, 1, 0, 0, other, false, 0, 0, 8),
        rma(EventKind::RmaOpTest, 28, 1, 0, 0, other, false, 0, 0, 9),
        rma(EventKind::RmaOpCompleteRemote, 29, 1, 0, 0, other, false, 0, 0, 9),
        rma(EventKind::RmaWinDestroy, 30, 1, 0, 0, other, false, 0, 0, 0),
        rma(EventKind::RmaCollectiveEnd, 30, kUndefined, kUndefined, 1,
            op(CollectiveOp::CreateHandle), false, 0, 0, 0),
        region(EventKind::Leave, 31, kMain),
    };
    std::vector<std::string> got;
    for (size_t i = 0; i < rank0->size(); ++i) {
        got.push_back(describe(*rank0, i));
    }
    CHECK(got == expected);
    CHECK(rank0->skippedEvents() == 0);

    auto rank1 = readRankEvents(anchor, *defs, 1);
    REQUIRE(rank1.ok());
    REQUIRE(rank1->size() == 3);
    CHECK(describe(*rank1, 1) == rma(EventKind::RmaGroupSync, 14, 1, 4, 1, other, false, 0, 0, 0));
}

TEST_CASE("an RMA record naming a window the definitions lack is refused naming the rank",
          "[otf2][roundtrip][rma][bad-input]") {
    const fs::path dir = fs::temp_directory_path() / "waitscope_trace_rma_unknown_window";
    fs::remove_all(dir);
    waitscope::testing::ArchiveBuilder archive(rmaDefinitions());
    archive.open(dir.string());
    for (const uint64_t location : {uint64_t{0}, uint64_t{1}}) {
        archive.events(location, [](Otf2EventWriter& w) {
            w.enter(10, kMain);
            w.rmaPut(11, 5, 1, 8, 1);
            w.leave(12, kMain);
        });
    }
    const waitscope::Status written = archive.finish(
        [](Otf2Writer& writer) { return writer.writeRmaWin(0, "MPI_Win_create window", 0); });
    INFO((written ? std::string() : written.error().message()));
    REQUIRE(written.ok());
    const std::string anchor = (dir / "traces.otf2").string();
    auto defs = readDefinitions(anchor);
    REQUIRE(defs.ok());
    auto rank0 = readRankEvents(anchor, *defs, 0);
    REQUIRE_FALSE(rank0.ok());
    CHECK(rank0.error().message().find(": rank 0: 1 event references do not resolve") !=
          std::string::npos);
    CHECK(rank0.error().message().find("names window 5") != std::string::npos);
}
