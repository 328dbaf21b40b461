// The measurement runtime: state every wrapper reads, event recording, and the run's lifecycle.
//
// Everything a wrapper touches on its fast path lives in `g_hot`, a constant-initialized
// global (no static constructor runs when the library is loaded into a program). The
// lifecycle functions run inside MPI_Init/MPI_Finalize/MPI_Abort; none of them throws, prints
// into or aborts the program: problems are counted and written to the experiment.
#pragma once

#include "waitscope/measure/clock.h"
#include "waitscope/measure/config.h"
#include "waitscope/measure/definitions.h"
#include "waitscope/measure/event_buffer.h"

#include <atomic>
#include <cstdint>
#include <pthread.h>
#include <vector>

namespace waitscope::measure {

/// How many nested user regions finalize can close (deeper ones are counted, not closed).
inline constexpr std::uint32_t kUserStackDepth = 256;

/// What the sampling part (measurement/sampling) does at the points where the main thread
/// records, when it runs. Every hook runs on the main thread outside signal context.
struct SamplingHooks {
    /// At an MPI call that is recorded, before its first record: records the samples taken
    /// since the last record, then the call path of the call (a CallingContextEnter), timed
    /// at `enter` when non-zero (a call whose records are written after it returned), else now.
    /// Returns the time it read last when nothing of the measurement's work came after it (a
    /// stack seen before): the call's Enter may take it, if no record came since; else 0.
    std::uint64_t (*callSite)(std::uint64_t enter) noexcept;
    /// Before a user region's Enter/Leave: records pending samples and leaves the open
    /// calling context, so instrumented regions nest correctly with unwound paths.
    void (*beforeUserEvent)() noexcept;
};

/// The state read on every wrapped call.
struct HotState {
    std::uint32_t recordMask = 0; ///< groups being recorded; 0 outside MPI_Init..MPI_Finalize
    pthread_t mainThread{};       ///< the thread that initialized MPI (the rank's location)
    EventBuffer buffer;
    Clock clock;
    std::uint32_t userDepth = 0; ///< open user regions; finalize closes them
    std::uint32_t userStack[kUserStackDepth] = {};
    const SamplingHooks* sampling = nullptr; ///< set while sampling runs
    /// Recorded MPI calls in progress on the main thread; the sampling signal handler ignores
    /// samples while it is not 0.
    volatile std::uint32_t insideMpi = 0;
};
extern HotState g_hot;

/// True on the thread that started the measurement (the rank's own location). Initial-exec
/// TLS: one load, no call.
extern __thread bool t_onMainThread __attribute__((tls_model("initial-exec")));

/// The buffer the calling thread records into: the rank's (`g_hot.buffer`) on the main thread
/// and on threads that record nothing, the thread's own (measurement/openmp) on a further
/// thread that records its MPI calls. Only its own thread writes it; no lock.
extern __thread EventBuffer* t_events __attribute__((tls_model("initial-exec")));

/// Problems and costs the measurement counts about itself.
struct Diagnostics {
    /// Buffer flushes the program waited for during the run (each a TRACE BUFFER FLUSH region):
    /// its own writes, and chunks it needed while the spill writer had not written them yet
    std::uint64_t flushes = 0;
    std::uint64_t flushTicks = 0;    ///< time spent in flushes and in handing chunks over
    std::uint64_t spilledChunks = 0; ///< full buffer chunks written to the spill file in the run
    /// MPI calls from threads other than the main one that could not be recorded (no memory for
    /// the thread's records, or after the thread table filled up)
    std::uint64_t foreignThreadCalls = 0;
    std::uint64_t unknownRequests = 0; ///< completions of requests the wrappers never saw
    std::uint64_t unknownComms = 0;    ///< communicators used that the wrappers never saw
    std::uint64_t otf2Errors = 0;      ///< OTF2 calls that failed
    std::uint64_t countedCalls = 0;    ///< calls counted but not recorded (rank/size queries)
    std::uint64_t skippedTests = 0;    ///< Test/Iprobe calls that completed nothing, not recorded
    std::uint64_t filteredCalls = 0;   ///< user function calls excluded by the filter
    std::uint64_t clockMismatch = 0;   ///< this rank's clock kind differed from rank 0's
    std::uint64_t lostEvents = 0;      ///< events a full buffer could not be spilled with
    std::uint64_t samples = 0;         ///< timer samples recorded with their call path
    std::uint64_t samplesInMpi = 0;    ///< samples that landed inside MPI or the measurement
    std::uint64_t failedUnwinds = 0;   ///< samples and call sites recorded as "failed unwind"
    std::uint64_t lostSamples = 0;     ///< samples dropped: no room to keep them until recorded
    std::uint64_t unwoundCalls = 0;    ///< MPI calls whose call path was unwound
    /// Of those, the calls whose stack was unwound frame by frame; the others matched a stack
    /// snapshot (CallPathUnwinder::contextOfCallSite) and cost no unwinding.
    std::uint64_t unwoundStacks = 0;
    std::uint64_t contextRecords = 0; ///< calling-context records (samples, call paths) written
    std::uint64_t sampledThreads = 0; ///< threads sampled and recorded as their own locations
    /// Threads created while sampling did not run (before MPI_Init: the MPI library's own;
    /// after MPI_Finalize; sampling off) or that could not get sampling state. Any thread.
    std::uint64_t unsampledThreads = 0;
    std::uint64_t openmpThreads = 0;     ///< OpenMP threads recorded (OMPT), the main one too
    std::uint64_t openmpEvents = 0;      ///< events of the other OpenMP threads
    std::uint64_t openmpLostEvents = 0;  ///< OpenMP events a thread had no memory for
    std::uint64_t openmpWithoutOmpt = 0; ///< 1: OpenMP runs on a runtime without OMPT
};
extern Diagnostics g_diagnostics;

/// Adds one to a diagnostics counter that threads other than the main one increment too
/// (counted calls, foreign-thread calls of an MPI_THREAD_MULTIPLE program): a relaxed atomic
/// add, so no count is lost and the threads do not race. Any thread, not signal context.
inline void countFromAnyThread(std::uint64_t& counter) noexcept {
    std::atomic_ref<std::uint64_t>(counter).fetch_add(1, std::memory_order_relaxed);
}

/// Called when a recorded group is set but the caller is not the main thread: registers the
/// thread for recording its MPI calls on its own location (openmp_recorder.h), and true when
/// it is; otherwise counts the call and warns once.
bool foreignThread() noexcept;

/// Further threads' MPI recording (measurement/openmp, when linked in). Any thread but the
/// main one, not signal context.
/// Registers the calling thread (once) and points `t_events` at its own buffer; false when the
/// thread table is full or memory is short.
bool threadMpiRegister() noexcept __attribute__((weak));
/// Brackets one recorded MPI call of the thread, so that finalize takes only whole calls: false
/// (and nothing to end) when finalize already took the thread's records.
bool threadCallBegins() noexcept __attribute__((weak));
void threadCallEnds() noexcept __attribute__((weak));
/// The calling thread's buffer has no room for `words` more words: a new chunk, or, when memory
/// is short, a scratch buffer whose records are dropped (counted).
void threadRecordsFull(std::size_t words) noexcept __attribute__((weak));

/// The order of POSIX threads (measurement/threads/thread_order.cpp, when linked in): any
/// thread, not signal context. In the pthread_create wrapper, before the thread is created:
/// records ThreadCreate on the calling thread's location when the rank is measured and
/// `caller` (a return address) is the program's code, and returns the new thread's sequence
/// number in the rank's thread contingent (0: nothing recorded, none to pass on).
std::uint32_t threadCreateRecord(const void* caller) noexcept __attribute__((weak));
/// The new thread, first thing in its start routine: ThreadBegin with `sequence`, on its own
/// location (registered now if it is not yet).
void threadBeginRecord(std::uint32_t sequence) noexcept __attribute__((weak));
/// The thread as it ends (return, pthread_exit or cancellation): ThreadEnd, its last record.
void threadEndRecord(std::uint32_t sequence) noexcept __attribute__((weak));

/// True when calls of `group` are recorded on this thread now.
inline bool isRecording(std::uint32_t group) noexcept {
    if ((g_hot.recordMask & group) == 0)
        return false;
    return t_onMainThread || foreignThread();
}

inline std::uint64_t now() noexcept {
    return g_hot.clock.now();
}

/// Empties a full buffer: hands its chunk to the spill writer thread and goes on in the next
/// one, or writes it to the spill file itself; a flush the program had to wait for is recorded
/// as a region (`recordRegion`). Slow path. On a further thread (`t_events` not the rank's
/// buffer): gives the thread room instead.
void flushEvents(bool recordRegion) noexcept;

/// Makes room for `words` words of records before the call takes its first timestamp,
/// so a flush never lands between the timestamps of one call.
inline void ensureRoom(std::size_t words) noexcept {
    if (!t_events->fits(words + 2 * kMaxRecordWords))
        flushEvents(true);
}

/// Reserves one record of `kind` and returns the slot for its extra words.
inline std::uint64_t* appendRecord(std::uint64_t time, EventKind kind, std::uint32_t a) noexcept {
    EventBuffer* buffer = t_events;
    if (!buffer->fits(recordWords(*buffer, time, kind))) {
        flushEvents(false); // only for calls larger than ensureRoom could promise
        buffer = t_events;  // a further thread's may have moved to a new chunk
    }
    ++buffer->events;
    return writeRecord(*buffer, time, kind, a);
}

/// Records the end of a blocking collective (the compact form when the byte counts fit).
inline void recordCollectiveEnd(std::uint64_t time, std::uint32_t op, std::uint32_t comm,
                                std::uint32_t root, std::uint64_t sent,
                                std::uint64_t received) noexcept {
    if ((sent | received) <= 0xffffffffull) {
        std::uint64_t* x = appendRecord(time, EventKind::MpiCollectiveEnd, op);
        x[0] = packPair(comm, root);
        x[1] = packPair(static_cast<std::uint32_t>(sent), static_cast<std::uint32_t>(received));
    } else {
        std::uint64_t* x = appendRecord(time, EventKind::MpiCollectiveEndLarge, op);
        x[0] = packPair(comm, root);
        x[1] = sent;
        x[2] = received;
    }
}

inline void recordEnter(std::uint64_t time, std::uint32_t region) noexcept {
    appendRecord(time, EventKind::Enter, region);
}
inline void recordLeave(std::uint64_t time, std::uint32_t region) noexcept {
    appendRecord(time, EventKind::Leave, region);
}

/// The local definitions of this rank (regions, communicators). Valid after runtimeInit.
Definitions& definitions() noexcept;

/// This rank's number in MPI_COMM_WORLD (0 before init).
int worldRank() noexcept;
int worldSize() noexcept;

/// Region ids of the measurement's own regions.
std::uint32_t flushRegion() noexcept;

/// Regions of the wrapped MPI functions, defined by the MPI layer when it is linked in
/// (local ids 0..n-1 in its table order).
void registerWrappedRegions(Definitions& defs) __attribute__((weak));

/// Starts recording early, at the first instrumented function (before MPI_Init) or in
/// MPI_Init: configuration, clock, buffer, definitions, ProgramBegin. Idempotent; false when
/// the measurement is disabled. Only user regions are recorded until runtimeInit.
bool runtimeStart() noexcept;

/// Records entering / leaving a user region (compiler hooks, annotations). Main thread only.
inline void enterUserRegion(std::uint32_t region) noexcept {
    if (__builtin_expect(g_hot.sampling != nullptr, 0))
        g_hot.sampling->beforeUserEvent();
    std::uint32_t depth = g_hot.userDepth++;
    if (depth < kUserStackDepth)
        g_hot.userStack[depth] = region;
    ensureRoom(kMaxRecordWords);
    recordEnter(now(), region);
}
inline void leaveUserRegion(std::uint32_t region) noexcept {
    if (g_hot.userDepth == 0)
        return; // entered before the measurement started: nothing to close
    if (__builtin_expect(g_hot.sampling != nullptr, 0))
        g_hot.sampling->beforeUserEvent();
    --g_hot.userDepth;
    ensureRoom(kMaxRecordWords);
    recordLeave(now(), region);
}

/// Starts sampling and call-path unwinding (WAITSCOPE_SAMPLING) at the end of runtimeInit,
/// when the sampling part is linked in. Returns false if the timer could not be set up.
bool samplingStart(const Config& config) noexcept __attribute__((weak));
/// Stops the timer and records the pending samples and the path to MPI_Finalize, at the start
/// of runtimeFinalize. The open path is left before ProgramEnd (SamplingHooks::beforeUserEvent).
void samplingStop() noexcept __attribute__((weak));

/// The records of a thread other than the main one, kept apart from the main thread's (a
/// sampled thread): written as the rank's location `number << 32 | rank`.
struct ThreadRecords {
    std::uint32_t number = 0; ///< 1, 2, ... in the threads' creation order
    const std::uint64_t* begin = nullptr;
    const std::uint64_t* end = nullptr;
    std::uint64_t events = 0;
};
/// The sampled threads' records in creation order, valid after samplingStop (each an Enter
/// of the thread's start routine, its samples, the Leave). Main thread, in finalize.
std::vector<ThreadRecords> sampledThreadRecords() noexcept __attribute__((weak));

/// The OpenMP threads' records (measurement/openmp, when an OMPT runtime loaded it), added to
/// `threads` at finalize, after samplingStop: a thread that is also sampled gets its records
/// merged into its entry by time, the others are appended. Stops the OpenMP recording. Main
/// thread, in finalize.
void addOpenmpThreadRecords(std::vector<ThreadRecords>& threads) noexcept __attribute__((weak));

/// Starts the measurement right after PMPI_Init(_thread) succeeded: reads the configuration,
/// creates the experiment directory (or decides to run unmeasured), opens the trace.
/// `initEnter`/`initLeave` bracket the PMPI_Init call in CLOCK_MONOTONIC nanoseconds (the
/// event clock is chosen only now); the MPI_Init region is recorded with them.
void runtimeInit(std::uint32_t initRegion, std::uint64_t initEnter,
                 std::uint64_t initLeave) noexcept;

/// Ends the measurement inside MPI_Finalize, before PMPI_Finalize: records the finalize
/// region, writes events, unifies and writes definitions, writes the self-measurement.
void runtimeFinalize(std::uint32_t finalizeRegion, std::uint64_t enter) noexcept;

/// Records that PMPI_Finalize returned after `ticks` (the finalize hook time).
void runtimeAfterFinalize(std::uint64_t finalizeHookTicks) noexcept;

/// Saves what this rank has before MPI_Abort ends the job: its events, and its status.
void runtimeAbort(int errorCode) noexcept;

/// True once runtimeInit ran (whether or not the run is measured).
bool runtimeInitialized() noexcept;

} // namespace waitscope::measure
