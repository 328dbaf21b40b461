// The threads the program creates while sampling runs: their pthread_create wrapper, each
// thread's timer and sample ring, and the records the main thread keeps for them.
#pragma once

#include "waitscope/measure/event_buffer.h"
#include "waitscope/measure/sample_ring.h"

#include <atomic>
#include <cstdint>
#include <ctime>
#include <memory>
#include <vector>

namespace waitscope::measure {

/// One sampled thread. Allocated by the creating thread in pthread_create and never freed
/// (a late signal may still reach a thread that outlives the measurement); each field says
/// which side writes it.
struct SampledThread {
    // Set by the creating thread before the thread runs.
    void* (*routine)(void*) = nullptr;
    void* argument = nullptr;
    std::uint32_t number = 0;   ///< k = 1, 2, ... in creation order: location k << 32 | rank
    std::uint32_t sequence = 0; ///< its number in the thread order records (0: none recorded)
    std::unique_ptr<std::uint64_t[]> ringMemory;
    SampleRing ring; ///< producer: the thread's signal handler; consumer: the main thread

    // Set by the thread itself.
    timer_t timer{};
    std::atomic<int> armed{0};          ///< 1 while the timer exists; who clears it deletes it
    std::uint64_t beginTime = 0;        ///< valid once phase >= kRunning
    std::uint64_t endTime = 0;          ///< valid once phase == kEnded
    std::atomic<int> phase{0};          ///< kCreated, kRunning, kEnded (release stores)
    std::atomic<std::uint64_t> lost{0}; ///< samples its full ring dropped (its handler)

    // Main thread only: the thread's records, kept in memory until finalize writes them as
    // its location (a few words per sample, outside WAITSCOPE_TOTAL_MEMORY's buffer).
    std::uint32_t region = 0; ///< the start routine's region
    bool entered = false;
    bool left = false;
    std::uint32_t lastContext = 0; ///< the last sample's context, valid when `sampled`
    bool sampled = false;
    std::uint64_t lostFolded = 0; ///< part of `lost` already added to the diagnostics
    std::vector<std::uint64_t> recordMemory;
    EventBuffer records;

    static constexpr int kCreated = 0;
    static constexpr int kRunning = 1;
    static constexpr int kEnded = 2;
};

/// The sampled thread the calling thread is (nullptr on the main thread and on threads not
/// sampled). Initial-exec TLS: the signal handler reads it with one load.
extern __thread SampledThread* t_sampledThread __attribute__((tls_model("initial-exec")));

/// Main thread, in samplingStart: threads created from now on are sampled at `frequency` Hz.
void threadSamplingStart(std::uint32_t frequency) noexcept;
/// Main thread, in samplingStop: threads created from now on are not sampled, and the timers
/// of sampled threads still running are deleted.
void threadSamplingStop() noexcept;

/// Any thread: a location number for a thread that is not sampled but recorded (an OpenMP
/// thread created before sampling started): the next one of the sampled threads' sequence, so
/// numbers stay unique; its slot stays empty. 0 when the table is full.
std::uint32_t reserveThreadNumber() noexcept;

/// Any thread: the number of sampled threads registered so far; sampledThread(i) for i below
/// it is valid (acquire: its creating thread's fields are visible).
std::uint32_t sampledThreadCount() noexcept;
SampledThread* sampledThread(std::uint32_t index) noexcept;

} // namespace waitscope::measure
