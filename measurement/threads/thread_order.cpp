// Records the order of the program's POSIX threads as OTF2's thread create/wait model does:
// ThreadCreate on the creating thread's location when the program calls pthread_create,
// ThreadBegin as the new thread's first record and ThreadEnd as its last, ThreadWait on the
// joining thread when pthread_join returned. The four share the created thread's sequence
// number in the rank's thread contingent (1, 2, ... in creation order), so the analysis can
// pair them: a thread cannot begin before its creation, and a join waits for its thread's end.
//
// The pthread_create wrapper (measurement/sampling/thread_sampling.cpp) takes the number and
// hands it to the new thread's start routine; the thread files its pthread_t with the number
// in a lock-free table, where pthread_join finds it (and clears it: the C library reuses a
// joined thread's pthread_t). A detached thread clears its own entry when it ends; one detached
// later, whose entry stays, is replaced by the next thread filed with its pthread_t, which the
// C library hands out only after that thread ended. Only threads the program's own code creates are
// recorded, as for the other POSIX threads calls (program_code.h): not the MPI library's progress
// threads nor the OpenMP runtime's workers.
#include "thread_order.h"

#include "../openmp/openmp_recorder.h"
#include "program_code.h"
#include "waitscope/measure/runtime.h"

#include <atomic>
#include <pthread.h>

namespace waitscope::measure {
namespace {

/// Threads alive at once whose join can be recorded; more are created and joined unrecorded.
constexpr std::uint32_t kSlots = 4096;
constexpr std::uint64_t kFree = 0;     ///< a slot never used (ends a search)
constexpr std::uint64_t kReleased = 1; ///< a slot whose thread was joined (reusable)

struct ThreadSlot {
    std::atomic<std::uint64_t> key{kFree}; ///< the pthread_t plus 2
    std::atomic<std::uint32_t> sequence{0};
};

ThreadSlot g_slots[kSlots];
std::atomic<std::uint32_t> g_nextSequence{1};

std::uint64_t keyOf(pthread_t thread) noexcept {
    return static_cast<std::uint64_t>(thread) + 2;
}

std::uint32_t firstSlot(std::uint64_t key) noexcept {
    return static_cast<std::uint32_t>((key * 0x9E3779B97F4A7C15ull) >> 52) & (kSlots - 1);
}

/// The calling thread's pthread_t with its sequence number, in the first slot from its hash on
/// that is free, released, or still holds the same pthread_t: that entry is an ended detached
/// thread's (a live thread's pthread_t is its own), and lookups, which stop at the first match,
/// must find the new one. False when the table is full.
bool fileThread(std::uint32_t sequence) noexcept {
    const std::uint64_t key = keyOf(pthread_self());
    const std::uint32_t first = firstSlot(key);
    for (std::uint32_t probe = 0; probe < kSlots; ++probe) {
        ThreadSlot& slot = g_slots[(first + probe) & (kSlots - 1)];
        std::uint64_t seen = slot.key.load(std::memory_order_acquire);
        if (seen == key) {
            slot.sequence.store(sequence, std::memory_order_relaxed);
            return true;
        }
        while (seen == kFree || seen == kReleased) {
            if (slot.key.compare_exchange_weak(seen, key, std::memory_order_acq_rel)) {
                // Read only by a joiner of this thread, after the thread ended.
                slot.sequence.store(sequence, std::memory_order_relaxed);
                return true;
            }
        }
    }
    return false;
}

/// The slot of `thread`, or nullptr when it was never filed (a search ends at a free slot).
ThreadSlot* slotOf(pthread_t thread) noexcept {
    const std::uint64_t key = keyOf(thread);
    const std::uint32_t first = firstSlot(key);
    for (std::uint32_t probe = 0; probe < kSlots; ++probe) {
        ThreadSlot& slot = g_slots[(first + probe) & (kSlots - 1)];
        const std::uint64_t seen = slot.key.load(std::memory_order_acquire);
        if (seen == key)
            return &slot;
        if (seen == kFree)
            return nullptr;
    }
    return nullptr;
}

bool rankMeasured() noexcept {
    return std::atomic_ref<std::uint32_t>(g_hot.recordMask).load(std::memory_order_relaxed) != 0;
}

} // namespace

std::uint32_t threadCreateRecord(const void* caller) noexcept {
    if (!rankMeasured() || !isProgramCode(caller))
        return 0;
    const std::uint32_t sequence = g_nextSequence.fetch_add(1, std::memory_order_relaxed);
    if (sequence > kOperandMask)
        return 0; // the records hold 26 bits
    openmp::recordThreadOrder(EventKind::ThreadCreate, sequence);
    return sequence;
}

void threadBeginRecord(std::uint32_t sequence) noexcept {
    if (sequence == 0)
        return;
    fileThread(sequence); // when the table is full, its join is not recorded

    openmp::recordThreadOrder(EventKind::ThreadBegin, sequence);
}

void threadEndRecord(std::uint32_t sequence) noexcept {
    if (sequence == 0)
        return;
    openmp::recordThreadOrder(EventKind::ThreadEnd, sequence);
    // No one joins a detached thread: its entry goes now, so that threads detached by the
    // thousand do not fill the table.
    pthread_attr_t attributes;
    int detachState = PTHREAD_CREATE_JOINABLE;
    if (pthread_getattr_np(pthread_self(), &attributes) == 0) {
        pthread_attr_getdetachstate(&attributes, &detachState);
        pthread_attr_destroy(&attributes);
    }
    if (detachState != PTHREAD_CREATE_DETACHED)
        return;
    if (ThreadSlot* slot = slotOf(pthread_self()))
        slot->key.store(kReleased, std::memory_order_release);
}

void threadJoined(pthread_t thread, bool record) noexcept {
    ThreadSlot* slot = slotOf(thread);
    if (!slot)
        return;
    if (record)
        openmp::recordThreadOrder(EventKind::ThreadWait,
                                  slot->sequence.load(std::memory_order_relaxed));
    slot->key.store(kReleased, std::memory_order_release);
}

} // namespace waitscope::measure
