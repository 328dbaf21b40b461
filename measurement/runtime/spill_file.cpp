// The rank's spill file and definitions file: buffer flushes during the run, and reading the
// spilled records back into the trace at finalize.
#include "spill_file.h"

#include "experiment_directory.h"
#include "runtime_state.h"
#include "spill_writer.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace waitscope::measure {

// Signal context: only async-signal-safe calls (open, write, close), no allocation, no locks.
// False when the data could not all be written (errno says why; ENOSPC for a short write).
namespace {

/// The loop of writeAll() and writeAllAt(): `offset` kAtCursor writes at the file's position.
constexpr std::uint64_t kAtCursor = ~std::uint64_t{0};

bool writeAllFrom(int fd, const void* data, size_t n, std::uint64_t offset) {
    const char* p = static_cast<const char*>(data);
    while (n > 0) {
        ssize_t w = offset == kAtCursor ? ::write(fd, p, n)
                                        : ::pwrite(fd, p, n, static_cast<off_t>(offset));
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = ENOSPC;
            return false;
        }
        p += w;
        if (offset != kAtCursor)
            offset += static_cast<std::uint64_t>(w);
        n -= static_cast<size_t>(w);
    }
    return true;
}

} // namespace

bool writeAll(int fd, const void* data, size_t n) {
    return writeAllFrom(fd, data, n, kAtCursor);
}

bool writeAllAt(int fd, const void* data, size_t n, std::uint64_t offset) {
    return writeAllFrom(fd, data, n, offset);
}

/// Writes the rank's definitions file (a new one beside, then renamed over the old one, so a
/// rank killed meanwhile leaves the previous one whole). Signal-safe.
bool saveDefinitions(RuntimeState& s) {
    if (s.defsPath.empty())
        return true;
    int fd = ::open(s.defsTempPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return false;
    bool ok = writeRankDefinitions(fd, s.identity, s.defs);
    ok = ::close(fd) == 0 && ok;
    if (ok)
        ok = ::rename(s.defsTempPath.c_str(), s.defsPath.c_str()) == 0;
    else
        ::unlink(s.defsTempPath.c_str());
    return ok;
}

namespace {

std::size_t definitionCount(const Definitions& defs) {
    return defs.regions().size() + defs.comms().size() + defs.callingContexts().size();
}

} // namespace

/// Saves the definitions when they grew since the last save (normal context).
void saveNewDefinitions(RuntimeState& s) {
    std::size_t n = definitionCount(s.defs);
    if (n == s.savedDefinitions)
        return;
    errno = 0;
    if (saveDefinitions(s))
        s.savedDefinitions = n;
    else
        noteWriteError(s, s.defsPath, errno);
}

namespace {

/// Moves records spilled before MPI_Init (to an unnamed file) into the rank's spill file.
void adoptEarlySpill(RuntimeState& s) {
    if (s.spillFd < 0)
        return;
    int named = ::open(s.spillPath.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (named < 0)
        return; // keep the unnamed one: still encoded at finalize, only not salvageable
    char chunk[1 << 16];
    ::lseek(s.spillFd, 0, SEEK_SET);
    for (ssize_t n; (n = ::read(s.spillFd, chunk, sizeof(chunk))) > 0;)
        writeAll(named, chunk, static_cast<size_t>(n));
    ::close(s.spillFd);
    s.spillFd = named;
}

} // namespace

/// Gives the rank its spill file (taking over records spilled before MPI_Init).
Status openSpill(RuntimeState& s) {
    adoptEarlySpill(s);
    if (s.spillFd < 0)
        s.spillFd = ::open(s.spillPath.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (s.spillFd < 0)
        return Error("cannot create '" + s.spillPath + "': " + std::strerror(errno));
    return Status::success();
}

namespace {

/// The spill writer's translation of a chunk into the rank's OTF2 events; the chunk is kept
/// so (its records not written) once its events are in the event file and the mark says so.
SpillWriter::Encoded encodeChunk(void* context, const std::uint64_t* begin,
                                 const std::uint64_t* end,
                                 const std::vector<std::uint32_t>* parents,
                                 std::uint64_t endOffset) noexcept {
    auto* s = static_cast<RuntimeState*>(context);
    if (!s->writer.encodeDuringRun(s->runEventsPath, s->rank, begin, end, parents))
        return SpillWriter::Encoded::No;
    EncodedMark mark;
    if (s->encodedMarkFd < 0 || !s->writer.writeRunEvents(mark.eventFileBytes, mark.chunkBytes))
        return SpillWriter::Encoded::Translated;
    mark.recordBytes = endOffset;
    mark.decodeTime = s->writer.decodeTime();
    // One write of 40 bytes: a rank killed meanwhile leaves the old mark or the new one.
    if (::pwrite(s->encodedMarkFd, &mark, sizeof(mark), 0) != static_cast<ssize_t>(sizeof(mark)))
        return SpillWriter::Encoded::Translated;
    return SpillWriter::Encoded::Kept;
}

} // namespace

void startSpillWriter(RuntimeState& s) noexcept {
    if (!s.config.tracing || s.spillFd < 0 || s.spillFailed)
        return;
    if (!s.spillWriter.start(g_hot.buffer, s.memory.data(), s.memory.size(), s.spillFd))
        return;
    try {
        // Beside the records: the archive's traces folder exists only once it is open.
        s.runEventsPath = s.spillPath + ".evt";
        s.encodedMarkPath = s.spillPath + ".encoded";
        // Without the mark every chunk translated is written as records too.
        s.encodedMarkFd =
            ::open(s.encodedMarkPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        s.spillWriter.setEncoder(encodeChunk, &s);
    } catch (...) {
        // Without memory for the names the events are translated at finalize.
    }
}

namespace {

/// Encodes the spill file straight from a read-only mapping of it (no copy into the buffer, no
/// writing of the buffered records behind it), then the buffered records, which follow the
/// spilled ones (unless a spill failed: those after it would decode with a wrong time base).
/// False when the file cannot be mapped: the caller reads it in pieces instead.
bool encodeMappedSpill(RuntimeState& s) {
    struct stat info {};
    // The records the spill writer translated during the run are skipped (a whole-page start).
    const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    const size_t from = static_cast<size_t>(s.encodedBytes) / page * page;
    if (::fstat(s.spillFd, &info) != 0 ||
        static_cast<std::uint64_t>(info.st_size) < s.encodedBytes + 8)
        return false;
    const size_t bytes = static_cast<size_t>(info.st_size) / 8 * 8;
    void* map =
        ::mmap(nullptr, bytes - from, PROT_READ, MAP_PRIVATE, s.spillFd, static_cast<off_t>(from));
    if (map == MAP_FAILED)
        return false;
    ::madvise(map, bytes - from, MADV_SEQUENTIAL);
    const auto* begin = static_cast<const std::uint64_t*>(map) + (s.encodedBytes - from) / 8;
    const std::uint64_t* end = static_cast<const std::uint64_t*>(map) + (bytes - from) / 8;
    // Only whole records: a damaged tail is left out and counted (the events before it kept).
    const std::uint64_t* consumed = s.writer.write(begin, end);
    ::munmap(map, bytes - from);
    ::close(s.spillFd);
    s.spillFd = -1;
    if (consumed != end || bytes != static_cast<size_t>(info.st_size))
        ++g_diagnostics.otf2Errors;
    if (s.spillFailed)
        g_hot.buffer.clear(); // lost with the failed spill (counted then)
    return true;
}

} // namespace

/// Encodes the records spilled during the run into the OTF2 event file (mapped, else read back
/// in pieces through the now idle event buffer); the buffered records are left for the caller
/// when the file could be mapped or nothing was spilled, else spilled behind the others first.
void encodeSpilledRecords(RuntimeState& s) {
    if (s.spillFd < 0)
        return;
    if (s.spilledBytes == s.encodedBytes && !s.spillFailed) {
        // Nothing spilled waits for translation (none was spilled, or the spill writer
        // translated it all): the rest is in the buffer, encoded from there (a crash meanwhile
        // still finds it there: the fatal-signal handler writes it to the file).
        ::close(s.spillFd);
        s.spillFd = -1;
        return;
    }
    if (encodeMappedSpill(s))
        return;
    // Whatever is still buffered goes last; keep it by spilling it too (unless records are
    // already missing before it: it would decode with a wrong time base).
    errno = 0;
    if (!s.spillFailed &&
        !writeAllAt(s.spillFd, g_hot.buffer.begin, g_hot.buffer.usedBytes(), s.spilledBytes)) {
        noteWriteError(s, s.spillPath, errno);
        s.spillFailed = true;
        if (::ftruncate(s.spillFd, static_cast<off_t>(s.spilledBytes)) != 0)
            ++g_diagnostics.otf2Errors;
    }
    g_hot.buffer.clear();
    int fd = s.spillFd;
    s.spillFd = -1;
    ::lseek(fd, static_cast<off_t>(s.encodedBytes), SEEK_SET);
    std::uint64_t* memory = g_hot.buffer.begin;
    const size_t capacity = s.memory.size() * 8;
    size_t filled = 0;
    while (true) {
        ssize_t n = ::read(fd, reinterpret_cast<char*>(memory) + filled, capacity - filled);
        if (n < 0 && errno == EINTR)
            continue;
        if (n > 0)
            filled += static_cast<size_t>(n);
        // Encode the whole records; a record cut by the read boundary waits for the next read.
        std::uint64_t probeTime = s.writer.decodeTime();
        RecordCursor cursor(memory, memory + filled / 8, probeTime);
        RecordHeader h;
        const std::uint64_t* x = nullptr;
        while (cursor.next(h, x)) {
        }
        const std::uint64_t* consumed = cursor.consumed();
        s.writer.write(memory, consumed);
        size_t used = static_cast<size_t>(consumed - memory) * 8;
        std::memmove(memory, reinterpret_cast<char*>(memory) + used, filled - used);
        filled -= used;
        if (n <= 0)
            break;
    }
    ::close(fd);
    if (filled != 0)
        ++g_diagnostics.otf2Errors; // a damaged tail; the events before it are kept
}

namespace {

/// The program's own flush (no writer thread: before MPI_Init, after a failed write, for a
/// buffer too small to split): the buffer's records are appended to the spill file.
void spillBuffer(RuntimeState& s, EventBuffer& b) noexcept {
    if (s.spillFd < 0 && !s.spillPath.empty())
        s.spillFd = ::open(s.spillPath.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (s.spillFd < 0 && s.spillPath.empty()) {
        // Before MPI_Init there is no experiment yet: an unnamed file keeps the records.
        char name[] = "/tmp/waitscope_early_XXXXXX";
        s.spillFd = mkstemp(name);
        if (s.spillFd >= 0)
            ::unlink(name);
    }
    errno = 0;
    // Records after a failed write would decode with a wrong time base: once one failed,
    // none are kept (and without a file there is nowhere to keep them).
    bool kept = false;
    if (!s.spillFailed && s.spillFd >= 0) {
        kept = writeAllAt(s.spillFd, b.begin, b.usedBytes(), s.spilledBytes);
        if (kept) {
            s.spilledBytes += b.usedBytes();
        } else {
            noteWriteError(s, s.spillPath, errno);
            // The records file keeps only whole records: those of the flushes before.
            s.spillFailed = true;
            if (::ftruncate(s.spillFd, static_cast<off_t>(s.spilledBytes)) != 0)
                ++g_diagnostics.otf2Errors;
        }
    }
    if (!kept)
        g_diagnostics.lostEvents += b.events - s.eventsAtLastFlush;
    b.clear();
}

} // namespace

/// Stops the spill writer once every chunk handed to it is written; a chunk it could not
/// write ends the spill file (as a failed flush of the program's own would).
void drainSpillWriter(RuntimeState& s, bool translate) noexcept {
    if (!s.spillWriter.running())
        return;
    s.spillWriter.drain(translate);
    s.spillWriterCpuSeconds = s.spillWriter.threadCpuSeconds();
    s.encodedBytes = s.spillWriter.encodedBytes();
    if (s.encodedMarkFd >= 0)
        ::close(s.encodedMarkFd); // no chunk is translated any more
    s.encodedMarkFd = -1;
    SpillWriter::Failure failure;
    if (!s.spillWriter.failed(failure) || s.spillFailed)
        return;
    noteWriteError(s, s.spillPath, failure.error);
    s.spillFailed = true;
    s.spilledBytes = failure.offset;
    if (::ftruncate(s.spillFd, static_cast<off_t>(failure.offset)) != 0)
        ++g_diagnostics.otf2Errors;
    // The chunks from the failed one on are lost; the buffer's records follow them.
    g_diagnostics.lostEvents += s.eventsAtLastFlush - failure.eventsBefore;
}

void flushEvents(bool recordRegion) noexcept {
    if (t_events != &g_hot.buffer) {
        // A further thread's records stay in memory until finalize (openmp_recorder.h).
        if (threadRecordsFull)
            threadRecordsFull(2 * kMaxRecordWords);
        return;
    }
    RuntimeState* s = g_state;
    EventBuffer& b = g_hot.buffer;
    if (!s || !b.begin)
        return;
    std::uint64_t start = now();
    if (s->profile)
        s->profile->consume(b.begin, b.cursor);
    // Whether the program waited for records to be written (a flush of its own, or a chunk it
    // needed next still waiting): only such a wait is recorded as a flush.
    bool waited = true;
    if (!s->config.tracing) {
        b.clear();
    } else if (s->spillWriter.running()) {
        // The calling-context tree the chunk's records name, for translating them meanwhile.
        std::vector<std::uint32_t>& parents = s->spillWriter.contextParents();
        const std::vector<CallingContextDefinition>& contexts = s->defs.callingContexts();
        if (parents.size() != contexts.size()) {
            try {
                parents.resize(contexts.size());
                for (std::size_t c = 0; c < contexts.size(); ++c)
                    parents[c] = contexts[c].parent;
            } catch (...) {
                parents.clear(); // without memory: its records' unwind distances are wrong
            }
        }
        const std::uint64_t bytes = b.usedBytes();
        waited = s->spillWriter.handOver(b, s->spilledBytes, s->eventsAtLastFlush);
        s->spilledBytes += bytes;
        ++g_diagnostics.spilledChunks;
        SpillWriter::Failure failure;
        if (s->spillWriter.failed(failure)) {
            // Nothing more is kept: the program flushes (and counts losses) itself from now on.
            s->eventsAtLastFlush = b.events;
            drainSpillWriter(*s);
            waited = true;
        }
    } else {
        spillBuffer(*s, b);
        ++g_diagnostics.spilledChunks;
    }
    s->eventsAtLastFlush = b.events;
    // The records just spilled may name definitions made since the last save.
    if (s->measured && !s->finalized)
        saveNewDefinitions(*s);
    std::uint64_t end = now();
    g_diagnostics.flushTicks += end - start;
    if (!waited)
        return;
    ++g_diagnostics.flushes;
    if (recordRegion) {
        appendRecord(start, EventKind::Enter, s->flushRegion);
        appendRecord(end, EventKind::Leave, s->flushRegion);
    }
}

} // namespace waitscope::measure
