// The spill writer: a thread that writes the full chunks of the rank's event buffer to its
// spill file while the program records into the next chunk, so that a full buffer costs the
// program a hand-over of a few microseconds instead of a write to disk.
//
// The buffer's memory is split into chunks used in turn. A full chunk is handed over with the
// file offset its records go to; chunks are written with pwrite at their offset, so any thread
// may write any chunk, and the file holds the records in order whoever wrote them. The thread
// sleeps on a futex until a chunk is handed over (it never spins), runs at SCHED_IDLE (it takes
// only a core nobody else wants) and blocks every signal (signals sent to the process go to the
// program's threads). One chunk is written at a time, in order, so a rank killed meanwhile
// leaves a file of whole records up to a point. When the chunk the program needs next is still
// waiting to be written, the program does not wait for the thread to get a core: it writes the
// waiting chunks itself and waits only for a chunk the thread is writing at that moment (the
// back-pressure, recorded as a TRACE BUFFER FLUSH region). Finalize and MPI_Abort drain the same
// way; a fatal signal writes every chunk not known to be written (writePendingInSignal), then the
// buffer. The thread translates the chunks it takes into the trace's OTF2 events (setEncoder),
// so that finalize translates only the rest; the program, writing a chunk itself, only writes
// its records (it waits as briefly as it can), and from there on finalize translates all. A
// chunk whose events are in the event file, and noted there for `waitscope recover`
// (Encoded::Kept), is not written as records at all: the spill file keeps only the records not
// translated so (a hole where the others would be), so that a chunk is copied through the page
// cache once, as OTF2 bytes, instead of twice (issue 21).
#pragma once

#include "waitscope/measure/event_buffer.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <sys/types.h>
#include <vector>

namespace waitscope::measure {

class SpillWriter {
public:
    /// The most chunks the buffer is split into; a small buffer gets fewer (at least 2).
    static constexpr std::uint32_t kMaxChunks = 8;
    /// The smallest chunk, in words: smaller buffers are flushed by the program itself.
    static constexpr std::size_t kMinChunkWords = 2048;

    /// The first chunk that could not be written: its offset and the events before it.
    struct Failure {
        int error = 0;
        std::uint64_t offset = 0;
        std::uint64_t eventsBefore = 0;
    };

    /// Splits the buffer's memory `[memory, memory + words)` into chunks, points `buffer` at the
    /// first (its records so far must fit there) and starts the thread, which writes to `fd`.
    /// False (nothing changed: the program flushes the whole buffer itself) when the buffer is
    /// too small, its records do not fit in a chunk or the thread cannot be created. Main
    /// thread, normal context, once.
    bool start(EventBuffer& buffer, std::uint64_t* memory, std::size_t words, int fd) noexcept;

    /// What the translation of a chunk did.
    enum class Encoded {
        No,         ///< nothing: the chunk is written as records, and no later one is translated
        Translated, ///< into the trace, but recovery still needs its records: written too
        Kept,       ///< into the trace, and on file for recovery: its records are not written
    };
    /// Translates a chunk's records into the trace (one chunk at a time, in order, from the
    /// spill file's start). `parents`: the calling-context tree when the chunk was handed over;
    /// `endOffset`: the spill file's bytes up to the chunk's end.
    using EncodeFunction = Encoded (*)(void* context, const std::uint64_t* begin,
                                       const std::uint64_t* end,
                                       const std::vector<std::uint32_t>* parents,
                                       std::uint64_t endOffset) noexcept;
    /// Sets the translation of written chunks. Main thread, before the first hand-over.
    void setEncoder(EncodeFunction encode, void* context) noexcept {
        m_encode = encode;
        m_encodeContext = context;
    }
    /// The calling-context tree (each id's parent) to hand over with the chunk being filled:
    /// the caller brings it up to date before handOver (contexts are only ever added).
    std::vector<std::uint32_t>& contextParents() noexcept {
        return m_chunks[m_filling % m_count].parents;
    }
    /// The spill file's bytes, from its start, whose records were translated (the kept ones
    /// are a hole in the file). Valid after drain.
    std::uint64_t encodedBytes() const noexcept { return m_encodedBytes.load(); }

    /// True between start and drain.
    bool running() const noexcept { return m_running; }

    /// Hands the buffer's filled chunk over, to be written at `offset` (`eventsBefore`: the
    /// events recorded before its first one), and points the buffer at the next chunk (the
    /// delta base and event count carry on). Returns true when the program had to write or wait
    /// for a chunk first (back-pressure). Main thread, normal context.
    bool handOver(EventBuffer& buffer, std::uint64_t offset, std::uint64_t eventsBefore) noexcept;

    /// Writes every chunk handed over (taking the waiting ones itself, and translating them
    /// when `translate` and every chunk before was) and stops the thread. Afterwards the
    /// buffer's current chunk is the only one in use. Main thread.
    void drain(bool translate = false) noexcept;

    /// True (and `failure` set) when a chunk could not be written. Valid after drain; during the
    /// run a quick look (the failure may still be written).
    bool failed(Failure& failure) const noexcept;

    /// Signal context: writes every chunk handed over and not known to be written.
    void writePendingInSignal() const noexcept;

    /// The thread's CPU seconds so far.
    double threadCpuSeconds() const noexcept;

private:
    struct Chunk {
        std::uint64_t* memory = nullptr;
        std::size_t words = 0;
        const std::uint64_t* end = nullptr; ///< the filled part's end, once handed over
        std::uint64_t offset = 0;
        std::uint64_t eventsBefore = 0;
        std::atomic<std::uint64_t> handed{0};  ///< sequence number + 1 of its last hand-over
        std::atomic<std::uint64_t> written{0}; ///< sequence number + 1 of its last write
        std::vector<std::uint32_t> parents;    ///< the calling-context tree at the hand-over
    };

    static void* threadMain(void* self) noexcept;
    void runThread() noexcept;
    /// Takes the oldest chunk handed over that nobody took yet, when no chunk is being written;
    /// false otherwise.
    bool claim(std::uint64_t& sequence) noexcept;
    /// Who writes a chunk: the thread and drain at finalize translate it too, the program
    /// during the run only writes it (it waits as briefly as it can: see m_encoding).
    enum class Writer { Thread, Program, Drain };
    /// Translates chunk `sequence` unless `writer` is the program, and writes its records
    /// unless they were kept (or an earlier chunk failed); marks it written and lets the next
    /// writer in.
    void write(std::uint64_t sequence, Writer writer) noexcept;
    bool isFree(const Chunk& chunk) const noexcept;
    /// Waits until `chunk` is free, writing (and when `translate`, translating) waiting chunks
    /// meanwhile; true when it was not.
    bool makeFree(const Chunk& chunk, bool translate) noexcept;
    /// Lends the thread the program's scheduling (SCHED_OTHER) while the program waits for the
    /// chunk it is writing; the thread goes back to SCHED_IDLE after it. Quietly nothing when
    /// the user may not raise a thread's priority.
    void boostThread() const noexcept;
    void noteFailure(std::uint64_t sequence, int error) noexcept;

    Chunk m_chunks[kMaxChunks];
    std::uint32_t m_count = 0;
    int m_fd = -1;
    pid_t m_pid = 0; ///< the process that started the thread (a forked child has none)
    std::atomic<pid_t> m_threadId{0}; ///< the thread's kernel id, once it runs
    bool m_running = false;           ///< main thread only
    std::uint64_t m_filling = 0;      ///< sequence number of the chunk being filled (main thread)
    std::atomic<std::uint64_t> m_handedCount{0};
    std::atomic<std::uint64_t> m_claimed{0};
    std::atomic<std::uint32_t> m_handedWord{0};  ///< futex: the thread waits for a hand-over
    std::atomic<std::uint32_t> m_writtenWord{0}; ///< futex: the program waits for a write
    std::atomic<bool> m_threadSleeps{false};
    std::atomic<bool> m_programWaits{false};
    std::atomic<bool> m_stop{false};
    std::atomic<bool> m_busy{false}; ///< a chunk is being written (by the thread or the program)
    std::atomic<bool> m_failureLock{false};
    std::atomic<std::uint64_t> m_failedSequence{~std::uint64_t{0}};
    Failure m_failure;
    std::atomic<std::uint64_t> m_cpuNanoseconds{0};
    EncodeFunction m_encode = nullptr;
    void* m_encodeContext = nullptr;
    /// Every chunk so far was translated (read by the chunk's writer only): false from the first
    /// one that failed or that the program wrote itself during the run.
    bool m_encoding = true;
    std::atomic<std::uint64_t> m_encodedBytes{0};
};

} // namespace waitscope::measure
