// The spill writer thread and the hand-over of full buffer chunks (see spill_writer.h).
#include "spill_writer.h"

#include "spill_file.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <csignal>
#include <ctime>
#include <dlfcn.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace waitscope::measure {

namespace {

/// Sleeps while `*word` is `expected`, at most `timeoutNs` (0: no limit). Spurious returns are
/// fine: callers check their condition again.
void futexWait(std::atomic<std::uint32_t>& word, std::uint32_t expected, long timeoutNs) noexcept {
    timespec timeout{0, timeoutNs};
    ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAIT_PRIVATE, expected,
              timeoutNs > 0 ? &timeout : nullptr, nullptr, 0);
}

void futexWakeAll(std::atomic<std::uint32_t>& word) noexcept {
    ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAKE_PRIVATE, INT_MAX,
              nullptr, nullptr, 0);
}

using CreateFunction = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);

/// The C library's pthread_create, not the measurement's wrapper (measurement/sampling): the
/// writer is the measurement's own thread, never sampled, recorded or counted.
CreateFunction libraryCreate() noexcept {
    return reinterpret_cast<CreateFunction>(dlsym(RTLD_NEXT, "pthread_create"));
}

} // namespace

bool SpillWriter::start(EventBuffer& buffer, std::uint64_t* memory, std::size_t words,
                        int fd) noexcept {
    if (m_running || fd < 0 || memory == nullptr)
        return false;
    const std::size_t count = std::min<std::size_t>(kMaxChunks, words / kMinChunkWords);
    if (count < 2)
        return false;
    const std::size_t chunkWords = words / count;
    // The records so far stay where they are, at the start of the first chunk.
    if (buffer.begin != memory || buffer.cursor > memory + chunkWords)
        return false;
    CreateFunction create = libraryCreate();
    if (create == nullptr)
        return false;
    m_count = static_cast<std::uint32_t>(count);
    for (std::uint32_t k = 0; k < m_count; ++k) {
        m_chunks[k].memory = memory + k * chunkWords;
        m_chunks[k].words = chunkWords;
    }
    m_fd = fd;
    m_pid = ::getpid();
    // Every signal blocked in the thread (it inherits the mask it is created with).
    sigset_t all, previous;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &previous);
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attributes, 64u << 10);
    pthread_t thread;
    const int created = create(&thread, &attributes, &SpillWriter::threadMain, this);
    pthread_attr_destroy(&attributes);
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    if (created != 0)
        return false;
    buffer.end = memory + chunkWords;
    m_running = true;
    return true;
}

void* SpillWriter::threadMain(void* self) noexcept {
    // Only a core nobody else wants; when the program needs a chunk it writes it itself.
    sched_param none{};
    pthread_setschedparam(pthread_self(), SCHED_IDLE, &none);
    static_cast<SpillWriter*>(self)->runThread();
    return nullptr;
}

void SpillWriter::runThread() noexcept {
    m_threadId.store(static_cast<pid_t>(::syscall(SYS_gettid)));
    while (true) {
        const std::uint32_t seen = m_handedWord.load();
        std::uint64_t sequence = 0;
        if (claim(sequence)) {
            write(sequence, Writer::Thread);
            // Back to a core nobody else wants, if the program lent it its priority (boost).
            if (sched_getscheduler(0) != SCHED_IDLE) {
                sched_param none{};
                pthread_setschedparam(pthread_self(), SCHED_IDLE, &none);
            }
            continue;
        }
        if (m_stop.load())
            return;
        m_threadSleeps.store(true);
        if (m_handedWord.load() == seen && !m_stop.load())
            futexWait(m_handedWord, seen, 0);
        m_threadSleeps.store(false);
    }
}

bool SpillWriter::claim(std::uint64_t& sequence) noexcept {
    // One chunk is written at a time, in order: the file never has a hole before a chunk
    // written (a rank killed meanwhile leaves whole records up to a point).
    if (m_busy.exchange(true, std::memory_order_acquire))
        return false;
    const std::uint64_t next = m_claimed.load();
    if (next >= m_handedCount.load(std::memory_order_acquire)) {
        m_busy.store(false, std::memory_order_release);
        return false;
    }
    m_claimed.store(next + 1);
    sequence = next;
    return true;
}

void SpillWriter::write(std::uint64_t sequence, Writer writer) noexcept {
    Chunk& chunk = m_chunks[sequence % m_count];
    // After a failed chunk the file ends before it (drain truncates it): nothing later is kept.
    if (m_failedSequence.load() > sequence) {
        const std::size_t bytes = static_cast<std::size_t>(chunk.end - chunk.memory) * 8;
        Encoded encoded = Encoded::No;
        if (m_encode != nullptr && m_encoding) {
            // Chunks are written one at a time and in order: so are they translated, from the
            // file's start (records spilled before the thread started are not). A chunk the
            // program writes itself is not (it only frees the chunk it needs, and finalize
            // translates from there on: the translation goes in order or not at all).
            if (writer != Writer::Program && chunk.offset == m_encodedBytes.load())
                encoded = m_encode(m_encodeContext, chunk.memory, chunk.end, &chunk.parents,
                                   chunk.offset + bytes);
            m_encoding = encoded != Encoded::No;
            if (m_encoding)
                m_encodedBytes.store(chunk.offset + bytes);
        }
        errno = 0;
        if (encoded != Encoded::Kept && !writeAllAt(m_fd, chunk.memory, bytes, chunk.offset))
            noteFailure(sequence, errno);
    }
    if (writer == Writer::Thread) {
        // The thread's CPU so far, before the chunk counts as written: drain reads it then.
        timespec cpu{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
        m_cpuNanoseconds.store(static_cast<std::uint64_t>(cpu.tv_sec) * 1000000000u +
                                   static_cast<std::uint64_t>(cpu.tv_nsec),
                               std::memory_order_relaxed);
    }
    chunk.written.store(sequence + 1, std::memory_order_release);
    m_busy.store(false, std::memory_order_release);
    m_writtenWord.fetch_add(1);
    if (m_programWaits.load())
        futexWakeAll(m_writtenWord);
    // Chunks handed over while this one was written by the program: the thread's now.
    if (m_claimed.load() < m_handedCount.load()) {
        m_handedWord.fetch_add(1);
        if (m_threadSleeps.load())
            futexWakeAll(m_handedWord);
    }
}

void SpillWriter::noteFailure(std::uint64_t sequence, int error) noexcept {
    // Rare: the writers of two failing chunks take turns to keep the earlier one.
    while (m_failureLock.exchange(true, std::memory_order_acquire))
        sched_yield();
    if (sequence < m_failedSequence.load()) {
        const Chunk& chunk = m_chunks[sequence % m_count];
        m_failure.error = error;
        m_failure.offset = chunk.offset;
        m_failure.eventsBefore = chunk.eventsBefore;
        m_failedSequence.store(sequence);
    }
    m_failureLock.store(false, std::memory_order_release);
}

bool SpillWriter::isFree(const Chunk& chunk) const noexcept {
    return chunk.written.load(std::memory_order_acquire) ==
           chunk.handed.load(std::memory_order_relaxed);
}

void SpillWriter::boostThread() const noexcept {
    const pid_t thread = m_threadId.load();
    if (thread == 0 || ::getpid() != m_pid)
        return;
    // Refused (EPERM) unless the user may raise priorities (RLIMIT_NICE, CAP_SYS_NICE): then the
    // program waits as before. The thread goes back to SCHED_IDLE after its chunk.
    sched_param normal{};
    ::sched_setscheduler(thread, SCHED_OTHER, &normal);
}

bool SpillWriter::makeFree(const Chunk& chunk, bool translate) noexcept {
    bool waited = false;
    while (true) {
        const std::uint32_t seen = m_writtenWord.load();
        if (isFree(chunk))
            return waited;
        waited = true;
        std::uint64_t sequence = 0;
        if (claim(sequence)) {
            write(sequence, translate ? Writer::Drain : Writer::Program);
            continue;
        }
        if (::getpid() != m_pid) {
            // A forked child: the parent's thread is not here to finish the chunk it had taken
            // (nor to be lent a priority: its id may be another process's thread now).
            m_pid = ::getpid();
            m_threadId.store(0);
            for (std::uint32_t k = 0; k < m_count; ++k) {
                const std::uint64_t handed = m_chunks[k].handed.load();
                if (handed != 0 && handed <= m_claimed.load() &&
                    m_chunks[k].written.load() != handed) {
                    m_busy.store(true);
                    write(handed - 1, Writer::Program);
                }
            }
            continue;
        }
        // Only a chunk the thread is writing right now: wait for it (bounded waits, so that
        // nothing is missed even if a wake-up were), lending it the program's priority: at
        // SCHED_IDLE on a busy machine it would get no core while the program waits for it.
        boostThread();
        m_programWaits.store(true);
        if (m_writtenWord.load() == seen && !isFree(chunk))
            futexWait(m_writtenWord, seen, 20 * 1000 * 1000);
        m_programWaits.store(false);
    }
}

bool SpillWriter::handOver(EventBuffer& buffer, std::uint64_t offset,
                           std::uint64_t eventsBefore) noexcept {
    const std::uint64_t sequence = m_filling;
    Chunk& full = m_chunks[sequence % m_count];
    full.end = buffer.cursor;
    full.offset = offset;
    full.eventsBefore = eventsBefore;
    full.handed.store(sequence + 1, std::memory_order_release);
    m_handedCount.store(sequence + 1, std::memory_order_release);
    m_handedWord.fetch_add(1);
    if (m_threadSleeps.load())
        futexWakeAll(m_handedWord);
    m_filling = sequence + 1;
    Chunk& next = m_chunks[m_filling % m_count];
    const bool waited = makeFree(next, false);
    buffer.begin = buffer.cursor = next.memory;
    buffer.end = next.memory + next.words;
    return waited;
}

void SpillWriter::drain(bool translate) noexcept {
    if (!m_running)
        return;
    // At finalize the program translates the chunks it writes now (else it would read them
    // back from the file), after the thread's.
    for (std::uint32_t k = 0; k < m_count; ++k)
        if (&m_chunks[k] != &m_chunks[m_filling % m_count])
            makeFree(m_chunks[k], translate);
    m_stop.store(true);
    m_handedWord.fetch_add(1);
    futexWakeAll(m_handedWord);
    m_running = false;
}

bool SpillWriter::failed(Failure& failure) const noexcept {
    if (m_failedSequence.load() == ~std::uint64_t{0})
        return false;
    failure = m_failure;
    return true;
}

void SpillWriter::writePendingInSignal() const noexcept {
    for (std::uint32_t k = 0; k < m_count; ++k) {
        const Chunk& chunk = m_chunks[k];
        const std::uint64_t handed = chunk.handed.load(std::memory_order_acquire);
        if (handed == 0 || chunk.written.load(std::memory_order_acquire) == handed)
            continue;
        // Perhaps being written by the thread right now: the same bytes at the same place.
        writeAllAt(m_fd, chunk.memory, static_cast<std::size_t>(chunk.end - chunk.memory) * 8,
                   chunk.offset);
    }
}

double SpillWriter::threadCpuSeconds() const noexcept {
    return static_cast<double>(m_cpuNanoseconds.load(std::memory_order_relaxed)) * 1e-9;
}

} // namespace waitscope::measure
