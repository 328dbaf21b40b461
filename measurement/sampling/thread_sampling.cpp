// Samples every thread the program creates while sampling runs: pthread_create is wrapped so
// that each new thread registers, arms its own timer and samples into its own ring until it
// ends (return, pthread_exit or cancellation).
//
// The wrapper works preloaded and linked: it finds the C library's pthread_create with
// dlsym(RTLD_NEXT). OpenMP runtimes (libgomp) create their workers with pthread_create and are
// covered by the same wrapper. Threads created before sampling starts (before MPI_Init, the
// MPI library's own threads) or after it stopped are passed straight through and counted.
#include "thread_sampling.h"

#include "waitscope/measure/call_path_unwinder.h"
#include "waitscope/measure/runtime.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <dlfcn.h>
#include <new>
#include <pthread.h>
#include <unistd.h>

namespace waitscope::measure {

__thread SampledThread* t_sampledThread __attribute__((tls_model("initial-exec"))) = nullptr;

namespace {

/// Room for raw samples of one thread between two of the main thread's record points: 1 MiB,
/// about 5 000 samples of 24 frames.
constexpr std::size_t kThreadRingWords = 1u << 17;
/// The most threads sampled per process; later ones are counted as not sampled.
constexpr std::uint32_t kMaxThreads = 1024;

using CreateFunction = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);

std::atomic<long> g_periodNs{0}; ///< the threads' timer period; 0: new threads are not sampled
std::atomic<std::uint32_t> g_reserved{0};
std::atomic<SampledThread*> g_threads[kMaxThreads];
std::atomic<CreateFunction> g_realCreate{nullptr};

CreateFunction realCreate() noexcept {
    CreateFunction create = g_realCreate.load(std::memory_order_acquire);
    if (!create) {
        create = reinterpret_cast<CreateFunction>(dlsym(RTLD_NEXT, "pthread_create"));
        g_realCreate.store(create, std::memory_order_release);
    }
    return create;
}

/// Creating thread: a new thread's sampling state, registered in creation order; nullptr when
/// the table is full or memory is short (the thread then runs unsampled).
SampledThread* registerThread(void* (*routine)(void*), void* argument) noexcept {
    if (g_reserved.load(std::memory_order_relaxed) >= kMaxThreads)
        return nullptr;
    auto* thread = new (std::nothrow) SampledThread();
    if (!thread)
        return nullptr;
    thread->ringMemory.reset(new (std::nothrow) std::uint64_t[kThreadRingWords]);
    std::uint32_t slot = g_reserved.fetch_add(1, std::memory_order_relaxed);
    if (!thread->ringMemory || slot >= kMaxThreads) {
        delete thread; // its slot stays empty: the main thread skips it
        return nullptr;
    }
    thread->ring.reset(thread->ringMemory.get(), kThreadRingWords);
    thread->routine = routine;
    thread->argument = argument;
    thread->number = slot + 1;
    g_threads[slot].store(thread, std::memory_order_release);
    return thread;
}

void disarm(SampledThread& thread) noexcept {
    if (thread.armed.exchange(0, std::memory_order_acq_rel) == 1)
        timer_delete(thread.timer);
}

/// The new thread: a CLOCK_MONOTONIC timer that signals this thread alone.
void arm(SampledThread& thread, long periodNs) noexcept {
    sigevent event{};
    event.sigev_notify = SIGEV_THREAD_ID;
    event.sigev_signo = SIGPROF;
    event._sigev_un._tid = static_cast<pid_t>(gettid());
    if (timer_create(CLOCK_MONOTONIC, &event, &thread.timer) != 0)
        return; // the thread is recorded, without samples
    thread.armed.store(1, std::memory_order_release);
    itimerspec spec{};
    spec.it_interval.tv_sec = periodNs / 1000000000L;
    spec.it_interval.tv_nsec = periodNs % 1000000000L;
    spec.it_value = spec.it_interval;
    if (timer_settime(thread.timer, 0, &spec, nullptr) != 0)
        disarm(thread);
}

/// The sampled thread, as it ends (cleanup handler: return, pthread_exit, cancellation).
void threadEnds(void* state) noexcept {
    auto* thread = static_cast<SampledThread*>(state);
    disarm(*thread);
    t_sampledThread = nullptr; // a signal still on its way finds no ring
    std::atomic_signal_fence(std::memory_order_seq_cst);
    thread->endTime = now();
    // After its start routine's leave (endTime): the thread's last record.
    if (thread->sequence != 0 && threadEndRecord)
        threadEndRecord(thread->sequence);
    thread->phase.store(SampledThread::kEnded, std::memory_order_release);
}

/// The sampled thread's start routine: registers, arms the timer, runs the user's routine.
void* startSampled(void* state) {
    auto* thread = static_cast<SampledThread*>(state);
    CallPathUnwinder::warmUpThread(); // libunwind's per-thread state, before the first signal
    // The thread's records take its sampled location's number (set first), and ThreadBegin
    // comes before the start routine's enter (beginTime).
    t_sampledThread = thread;
    if (thread->sequence != 0 && threadBeginRecord)
        threadBeginRecord(thread->sequence);
    thread->beginTime = now();
    thread->phase.store(SampledThread::kRunning, std::memory_order_release);
    if (long period = g_periodNs.load(std::memory_order_acquire); period > 0)
        arm(*thread, period);
    void* result = nullptr;
    pthread_cleanup_push(threadEnds, thread);
    result = thread->routine(thread->argument);
    pthread_cleanup_pop(1);
    return result;
}

/// A thread that is not sampled but whose order is recorded: its start routine and number.
struct OrderedStart {
    void* (*routine)(void*);
    void* argument;
    std::uint32_t sequence;
};

void orderedThreadEnds(void* sequence) noexcept {
    threadEndRecord(*static_cast<const std::uint32_t*>(sequence));
}

/// The start routine of a thread whose order is recorded without sampling: ThreadBegin, the
/// user's routine, ThreadEnd (as it ends in any way).
void* startOrdered(void* state) {
    const OrderedStart start = *static_cast<OrderedStart*>(state);
    delete static_cast<OrderedStart*>(state);
    threadBeginRecord(start.sequence);
    void* result = nullptr;
    // The cleanup handler runs in this frame (on return, pthread_exit and cancellation alike).
    std::uint32_t sequence = start.sequence;
    pthread_cleanup_push(orderedThreadEnds, &sequence);
    result = start.routine(start.argument);
    pthread_cleanup_pop(1);
    return result;
}

} // namespace

void threadSamplingStart(std::uint32_t frequency) noexcept {
    long period = std::max(1000L, 1000000000L / static_cast<long>(std::max(1u, frequency)));
    g_periodNs.store(period, std::memory_order_release);
}

void threadSamplingStop() noexcept {
    g_periodNs.store(0, std::memory_order_release);
    // A thread between reading the period and arming keeps its timer until it ends; its
    // handler then finds sampling stopped and returns at once.
    for (std::uint32_t i = 0, n = sampledThreadCount(); i < n; ++i)
        if (SampledThread* thread = sampledThread(i))
            disarm(*thread);
}

std::uint32_t reserveThreadNumber() noexcept {
    std::uint32_t slot = g_reserved.fetch_add(1, std::memory_order_relaxed);
    return slot < kMaxThreads ? slot + 1 : 0;
}

std::uint32_t sampledThreadCount() noexcept {
    return std::min(g_reserved.load(std::memory_order_acquire), kMaxThreads);
}

SampledThread* sampledThread(std::uint32_t index) noexcept {
    return index < kMaxThreads ? g_threads[index].load(std::memory_order_acquire) : nullptr;
}

} // namespace waitscope::measure

/// Wraps the C library's pthread_create (any thread, not signal context). While sampling runs
/// the new thread is sampled with its own timer and recorded as its own location; otherwise,
/// or when its state cannot be set up, it is counted as not sampled. A thread the program's
/// own code creates while the rank is measured gets its order recorded (ThreadCreate here,
/// ThreadBegin and ThreadEnd around its start routine: measurement/threads/thread_order.cpp).
/// Returns what the C library's pthread_create returns (EAGAIN if that cannot be found).
extern "C" __attribute__((visibility("default"))) int
pthread_create(pthread_t* thread, const pthread_attr_t* attributes, void* (*routine)(void*),
               void* argument) {
    using namespace waitscope::measure;
    CreateFunction create = realCreate();
    if (!create)
        return EAGAIN;
    // Before the thread exists: it cannot begin before its ThreadCreate.
    const std::uint32_t sequence = threadCreateRecord && threadBeginRecord && threadEndRecord
                                       ? threadCreateRecord(__builtin_return_address(0))
                                       : 0;
    SampledThread* sampled = g_periodNs.load(std::memory_order_acquire) > 0
                                 ? registerThread(routine, argument)
                                 : nullptr;
    if (!sampled) {
        countFromAnyThread(g_diagnostics.unsampledThreads);
        if (sequence != 0) {
            if (auto* start = new (std::nothrow) OrderedStart{routine, argument, sequence}) {
                const int created = create(thread, attributes, startOrdered, start);
                if (created != 0)
                    delete start;
                return created;
            }
        }
        return create(thread, attributes, routine, argument);
    }
    sampled->sequence = sequence;
    // On failure the state stays registered but never runs: no location is written for it.
    return create(thread, attributes, startSampled, sampled);
}
