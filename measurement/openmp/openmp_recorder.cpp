// Records OpenMP constructs as regions on the thread that runs them.
//
// Constructs: a lock-free table keyed by kind and code address, filled on first sight (a
// compare-and-swap claims a slot) and read-only afterwards. The main thread defines a region
// for a construct the first time it records it (Definitions belong to the main thread); the
// other threads record the region when it is defined, else the construct's slot with
// kUndefinedFlag, which finalize replaces once it has defined the rest. Regions are named with
// the code address during the run and get their source location at finalize, so no symbol is
// resolved while the program runs.
//
// Threads: the main thread records into the rank's buffer, like a user region; every other
// OpenMP thread into chunks of its own, which no other thread touches until finalize. Finalize
// raises `g_stopped` and waits for each thread's `writing` flag to drop, so it reads only
// whole records.
#include "openmp_recorder.h"

#include "../sampling/thread_sampling.h"
#include "waitscope/measure/runtime.h"
#include "waitscope/measure/symbol_resolver.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <dlfcn.h>
#include <memory>
#include <new>
#include <sched.h>
#include <string>
#include <vector>

namespace waitscope::measure::openmp {

/// One OpenMP thread other than the main one. Allocated in its thread-begin callback and never
/// freed (the runtime's threads outlive the measurement).
struct OmpThread {
    std::uint32_t number = 0; ///< its location: number << 32 | rank
    std::atomic<int> writing{0};
    EventBuffer buffer;                                            ///< the chunk being filled
    std::vector<std::pair<std::uint64_t*, std::uint64_t*>> chunks; ///< filled ones, in order
    std::uint64_t lost = 0;
    /// The regions entered and not yet left, innermost last: finalize leaves them (a worker
    /// learns that its last parallel region ended only when the next one begins).
    std::uint32_t open[64] = {};
    std::uint32_t depth = 0;
    /// Where the thread's MPI records go once no chunk can be had: reused, never read.
    static constexpr std::size_t kScratchWords = 8 * kMaxRecordWords;
    std::uint64_t scratch[kScratchWords] = {};
    EventBuffer scratchBuffer;
};

namespace {

constexpr std::uint32_t kSlots = 4096; ///< constructs per process; later ones are not recorded
constexpr std::uint32_t kUndefinedFlag = 1u << 25;
constexpr std::uint32_t kMaxThreads = 1024;
constexpr std::size_t kChunkWords = 1u << 16;     ///< 512 KiB
constexpr std::size_t kMaxChunksPerThread = 2048; ///< 1 GiB of records per thread at most

struct ConstructSlot {
    std::atomic<std::uint64_t> key{0};    ///< kind << 56 | address, plus 1; 0: free
    std::atomic<std::uint32_t> region{0}; ///< region + 1 once the main thread defined it
};

ConstructSlot g_slots[kSlots];
std::atomic<OmpThread*> g_threads[kMaxThreads];
std::atomic<std::uint32_t> g_threadCount{0};
std::atomic<bool> g_stopped{false};
std::atomic<bool> g_toolStarted{false};
std::atomic<bool> g_pthreadsRecorded{false}; ///< a POSIX threads call registered a thread
bool g_mainRecorded = false;                 ///< main thread only

__thread OmpThread* t_thread __attribute__((tls_model("initial-exec"))) = nullptr;

struct ConstructInfo {
    const char* name;
    RegionRole role;
    Paradigm paradigm = Paradigm::OpenMp;
};

// Score-P's names ("!$omp parallel"), so reports read alike.
constexpr ConstructInfo kInfo[] = {
    {"!$omp fork", RegionRole::ThreadCreate},
    {"!$omp join", RegionRole::ThreadWait},
    {"!$omp parallel", RegionRole::Parallel},
    {"!$omp implicit barrier", RegionRole::ImplicitBarrier},
    {"!$omp barrier", RegionRole::Barrier},
    {"!$omp for", RegionRole::Loop},
    {"!$omp sections", RegionRole::Sections},
    {"!$omp single", RegionRole::Single},
    {"!$omp critical", RegionRole::Critical},
    {"!$omp critical sblock", RegionRole::CriticalSblock},
    {"omp_set_lock", RegionRole::Function},
    {"!$omp ordered", RegionRole::Ordered},
    {"!$omp ordered sblock", RegionRole::OrderedSblock},
    {"!$omp taskwait", RegionRole::TaskWait},
    {"!$omp create task", RegionRole::TaskCreate},
    {"!$omp task", RegionRole::Task},
    // Score-P's pthread regions: wrappers, pthread_join waits for a thread.
    {"pthread_mutex_lock", RegionRole::Wrapper, Paradigm::Pthread},
    {"pthread_mutex_trylock", RegionRole::Wrapper, Paradigm::Pthread},
    {"pthread_mutex_unlock", RegionRole::Wrapper, Paradigm::Pthread},
    {"pthread_cond_wait", RegionRole::Wrapper, Paradigm::Pthread},
    {"pthread_cond_timedwait", RegionRole::Wrapper, Paradigm::Pthread},
    {"pthread_cond_signal", RegionRole::Wrapper, Paradigm::Pthread},
    {"pthread_cond_broadcast", RegionRole::Wrapper, Paradigm::Pthread},
    {"pthread_join", RegionRole::ThreadWait, Paradigm::Pthread},
};
static_assert(sizeof(kInfo) / sizeof(kInfo[0]) == static_cast<std::size_t>(Construct::Count));

bool measured() noexcept {
    return std::atomic_ref<std::uint32_t>(g_hot.recordMask).load(std::memory_order_relaxed) != 0 &&
           !g_stopped.load(std::memory_order_relaxed);
}

std::uint64_t keyOf(Construct construct, const void* codeptr) noexcept {
    auto address = reinterpret_cast<std::uintptr_t>(codeptr) & ((1ull << 56) - 1);
    return ((static_cast<std::uint64_t>(construct) << 56) | address) + 1;
}

/// The slot of a construct, claimed on first sight; kSlots when the table is full.
std::uint32_t slotOf(Construct construct, const void* codeptr) noexcept {
    const std::uint64_t key = keyOf(construct, codeptr);
    std::uint64_t hash = key * 0x9E3779B97F4A7C15ull;
    for (std::uint32_t probe = 0; probe < kSlots; ++probe) {
        std::uint32_t i = static_cast<std::uint32_t>((hash >> 40) + probe) & (kSlots - 1);
        std::uint64_t seen = g_slots[i].key.load(std::memory_order_acquire);
        if (seen == key)
            return i;
        if (seen == 0) {
            if (g_slots[i].key.compare_exchange_strong(seen, key, std::memory_order_acq_rel))
                return i;
            if (seen == key)
                return i;
        }
    }
    return kSlots;
}

Construct kindOf(std::uint64_t key) noexcept {
    return static_cast<Construct>((key - 1) >> 56);
}
std::uintptr_t addressOf(std::uint64_t key) noexcept {
    return static_cast<std::uintptr_t>((key - 1) & ((1ull << 56) - 1));
}

/// The region of slot `i` as the run names it until finalize: kind and code address.
RegionDefinition provisionalRegion(std::uint64_t key) {
    char address[32];
    std::snprintf(address, sizeof(address), " @%#lx", static_cast<unsigned long>(addressOf(key)));
    RegionDefinition region;
    const ConstructInfo& info = kInfo[static_cast<std::size_t>(kindOf(key))];
    region.name = std::string(info.name) + address;
    if (info.paradigm == Paradigm::Pthread)
        region.name = info.name; // one region per function, recorded without a code address
    region.canonicalName = region.name;
    region.role = info.role;
    region.paradigm = info.paradigm;
    return region;
}

/// Main thread: the region of slot `i`, defined now if it is not yet.
std::uint32_t defineRegion(std::uint32_t i) {
    std::uint32_t region = g_slots[i].region.load(std::memory_order_relaxed);
    if (region != 0)
        return region - 1;
    region = definitions().addRegion(provisionalRegion(g_slots[i].key.load()));
    g_slots[i].region.store(region + 1, std::memory_order_release);
    return region;
}

/// A thread's room for `words` more words (one record by default): a new chunk when the
/// current one is too full.
bool makeRoom(OmpThread& t, std::size_t words = kMaxRecordWords) noexcept {
    if (t.buffer.fits(words))
        return true;
    if (t.chunks.size() >= kMaxChunksPerThread)
        return false;
    auto* chunk = new (std::nothrow) std::uint64_t[kChunkWords];
    if (!chunk)
        return false;
    if (t.buffer.begin)
        t.chunks.emplace_back(t.buffer.begin, t.buffer.cursor);
    std::uint64_t last = t.buffer.lastTime;
    std::uint64_t events = t.buffer.events;
    t.buffer.reset(chunk, kChunkWords);
    t.buffer.lastTime = last; // the chunks are decoded as one stream
    t.buffer.events = events;
    return true;
}

void record(Construct construct, const void* codeptr, EventKind kind) noexcept {
    if (t_onMainThread) {
        if (!measured())
            return;
        std::uint32_t slot = slotOf(construct, codeptr);
        if (slot == kSlots)
            return;
        std::uint32_t region = defineRegion(slot);
        g_mainRecorded = true;
        if (kInfo[static_cast<std::size_t>(construct)].paradigm == Paradigm::Pthread) {
            // Like an MPI call (the wrapper set insideMpi): its call path unwound first when
            // sampling runs, so the call sits where the program made it.
            if (kind == EventKind::Enter && g_hot.sampling != nullptr)
                g_hot.sampling->callSite(0);
            ensureRoom(kMaxRecordWords);
            if (kind == EventKind::Enter)
                recordEnter(now(), region);
            else
                recordLeave(now(), region);
            return;
        }
        if (kind == EventKind::Enter)
            enterUserRegion(region);
        else
            leaveUserRegion(region);
        return;
    }
    OmpThread* t = t_thread;
    if (!t)
        return;
    // Dekker with finalize: it raises g_stopped, then waits for `writing` to drop (a count:
    // the thread's MPI calls raise it too).
    t->writing.fetch_add(1, std::memory_order_seq_cst);
    if (std::atomic_ref<std::uint32_t>(g_hot.recordMask).load(std::memory_order_relaxed) != 0 &&
        !g_stopped.load(std::memory_order_seq_cst)) {
        std::uint32_t slot = slotOf(construct, codeptr);
        if (slot != kSlots) {
            std::uint32_t region = g_slots[slot].region.load(std::memory_order_acquire);
            std::uint32_t operand = region != 0 ? region - 1 : (slot | kUndefinedFlag);
            if (makeRoom(*t)) {
                writeRecord(t->buffer, now(), kind, operand);
                ++t->buffer.events;
                if (kind == EventKind::Enter && t->depth < 64)
                    t->open[t->depth] = operand;
                if (kind == EventKind::Enter)
                    ++t->depth;
                else if (t->depth > 0)
                    --t->depth;
            } else {
                ++t->lost;
            }
        }
    }
    t->writing.fetch_sub(1, std::memory_order_release);
}

/// Replaces the slot operands of undefined constructs in a thread's records by their regions.
void defineSlotOperands(std::uint64_t* begin, std::uint64_t* end) {
    std::uint64_t time = 0;
    RecordCursor cursor(begin, end, time);
    RecordHeader h;
    const std::uint64_t* extra = nullptr;
    while (cursor.next(h, extra)) {
        if ((h.kind != static_cast<std::uint32_t>(EventKind::Enter) &&
             h.kind != static_cast<std::uint32_t>(EventKind::Leave)) ||
            (h.a & kUndefinedFlag) == 0)
            continue;
        std::uint32_t region = defineRegion(h.a & (kUndefinedFlag - 1));
        auto* header = const_cast<std::uint64_t*>(extra - 1);
        *header = (*header & ~(static_cast<std::uint64_t>(kOperandMask) << 6)) |
                  (static_cast<std::uint64_t>(region & kOperandMask) << 6);
    }
}

/// One decoded record: its time, and its words without the delta (re-encoded when merged).
struct Decoded {
    std::uint64_t time;
    std::uint32_t kind;
    std::uint32_t a;
    std::uint64_t extra[4];
};

void decode(const std::uint64_t* begin, const std::uint64_t* end, std::vector<Decoded>& out) {
    std::uint64_t time = 0;
    RecordCursor cursor(begin, end, time);
    RecordHeader h;
    const std::uint64_t* x = nullptr;
    while (cursor.next(h, x)) {
        Decoded d{h.time, h.kind, h.a, {0, 0, 0, 0}};
        std::copy(x, x + kExtraWords[h.kind], d.extra);
        out.push_back(d);
    }
}

/// The regions of the wrapped calls defined so far, POSIX threads and MPI (main thread).
std::vector<bool> pthreadRegions() {
    std::vector<bool> pthread;
    const std::vector<RegionDefinition>& regions = definitions().regions();
    for (std::size_t r = 0; r < regions.size(); ++r)
        if (regions[r].paradigm == Paradigm::Mpi) {
            pthread.resize(std::max(pthread.size(), r + 1), false);
            pthread[r] = true;
        }
    for (std::uint32_t i = 0; i < kSlots; ++i) {
        const std::uint32_t region = g_slots[i].region.load(std::memory_order_acquire);
        const std::uint64_t key = g_slots[i].key.load(std::memory_order_relaxed);
        if (region == 0 ||
            kInfo[static_cast<std::size_t>(kindOf(key))].paradigm != Paradigm::Pthread)
            continue;
        if (pthread.size() < region)
            pthread.resize(region, false);
        pthread[region - 1] = true;
    }
    return pthread;
}

/// The records of two streams of one thread in one, by time (the first stream's first at a
/// tie: a sampled thread's start routine encloses its OpenMP events). Samples (of the first
/// stream) inside a POSIX threads or MPI call are left out: their time is the call's, which the
/// stack below the wrapper (the C library's lock internals) would only hide. Before a POSIX
/// threads call the last sample's path is left.
std::vector<std::uint64_t> mergeStreams(const std::uint64_t* aBegin, const std::uint64_t* aEnd,
                                        const std::uint64_t* bBegin, const std::uint64_t* bEnd) {
    std::vector<Decoded> a, b, all;
    decode(aBegin, aEnd, a);
    decode(bBegin, bEnd, b);
    all.resize(a.size() + b.size());
    std::merge(a.begin(), a.end(), b.begin(), b.end(), all.begin(),
               [](const Decoded& x, const Decoded& y) { return x.time < y.time; });
    const std::vector<bool> pthread = pthreadRegions();
    const auto isPthread = [&pthread](const Decoded& d) {
        return (d.kind == static_cast<std::uint32_t>(EventKind::Enter) ||
                d.kind == static_cast<std::uint32_t>(EventKind::Leave)) &&
               d.a < pthread.size() && pthread[d.a];
    };
    // The outermost context of a sampled path (its CallingContextLeave leaves the whole path).
    const std::vector<CallingContextDefinition>& contexts = definitions().callingContexts();
    const auto rootOf = [&contexts](std::uint32_t context) {
        for (std::size_t steps = 0; context < contexts.size() && steps < contexts.size(); ++steps) {
            if (contexts[context].parent == kNoContext ||
                contexts[context].parent >= contexts.size())
                return context;
            context = contexts[context].parent;
        }
        return kNoContext;
    };
    std::vector<Decoded> kept;
    kept.reserve(all.size());
    std::uint32_t insideCall = 0;
    std::uint32_t lastSample = kNoContext;
    for (const Decoded& d : all) {
        const bool sample = d.kind == static_cast<std::uint32_t>(EventKind::CallingContextSample);
        if (isPthread(d) && d.kind == static_cast<std::uint32_t>(EventKind::Enter)) {
            // The last sample's path ran before the call, not necessarily around it: the call
            // is placed below the start routine, not on a stale path.
            if (insideCall == 0 && lastSample != kNoContext) {
                if (const std::uint32_t root = rootOf(lastSample); root != kNoContext)
                    kept.push_back(
                        Decoded{d.time,
                                static_cast<std::uint32_t>(EventKind::CallingContextLeave),
                                root,
                                {0, 0, 0, 0}});
                lastSample = kNoContext;
            }
            ++insideCall;
        } else if (isPthread(d) && insideCall > 0) {
            --insideCall;
        }
        if (sample && insideCall > 0)
            continue;
        if (sample)
            lastSample = d.a;
        kept.push_back(d);
    }
    all.swap(kept);
    // A start routine's Leave is its thread's last record: OpenMP events after it stay inside.
    if (!a.empty() && a.back().kind == static_cast<std::uint32_t>(EventKind::Leave)) {
        auto it = std::find_if(all.begin(), all.end(), [&](const Decoded& d) {
            return d.kind == a.back().kind && d.a == a.back().a && d.time == a.back().time;
        });
        if (it != all.end()) {
            Decoded last = *it;
            all.erase(it);
            last.time = std::max(last.time, all.empty() ? last.time : all.back().time);
            all.push_back(last);
        }
    }
    // ThreadEnd is the thread's last record, after its start routine's Leave.
    const auto end = std::find_if(all.begin(), all.end(), [](const Decoded& d) {
        return d.kind == static_cast<std::uint32_t>(EventKind::ThreadEnd);
    });
    if (end != all.end() && end + 1 != all.end()) {
        Decoded last = *end;
        all.erase(end);
        last.time = std::max(last.time, all.back().time);
        all.push_back(last);
    }
    std::vector<std::uint64_t> words(all.size() * kMaxRecordWords);
    EventBuffer out;
    out.reset(words.data(), words.size());
    for (const Decoded& d : all) {
        std::uint64_t* x = writeRecord(out, d.time, static_cast<EventKind>(d.kind), d.a);
        std::copy(d.extra, d.extra + kExtraWords[d.kind], x);
    }
    words.resize(static_cast<std::size_t>(out.cursor - out.begin));
    return words;
}

/// The finished records of the OpenMP threads, kept until the process ends (finalize writes
/// them after handing them over).
std::vector<std::vector<std::uint64_t>>* g_finished = nullptr;

} // namespace

OmpThread* threadBegin() noexcept {
    if (t_onMainThread || t_thread)
        return t_thread;
    std::uint32_t index = g_threadCount.load(std::memory_order_relaxed);
    if (index >= kMaxThreads)
        return nullptr;
    auto* thread = new (std::nothrow) OmpThread();
    if (!thread)
        return nullptr;
    // A thread that is sampled too keeps its number: finalize merges both streams.
    thread->number = t_sampledThread ? t_sampledThread->number : reserveThreadNumber();
    if (thread->number == 0) {
        delete thread;
        return nullptr;
    }
    index = g_threadCount.fetch_add(1, std::memory_order_acq_rel);
    if (index >= kMaxThreads) {
        delete thread;
        return nullptr;
    }
    g_threads[index].store(thread, std::memory_order_release);
    t_thread = thread;
    return thread;
}

OmpThread* pthreadBegin() noexcept {
    if (t_thread || t_onMainThread)
        return t_thread;
    OmpThread* thread = threadBegin();
    if (thread)
        g_pthreadsRecorded.store(true, std::memory_order_relaxed);
    return thread;
}

OmpThread* currentThread() noexcept {
    return t_thread;
}

void recordThreadOrder(EventKind kind, std::uint32_t sequence) noexcept {
    if (t_onMainThread) {
        if (!measured())
            return;
        ensureRoom(kMaxRecordWords);
        appendRecord(now(), kind, sequence);
        return;
    }
    OmpThread* t = pthreadBegin();
    if (!t)
        return;
    // Dekker with finalize, as record() does.
    t->writing.fetch_add(1, std::memory_order_seq_cst);
    if (std::atomic_ref<std::uint32_t>(g_hot.recordMask).load(std::memory_order_relaxed) != 0 &&
        !g_stopped.load(std::memory_order_seq_cst)) {
        if (makeRoom(*t)) {
            writeRecord(t->buffer, now(), kind, sequence);
            ++t->buffer.events;
        } else {
            ++t->lost;
        }
    }
    t->writing.fetch_sub(1, std::memory_order_release);
}

} // namespace waitscope::measure::openmp

namespace waitscope::measure {

bool threadMpiRegister() noexcept {
    using namespace openmp;
    OmpThread* t = pthreadBegin();
    if (!t)
        return false;
    if (t_events == &g_hot.buffer)
        t_events = &t->buffer;
    return true;
}

bool threadCallBegins() noexcept {
    using namespace openmp;
    OmpThread* t = t_thread;
    if (!t)
        return false;
    // Dekker with finalize, as record() does; held for the whole call, so that finalize takes
    // whole calls only (MPI lets no thread be inside MPI while MPI_Finalize runs).
    t->writing.fetch_add(1, std::memory_order_seq_cst);
    if (!g_stopped.load(std::memory_order_seq_cst))
        return true;
    t->writing.fetch_sub(1, std::memory_order_release);
    return false;
}

void threadCallEnds() noexcept {
    if (openmp::OmpThread* t = openmp::t_thread)
        t->writing.fetch_sub(1, std::memory_order_release);
}

void threadRecordsFull(std::size_t words) noexcept {
    using namespace openmp;
    OmpThread* t = t_thread;
    if (!t)
        return; // not registered: t_events is the rank's buffer, never a thread's
    if (t_events == &t->buffer && words <= kChunkWords && makeRoom(*t, words))
        return;
    if (t_events == &t->buffer) {
        // No more memory: the thread's records end here (a whole stream up to this call).
        ++t->lost;
        t_events = &t->scratchBuffer;
    }
    t->scratchBuffer.reset(t->scratch, OmpThread::kScratchWords);
}

} // namespace waitscope::measure

namespace waitscope::measure::openmp {

void enter(Construct construct, const void* codeptr) noexcept {
    record(construct, codeptr, EventKind::Enter);
}

void leave(Construct construct, const void* codeptr) noexcept {
    record(construct, codeptr, EventKind::Leave);
}

void toolStarted() noexcept {
    g_toolStarted.store(true, std::memory_order_relaxed);
}

} // namespace waitscope::measure::openmp

namespace waitscope::measure {

void addOpenmpThreadRecords(std::vector<ThreadRecords>& threads) noexcept {
    using namespace openmp;
    if (!g_toolStarted.load(std::memory_order_relaxed)) {
        // The program runs OpenMP, but its runtime never asked for a tool: no OMPT (libgomp).
        if (dlsym(RTLD_DEFAULT, "omp_get_num_threads") != nullptr)
            g_diagnostics.openmpWithoutOmpt = 1;
        if (!g_pthreadsRecorded.load(std::memory_order_relaxed) && !g_mainRecorded)
            return;
    }
    g_stopped.store(true, std::memory_order_seq_cst);
    const std::uint32_t count =
        std::min(g_threadCount.load(std::memory_order_acquire), kMaxThreads);
    try {
        if (!g_finished)
            g_finished = new std::vector<std::vector<std::uint64_t>>();
        for (std::uint32_t i = 0; i < count; ++i) {
            OmpThread* t = g_threads[i].load(std::memory_order_acquire);
            if (!t)
                continue;
            // A thread inside a recorded call finishes it first; one that stays inside (an
            // erroneous program: MPI calls during MPI_Finalize) is left out after a second.
            const std::uint64_t deadline = now() + g_hot.clock.ticksPerSecond();
            while (t->writing.load(std::memory_order_acquire) != 0 && now() < deadline)
                sched_yield();
            if (t->writing.load(std::memory_order_acquire) != 0) {
                g_diagnostics.openmpLostEvents += t->buffer.events;
                continue;
            }
            g_diagnostics.openmpLostEvents += t->lost;
            if (t->buffer.events == 0)
                continue;
            // What the thread has not left yet ends here (at most what its stack holds).
            const std::uint64_t end = now();
            for (std::uint32_t d = std::min<std::uint32_t>(t->depth, 64); d > 0 && makeRoom(*t);
                 --d) {
                writeRecord(t->buffer, std::max(end, t->buffer.lastTime), EventKind::Leave,
                            t->open[d - 1]);
                ++t->buffer.events;
            }
            t->depth = 0;
            // Threads with POSIX threads calls only are not OpenMP threads.
            if (g_toolStarted.load(std::memory_order_relaxed)) {
                ++g_diagnostics.openmpThreads;
                g_diagnostics.openmpEvents += t->buffer.events;
            }
            // The thread's chunks as one stream.
            std::vector<std::uint64_t> words;
            t->chunks.emplace_back(t->buffer.begin, t->buffer.cursor);
            for (const auto& chunk : t->chunks)
                words.insert(words.end(), chunk.first, chunk.second);
            t->chunks.pop_back();
            defineSlotOperands(words.data(), words.data() + words.size());
            auto sampled =
                std::find_if(threads.begin(), threads.end(),
                             [&](const ThreadRecords& r) { return r.number == t->number; });
            if (sampled != threads.end()) {
                words = mergeStreams(sampled->begin, sampled->end, words.data(),
                                     words.data() + words.size());
                g_finished->push_back(std::move(words));
                sampled->begin = g_finished->back().data();
                sampled->end = sampled->begin + g_finished->back().size();
                sampled->events += t->buffer.events;
            } else {
                g_finished->push_back(std::move(words));
                const std::vector<std::uint64_t>& kept = g_finished->back();
                threads.push_back(
                    {t->number, kept.data(), kept.data() + kept.size(), t->buffer.events});
            }
        }
        if (g_mainRecorded && g_toolStarted.load(std::memory_order_relaxed))
            ++g_diagnostics.openmpThreads;
        // Every construct seen gets its source location now.
        for (std::uint32_t i = 0; i < kSlots; ++i) {
            std::uint32_t region = g_slots[i].region.load(std::memory_order_acquire);
            if (region == 0)
                continue;
            std::uint64_t key = g_slots[i].key.load(std::memory_order_relaxed);
            RegionDefinition named = provisionalRegion(key);
            const ConstructInfo& info = kInfo[static_cast<std::size_t>(kindOf(key))];
            std::uintptr_t address = addressOf(key);
            if (address != 0) {
                // The return address points after the call: its line is the call's.
                SymbolInfo symbol = resolveSymbol(address - 1);
                std::string file = symbol.file.substr(symbol.file.find_last_of('/') + 1);
                std::string where =
                    symbol.line > 0 ? file + ":" + std::to_string(symbol.line) : symbol.name;
                named.name = std::string(info.name) + " @" + where;
                // Lock and POSIX threads calls keep the function's name alone: the call path
                // tells them apart.
                if (kindOf(key) == Construct::Lock || info.paradigm == Paradigm::Pthread)
                    named.name = info.name;
                named.canonicalName = std::string(info.name) + " @" + where;
                named.file = symbol.file;
                named.beginLine = symbol.line;
                named.endLine = symbol.line;
            }
            definitions().setRegion(region - 1, std::move(named));
        }
    } catch (...) {
        ++g_diagnostics.openmpLostEvents; // out of memory: the threads stay unwritten
    }
}

} // namespace waitscope::measure
