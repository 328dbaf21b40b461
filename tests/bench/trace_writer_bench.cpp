// Micro benchmark of the measurement's finalize encoding: buffered records into OTF2 events.
//
// usage: trace_writer_bench DIR [CALLS] [REPEATS] [POOL_MIB]
//        trace_writer_bench --sample DIR
// Fills an event buffer with CALLS barrier calls (Enter, CollectiveBegin, CollectiveEnd,
// Leave: 4 records each, default 1,000,000), then REPEATS times (default 5) encodes it into a
// fresh archive in DIR with the measurement's TraceWriter (as libwaitscope.so does at
// MPI_Finalize, without MPI) and prints the median CPU nanoseconds per event of the encoding and
// of the whole write (encoding, definitions, closing), and of the translation alone (encoded into
// /dev/null: the rest of the encoding is the kernel's copy into the page cache), and side by side
// the spill writer thread's CPU per event for the same records in 2 MiB chunks: raw records and
// events (before issue 21's change), events kept with their mark (now), raw records alone. POOL_MIB
// (default 4, what libwaitscope.so gives OTF2 by default) bounds the chunk memory: full chunks are
// written out and reused. With --sample, writes one small archive of every record kind instead,
// with a sampled thread, mapping tables, clock offsets, communicators and calling contexts: the
// same program built against two versions of the writer must write the same bytes.
#include "comm_definitions.h"
#include "spill_file.h"
#include "trace_writer.h"
#include "waitscope/measure/event_buffer.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fcntl.h>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

// CPU time of this thread: the machine may be shared, and waiting for a core is not the
// writer's cost.
struct Clock {
    using time_point = double;
    static double now() {
        timespec t{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
        return static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_nsec);
    }
};
using namespace waitscope::measure;
using waitscope::Status;

double nsSince(Clock::time_point start) {
    return Clock::now() - start;
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

// Writes the global definitions and closes the archive, unless `done` failed already; prints the
// error if anything failed.
Status finishArchive(TraceWriter& writer, Status done, const GlobalDefinitions& global) {
    if (done)
        done = writer.writeGlobalDefinitions(global);
    if (done)
        done = writer.close();
    if (!done)
        std::fprintf(stderr, "error: %s\n", done.error().message().c_str());
    return done;
}

// Writes one rank's archive of the buffered records; returns the encoding's and the whole
// write's nanoseconds.
std::pair<double, double> writeOnce(const std::string& dir, const EventBuffer& buffer,
                                    std::uint64_t lastTime, std::size_t poolBytes) {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
    std::filesystem::create_directories(dir, ec);
    const Clock::time_point start = Clock::now();
    TraceWriter writer;
    if (Status opened = writer.open(dir, 0, poolBytes, MPI_COMM_NULL); !opened) {
        std::fprintf(stderr, "error: %s\n", opened.error().message().c_str());
        std::exit(1);
    }
    const Clock::time_point encode = Clock::now();
    writer.write(buffer.begin, buffer.cursor);
    const double encoding = nsSince(encode);
    GlobalDefinitions global;
    global.ticksPerSecond = 1000000000;
    global.traceLength = lastTime;
    global.programPath = "trace_writer_bench";
    global.nodeNames = {"localhost"};
    global.ranks.push_back({writer.eventsWritten(), 0, {}});
    RegionDefinition barrier{"MPI_Barrier",       "MPI_Barrier", "", 0, 0,
                             RegionRole::Barrier, Paradigm::Mpi};
    global.regions.add(regionKey(barrier), {});
    CommDefinition world;
    world.key = kWorldKey;
    global.comms.add(commKeyBytes(world.key), commDescription(world));
    if (!finishArchive(writer, writer.writeLocalDefinitions({}, {}, {}, {}), global))
        std::exit(1);
    return {encoding, nsSince(start)};
}

// The CPU nanoseconds of what the spill writer thread does with the buffer's chunks during a run
// (the default buffer's chunks, 2 MiB): with `records` each chunk's raw records go to the records
// file (the crash-safe copy before issue 21's change), with `events` each is translated into the
// event file. Events without records: each chunk's events are written into the file at once and
// the mark rewritten (SpillWriter::Encoded::Kept, what the thread does now).
double spillChunks(const std::string& dir, const EventBuffer& buffer, bool records, bool events) {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
    std::filesystem::create_directories(dir, ec);
    const std::string base = dir + "/0.records";
    const int fd = ::open(base.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
    const int markFd = ::open((base + ".encoded").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || markFd < 0) {
        std::fprintf(stderr, "error: cannot create files in '%s'\n", dir.c_str());
        std::exit(1);
    }
    // Whole barrier calls (6 words) per chunk, as the buffer hands over whole records.
    constexpr std::size_t kChunkWords = (2u << 20) / 8 / 6 * 6;
    TraceWriter writer;
    const Clock::time_point start = Clock::now();
    for (const std::uint64_t* chunk = buffer.begin; chunk < buffer.cursor; chunk += kChunkWords) {
        const std::uint64_t* end =
            std::min<const std::uint64_t*>(chunk + kChunkWords, buffer.cursor);
        const auto offset = static_cast<std::uint64_t>(chunk - buffer.begin) * 8;
        const auto bytes = static_cast<std::size_t>(end - chunk) * 8;
        if (events && !writer.encodeDuringRun(base + ".evt", 0, chunk, end, nullptr))
            std::exit(1);
        if (records && !writeAllAt(fd, chunk, bytes, offset))
            std::exit(1);
        if (!records) {
            EncodedMark mark;
            mark.recordBytes = offset + bytes;
            mark.decodeTime = writer.decodeTime();
            if (!writer.writeRunEvents(mark.eventFileBytes, mark.chunkBytes) ||
                ::pwrite(markFd, &mark, sizeof(mark), 0) != static_cast<ssize_t>(sizeof(mark)))
                std::exit(1);
        }
    }
    const double ns = nsSince(start);
    ::close(fd);
    ::close(markFd);
    std::filesystem::remove_all(dir, ec);
    return ns;
}

// Global id of `key` in a unified set.
std::uint32_t globalId(const DefinitionSet& set, const std::string& key) {
    return static_cast<std::uint32_t>(set.find(key));
}

// Writes the --sample archive; returns the exit status.
int writeSample(const std::string& dir) {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
    std::filesystem::create_directories(dir, ec);
    Definitions defs;
    const std::uint32_t mainRegion = defs.addRegion(
        {"main", "main", "sample.c", 3, 40, RegionRole::Function, Paradigm::Compiler});
    const std::uint32_t send =
        defs.addRegion({"MPI_Send", "MPI_Send", "", 0, 0, RegionRole::PointToPoint, Paradigm::Mpi});
    const std::uint32_t compute = defs.addRegion(
        {"compute", "compute", "sample.c", 50, 60, RegionRole::Function, Paradigm::Sampling});
    const std::uint32_t flush =
        defs.addRegion({"TRACE BUFFER FLUSH", "TRACE BUFFER FLUSH", "", 0, 0,
                        RegionRole::Artificial, Paradigm::MeasurementSystem});
    defs.addComm(testing::describedComm(kWorldKey));
    defs.addComm(testing::describedComm(kSelfKey));
    const std::uint32_t halfComm =
        defs.addComm(testing::describedComm(makeCommKey(0, 0), kWorldKey, {0}, "half"));
    const std::uint32_t outer = defs.callingContext(mainRegion, kNoContext);
    const std::uint32_t inner = defs.callingContext(compute, outer);

    std::vector<std::uint64_t> memory(4096);
    EventBuffer b;
    b.reset(memory.data(), memory.size());
    std::uint64_t* x = nullptr;
    writeRecord(b, 100, EventKind::ProgramBegin, 0);
    writeRecord(b, 110, EventKind::Enter, mainRegion);
    writeRecord(b, 111, EventKind::CommCreate, 0);
    writeRecord(b, 112, EventKind::CommCreate, halfComm);
    writeRecord(b, 120, EventKind::Enter, send);
    x = writeRecord(b, 121, EventKind::MpiSend, 1);
    x[0] = packPair(0, 5);
    x[1] = 64;
    x = writeRecord(b, 122, EventKind::MpiIsend, 2);
    x[0] = packPair(halfComm, 6);
    x[1] = 1ull << 33;
    x[2] = 7;
    writeRecord(b, 123, EventKind::MpiIsendComplete, 0)[0] = 7;
    writeRecord(b, 124, EventKind::MpiIrecvRequest, 0)[0] = 8;
    x = writeRecord(b, 125, EventKind::MpiRecv, 3);
    x[0] = packPair(0, 9);
    x[1] = 16;
    x = writeRecord(b, 126, EventKind::MpiIrecv, 1);
    x[0] = packPair(0, 10);
    x[1] = 32;
    x[2] = 8;
    writeRecord(b, 127, EventKind::MpiRequestTest, 0)[0] = 9;
    writeRecord(b, 128, EventKind::MpiRequestCancelled, 0)[0] = 9;
    writeRecord(b, 129, EventKind::Leave, send);
    writeRecord(b, 130, EventKind::MpiCollectiveBegin, 0);
    x = writeRecord(b, 131, EventKind::MpiCollectiveEnd, 11);
    x[0] = packPair(halfComm, 0xFFFFFFFFu);
    x[1] = packPair(8, 8);
    writeRecord(b, 132, EventKind::MpiCollectiveBegin, 0);
    x = writeRecord(b, 133, EventKind::MpiCollectiveEndLarge, 1);
    x[0] = packPair(0, 0);
    x[1] = 1ull << 40;
    x[2] = 2ull << 40;
    writeRecord(b, 134, EventKind::NbCollRequest, 0)[0] = 10;
    x = writeRecord(b, 135, EventKind::NbCollComplete, 0);
    x[0] = packPair(0, 0xFFFFFFFFu);
    x[1] = 0;
    x[2] = 0;
    x[3] = 10;
    writeRecord(b, 136, EventKind::CallingContextEnter, inner);
    writeRecord(b, 137, EventKind::CallingContextLeave, inner);
    writeRecord(b, 138, EventKind::CallingContextSample, outer);
    writeRecord(b, 139, EventKind::Enter, flush);
    writeRecord(b, 140, EventKind::Leave, flush);
    writeRecord(b, 141, EventKind::CommDestroy, halfComm);
    writeRecord(b, 141 + (1ull << 33), EventKind::Leave, mainRegion); // a TimeBase first
    writeRecord(b, 150 + (1ull << 33), EventKind::ProgramEnd, 3);
    std::vector<std::uint64_t> threadMemory(256);
    EventBuffer t;
    t.reset(threadMemory.data(), threadMemory.size());
    writeRecord(t, 115, EventKind::Enter, compute);
    writeRecord(t, 119, EventKind::CallingContextSample, inner);
    writeRecord(t, 125, EventKind::Leave, compute);

    TraceWriter writer;
    Status done = writer.open(dir, 0, 4u << 20, MPI_COMM_NULL);
    if (!done) {
        std::fprintf(stderr, "error: %s\n", done.error().message().c_str());
        return 1;
    }
    // The calling-context tree the records name (not the running measurement's: there is none).
    std::vector<std::uint32_t> parents;
    for (const CallingContextDefinition& c : defs.callingContexts())
        parents.push_back(c.parent);
    writer.setContextParents(&parents);
    writer.write(b.begin, b.cursor);
    const std::uint64_t mainEvents = writer.eventsWritten();
    const std::uint64_t threadEvents = writer.writeThread(1, t.begin, t.cursor);

    GlobalDefinitions global;
    std::vector<std::string> regionKeys, commKeys, contextKeys;
    for (const RegionDefinition& r : defs.regions()) {
        regionKeys.push_back(regionKey(r));
        global.regions.add(regionKeys.back(), {});
    }
    for (const CommDefinition& c : defs.comms()) {
        commKeys.push_back(commKeyBytes(c.key));
        global.comms.add(commKeys.back(), commDescription(c));
    }
    for (std::uint32_t c = 0; c < defs.callingContexts().size(); ++c) {
        contextKeys.push_back(callingContextKey(defs, c));
        global.contexts.add(contextKeys.back(), {});
    }
    std::vector<std::uint32_t> regionMap, commMap, contextMap;
    for (const std::string& key : regionKeys)
        regionMap.push_back(globalId(global.regions, key));
    const std::vector<std::uint32_t> commIds = commIdsParentsFirst(global.comms);
    for (const std::string& key : commKeys)
        commMap.push_back(commIds[globalId(global.comms, key)]);
    for (const std::string& key : contextKeys)
        contextMap.push_back(globalId(global.contexts, key));
    done = writer.writeLocalDefinitions(regionMap, commMap, contextMap,
                                        {{100, 5, 0.5}, {200, -3, 0.25}});
    global.ticksPerSecond = 1000000000;
    global.globalOffset = 100;
    global.traceLength = 50 + (1ull << 33);
    global.programPath = "/bin/sample";
    global.nodeNames = {"node0"};
    global.ranks.push_back({mainEvents, 0, {{1, threadEvents}}});
    global.samplingPeriodNs = 10000000;
    return finishArchive(writer, done, global) ? 0 : 1;
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s DIR [CALLS] [REPEATS] [POOL_MIB]\n", argv[0]);
        return 2;
    }
    if (std::string(argv[1]) == "--sample")
        return argc == 3 ? writeSample(argv[2]) : 2;
    const std::string dir = argv[1];
    const std::uint64_t calls = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1000000;
    const int repeats = argc > 3 ? std::atoi(argv[3]) : 5;
    const std::size_t poolBytes = (argc > 4 ? std::strtoull(argv[4], nullptr, 10) : 4) << 20;
    std::vector<std::uint64_t> memory(calls * 4 * kMaxRecordWords + 16);
    EventBuffer buffer;
    buffer.reset(memory.data(), memory.size());
    std::uint64_t time = 1000;
    for (std::uint64_t c = 0; c < calls; ++c) {
        writeRecord(buffer, time, EventKind::Enter, 0);
        writeRecord(buffer, time + 20, EventKind::MpiCollectiveBegin, 0);
        std::uint64_t* x = writeRecord(buffer, time + 300, EventKind::MpiCollectiveEnd, 0);
        x[0] = packPair(0, 0xFFFFFFFFu);
        x[1] = 0;
        writeRecord(buffer, time + 320, EventKind::Leave, 0);
        time += 400 + c % 7;
    }
    const double events = static_cast<double>(calls) * 4;
    std::vector<double> encodings, totals, translations, recordsAndEvents, eventsKept, recordsAlone;
    for (int r = 0; r < repeats; ++r) {
        recordsAndEvents.push_back(spillChunks(dir + "/spill", buffer, true, true) / events);
        eventsKept.push_back(spillChunks(dir + "/spill", buffer, false, true) / events);
        recordsAlone.push_back(spillChunks(dir + "/spill", buffer, true, false) / events);
        auto [encoding, total] = writeOnce(dir, buffer, time, poolBytes);
        encodings.push_back(encoding / events);
        totals.push_back(total / events);
        // The translation alone: the same events encoded as during the run, into /dev/null
        // (what the kernel's page cache costs is the rest of the encoding figure).
        TraceWriter alone;
        const Clock::time_point start = Clock::now();
        alone.encodeDuringRun("/dev/null", 0, buffer.begin, buffer.cursor, nullptr);
        translations.push_back(nsSince(start) / events);
    }
    std::printf("%llu events: encoding %.2f ns/event, whole write %.2f ns/event, translation "
                "alone %.2f ns/event (median of %d)\n",
                static_cast<unsigned long long>(events), median(encodings), median(totals),
                median(translations), repeats);
    std::printf("spill writer, 2 MiB chunks: records + events %.2f ns/event (before issue 21's "
                "change), events kept with their mark %.2f ns/event (now), records alone %.2f "
                "ns/event (median of %d)\n",
                median(recordsAndEvents), median(eventsKept), median(recordsAlone), repeats);
    return 0;
}
