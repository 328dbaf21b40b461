// The tests' archive builder (tests/support/archive_builder.h): what it writes reads back, and
// a failing step is kept and returned by finish() naming the directory.
#include "archive_builder.h"
#include "waitscope/trace/otf2_archive.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

using namespace waitscope;
using namespace waitscope::trace;
using waitscope::testing::ArchiveBuilder;
namespace fs = std::filesystem;

TEST_CASE("the archive builder writes the ranks, threads and regions it was given, each "
          "location announcing the events written",
          "[otf2][archive-builder]") {
    const fs::path dir = fs::temp_directory_path() / "waitscope_archive_builder";
    ArchiveBuilder archive(2, 1000, 50);
    const uint32_t main = archive.region("main", RegionRole::Function, Paradigm::User, "a.c", 1, 9);
    const uint32_t send = archive.region("MPI_Send", RegionRole::PointToPoint, Paradigm::Mpi);
    const uint32_t recv = archive.region("MPI_Recv", RegionRole::PointToPoint, Paradigm::Mpi);
    const uint32_t barrier = archive.region("MPI_Barrier", RegionRole::Barrier, Paradigm::Mpi);
    const uint64_t thread = archive.thread(1, 1);
    CHECK(thread == testing::threadLocationId(1, 1));
    CHECK(archive.commSelf() == 1);
    archive.open(dir.string());
    archive.events(0, [&](Otf2EventWriter& w) {
        w.enter(0, main);
        testing::sendCall(w, send, 10, 11, 1, 3);
        testing::barrierCall(w, barrier, 20, 30);
        w.leave(40, main);
    });
    archive.events(1, [&](Otf2EventWriter& w) {
        w.enter(0, main);
        testing::receiveCall(w, recv, 5, 12, 0, 3);
        testing::barrierCall(w, barrier, 25, 30);
        w.leave(40, main);
    });
    archive.events(thread, [&](Otf2EventWriter& w) {
        w.enter(1, main);
        w.leave(2, main);
    });
    const Status written = archive.finish();
    INFO((written ? std::string() : written.error().message()));
    REQUIRE(written.ok());

    const std::string anchor = (dir / "traces.otf2").string();
    auto defs = readDefinitions(anchor);
    REQUIRE(defs.ok());
    CHECK(defs->rankCount() == 2);
    REQUIRE(defs->locations.size() == 3);
    CHECK(defs->locations[0].announcedEvents == 9);
    CHECK(defs->locations[1].announcedEvents == 9);
    CHECK(defs->locations[2].announcedEvents == 2);
    CHECK(defs->locations[2].name == "thread 1");
    CHECK(defs->locationsOfRank(1).size() == 2);
    REQUIRE(defs->regions.size() >= 4);
    CHECK(defs->regions[main].file == "a.c");
    CHECK(defs->regions[barrier].role == RegionRole::Barrier);
    REQUIRE(defs->communicators.size() == 2);
    CHECK(defs->communicators[0].worldRanks == std::vector<uint32_t>{0, 1});
    CHECK(defs->communicators[1].name == "MPI_COMM_SELF");
    auto rank1 = readRankEvents(anchor, *defs, 1);
    REQUIRE(rank1.ok());
    REQUIRE(rank1->size() == 9);
    CHECK(rank1->kind(2) == EventKind::MpiRecv);
    CHECK(rank1->time(2) == 12);
    fs::remove_all(dir);
}

TEST_CASE("the archive builder keeps its first failure and returns it from finish, naming the "
          "directory",
          "[otf2][archive-builder][bad-input]") {
    const fs::path file = fs::temp_directory_path() / "waitscope_archive_builder_file";
    fs::remove_all(file);
    { std::ofstream(file.string()) << "not a directory"; }
    const std::string dir = (file / "archive").string();
    ArchiveBuilder archive(1, 1000, 10);
    archive.region("main", RegionRole::Function, Paradigm::User);
    archive.open(dir);
    bool wrote = false;
    archive.events(0, [&](Otf2EventWriter&) { wrote = true; });
    const Status finished = archive.finish();
    REQUIRE_FALSE(finished.ok());
    CHECK(finished.error().message().rfind(dir + ": ", 0) == 0);
    CHECK_FALSE(wrote);
    fs::remove(file);

    ArchiveBuilder unopened(1, 1000, 10);
    unopened.events(0, [](Otf2EventWriter&) {});
    const Status never = unopened.finish();
    REQUIRE_FALSE(never.ok());
    CHECK(never.error().message() == "events of location 0 written before the archive was opened");
}
