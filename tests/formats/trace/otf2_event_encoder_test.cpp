// Otf2EventEncoder against libotf2's own event writer: the same calls write the same bytes, over
// chunk boundaries too, and what it refuses is counted as libotf2 counts it.
#include "waitscope/trace/otf2_archive.h"
#include "waitscope/trace/otf2_writer.h"

#include <catch2/catch.hpp>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace waitscope::trace;
namespace fs = std::filesystem;

namespace {

constexpr size_t kChunk = 256 * 1024; // libotf2's smallest chunk: many boundaries

std::string readBytes(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The exit status: unknown, negative and positive ones take every signed size.
int64_t exitStatus(int rounds) {
    return rounds == 1 ? kUnknownExitStatus : (rounds % 2 != 0 ? -rounds : rounds);
}

// Every call of the event interface, with operands of every compressed size (0, all ones, 1 to
// 8 bytes), `rounds` times; times repeat and jump. Returns the events written.
template <class Events> uint64_t writeEvents(Events& w, int rounds) {
    const uint64_t sizes[] = {0,
                              1,
                              0xff,
                              0x100,
                              0xffff,
                              0x12345,
                              0x1234567,
                              0x123456789,
                              0x123456789ab,
                              0x123456789abcd,
                              0x123456789abcdef,
                              ~uint64_t{0}};
    uint64_t t = 0; // time 0 first: libotf2 writes its timestamp specially
    w.programBegin(t, 0);
    for (int r = 0; r < rounds; ++r) {
        for (uint64_t v : sizes) {
            const auto v32 = static_cast<uint32_t>(v);
            t += (r % 3 == 0) ? 0 : 1 + (v & 0xff); // some events share their time
            w.enter(t, v32);
            w.mpiSend(t, v32, 1, v32 >> 3, v);
            w.mpiIsend(t, 2, v32, 7, v, v >> 1);
            w.mpiIsendComplete(t, v);
            w.mpiIrecvRequest(t, v);
            w.mpiRecv(t, 3, v32, v32, v);
            w.mpiIrecv(t, v32, 0, 1, v, v);
            w.mpiRequestTest(t, v);
            w.mpiRequestCancelled(t, v);
            w.mpiCollectiveBegin(t);
            w.mpiCollectiveEnd(t, CollectiveOp::Allreduce, v32, kUndefined, v, v >> 4);
            w.nonBlockingCollectiveRequest(t, v);
            w.nonBlockingCollectiveComplete(t, CollectiveOp::Bcast, 1, v32, v, v, v);
            w.commCreate(t, v32);
            w.commDestroy(t, v32);
            w.callingContextEnter(t, v32, v32 >> 8);
            w.callingContextLeave(t, v32);
            w.callingContextSample(t, v32, 1, 0);
            w.threadCreate(t, v32, v);
            w.threadBegin(t, 2, v >> 2);
            w.threadWait(t, v32 >> 1, v);
            w.threadEnd(t, v32, 1);
            w.leave(t + (uint64_t{1} << 40), v32); // a far timestamp
            t += uint64_t{1} << 40;
        }
    }
    w.programEnd(t, exitStatus(rounds));
    return w.eventCount();
}

// Writes the events into a fresh archive in `dir`, through libotf2 or through the encoder;
// returns the event file's bytes.
std::string writeArchive(const fs::path& dir, bool encoded, int rounds, uint64_t& events) {
    fs::remove_all(dir);
    fs::create_directories(dir);
    Otf2Writer writer;
    Otf2WriterOptions options;
    options.eventChunkBytes = kChunk;
    REQUIRE(writer.open(dir.string(), options));
    if (encoded) {
        Otf2EventEncoder w = writer.encodeEvents(0);
        REQUIRE(w.valid());
        events = writeEvents(w, rounds);
        REQUIRE(writer.closeEvents(w) == OTF2_SUCCESS);
    } else {
        Otf2EventWriter w = writer.openEvents(0);
        REQUIRE(w.valid());
        events = writeEvents(w, rounds);
        REQUIRE(writer.closeEvents(w) == OTF2_SUCCESS);
    }
    CHECK(writer.errors().count == 0);
    REQUIRE(writer.writeLocalDefinitions({0}, LocalDefinitions{}));
    REQUIRE(writer.close());
    return readBytes(dir / "traces" / "0.evt");
}

// The file I/O records, with operands of every compressed size, `rounds` times (as
// writeEvents). Returns the events written.
template <class Events> uint64_t writeIoEvents(Events& w, int rounds) {
    const uint64_t sizes[] = {0,           1, 0xff, 0x100, 0x12345, 0x123456789, 0x123456789abcdef,
                              ~uint64_t{0}};
    uint64_t t = 0;
    for (int r = 0; r < rounds; ++r) {
        for (uint64_t v : sizes) {
            const auto v32 = static_cast<uint32_t>(v);
            const auto v8 = static_cast<uint8_t>(v);
            t += (r % 3 == 0) ? 0 : 1 + (v & 0xff);
            w.ioCreateHandle(t, v32, v8, v32 >> 1, v32 >> 9);
            w.ioOperationBegin(t, v32, v8, v32 >> 3, v, v >> 2);
            w.ioOperationComplete(t, v32, v >> 1, v);
            w.ioOperationIssued(t, 1, v);
            w.ioSeek(t, v32, static_cast<int64_t>(v) - 7, v8, v);
            w.ioDestroyHandle(t + (uint64_t{1} << 40), v32);
            t += uint64_t{1} << 40;
        }
    }
    return w.eventCount();
}

// writeArchive for the file I/O records.
std::string writeIoArchive(const fs::path& dir, bool encoded, int rounds, uint64_t& events) {
    fs::remove_all(dir);
    fs::create_directories(dir);
    Otf2Writer writer;
    Otf2WriterOptions options;
    options.eventChunkBytes = kChunk;
    REQUIRE(writer.open(dir.string(), options));
    if (encoded) {
        Otf2EventEncoder w = writer.encodeEvents(0);
        REQUIRE(w.valid());
        events = writeIoEvents(w, rounds);
        REQUIRE(writer.closeEvents(w) == OTF2_SUCCESS);
    } else {
        Otf2EventWriter w = writer.openEvents(0);
        REQUIRE(w.valid());
        events = writeIoEvents(w, rounds);
        REQUIRE(writer.closeEvents(w) == OTF2_SUCCESS);
    }
    CHECK(writer.errors().count == 0);
    REQUIRE(writer.writeLocalDefinitions({0}, LocalDefinitions{}));
    REQUIRE(writer.close());
    return readBytes(dir / "traces" / "0.evt");
}

} // namespace

TEST_CASE("the event encoder writes the bytes libotf2 writes, over chunk boundaries",
          "[otf2][roundtrip]") {
    const fs::path base =
        fs::temp_directory_path() / ("waitscope_encoder_" + std::to_string(getpid()));
    for (int rounds : {1, 2, 700}) {
        INFO("rounds: " << rounds);
        uint64_t libraryEvents = 0, encodedEvents = 0;
        const std::string library = writeArchive(base / "library", false, rounds, libraryEvents);
        const std::string encoded = writeArchive(base / "encoded", true, rounds, encodedEvents);
        CHECK(encodedEvents == libraryEvents);
        CHECK(encodedEvents == 2 + 12u * 23u * static_cast<uint64_t>(rounds));
        REQUIRE(encoded.size() == library.size());
        CHECK(encoded == library);
        if (rounds == 700) {
            CHECK(encoded.size() > 3 * kChunk); // several chunks
        }
    }
    fs::remove_all(base);
}

TEST_CASE("the event encoder refuses an event earlier than the last and counts it",
          "[otf2][roundtrip]") {
    const fs::path dir =
        fs::temp_directory_path() / ("waitscope_encoder_order_" + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    Otf2Writer writer;
    REQUIRE(writer.open(dir.string()));
    Otf2EventEncoder w = writer.encodeEvents(0);
    w.enter(100, 0);
    w.leave(90, 0); // refused
    w.leave(110, 0);
    CHECK(w.eventCount() == 2);
    REQUIRE(writer.closeEvents(w) == OTF2_SUCCESS);
    CHECK(writer.errors().count == 1);
    CHECK(writer.errors().first == OTF2_ERROR_INVALID_ARGUMENT);
    REQUIRE(writer.writeLocalDefinitions({0}, LocalDefinitions{}));
    REQUIRE(writer.close());
    fs::remove_all(dir);
}

namespace {

// Every RMA record of the event interface with operands of every compressed size, `rounds`
// times. Returns the events written.
template <class Events> uint64_t writeRmaEvents(Events& w, int rounds) {
    const uint64_t sizes[] = {0,          1,          0xff,          0x100,
                              0xffff,     0x12345,    0x1234567,     0x123456789,
                              0x12345678, 0xfffffffe, 0x123456789ab, ~uint64_t{0}};
    uint64_t t = 0;
    for (int r = 0; r < rounds; ++r) {
        for (uint64_t v : sizes) {
            const auto v32 = static_cast<uint32_t>(v);
            const auto v8 = static_cast<uint8_t>(v);
            t += (r % 3 == 0) ? 0 : 1 + (v & 0xff);
            w.rmaWinCreate(t, v32);
            w.rmaCollectiveBegin(t);
            w.rmaCollectiveEnd(t, CollectiveOp::CreateHandle, 3, v32, kUndefined, v, v >> 3);
            w.rmaGroupSync(t, v32 & 3, v32, v32 >> 2);
            w.rmaRequestLock(t, v32, kUndefined, v, 1);
            w.rmaAcquireLock(t, 1, v32, v, 0);
            w.rmaTryLock(t, v32, v32, v >> 1, v8);
            w.rmaReleaseLock(t, v32, v32 >> 4, v);
            w.rmaSync(t, v32, v32, 2);
            w.rmaWaitChange(t, v32);
            w.rmaPut(t, v32, 3, v, v);
            w.rmaGet(t, 0, v32, v >> 5, v);
            w.rmaAtomic(t, v32, v32, 7, v, v >> 7, v);
            w.rmaOpCompleteBlocking(t, v32, v);
            w.rmaOpCompleteNonBlocking(t, v32, v >> 9);
            w.rmaOpTest(t, 2, v);
            w.rmaOpCompleteRemote(t, v32, v);
            w.rmaWinDestroy(t + (uint64_t{1} << 40), v32);
            t += uint64_t{1} << 40;
        }
    }
    return w.eventCount();
}

std::string writeRmaArchive(const fs::path& dir, bool encoded, int rounds, uint64_t& events) {
    fs::remove_all(dir);
    fs::create_directories(dir);
    Otf2Writer writer;
    Otf2WriterOptions options;
    options.eventChunkBytes = kChunk;
    REQUIRE(writer.open(dir.string(), options));
    if (encoded) {
        Otf2EventEncoder w = writer.encodeEvents(0);
        REQUIRE(w.valid());
        events = writeRmaEvents(w, rounds);
        REQUIRE(writer.closeEvents(w) == OTF2_SUCCESS);
    } else {
        Otf2EventWriter w = writer.openEvents(0);
        REQUIRE(w.valid());
        events = writeRmaEvents(w, rounds);
        REQUIRE(writer.closeEvents(w) == OTF2_SUCCESS);
    }
    CHECK(writer.errors().count == 0);
    REQUIRE(writer.writeLocalDefinitions({0}, LocalDefinitions{}));
    REQUIRE(writer.close());
    return readBytes(dir / "traces" / "0.evt");
}

} // namespace

TEST_CASE("the event encoder writes the RMA records as libotf2 does, over chunk boundaries",
          "[otf2][roundtrip]") {
    const fs::path base =
        fs::temp_directory_path() / ("waitscope_rma_encoder_" + std::to_string(getpid()));
    for (int rounds : {1, 2, 900}) {
        INFO("rounds: " << rounds);
        uint64_t libraryEvents = 0, encodedEvents = 0;
        const std::string library = writeRmaArchive(base / "library", false, rounds, libraryEvents);
        const std::string encoded = writeRmaArchive(base / "encoded", true, rounds, encodedEvents);
        CHECK(encodedEvents == libraryEvents);
        CHECK(encodedEvents == 12u * 18u * static_cast<uint64_t>(rounds));
        REQUIRE(encoded.size() == library.size());
        CHECK(encoded == library);
        if (rounds == 900) {
            CHECK(encoded.size() > 3 * kChunk);
        }
    }
    fs::remove_all(base);
}

TEST_CASE("the event encoder writes the file I/O records as libotf2 does, over chunk boundaries",
          "[otf2][roundtrip][io]") {
    const fs::path base =
        fs::temp_directory_path() / ("waitscope_encoder_io_" + std::to_string(getpid()));
    for (int rounds : {1, 2, 1500}) {
        INFO("rounds: " << rounds);
        uint64_t libraryEvents = 0, encodedEvents = 0;
        const std::string library = writeIoArchive(base / "library", false, rounds, libraryEvents);
        const std::string encoded = writeIoArchive(base / "encoded", true, rounds, encodedEvents);
        CHECK(encodedEvents == libraryEvents);
        CHECK(encodedEvents == 8u * 6u * static_cast<uint64_t>(rounds));
        REQUIRE(encoded.size() == library.size());
        CHECK(encoded == library);
        if (rounds == 1500) {
            CHECK(encoded.size() > 3 * kChunk);
        }
    }
    fs::remove_all(base);
}

namespace {

/// The encoder with its pending events written into the file every `every` events
/// (writePending), and the file's bytes kept after each such write.
struct PendingEncoder {
    Otf2EventEncoder& w;
    fs::path file;
    uint64_t every;
    uint64_t calls = 0;
    std::vector<std::string> snapshots;

    void step() {
        if (++calls % every != 0)
            return;
        REQUIRE(w.writePending());
        snapshots.push_back(readBytes(file));
        CHECK(snapshots.back().size() == w.fileBytes());
    }
    uint64_t eventCount() const { return w.eventCount(); }
#define WAITSCOPE_PENDING_CALL(name)                                                               \
    template <class... Args> void name(Args... args) {                                             \
        w.name(args...);                                                                           \
        step();                                                                                    \
    }
    WAITSCOPE_PENDING_CALL(programBegin)
    WAITSCOPE_PENDING_CALL(threadCreate)
    WAITSCOPE_PENDING_CALL(threadBegin)
    WAITSCOPE_PENDING_CALL(threadWait)
    WAITSCOPE_PENDING_CALL(threadEnd)
    WAITSCOPE_PENDING_CALL(programEnd)
    WAITSCOPE_PENDING_CALL(enter)
    WAITSCOPE_PENDING_CALL(leave)
    WAITSCOPE_PENDING_CALL(mpiSend)
    WAITSCOPE_PENDING_CALL(mpiIsend)
    WAITSCOPE_PENDING_CALL(mpiIsendComplete)
    WAITSCOPE_PENDING_CALL(mpiIrecvRequest)
    WAITSCOPE_PENDING_CALL(mpiRecv)
    WAITSCOPE_PENDING_CALL(mpiIrecv)
    WAITSCOPE_PENDING_CALL(mpiRequestTest)
    WAITSCOPE_PENDING_CALL(mpiRequestCancelled)
    WAITSCOPE_PENDING_CALL(mpiCollectiveBegin)
    WAITSCOPE_PENDING_CALL(mpiCollectiveEnd)
    WAITSCOPE_PENDING_CALL(nonBlockingCollectiveRequest)
    WAITSCOPE_PENDING_CALL(nonBlockingCollectiveComplete)
    WAITSCOPE_PENDING_CALL(commCreate)
    WAITSCOPE_PENDING_CALL(commDestroy)
    WAITSCOPE_PENDING_CALL(callingContextEnter)
    WAITSCOPE_PENDING_CALL(callingContextLeave)
    WAITSCOPE_PENDING_CALL(callingContextSample)
#undef WAITSCOPE_PENDING_CALL
};

} // namespace

TEST_CASE("events written before their chunk is full leave the file as libotf2's, each write a "
          "prefix of it",
          "[otf2][roundtrip]") {
    const fs::path base =
        fs::temp_directory_path() / ("waitscope_encoder_pending_" + std::to_string(getpid()));
    constexpr int kRounds = 700;
    uint64_t libraryEvents = 0;
    const std::string library = writeArchive(base / "library", false, kRounds, libraryEvents);
    const fs::path dir = base / "pending";
    fs::create_directories(dir);
    Otf2Writer writer;
    Otf2WriterOptions options;
    options.eventChunkBytes = kChunk;
    REQUIRE(writer.open(dir.string(), options));
    Otf2EventEncoder w = writer.encodeEvents(0);
    REQUIRE(w.valid());
    PendingEncoder pending{w, dir / "traces" / "0.evt", 4999};
    CHECK(writeEvents(pending, kRounds) == libraryEvents);
    REQUIRE(writer.closeEvents(w) == OTF2_SUCCESS);
    CHECK(writer.errors().count == 0);
    REQUIRE(writer.writeLocalDefinitions({0}, LocalDefinitions{}));
    REQUIRE(writer.close());
    const std::string encoded = readBytes(dir / "traces" / "0.evt");
    REQUIRE(encoded.size() == library.size());
    CHECK(encoded == library);
    // Each write left the file a prefix of the finished one, but for the last event number of
    // the chunk not yet full (0 until it is).
    REQUIRE(pending.snapshots.size() > 20);
    uint64_t differing = 0;
    for (const std::string& snapshot : pending.snapshots) {
        REQUIRE(snapshot.size() <= encoded.size());
        std::string expected = encoded.substr(0, snapshot.size());
        const size_t lastChunk = (snapshot.size() - 1) / kChunk * kChunk;
        expected.replace(lastChunk + 10, 8, 8, '\0');
        differing += snapshot != expected ? 1 : 0;
    }
    CHECK(differing == 0);
    fs::remove_all(base);
}

namespace {

/// The bytes of disk the file at `path` holds (its blocks, not its size).
uint64_t allocatedBytes(const fs::path& path) {
    struct stat info {};
    REQUIRE(::stat(path.c_str(), &info) == 0);
    return static_cast<uint64_t>(info.st_blocks) * 512;
}

/// True when the file system of `dir` reserves blocks beyond a file's end (fallocate with
/// FALLOC_FL_KEEP_SIZE), as the encoder asks it to.
bool reservesBlocks(const fs::path& dir) {
    const fs::path probe = dir / "probe";
    const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const bool reserves = fd >= 0 && ::fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, kChunk) == 0;
    if (fd >= 0)
        ::close(fd);
    fs::remove(probe);
    return reserves;
}

} // namespace

TEST_CASE("the event encoder reserves the file's blocks ahead of its writes and gives back those "
          "beyond its end",
          "[otf2]") {
    const fs::path dir =
        fs::temp_directory_path() / ("waitscope_encoder_reserve_" + std::to_string(getpid()));
    fs::create_directories(dir);
    if (!reservesBlocks(dir)) {
        WARN("the file system of " << dir << " reserves no blocks: nothing to check");
        fs::remove_all(dir);
        return;
    }
    Otf2Writer writer;
    Otf2WriterOptions options;
    options.eventChunkBytes = kChunk;
    REQUIRE(writer.open(dir.string(), options));
    Otf2EventEncoder w = writer.encodeEvents(0);
    REQUIRE(w.valid());
    writeEvents(w, 1500);
    REQUIRE(w.writePending());
    const fs::path file = dir / "traces" / "0.evt";
    // The size is what was written (the blocks beyond it are reserved, not written), and at
    // least one chunk more is reserved.
    REQUIRE(fs::file_size(file) == w.fileBytes());
    CHECK(w.fileBytes() > 3 * kChunk);
    CHECK(allocatedBytes(file) >= w.fileBytes() + kChunk);
    REQUIRE(writer.closeEvents(w) == OTF2_SUCCESS);
    CHECK(writer.errors().count == 0);
    // Finished: the blocks beyond the end are given back (a page's rounding and the file
    // system's own blocks aside).
    const uint64_t size = fs::file_size(file);
    CHECK(allocatedBytes(file) <= size + 64 * 1024);
    REQUIRE(writer.writeLocalDefinitions({0}, LocalDefinitions{}));
    REQUIRE(writer.close());
    fs::remove_all(dir);
}
