// Otf2Writer and the reader as a pair: every definition and record the writer writes reads back
// as the model it was written from, through mapping tables and clock offsets.
#include "waitscope/trace/otf2_archive.h"
#include "waitscope/trace/otf2_writer.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

using namespace waitscope::trace;
namespace fs = std::filesystem;

namespace {

constexpr uint64_t kThread = uint64_t{1} << 32; // thread 1 of rank 0
constexpr uint32_t kProgramString = 1;

// Regions: one of every role the model names (Other aside), with every paradigm.
enum RoundTripRegion : uint32_t { kMain, kSend, kBarrier, kBcast, kSampled };

Definitions roundTripDefinitions(const std::vector<uint64_t>& events) {
    Definitions d;
    d.strings = {"", "/bin/roundtrip"};
    d.clock = {1000, 500, 10000};
    d.systemTreeNodes = {{"cluster", "machine", kUndefined}, {"node 7", "node", 0}};
    d.locationGroups = {{"MPI Rank 0", true, 1}, {"MPI Rank 1", true, 1}, {"helper", false, 0}};
    d.locations = {{0, "Master thread", 0, events[0], LocationType::CpuThread},
                   {1, "Master thread", 1, events[1], LocationType::CpuThread},
                   {kThread, "thread 1", 0, events[2], LocationType::CpuThread},
                   {2 * kThread + 1, "counters", 1, 0, LocationType::Metric},
                   {3 * kThread + 1, "stream", 1, 0, LocationType::AcceleratorStream}};
    d.regions = {
        {"main", "main", "roundtrip.c", 3, 90, RegionRole::Function, Paradigm::Compiler},
        {"MPI_Send", "MPI_Send", "", 0, 0, RegionRole::PointToPoint, Paradigm::Mpi},
        {"MPI_Barrier", "MPI_Barrier", "", 0, 0, RegionRole::Barrier, Paradigm::Mpi},
        {"MPI_Bcast", "PMPI_Bcast", "", 0, 0, RegionRole::CollectiveOneToAll, Paradigm::Mpi},
        {"kernel", "kernel", "kernel.c", 7, 8, RegionRole::Function, Paradigm::Sampling}};
    // The other roles and paradigms, each once.
    const RegionRole roles[] = {RegionRole::Unknown,
                                RegionRole::Wrapper,
                                RegionRole::Loop,
                                RegionRole::Code,
                                RegionRole::Artificial,
                                RegionRole::CollectiveAllToOne,
                                RegionRole::CollectiveAllToAll,
                                RegionRole::CollectiveOther,
                                RegionRole::FileIo,
                                RegionRole::FileIoMetadata,
                                RegionRole::Rma,
                                RegionRole::Atomic};
    const Paradigm paradigms[] = {Paradigm::Unknown, Paradigm::User, Paradigm::MeasurementSystem};
    for (size_t i = 0; i < std::size(roles); ++i) {
        d.regions.push_back({"role " + std::to_string(i), "role " + std::to_string(i), "", 0, 0,
                             roles[i], paradigms[i % std::size(paradigms)]});
    }
    d.callingContexts = {{kMain, kUndefined}, {kSampled, 0}};
    d.groups = {{"", GroupKind::Locations, Paradigm::Mpi, {0, 1}},
                {"", GroupKind::CommGroup, Paradigm::Mpi, {0, 1}},
                {"", GroupKind::CommSelf, Paradigm::Mpi, {}},
                {"second half", GroupKind::CommGroup, Paradigm::Mpi, {1}}};
    d.communicators.resize(3);
    d.communicators[0].name = "MPI_COMM_WORLD";
    d.communicators[0].group = 1;
    d.communicators[1].name = "MPI_COMM_SELF";
    d.communicators[1].group = 2;
    d.communicators[2].name = "half";
    d.communicators[2].group = 3;
    d.communicators[2].parent = 0;
    return d;
}

// Rank 0 in global ids: every record kind the writer writes.
void writeRank0(Otf2EventWriter& w) {
    w.programBegin(100, kProgramString);
    w.enter(110, kMain);
    w.commCreate(111, 2);
    w.enter(120, kSend);
    w.mpiSend(121, 1, 0, 5, 64);
    w.mpiIsend(122, 0, 2, 6, uint64_t{1} << 33, 7);
    w.mpiIsendComplete(123, 7);
    w.mpiIrecvRequest(124, 8);
    w.mpiRecv(125, 1, 0, 9, 16);
    w.mpiIrecv(126, 1, 0, 10, 32, 8);
    w.mpiRequestTest(127, 9);
    w.mpiRequestCancelled(128, 9);
    w.leave(129, kSend);
    w.enter(130, kBarrier);
    w.mpiCollectiveBegin(131);
    w.mpiCollectiveEnd(132, CollectiveOp::Barrier, 0, kUndefined, 0, 0);
    w.leave(133, kBarrier);
    w.enter(134, kBcast);
    w.mpiCollectiveBegin(135);
    w.mpiCollectiveEnd(136, CollectiveOp::Bcast, 0, 0, uint64_t{1} << 40, 0);
    w.leave(137, kBcast);
    w.nonBlockingCollectiveRequest(138, 10);
    w.nonBlockingCollectiveComplete(139, CollectiveOp::Allreduce, 0, kUndefined, 8, 8, 10);
    w.callingContextEnter(140, 1, 2);
    w.callingContextLeave(141, 1);
    w.callingContextSample(142, 0, 1, 0);
    w.commDestroy(143, 2);
    w.leave(150, kMain);
    w.programEnd(160, 3);
}

// Rank 1 in local ids, which its mapping tables turn into global ones.
constexpr uint32_t kLocalMain = 0, kLocalSend = 1, kLocalWorld = 0, kLocalProgram = 0,
                   kLocalContext = 0;
LocalDefinitions rank1Tables() {
    LocalDefinitions local;
    local.regions = {kMain, kSend};
    local.comms = {0};
    local.strings = {kProgramString};
    local.callingContexts = {1};
    // libotf2 interpolates between offsets: two of 1000 ticks shift every event by 1000.
    local.clockOffsets = {{0, 1000, 0.5}, {1000, 1000, 0.25}};
    return local;
}
void writeRank1(Otf2EventWriter& w) {
    w.programBegin(100, kLocalProgram);
    w.enter(110, kLocalMain);
    w.enter(115, kLocalSend);
    w.mpiRecv(121, 0, kLocalWorld, 5, 64);
    w.leave(122, kLocalSend);
    w.callingContextSample(130, kLocalContext);
    w.leave(150, kLocalMain);
    w.programEnd(160);
}

void writeThread(Otf2EventWriter& w) {
    w.threadBegin(112, 0, 1);
    w.enter(113, kSampled);
    w.callingContextSample(114, 1, 1);
    w.leave(115, kSampled);
    w.threadEnd(116, 0, 1);
}

// Writes the round-trip archive into a fresh directory; returns its anchor file.
std::string writeRoundTrip(const std::string& tag) {
    const fs::path dir = fs::temp_directory_path() / ("waitscope_trace_roundtrip_" + tag);
    fs::remove_all(dir);
    Otf2Writer writer;
    REQUIRE(writer.open(dir.string()));
    std::vector<uint64_t> events;
    for (const uint64_t location : {uint64_t{0}, uint64_t{1}, kThread}) {
        Otf2EventWriter w = writer.openEvents(location);
        REQUIRE(w.valid());
        CHECK(w.location() == location);
        location == 0 ? writeRank0(w) : location == 1 ? writeRank1(w) : writeThread(w);
        events.push_back(w.eventCount());
        CHECK(writer.closeEvents(w) == OTF2_SUCCESS);
        CHECK_FALSE(w.valid());
    }
    CHECK(events == std::vector<uint64_t>{29, 8, 5});
    LocalDefinitions identity;
    identity.regions = {0, 1, 2}; // maps every id to itself: no table needed
    REQUIRE(writer.writeLocalDefinitions(
        {{0, {}}, {1, rank1Tables()}, {kThread, identity}, {2 * kThread + 1, {}}}));
    REQUIRE(writer.writeGlobalDefinitions(roundTripDefinitions(events)));
    REQUIRE(writer.close());
    CHECK(writer.errors().count == 0);
    return (dir / "traces.otf2").string();
}

// One event as text: kind, time, reference and payload.
std::string describe(const EventStream& s, size_t i) {
    std::ostringstream out;
    out << static_cast<int>(s.kind(i)) << " " << s.time(i);
    switch (s.kind(i)) {
    case EventKind::MpiSend:
    case EventKind::MpiIsend:
    case EventKind::MpiRecv:
    case EventKind::MpiIrecv:
    case EventKind::MpiIsendComplete:
    case EventKind::MpiIrecvRequest:
    case EventKind::MpiRequestTest:
    case EventKind::MpiRequestCancelled: {
        const MessageRecord m = s.message(i);
        out << " partner " << m.partner << " comm " << m.comm << " tag " << m.tag << " length "
            << m.length << " request " << m.request;
        break;
    }
    case EventKind::MpiCollectiveEnd: {
        const CollectiveRecord& c = s.collective(i);
        out << " op " << static_cast<int>(c.op) << " comm " << c.comm << " root " << c.root
            << " sent " << c.sent << " received " << c.received;
        break;
    }
    default:
        out << " ref " << s.ref(i);
        break;
    }
    return out.str();
}

std::vector<std::string> describeAll(const EventStream& s) {
    std::vector<std::string> lines;
    for (size_t i = 0; i < s.size(); ++i) {
        lines.push_back(describe(s, i));
    }
    return lines;
}

// An event as describe() writes it.
std::string event(EventKind kind, uint64_t time, const std::string& rest) {
    return std::to_string(static_cast<int>(kind)) + " " + std::to_string(time) + " " + rest;
}

} // namespace

TEST_CASE("every global definition written reads back as its model", "[otf2][roundtrip]") {
    const std::string anchor = writeRoundTrip("definitions");
    auto read = readDefinitions(anchor);
    REQUIRE(read.ok());
    const Definitions written = roundTripDefinitions({29, 8, 5});
    // The strings written first keep their ids; the names' strings follow.
    REQUIRE(read->strings.size() > written.strings.size());
    CHECK(std::equal(written.strings.begin(), written.strings.end(), read->strings.begin()));
    CHECK(read->clock.ticksPerSecond == 1000);
    CHECK(read->clock.globalOffset == 500);
    CHECK(read->clock.traceLength == 10000);
    REQUIRE(read->systemTreeNodes.size() == written.systemTreeNodes.size());
    for (size_t i = 0; i < written.systemTreeNodes.size(); ++i) {
        CHECK(read->systemTreeNodes[i].name == written.systemTreeNodes[i].name);
        CHECK(read->systemTreeNodes[i].className == written.systemTreeNodes[i].className);
        CHECK(read->systemTreeNodes[i].parent == written.systemTreeNodes[i].parent);
    }
    REQUIRE(read->locationGroups.size() == written.locationGroups.size());
    for (size_t i = 0; i < written.locationGroups.size(); ++i) {
        CHECK(read->locationGroups[i].name == written.locationGroups[i].name);
        CHECK(read->locationGroups[i].isProcess == written.locationGroups[i].isProcess);
        CHECK(read->locationGroups[i].systemTreeParent ==
              written.locationGroups[i].systemTreeParent);
    }
    CHECK(read->rankCount() == 2);
    REQUIRE(read->locations.size() == written.locations.size());
    for (size_t i = 0; i < written.locations.size(); ++i) {
        INFO("location " << i);
        CHECK(read->locations[i].id == written.locations[i].id);
        CHECK(read->locations[i].name == written.locations[i].name);
        CHECK(read->locations[i].group == written.locations[i].group);
        CHECK(read->locations[i].announcedEvents == written.locations[i].announcedEvents);
        CHECK(read->locations[i].type == written.locations[i].type);
    }
    REQUIRE(read->regions.size() == written.regions.size());
    for (size_t i = 0; i < written.regions.size(); ++i) {
        INFO("region " << i << " " << written.regions[i].name);
        CHECK(read->regions[i].name == written.regions[i].name);
        CHECK(read->regions[i].canonicalName == written.regions[i].canonicalName);
        CHECK(read->regions[i].file == written.regions[i].file);
        CHECK(read->regions[i].beginLine == written.regions[i].beginLine);
        CHECK(read->regions[i].endLine == written.regions[i].endLine);
        CHECK(read->regions[i].role == written.regions[i].role);
        CHECK(read->regions[i].paradigm == written.regions[i].paradigm);
    }
    REQUIRE(read->callingContexts.size() == 2);
    CHECK(read->callingContexts[0].region == kMain);
    CHECK(read->callingContexts[0].parent == kUndefined);
    CHECK(read->callingContexts[1].region == kSampled);
    CHECK(read->callingContexts[1].parent == 0);
    REQUIRE(read->groups.size() == written.groups.size());
    for (size_t i = 0; i < written.groups.size(); ++i) {
        INFO("group " << i);
        CHECK(read->groups[i].name == written.groups[i].name);
        CHECK(read->groups[i].kind == written.groups[i].kind);
        CHECK(read->groups[i].paradigm == written.groups[i].paradigm);
        CHECK(read->groups[i].members == written.groups[i].members);
    }
    REQUIRE(read->communicators.size() == 3);
    for (size_t i = 0; i < written.communicators.size(); ++i) {
        INFO("communicator " << i);
        CHECK(read->communicators[i].name == written.communicators[i].name);
        CHECK(read->communicators[i].group == written.communicators[i].group);
        CHECK(read->communicators[i].parent == written.communicators[i].parent);
    }
    // What the reader derives from the groups.
    CHECK(read->communicators[0].worldRanks == std::vector<uint32_t>{0, 1});
    CHECK(read->communicators[1].isSelf);
    CHECK(read->communicators[2].worldRanks == std::vector<uint32_t>{1});
}

TEST_CASE("every event record written reads back in order with its payload", "[otf2][roundtrip]") {
    const std::string anchor = writeRoundTrip("events");
    auto defs = readDefinitions(anchor);
    REQUIRE(defs.ok());
    auto rank0 = readRankEvents(anchor, *defs, 0);
    REQUIRE(rank0.ok());
    const std::string none = "partner 0 comm 0 tag 0 length 0 request ";
    const std::vector<std::string> expected = {
        event(EventKind::ProgramBegin, 100, "ref 1"),
        event(EventKind::Enter, 110, "ref 0"),
        event(EventKind::Enter, 120, "ref 1"),
        event(EventKind::MpiSend, 121, "partner 1 comm 0 tag 5 length 64 request 0"),
        event(EventKind::MpiIsend, 122, "partner 0 comm 2 tag 6 length 8589934592 request 7"),
        event(EventKind::MpiIsendComplete, 123, none + "7"),
        event(EventKind::MpiIrecvRequest, 124, none + "8"),
        event(EventKind::MpiRecv, 125, "partner 1 comm 0 tag 9 length 16 request 0"),
        event(EventKind::MpiIrecv, 126, "partner 1 comm 0 tag 10 length 32 request 8"),
        event(EventKind::MpiRequestTest, 127, none + "9"),
        event(EventKind::MpiRequestCancelled, 128, none + "9"),
        event(EventKind::Leave, 129, "ref 1"),
        event(EventKind::Enter, 130, "ref 2"),
        event(EventKind::MpiCollectiveBegin, 131, "ref 0"),
        event(EventKind::MpiCollectiveEnd, 132, "op 0 comm 0 root 4294967295 sent 0 received 0"),
        event(EventKind::Leave, 133, "ref 2"),
        event(EventKind::Enter, 134, "ref 3"),
        event(EventKind::MpiCollectiveBegin, 135, "ref 0"),
        event(EventKind::MpiCollectiveEnd, 136, "op 1 comm 0 root 0 sent 1099511627776 received 0"),
        event(EventKind::Leave, 137, "ref 3"),
        event(EventKind::CallingContextEnter, 140, "ref 1"),
        event(EventKind::CallingContextLeave, 141, "ref 1"),
        event(EventKind::CallingContextSample, 142, "ref 0"),
        event(EventKind::Leave, 150, "ref 0"),
        event(EventKind::ProgramEnd, 160, "ref 0"),
    };
    CHECK(describeAll(*rank0) == expected);
    // Communicator creation and destruction and nonblocking collectives are only counted.
    CHECK(rank0->skippedEvents() == 4);
    CHECK(rank0->nonMonotonicEvents() == 0);
}

TEST_CASE("a location's mapping tables and clock offset read back as global ids and times",
          "[otf2][roundtrip]") {
    const std::string anchor = writeRoundTrip("mappings");
    auto defs = readDefinitions(anchor);
    REQUIRE(defs.ok());
    auto rank1 = readRankEvents(anchor, *defs, 1);
    REQUIRE(rank1.ok());
    CHECK(describeAll(*rank1) ==
          std::vector<std::string>{
              event(EventKind::ProgramBegin, 1100, "ref 1"),
              event(EventKind::Enter, 1110, "ref 0"),
              event(EventKind::Enter, 1115, "ref 1"),
              event(EventKind::MpiRecv, 1121, "partner 0 comm 0 tag 5 length 64 request 0"),
              event(EventKind::Leave, 1122, "ref 1"),
              event(EventKind::CallingContextSample, 1130, "ref 1"),
              event(EventKind::Leave, 1150, "ref 0"),
              event(EventKind::ProgramEnd, 1160, "ref 0"),
          });
    // A table that maps every id to itself is left out, and the ids read the same.
    auto thread = readLocationEvents(anchor, *defs->locationsOfRank(0)[1], &*defs);
    REQUIRE(thread.ok());
    // The thread order records are kept with their sequence number.
    CHECK(describeAll(*thread) == std::vector<std::string>{
                                      event(EventKind::ThreadBegin, 112, "ref 1"),
                                      event(EventKind::Enter, 113, "ref 4"),
                                      event(EventKind::CallingContextSample, 114, "ref 1"),
                                      event(EventKind::Leave, 115, "ref 4"),
                                      event(EventKind::ThreadEnd, 116, "ref 1"),
                                  });
    CHECK(thread->skippedEvents() == 0);
}

TEST_CASE("events out of time order are refused and counted, never printed", "[otf2][writer]") {
    const fs::path dir = fs::temp_directory_path() / "waitscope_trace_writer_order";
    fs::remove_all(dir);
    Otf2Writer writer;
    REQUIRE(writer.open(dir.string()));
    Otf2EventWriter w = writer.openEvents(0);
    REQUIRE(w.valid());
    w.enter(20, 0);
    CHECK(writer.errors().count == 0);
    w.leave(10, 0);
    CHECK(writer.errors().count > 0);
    CHECK(writer.errors().first != OTF2_SUCCESS);
    CHECK_FALSE(otf2ErrorText(writer.errors().first).empty());
    writer.closeEvents(w);
    REQUIRE(writer.close());
}

TEST_CASE("an archive that cannot be created is refused naming its directory",
          "[otf2][writer][bad-input]") {
    const fs::path file = fs::temp_directory_path() / "waitscope_trace_writer_file";
    fs::remove_all(file);
    { std::ofstream(file.string()) << "not a directory"; }
    const std::string dir = (file / "trace").string();
    Otf2Writer writer;
    const waitscope::Status opened = writer.open(dir);
    REQUIRE_FALSE(opened.ok());
    CHECK(opened.error().message().rfind("cannot open the OTF2 archive in '" + dir + "': ", 0) ==
          0);
    CHECK_FALSE(writer.isOpen());
    CHECK(writer.close().ok());
}
