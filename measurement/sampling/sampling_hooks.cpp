// Hybrid call-path measurement: the sampling timer and its signal handler, and the hooks that
// record samples and MPI call paths as calling-context records.
//
// Design (after Szebenyi et al., "Reconciling Sampling and Direct Instrumentation for
// Unintrusive Call-Path Profiling of MPI Programs"):
//   - MPI calls are recorded directly; at every recorded call the stack is unwound and the call
//     path recorded as a CallingContextEnter before the call's Enter.
//   - A per-thread CLOCK_MONOTONIC timer interrupts the main thread. Outside MPI the handler
//     unwinds the interrupted stack into a preallocated ring (no allocation, no locks); inside
//     MPI or the measurement it only counts. At the next record point (MPI call, instrumented
//     region, finalize) the main thread turns the raw frames into calling contexts and
//     records CallingContextSample records, in time order.
//   - A sample stands for the time since the record before it. Since MPI calls end in their
//     own records, that is the time since the previous sample outside MPI minus the MPI time in
//     between (the paper's effective interval), and sampled plus measured time add up.
//   - Threads the program creates while sampling runs (thread_sampling.cpp) have their own
//     timer and ring. The main thread drains their rings at its record points too and keeps
//     each thread's records apart: an Enter of its start routine at its begin, its samples
//     (paths end below the start routine), a Leave at its end or at finalize. A thread makes
//     no recorded calls, so its sample stands for the time since its previous record.
//   - Stacks that cannot be unwound (and samples with no room to keep frames) go to the
//     context "failed unwind", and are counted.
#include "thread_sampling.h"
#include "waitscope/measure/call_path_unwinder.h"
#include "waitscope/measure/runtime.h"
#include "waitscope/measure/sample_ring.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <ctime>
#include <memory>
#include <new>
#include <unistd.h>
#include <vector>

namespace waitscope::measure {

namespace {

/// Room for raw samples between two record points: 2 MiB, about 10 000 samples of 24 frames.
constexpr std::size_t kRingWords = 1u << 18;
constexpr int kSignal = SIGPROF;

struct SamplingState {
    CallPathUnwinder unwinder;
    SampleRing ring;
    /// Not zeroed: its pages are touched only as samples reach them (most runs keep few).
    std::unique_ptr<std::uint64_t[]> ringMemory;
    timer_t timer{};
    bool timerArmed = false;
    std::uint32_t openContext = kNoContext; ///< the context on top of the recorded stack
    std::uint32_t openBase = kNoContext;    ///< its outermost frame (what a leave names)
    std::uint32_t resolutionRegion = 0;     ///< "WAITSCOPE SYMBOL RESOLUTION" (overhead)
};

SamplingState* g_sampling = nullptr;
/// Set while the main thread reads the rings or the timer is being stopped: its handler keeps
/// off (a sample then would land in the measurement). Only the main thread and its own signal
/// handler touch it; sampled threads' handlers never do.
volatile sig_atomic_t g_busy = 0;
std::atomic<int> g_active{0}; ///< read by every sampled thread's handler

/// The innermost open instrumented region: unwound paths end below it.
std::uint32_t stopRegion() noexcept {
    std::uint32_t depth = g_hot.userDepth;
    if (depth == 0 || depth > kUserStackDepth)
        return CallPathUnwinder::kNoStop;
    return g_hot.userStack[depth - 1];
}

std::uint32_t outermost(std::uint32_t context) noexcept {
    const std::vector<CallingContextDefinition>& contexts = definitions().callingContexts();
    while (context < contexts.size() && contexts[context].parent != kNoContext)
        context = contexts[context].parent;
    return context;
}

/// Appends a calling-context record that must not go back in time.
void appendContextRecord(std::uint64_t time, EventKind kind, std::uint32_t context) noexcept {
    ensureRoom(kMaxRecordWords);
    appendRecord(std::max(time, g_hot.buffer.lastTime), kind, context & kOperandMask);
    ++g_diagnostics.contextRecords;
}

void setOpen(std::uint32_t context) noexcept {
    SamplingState& s = *g_sampling;
    s.openContext = context;
    s.openBase = context == kNoContext ? kNoContext : outermost(context);
}

/// Appends a record to a sampled thread's records (growing them: they stay in memory until
/// finalize), never going back in time. Main thread.
void appendThreadRecord(SampledThread& t, std::uint64_t time, EventKind kind,
                        std::uint32_t operand) noexcept {
    EventBuffer& b = t.records;
    if (!b.fits(kMaxRecordWords)) {
        const std::size_t used = static_cast<std::size_t>(b.cursor - b.begin);
        try {
            t.recordMemory.resize(std::max<std::size_t>(4096, 2 * t.recordMemory.size()));
        } catch (...) {
            ++g_diagnostics.lostEvents; // no memory left: dropped and counted, never thrown
            return;
        }
        b.begin = t.recordMemory.data();
        b.cursor = b.begin + used;
        b.end = b.begin + t.recordMemory.size();
    }
    ++b.events;
    writeRecord(b, std::max(time, b.lastTime), kind, operand & kOperandMask);
}

/// Records what a sampled thread did since the last look: its Enter the first time, its
/// samples, its Leave once it ended (`finalizeAt` non-zero: the run ends, a thread still
/// running is left then). Main thread.
void drainThread(SamplingState& s, SampledThread& t, std::uint64_t finalizeAt) noexcept {
    if (t.left)
        return;
    // The phase first: once it says ended, every sample the thread took is in its ring.
    const int phase = t.phase.load(std::memory_order_acquire);
    if (phase == SampledThread::kCreated)
        return;
    if (!t.entered) {
        t.region = s.unwinder.functionRegion(reinterpret_cast<std::uintptr_t>(t.routine));
        appendThreadRecord(t, t.beginTime, EventKind::Enter, t.region);
        t.entered = true;
        ++g_diagnostics.sampledThreads;
    }
    t.ring.drain([&](std::uint64_t time, const std::uintptr_t* frames, std::uint64_t depth) {
        if (depth != SampleRing::kNotUnwound && depth > 0 && s.unwinder.inOwnCode(frames[0])) {
            ++g_diagnostics.samplesInMpi; // in the measurement (thread start or end)
            return;
        }
        std::uint32_t context =
            depth == SampleRing::kNotUnwound
                ? s.unwinder.failedContext()
                : s.unwinder.contextOf(frames, static_cast<int>(depth), true, t.region, true);
        if (s.unwinder.isFailed(context))
            ++g_diagnostics.failedUnwinds;
        ++g_diagnostics.samples;
        if (context == kNoContext)
            return; // in the start routine itself: its Enter covers the time
        appendThreadRecord(t, time, EventKind::CallingContextSample, context);
        ++g_diagnostics.contextRecords;
        t.lastContext = context;
        t.sampled = true;
    });
    const std::uint64_t lost = t.lost.load(std::memory_order_relaxed);
    g_diagnostics.lostSamples += lost - t.lostFolded;
    t.lostFolded = lost;
    if (phase == SampledThread::kEnded || finalizeAt != 0) {
        const std::uint64_t end = phase == SampledThread::kEnded ? t.endTime : finalizeAt;
        // The sampled path is left before the start routine, so the records nest.
        if (t.sampled)
            appendThreadRecord(t, end, EventKind::CallingContextLeave, outermost(t.lastContext));
        appendThreadRecord(t, end, EventKind::Leave, t.region);
        t.left = true;
    }
}

/// Drains every sampled thread's ring. Main thread.
void drainThreads(std::uint64_t finalizeAt) noexcept {
    for (std::uint32_t i = 0, n = sampledThreadCount(); i < n; ++i)
        if (SampledThread* t = sampledThread(i))
            drainThread(*g_sampling, *t, finalizeAt);
}

/// Records the samples the handlers kept since the last record point. Main thread.
void drainSamples() noexcept {
    SamplingState& s = *g_sampling;
    g_busy = 1;
    std::atomic_signal_fence(std::memory_order_seq_cst); // the handler keeps off from here on
    drainThreads(0);
    if (s.ring.empty()) {
        g_busy = 0;
        return;
    }
    const std::uint32_t stop = stopRegion();
    s.ring.drain([&](std::uint64_t time, const std::uintptr_t* frames, std::uint64_t depth) {
        std::uint32_t context =
            depth == SampleRing::kNotUnwound
                ? s.unwinder.failedContext()
                : s.unwinder.contextOf(frames, static_cast<int>(depth), true, stop);
        if (s.unwinder.isFailed(context))
            ++g_diagnostics.failedUnwinds;
        ++g_diagnostics.samples;
        if (context == kNoContext)
            return; // inside the innermost instrumented function: it is on the stack already
        appendContextRecord(time, EventKind::CallingContextSample, context);
        setOpen(context);
    });
    g_busy = 0;
}

/// Leaves the open call path at `time` (recorded stacks then end at the instrumented regions).
void leaveOpenContext(std::uint64_t time) noexcept {
    SamplingState& s = *g_sampling;
    if (s.openContext == kNoContext)
        return;
    appendContextRecord(time, EventKind::CallingContextLeave, s.openBase);
    setOpen(kNoContext);
}

/// Looking up the symbols of functions seen for the first time takes long (the first lookup
/// reads every module's symbol table): when a record point defined new functions, the time
/// since `reached` is recorded as the measurement's overhead, outside the program's call paths.
void noteResolution(std::uint64_t reached, std::size_t regionsBefore) noexcept {
    if (definitions().regions().size() == regionsBefore)
        return;
    leaveOpenContext(reached);
    ensureRoom(2 * kMaxRecordWords);
    recordEnter(std::max(reached, g_hot.buffer.lastTime), g_sampling->resolutionRegion);
    recordLeave(now(), g_sampling->resolutionRegion);
}

/// MPI call (recorded, main thread, insideMpi already set): samples, then the call's path.
/// `enter` (non-zero): the call already returned; its records are timed at its enter.
/// The clock is read when needed: before work that may look up symbols (samples to record, a
/// stack not seen before), else only for a record. Returns that record's time when the clock
/// was read after the path was found (the call's Enter may share it), else 0.
std::uint64_t onCallSite(std::uint64_t enter) noexcept {
    SamplingState& s = *g_sampling;
    const bool after = enter != 0;
    std::uint64_t reached = enter;
    const std::size_t regionsBefore = definitions().regions().size();
    // No new sample lands meanwhile: the handler only counts while insideMpi is set.
    if (!s.ring.empty() || sampledThreadCount() != 0) {
        if (reached == 0)
            reached = now();
        drainSamples();
    }
    bool unwound = false;
    const std::uint32_t context =
        s.unwinder.contextOfCallSite(stopRegion(), unwound, after ? nullptr : &reached);
    ++g_diagnostics.unwoundCalls;
    if (unwound)
        ++g_diagnostics.unwoundStacks;
    if (s.unwinder.isFailed(context))
        ++g_diagnostics.failedUnwinds;
    // The path is timed when the call was reached (read before any work that may take long),
    // unless symbol lookups since then were recorded as overhead: then after them; a stack seen
    // before is timed when its record is written. After the call, a lookup's
    // time lies inside it: counted as the call's, not as overhead (a region there would break
    // the records' time order).
    const bool late = reached == 0; // a stack seen before, nothing drained: no clock read yet
    std::uint64_t at = reached;
    if (!after && definitions().regions().size() != regionsBefore) {
        noteResolution(reached != 0 ? reached : now(), regionsBefore);
        at = now();
    }
    if (context == s.openContext)
        return 0; // the recorded stack shows this path already (a loop around one call site)
    if (at == 0)
        at = now();
    if (context == kNoContext)
        leaveOpenContext(at); // called straight from the innermost instrumented function
    else {
        appendContextRecord(at, EventKind::CallingContextEnter, context);
        setOpen(context);
    }
    return late ? at : 0;
}

void onUserEvent() noexcept {
    const std::uint64_t reached = now();
    const std::size_t regionsBefore = definitions().regions().size();
    drainSamples();
    noteResolution(reached, regionsBefore);
    leaveOpenContext(now());
}

constexpr SamplingHooks kHooks = {onCallSite, onUserEvent};

/// Signal context: unwinds the interrupted stack into `ring` as one sample (not unwound when
/// the ring has no room for frames). Returns false when the ring is full and the sample lost.
bool sampleInto(SampleRing& ring, void* ucontext) noexcept {
    bool kept = false;
    std::uintptr_t* frames = ring.begin(now(), kept);
    if (!kept)
        return false;
    int depth = frames ? CallPathUnwinder::unwindInterrupted(ucontext, frames, kMaxFrames) : -1;
    ring.commit(depth < 0 ? SampleRing::kNotUnwound : static_cast<std::uint64_t>(depth));
    return true;
}

/// The timers' signal handler, on the main thread or a sampled thread (each timer signals its
/// own thread). Async-signal-safe: reads flags, the clock, unwinds into the thread's
/// preallocated ring; errno is kept.
void onTimer(int, siginfo_t*, void* ucontext) {
    if (!g_active)
        return;
    if (!t_onMainThread) {
        if (SampledThread* t = t_sampledThread) {
            int savedErrno = errno;
            if (!sampleInto(t->ring, ucontext))
                t->lost.fetch_add(1, std::memory_order_relaxed);
            errno = savedErrno;
        }
        return;
    }
    int savedErrno = errno;
    if (g_hot.insideMpi != 0 || g_busy) {
        ++g_diagnostics.samplesInMpi;
        errno = savedErrno;
        return;
    }
    g_busy = 1; // guarded entry: nothing below runs twice at once
    if (!sampleInto(g_sampling->ring, ucontext))
        ++g_diagnostics.lostSamples;
    g_busy = 0;
    errno = savedErrno;
}

bool startTimer(SamplingState& s, std::uint32_t frequency) {
    struct sigaction action {};
    action.sa_sigaction = onTimer;
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&action.sa_mask);
    if (sigaction(kSignal, &action, nullptr) != 0)
        return false;
    sigevent event{};
    event.sigev_notify = SIGEV_THREAD_ID;
    event.sigev_signo = kSignal;
    event._sigev_un._tid = static_cast<pid_t>(gettid());
    if (timer_create(CLOCK_MONOTONIC, &event, &s.timer) != 0)
        return false;
    const long period = std::max(1000L, 1000000000L / static_cast<long>(frequency));
    itimerspec spec{};
    spec.it_interval.tv_sec = period / 1000000000L;
    spec.it_interval.tv_nsec = period % 1000000000L;
    spec.it_value = spec.it_interval;
    if (timer_settime(s.timer, 0, &spec, nullptr) != 0) {
        timer_delete(s.timer);
        return false;
    }
    s.timerArmed = true;
    return true;
}

} // namespace

bool samplingStart(const Config& config) noexcept {
    if (g_sampling)
        return true;
    auto* s = new (std::nothrow) SamplingState();
    if (s == nullptr)
        return false; // no memory: the run goes on without sampling
    s->resolutionRegion =
        definitions().addRegion({"WAITSCOPE SYMBOL RESOLUTION", "WAITSCOPE SYMBOL RESOLUTION", "",
                                 0, 0, RegionRole::Artificial, Paradigm::MeasurementSystem});
    s->unwinder.init(config.unwindCache);
    {
        // Resolving the path to MPI_Init now reads the module list and the program's symbols
        // during MPI_Init (the measurement's setup), not at the first call. Those of libc and
        // the vDSO are read when a path first reaches them (a sample in clock_gettime, a
        // callback from qsort), as the measurement's overhead: a path ends at main without
        // them (CallPathUnwinder::contextOf).
        std::uintptr_t frames[kMaxFrames];
        int depth = CallPathUnwinder::unwindHere(frames, kMaxFrames);
        if (depth > 0)
            s->unwinder.contextOf(frames, depth, false, CallPathUnwinder::kNoStop);
    }
    s->ringMemory.reset(new (std::nothrow) std::uint64_t[kRingWords]);
    if (!s->ringMemory) {
        delete s;
        return false; // no memory: the run goes on without sampling
    }
    s->ring.reset(s->ringMemory.get(), kRingWords);
    g_sampling = s;
    g_hot.sampling = &kHooks; // MPI call paths are unwound even without the timer
    g_active = 1;
    if (!startTimer(*s, config.samplingFrequency))
        return false;
    threadSamplingStart(config.samplingFrequency);
    return true;
}

void samplingStop() noexcept {
    SamplingState* s = g_sampling;
    if (!s || !g_hot.sampling)
        return;
    g_busy = 1;
    g_active = 0;
    if (s->timerArmed)
        timer_delete(s->timer);
    s->timerArmed = false;
    threadSamplingStop();
    // The handler stays installed: a signal already on its way must not meet SIGPROF's
    // default action, which ends the process.
    g_busy = 0;
    (void)onCallSite(0); // the samples so far, and the path to MPI_Finalize
    drainThreads(now()); // threads still running are left now
    // g_hot.sampling stays set: finalize leaves the open path through it before ProgramEnd.
}

std::vector<ThreadRecords> sampledThreadRecords() noexcept {
    std::vector<ThreadRecords> out;
    for (std::uint32_t i = 0, n = sampledThreadCount(); i < n; ++i) {
        SampledThread* t = sampledThread(i);
        if (!t || !t->entered)
            continue;
        out.push_back({t->number, t->records.begin, t->records.cursor, t->records.events});
    }
    return out;
}

} // namespace waitscope::measure
