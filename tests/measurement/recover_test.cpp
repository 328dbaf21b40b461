// Recovery's parts on inputs built here: the definitions file (round trip, every damage named),
// the records reader (round trip, damage named), the consistent cut, the clock-offset rule.
#include "comm_definitions.h"
#include "consistent_cut.h"
#include "encoded_events.h"
#include "records_file.h"
#include "trace_writer.h"
#include "waitscope/measure/clock.h"
#include "waitscope/measure/rank_definitions_file.h"

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <unistd.h>

using namespace waitscope::measure;

namespace {

Definitions sampleDefinitions() {
    Definitions defs;
    defs.addRegion({"MPI_Send", "MPI_Send", "", 0, 0, RegionRole::PointToPoint, Paradigm::Mpi});
    defs.addRegion({"main", "main", "app.c", 3, 40, RegionRole::Function, Paradigm::User});
    defs.addComm(testing::describedComm(kWorldKey));
    defs.addComm(testing::describedComm(makeCommKey(0, 1), kWorldKey, {0, 2}, "halves"));
    std::uint32_t top = defs.callingContext(1, kNoContext);
    defs.callingContext(0, top);
    defs.addRmaWindow({kWorldKey, 0, "MPI_Win_create window"});
    defs.addRmaWindow({makeCommKey(0, 1), 0, "MPI_Win_allocate window"});
    defs.rmaGroup({0, 2});
    defs.addIoHandle("/data/out.bin", kWorldKey);
    defs.addIoHandle("/data/out.bin", kWorldKey);
    return defs;
}

std::string definitionsBytes(const Definitions& defs) {
    std::FILE* file = std::tmpfile();
    RankIdentity id{1, 3, 2000000000ull, "node7", "/bin/app"};
    REQUIRE(writeRankDefinitions(fileno(file), id, defs));
    std::string bytes(static_cast<std::size_t>(std::ftell(file)), '\0');
    std::rewind(file);
    REQUIRE(std::fread(bytes.data(), 1, bytes.size(), file) == bytes.size());
    std::fclose(file);
    return bytes;
}

RecordEvent event(std::uint64_t time, EventKind kind, std::uint32_t a = 0, std::uint64_t x0 = 0) {
    RecordEvent e;
    e.time = time;
    e.kind = static_cast<std::uint32_t>(kind);
    e.a = a;
    e.x[0] = x0;
    return e;
}

/// An MPI call as the measurement records it: Enter, the message or collective, Leave.
void call(std::vector<RecordEvent>& out, std::uint64_t t, RecordEvent inner) {
    out.push_back(event(t, EventKind::Enter, 0));
    inner.time = t;
    out.push_back(inner);
    out.push_back(event(t + 1, EventKind::Leave, 0));
}

} // namespace

TEST_CASE("a rank's definitions file reads back as written", "[recover]") {
    const Definitions defs = sampleDefinitions();
    auto read = parseRankDefinitions(definitionsBytes(defs), "0.defs");
    REQUIRE(read);
    CHECK(read->identity.rank == 1);
    CHECK(read->identity.size == 3);
    CHECK(read->identity.host == "node7");
    CHECK(read->identity.program == "/bin/app");
    REQUIRE(read->defs.regions().size() == 2);
    CHECK(regionKey(read->defs.regions()[1]) == regionKey(defs.regions()[1]));
    REQUIRE(read->defs.comms().size() == 2);
    CHECK(commDescription(read->defs.comms()[1]) == commDescription(defs.comms()[1]));
    CHECK(read->defs.comms()[1].members == std::vector<std::uint32_t>{0, 2});
    REQUIRE(read->defs.callingContexts().size() == 2);
    CHECK(callingContextKey(read->defs, 1) == callingContextKey(defs, 1));
    // One-sided windows and groups, MPI-IO handles (the second opening of a file numbered 1).
    REQUIRE(read->defs.rmaWindows().size() == 2);
    for (std::size_t w = 0; w < 2; ++w) {
        CHECK(rmaWindowKey(read->defs.rmaWindows()[w]) == rmaWindowKey(defs.rmaWindows()[w]));
        CHECK(read->defs.rmaWindows()[w].name == defs.rmaWindows()[w].name);
    }
    CHECK(read->defs.rmaGroups() == defs.rmaGroups());
    REQUIRE(read->defs.ioHandles().size() == 2);
    CHECK(ioHandleKey(read->defs.ioHandles()[1]) == ioHandleKey(defs.ioHandles()[1]));
    CHECK(read->defs.ioHandles()[1].sequence == 1);
}

TEST_CASE("every cut of a definitions file is refused with its byte offset", "[recover]") {
    const std::string bytes = definitionsBytes(sampleDefinitions());
    for (std::size_t n = 0; n < bytes.size(); ++n) {
        INFO("cut at " << n);
        auto read = parseRankDefinitions(bytes.substr(0, n), "ranks/1.defs");
        REQUIRE(!read);
        CHECK(read.error().message().rfind("ranks/1.defs: ", 0) == 0);
    }
    auto trailing = parseRankDefinitions(bytes + "x", "ranks/1.defs");
    REQUIRE(!trailing);
    CHECK(trailing.error().message() ==
          "ranks/1.defs: trailing bytes at byte " + std::to_string(bytes.size()));
}

TEST_CASE("records read back as encoded, and damage is named with its place", "[recover]") {
    const Definitions defs = sampleDefinitions();
    std::vector<RecordEvent> events;
    events.push_back(event(5000000000ull, EventKind::ProgramBegin));
    call(events, 5000000100ull, [] {
        RecordEvent send = event(0, EventKind::MpiSend, 2, packPair(1, 9));
        send.x[1] = 64;
        return send;
    }());
    events.push_back(event(5000000200ull, EventKind::CallingContextSample, 1));
    const std::string bytes = encodeRecords(events);
    RecordsRead clean = readRecords(bytes, defs);
    CHECK(clean.damage.empty());
    REQUIRE(clean.events.size() == events.size());
    CHECK(encodeRecords(clean.events) == bytes);

    // The send record (after ProgramBegin's time base, itself and Enter) cut in its middle.
    RecordsRead cut = readRecords(bytes.substr(0, bytes.size() - 8 - 8 - 8), defs);
    CHECK(cut.events.size() == 2);
    CHECK(cut.damage == "record 3 (byte 32): cut off after 2 of its 3 words");
    RecordsRead odd = readRecords(bytes + "abc", defs);
    CHECK(odd.events.size() == events.size());
    CHECK(odd.damage == "record 6 (byte " + std::to_string(bytes.size()) +
                            "): cut off: 3 stray bytes at the end");
    std::string unknownRegion = encodeRecords({event(1, EventKind::Enter, 7)});
    CHECK(readRecords(unknownRegion, defs).damage == "record 0 (byte 0): undefined region");
    std::string badKind = bytes;
    badKind[16] = 63; // ProgramBegin, after the time base: kind 63 does not exist
    CHECK(readRecords(badKind, defs).damage == "record 1 (byte 16): unknown kind 63");
}

TEST_CASE("the cut drops a receive whose sender died before sending, and what depends on it",
          "[recover]") {
    // World of 3. Rank 1 died after the first barrier; rank 0 received from 1 after it (no
    // send exists), then did a second barrier. Rank 2 sent to rank 0 once, received never.
    const std::vector<CutComm> comms = {{{0, 1, 2}, false}};
    auto barrier = [](std::uint64_t t) {
        return event(t, EventKind::MpiCollectiveEnd, 2, packPair(0, ~0u));
    };
    std::vector<std::vector<RecordEvent>> ranks(3);
    call(ranks[0], 10, barrier(10));
    call(ranks[0], 20, event(20, EventKind::MpiRecv, 2, packPair(0, 5))); // from 2: matched
    call(ranks[0], 30, event(30, EventKind::MpiRecv, 1, packPair(0, 5))); // from 1: never sent
    call(ranks[0], 40, barrier(40));
    call(ranks[1], 10, barrier(10));
    call(ranks[2], 10, barrier(10));
    call(ranks[2], 15, event(15, EventKind::MpiSend, 0, packPair(0, 5)));
    call(ranks[2], 16, event(16, EventKind::MpiSend, 1, packPair(0, 5))); // to the dead rank
    call(ranks[2], 40, barrier(40));
    std::vector<RankCut> cuts = consistentCut(ranks, comms);
    CHECK(cuts[0].kept == 6); // barrier and the matched receive
    CHECK(cuts[1].kept == 3); // all it had
    CHECK(cuts[2].kept == 9); // the second barrier is gone: rank 1 never reached it
    CHECK(cuts[2].dropped == std::vector<std::size_t>{7}); // the send to rank 1, never received
    CHECK(cuts[2].droppedMessages == 1);
    CHECK(cuts[0].dropped.empty());
}

TEST_CASE("a clock offset within its own uncertainty is not applied", "[recover]") {
    CHECK(significantOffset(400000, 500000.0) == 0);
    CHECK(significantOffset(-400000, 500000.0) == 0);
    CHECK(significantOffset(900000, 500000.0) == 900000);
    CHECK(significantOffset(-900000, 500000.0) == -900000);
}

namespace {

/// One record of every kind the measurement writes, with operands that name `sampleDefinitions`
/// and take every compressed size, at time `t` on: what the spill writer translates.
void everyKind(std::vector<RecordEvent>& out, std::uint64_t t, std::uint64_t v) {
    const auto v32 = static_cast<std::uint32_t>(v);
    auto add = [&](EventKind kind, std::uint32_t a, std::uint64_t x0 = 0, std::uint64_t x1 = 0,
                   std::uint64_t x2 = 0, std::uint64_t x3 = 0) {
        RecordEvent e = event(t, kind, a, x0);
        e.x[1] = x1;
        e.x[2] = x2;
        e.x[3] = x3;
        out.push_back(e);
        t += v & 3; // some events share their time
    };
    const std::uint32_t peer = v32 & kOperandMask;
    add(EventKind::Enter, 1);
    add(EventKind::MpiSend, peer, packPair(1, v32), v);
    add(EventKind::MpiIsend, 2, packPair(0, 7), v, v >> 1);
    add(EventKind::MpiIsendComplete, 0, v);
    add(EventKind::MpiIrecvRequest, 0, v >> 3);
    add(EventKind::MpiRecv, peer, packPair(0, ~0u), v);
    add(EventKind::MpiIrecv, 0, packPair(1, v32 >> 4), v, v);
    add(EventKind::MpiRequestTest, 0, v);
    add(EventKind::MpiRequestCancelled, 0, ~v);
    add(EventKind::MpiCollectiveBegin, 0);
    if (v > UINT32_MAX)
        add(EventKind::MpiCollectiveEndLarge, 2, packPair(0, ~0u), v, v >> 1);
    else
        add(EventKind::MpiCollectiveEnd, 2, packPair(0, 1), packPair(v32, v32 >> 2));
    add(EventKind::NbCollRequest, 0, v);
    add(EventKind::NbCollComplete, 5, packPair(1, 0), v, v >> 2, v >> 9);
    add(EventKind::CommCreate, 1);
    add(EventKind::CommDestroy, 1);
    add(EventKind::CallingContextEnter, 1);
    add(EventKind::CallingContextSample, 0);
    add(EventKind::CallingContextLeave, 1);
    add(EventKind::RmaWinCreate, 1);
    add(EventKind::RmaCollectiveBegin, 0);
    add(EventKind::RmaCollectiveEnd, 14 | 3u << 8, packPair(1, ~0u), v, v >> 5);
    add(EventKind::RmaGroupSync, 3, packPair(0, 0));
    add(EventKind::RmaRequestLock, 1, packPair(0, v32 >> 8), v);
    add(EventKind::RmaReleaseLock, 0, packPair(0, v32 >> 8), v);
    add(EventKind::RmaPut, 0, packPair(1, 2), v, v >> 6);
    add(EventKind::RmaGet, 0, packPair(1, 0), v >> 2, v);
    add(EventKind::RmaAtomic, 7, packPair(0, 1), v, v >> 1, v >> 2);
    add(EventKind::RmaOpCompleteNonBlocking, 0, 1, v);
    add(EventKind::RmaOpCompleteRemote, 0, 0, v >> 3);
    add(EventKind::RmaWinDestroy, 1);
    add(EventKind::IoCreateHandle, 1, 2 | (v & 0xFFFFFFu) << 8 | (v >> 7 & 0xFFFFFFFFu) << 32);
    add(EventKind::IoOperationBegin, 1, 1 | (v & 0xFFFFFFFFu) << 8, v >> 1, v);
    add(EventKind::IoOperationIssued, 1, v);
    add(EventKind::IoOperationComplete, 1, v >> 2, v);
    add(EventKind::IoSeek, 0, ~v, v, 1);
    add(EventKind::IoDestroyHandle, 1);
    add(EventKind::ThreadCreate, v32);
    add(EventKind::ThreadWait, v32 >> 3);
    add(EventKind::ThreadBegin, 1);
    add(EventKind::ThreadEnd, v32 >> 1);
    add(EventKind::Leave, 1);
}

/// Where record `index` of records `bytes` starts (time bases count as records of their own).
std::size_t recordOffset(const std::string& bytes, std::size_t index) {
    std::size_t offset = 0;
    for (std::size_t k = 0; k < index; ++k) {
        std::uint64_t header = 0;
        std::memcpy(&header, bytes.data() + offset, 8);
        offset += 8 * (1 + kExtraWords[header & 0x3f]);
    }
    return offset;
}

} // namespace

TEST_CASE("events translated during the run and the records after them read back as recorded",
          "[recover]") {
    const Definitions defs = sampleDefinitions();
    std::vector<RecordEvent> events;
    events.push_back(event(1000, EventKind::ProgramBegin));
    const std::uint64_t sizes[] = {0,          1,           0xff,           0x100,
                                   0x12345,    0x1234567,   0x123456789,    0x123456789abcdef,
                                   ~0ull >> 1, 0xffffffffu, 0x100000000ull, ~0ull};
    std::uint64_t t = 2000;
    for (int round = 0; round < 900; ++round)
        for (std::uint64_t v : sizes) {
            everyKind(events, t, v);
            t += (round % 5 == 0) ? (1ull << 40) : 1000; // far times need a time base
        }
    events.push_back(event(t, EventKind::ProgramEnd, kUnknownExit));
    const std::string records = encodeRecords(events);
    const auto* words = reinterpret_cast<const std::uint64_t*>(records.data());
    const std::vector<std::uint64_t> aligned(words, words + records.size() / 8);

    // Two chunks translated as the spill writer does (the event file then several of its 1 MiB
    // chunks long), the third left as records after a hole, as a killed rank leaves them.
    const std::string evt = (std::filesystem::temp_directory_path() /
                             ("waitscope_recover_encoded_" + std::to_string(getpid()) + ".evt"))
                                .string();
    const std::size_t cuts[] = {recordOffset(records, 100001) / 8,
                                recordOffset(records, 300003) / 8};
    const std::vector<std::uint32_t> parents = {kNoContext, 0}; // sampleDefinitions' tree
    TraceWriter writer;
    REQUIRE(writer.encodeDuringRun(evt, 0, aligned.data(), aligned.data() + cuts[0], &parents));
    REQUIRE(writer.encodeDuringRun(evt, 0, aligned.data() + cuts[0], aligned.data() + cuts[1],
                                   &parents));
    std::uint64_t fileBytes = 0, chunkBytes = 0;
    REQUIRE(writer.writeRunEvents(fileBytes, chunkBytes));
    CHECK(fileBytes > 2 * chunkBytes);
    std::string encoded;
    {
        std::ifstream in(evt, std::ios::binary);
        encoded.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    std::remove(evt.c_str());
    REQUIRE(encoded.size() == fileBytes);

    RecordsRead head = readEncodedEvents(encoded, chunkBytes, defs);
    CHECK(head.damage.empty());
    RecordsRead tail = readRecords(records.substr(cuts[1] * 8), defs, writer.decodeTime());
    CHECK(tail.damage.empty());
    std::vector<RecordEvent> read = head.events;
    read.insert(read.end(), tail.events.begin(), tail.events.end());
    REQUIRE(read.size() == events.size());
    CHECK(encodeRecords(read) == records);

    // A record cut by the end: the events before it stay, the damage is named.
    const std::string cut = encoded.substr(0, encoded.size() - 3);
    RecordsRead shortened = readEncodedEvents(cut, chunkBytes, defs);
    CHECK(shortened.events.size() < head.events.size());
    CHECK(shortened.damage.find("(byte ") != std::string::npos);
    CHECK(encodeRecords(shortened.events) ==
          encodeRecords({head.events.begin(), head.events.begin() + shortened.events.size()}));
    std::string unknown = encoded;
    // After the first chunk's header and timestamp: ProgramBegin's type byte.
    unknown[waitscope::trace::Otf2EventEncoder::kChunkHeaderBytes + 9] = 99;
    CHECK(readEncodedEvents(unknown, chunkBytes, defs).damage ==
          "event 0 (byte 27): unknown event type 99");
}
