// The OpenMP threads' records: the OpenMP constructs (a kind and a code address) that become
// regions, each thread's own buffer (written by that thread alone, without locks), and their
// hand-over to the trace at finalize.
#pragma once

#include "waitscope/measure/event_buffer.h"

#include <cstdint>

namespace waitscope::measure::openmp {

/// The OpenMP constructs recorded, each a region of OTF2's OpenMP paradigm with its role.
enum class Construct : std::uint8_t {
    Fork,            ///< the encountering thread, from the fork until its implicit task begins
    Join,            ///< the encountering thread, from its implicit task's end to the join
    Parallel,        ///< a thread's implicit task in the team
    ImplicitBarrier, ///< the barrier at the end of a parallel region or a worksharing construct
    Barrier,         ///< `#pragma omp barrier`
    Loop,            ///< a worksharing loop
    Sections,
    Single,
    Critical,       ///< from requesting a critical section until leaving it
    CriticalSblock, ///< inside a critical section
    Lock,           ///< omp_set_lock / omp_set_nest_lock until the lock is acquired
    Ordered,
    OrderedSblock,
    Taskwait,
    TaskCreate, ///< the creation of an explicit task (an instant: enter and leave together)
    Task,       ///< an explicit task's execution
    // The POSIX threads calls (measurement/threads) share the recorder: Score-P's pthread
    // regions, recorded on the thread that calls them.
    PthreadMutexLock,
    PthreadMutexTrylock,
    PthreadMutexUnlock,
    PthreadCondWait,
    PthreadCondTimedwait,
    PthreadCondSignal,
    PthreadCondBroadcast,
    PthreadJoin,
    Count
};

struct OmpThread;

/// A thread the OMPT runtime starts (a worker): its records and location number. Any thread,
/// once, in the runtime's thread-begin callback; nullptr when memory is short.
OmpThread* threadBegin() noexcept;
/// The calling thread's state (nullptr: the main thread, or a thread not registered).
OmpThread* currentThread() noexcept;

/// Records entering / leaving `construct` at `codeptr` on the calling thread (the main thread
/// records into the rank's buffer, the others into their own). Returns at once while the rank
/// is not measured.
void enter(Construct construct, const void* codeptr) noexcept;
void leave(Construct construct, const void* codeptr) noexcept;

/// Records one thread order record (ThreadCreate, ThreadBegin, ThreadWait, ThreadEnd) with the
/// created thread's `sequence` on the calling thread's location (a thread other than the main
/// one is registered first, as on its first POSIX threads call). Returns at once while the
/// rank is not measured; a thread without memory for it counts it lost.
void recordThreadOrder(EventKind kind, std::uint32_t sequence) noexcept;

/// Notes that the OMPT runtime started the tool (for the self-measurement).
void toolStarted() noexcept;

/// Any thread: the calling thread's records, registered on its first POSIX threads call (a
/// thread the program created: not the main one, not an OpenMP thread). nullptr on the main
/// thread or when memory is short.
OmpThread* pthreadBegin() noexcept;

} // namespace waitscope::measure::openmp
