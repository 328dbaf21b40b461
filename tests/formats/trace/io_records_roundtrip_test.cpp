// The file I/O records (MPI-IO) through Otf2Writer and the reader: the I/O definitions read back
// as written, a handle's local id maps through its table, completed reads and writes keep their
// bytes and mode, and the operations collective over the handle's communicator read back as
// collectives of that communicator.
#include "waitscope/trace/otf2_archive.h"
#include "waitscope/trace/otf2_writer.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <otf2/OTF2_GeneralDefinitions.h>
#include <unistd.h>

using namespace waitscope::trace;
namespace fs = std::filesystem;

namespace {

constexpr uint8_t kRead = OTF2_IO_OPERATION_MODE_READ, kWrite = OTF2_IO_OPERATION_MODE_WRITE;
constexpr uint32_t kCollective = OTF2_IO_OPERATION_FLAG_COLLECTIVE;
constexpr uint32_t kNonBlocking = OTF2_IO_OPERATION_FLAG_NON_BLOCKING;

Definitions ioDefinitions() {
    Definitions d;
    d.strings = {""};
    d.clock = {1000, 0, 1000};
    d.systemTreeNodes = {{"machine", "machine", kUndefined}};
    d.locationGroups = {{"MPI Rank 0", true, 0}, {"MPI Rank 1", true, 0}};
    d.locations = {{0, "Master thread", 0, 9, LocationType::CpuThread},
                   {1, "Master thread", 1, 5, LocationType::CpuThread}};
    d.regions = {{"main", "main", "", 0, 0, RegionRole::Function, Paradigm::User},
                 {"MPI_File_write_at_all", "MPI_File_write_at_all", "", 0, 0, RegionRole::FileIo,
                  Paradigm::Mpi}};
    d.groups = {{"", GroupKind::Locations, Paradigm::Mpi, {0, 1}},
                {"", GroupKind::CommGroup, Paradigm::Mpi, {0, 1}},
                {"", GroupKind::CommSelf, Paradigm::Mpi, {}}};
    d.communicators.resize(2);
    d.communicators[0] = {"MPI_COMM_WORLD", 1, kUndefined, false, {}};
    d.communicators[1] = {"MPI_COMM_SELF", 2, kUndefined, false, {}};
    d.ioParadigms = {"MPI-IO"};
    d.ioFiles = {"checkpoint.dat", "log.txt"};
    d.ioHandles = {{"checkpoint.dat", 0, 0, 0}, {"log.txt", 1, 0, 1}};
    return d;
}

std::string writeIoArchive(const fs::path& dir) {
    fs::remove_all(dir);
    Otf2Writer writer;
    REQUIRE(writer.open(dir.string()));
    {
        Otf2EventWriter w = writer.openEvents(0);
        w.ioCreateHandle(10, 0, OTF2_IO_ACCESS_MODE_READ_WRITE, OTF2_IO_CREATION_FLAG_CREATE,
                         OTF2_IO_STATUS_FLAG_NONE);
        w.ioOperationBegin(20, 0, kWrite, kCollective, 4096, 0);
        w.ioOperationComplete(21, 0, 4000, 0);
        w.ioOperationBegin(30, 1, kRead, 0, 100, 1);
        w.ioOperationComplete(31, 1, 100, 1);
        w.ioOperationBegin(40, 0, kWrite, kNonBlocking, uint64_t{1} << 33, 77);
        w.ioOperationIssued(41, 0, 77);
        w.ioOperationComplete(50, 0, uint64_t{1} << 33, 77);
        w.ioDestroyHandle(60, 0);
        CHECK(writer.closeEvents(w) == OTF2_SUCCESS);
    }
    {
        // Rank 1 names handle 0 by its local id 3.
        Otf2EventWriter w = writer.openEvents(1);
        w.ioCreateHandle(11, 3, OTF2_IO_ACCESS_MODE_READ_WRITE, OTF2_IO_CREATION_FLAG_CREATE,
                         OTF2_IO_STATUS_FLAG_NONE);
        w.ioOperationBegin(25, 3, kWrite, kCollective, 4096, 5);
        w.ioOperationComplete(26, 3, 4096, 5);
        w.ioOperationComplete(27, 3, 9, 6); // no begin: dropped
        w.ioDestroyHandle(61, 3);
        CHECK(writer.closeEvents(w) == OTF2_SUCCESS);
    }
    LocalDefinitions rank1;
    rank1.ioHandles = {1, 1, 1, 0};
    REQUIRE(writer.writeLocalDefinitions({{0, {}}, {1, rank1}}));
    REQUIRE(writer.writeGlobalDefinitions(ioDefinitions()));
    REQUIRE(writer.close());
    CHECK(writer.errors().count == 0);
    return (dir / "traces.otf2").string();
}

// The events of `s` as text: collectives with their operation and communicator, completed
// file operations with their bytes, handle and mode.
std::vector<std::string> describe(const EventStream& s) {
    std::vector<std::string> lines;
    for (size_t i = 0; i < s.size(); ++i) {
        std::string line = std::to_string(s.time(i)) + " ";
        if (s.kind(i) == EventKind::MpiCollectiveEnd) {
            const CollectiveRecord& c = s.collective(i);
            line += "collective op " + std::to_string(static_cast<int>(c.op)) + " comm " +
                    std::to_string(c.comm);
        } else if (s.kind(i) == EventKind::IoOperationComplete) {
            const IoOperationRecord& io = s.ioOperation(i);
            line += "io bytes " + std::to_string(io.bytes) + " handle " +
                    std::to_string(io.handle) + " mode " + std::to_string(io.mode);
        } else {
            line += "kind " + std::to_string(static_cast<int>(s.kind(i)));
        }
        lines.push_back(line);
    }
    return lines;
}

} // namespace

TEST_CASE("file I/O definitions and records read back with bytes, modes and collectives",
          "[otf2][roundtrip][io]") {
    const fs::path dir =
        fs::temp_directory_path() / ("waitscope_io_roundtrip_" + std::to_string(getpid()));
    const std::string anchor = writeIoArchive(dir);
    auto defs = readDefinitions(anchor);
    REQUIRE(defs.ok());
    CHECK(defs->ioParadigms == std::vector<std::string>{"MPI-IO"});
    CHECK(defs->ioFiles == std::vector<std::string>{"checkpoint.dat", "log.txt"});
    REQUIRE(defs->ioHandles.size() == 2);
    CHECK(defs->ioHandles[0].name == "checkpoint.dat");
    CHECK(defs->ioHandles[0].file == 0);
    CHECK(defs->ioHandles[0].paradigm == 0);
    CHECK(defs->ioHandles[0].comm == 0);
    CHECK(defs->ioHandles[1].file == 1);
    CHECK(defs->ioHandles[1].comm == 1);

    const auto fileIo = std::to_string(static_cast<int>(CollectiveOp::FileIo));
    auto rank0 = readRankEvents(anchor, *defs, 0);
    REQUIRE(rank0.ok());
    CHECK(describe(*rank0) == std::vector<std::string>{
                                  "10 collective op " + fileIo + " comm 0", // open
                                  "20 collective op " + fileIo + " comm 0", // write_at_all
                                  "21 io bytes 4000 handle 0 mode 1",
                                  "31 io bytes 100 handle 1 mode 0",
                                  "50 io bytes 8589934592 handle 0 mode 1", // nonblocking
                                  "60 collective op " + fileIo + " comm 0", // close
                              });
    // The individual read's begin, the nonblocking write's begin and its issue are counted.
    CHECK(rank0->skippedEvents() == 3);

    auto rank1 = readRankEvents(anchor, *defs, 1);
    REQUIRE(rank1.ok());
    CHECK(describe(*rank1) == std::vector<std::string>{
                                  "11 collective op " + fileIo + " comm 0",
                                  "25 collective op " + fileIo + " comm 0",
                                  "26 io bytes 4096 handle 0 mode 1",
                                  "61 collective op " + fileIo + " comm 0",
                              });
    CHECK(rank1->skippedEvents() == 1);
    fs::remove_all(dir);
}
