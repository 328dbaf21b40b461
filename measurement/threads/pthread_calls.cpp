// Records the program's POSIX threads synchronization as Score-P's pthread regions: mutex
// lock, trylock and unlock, condition wait, timed wait, signal and broadcast, and
// pthread_join, each a region of the pthread paradigm on the location of the thread that calls
// it (the main thread into the rank's buffer, every other thread into its own lock-free one,
// openmp_recorder.h).
//
// The wrappers work preloaded and linked, like pthread_create's (measurement/sampling): each
// finds the C library's function with dlsym(RTLD_NEXT) (the condition calls by their current
// symbol version: an unversioned lookup may return glibc 2.2.5's old ones). Only calls from
// the program's own code are recorded (program_code.h): the MPI library, the OpenMP runtime
// and the other system libraries lock mutexes inside their own calls, and those calls are
// theirs, not the program's. A call is recorded as a region from entering the wrapper to
// returning from the C library, one region per function (as Score-P names them: the call path
// tells the calls apart); no lock acquire/release records are written.
#include "../openmp/openmp_recorder.h"
#include "program_code.h"
#include "thread_order.h"
#include "waitscope/measure/runtime.h"

#include <atomic>
#include <cerrno>
#include <dlfcn.h>
#include <pthread.h>

namespace waitscope::measure {
namespace {

using openmp::Construct;

/// The C library's function `name` (at `version`, if given), looked up once.
template <typename Function>
Function real(std::atomic<Function>& slot, const char* name, const char* version) noexcept {
    Function function = slot.load(std::memory_order_acquire);
    if (!function) {
        void* symbol = version != nullptr ? dlvsym(RTLD_NEXT, name, version) : nullptr;
        if (!symbol)
            symbol = dlsym(RTLD_NEXT, name);
        function = reinterpret_cast<Function>(symbol);
        slot.store(function, std::memory_order_release);
    }
    return function;
}

/// Set while a wrapper records: calls made by the recording itself are not recorded.
__thread bool t_recording __attribute__((tls_model("initial-exec"))) = false;

/// One recorded call: entered on construction when the call is the program's and the rank is
/// measured, left on destruction (after the C library returned).
class RecordedCall {
public:
    RecordedCall(Construct construct, const void* caller) noexcept : m_construct(construct) {
        if (t_recording ||
            std::atomic_ref<std::uint32_t>(g_hot.recordMask).load(std::memory_order_relaxed) == 0 ||
            !isProgramCode(caller))
            return;
        t_recording = true;
        if (!t_onMainThread && !openmp::currentThread() && !openmp::pthreadBegin()) {
            t_recording = false;
            return;
        }
        m_recorded = true;
        // Samples inside the call are the call's time, as inside an MPI call (the main thread's
        // handler drops them; a further thread's are dropped when its records are merged).
        if (t_onMainThread)
            g_hot.insideMpi = g_hot.insideMpi + 1;
        openmp::enter(construct, nullptr);
        t_recording = false;
    }
    ~RecordedCall() {
        if (!m_recorded)
            return;
        t_recording = true;
        openmp::leave(m_construct, nullptr);
        if (t_onMainThread)
            g_hot.insideMpi = g_hot.insideMpi - 1;
        t_recording = false;
    }
    /// Whether the call is recorded (the program's, while the rank is measured).
    bool recorded() const noexcept { return m_recorded; }
    RecordedCall(const RecordedCall&) = delete;
    RecordedCall& operator=(const RecordedCall&) = delete;

private:
    Construct m_construct;
    bool m_recorded = false;
};

using MutexFunction = int (*)(pthread_mutex_t*);
using CondWaitFunction = int (*)(pthread_cond_t*, pthread_mutex_t*);
using CondTimedwaitFunction = int (*)(pthread_cond_t*, pthread_mutex_t*, const timespec*);
using CondFunction = int (*)(pthread_cond_t*);
using JoinFunction = int (*)(pthread_t, void**);

std::atomic<MutexFunction> g_lock{nullptr};
std::atomic<MutexFunction> g_trylock{nullptr};
std::atomic<MutexFunction> g_unlock{nullptr};
std::atomic<CondWaitFunction> g_condWait{nullptr};
std::atomic<CondTimedwaitFunction> g_condTimedwait{nullptr};
std::atomic<CondFunction> g_condSignal{nullptr};
std::atomic<CondFunction> g_condBroadcast{nullptr};
std::atomic<JoinFunction> g_join{nullptr};

// glibc's symbol version of the condition variable calls on every 64-bit architecture Debian
// builds them for (the unversioned lookup can bind the 2.2.5 compatibility ones).
constexpr const char* kCondVersion = "GLIBC_2.3.2";

} // namespace
} // namespace waitscope::measure

// The wrappers (any thread, not signal context): each returns what the C library's function
// returns, and EINVAL when that cannot be found.
#define WAITSCOPE_PTHREAD_CALL(construct, slot, name, version, ...)                                \
    using namespace waitscope::measure;                                                            \
    auto function = real(slot, name, version);                                                     \
    if (!function)                                                                                 \
        return EINVAL;                                                                             \
    RecordedCall call(construct, __builtin_return_address(0));                                     \
    return function(__VA_ARGS__)

extern "C" {

__attribute__((visibility("default"))) int pthread_mutex_lock(pthread_mutex_t* mutex) {
    WAITSCOPE_PTHREAD_CALL(Construct::PthreadMutexLock, g_lock, "pthread_mutex_lock", nullptr,
                           mutex);
}

__attribute__((visibility("default"))) int pthread_mutex_trylock(pthread_mutex_t* mutex) {
    WAITSCOPE_PTHREAD_CALL(Construct::PthreadMutexTrylock, g_trylock, "pthread_mutex_trylock",
                           nullptr, mutex);
}

__attribute__((visibility("default"))) int pthread_mutex_unlock(pthread_mutex_t* mutex) {
    WAITSCOPE_PTHREAD_CALL(Construct::PthreadMutexUnlock, g_unlock, "pthread_mutex_unlock", nullptr,
                           mutex);
}

__attribute__((visibility("default"))) int pthread_cond_wait(pthread_cond_t* condition,
                                                             pthread_mutex_t* mutex) {
    WAITSCOPE_PTHREAD_CALL(Construct::PthreadCondWait, g_condWait, "pthread_cond_wait",
                           kCondVersion, condition, mutex);
}

__attribute__((visibility("default"))) int
pthread_cond_timedwait(pthread_cond_t* condition, pthread_mutex_t* mutex, const timespec* until) {
    WAITSCOPE_PTHREAD_CALL(Construct::PthreadCondTimedwait, g_condTimedwait,
                           "pthread_cond_timedwait", kCondVersion, condition, mutex, until);
}

__attribute__((visibility("default"))) int pthread_cond_signal(pthread_cond_t* condition) {
    WAITSCOPE_PTHREAD_CALL(Construct::PthreadCondSignal, g_condSignal, "pthread_cond_signal",
                           kCondVersion, condition);
}

__attribute__((visibility("default"))) int pthread_cond_broadcast(pthread_cond_t* condition) {
    WAITSCOPE_PTHREAD_CALL(Construct::PthreadCondBroadcast, g_condBroadcast,
                           "pthread_cond_broadcast", kCondVersion, condition);
}

/// pthread_join also records ThreadWait inside its region once the thread is joined
/// (thread_order.h): the join's wait ends there.
__attribute__((visibility("default"))) int pthread_join(pthread_t thread, void** result) {
    using namespace waitscope::measure;
    auto function = real(g_join, "pthread_join", nullptr);
    if (!function)
        return EINVAL;
    RecordedCall call(Construct::PthreadJoin, __builtin_return_address(0));
    const int joined = function(thread, result);
    if (joined == 0)
        threadJoined(thread, call.recorded());
    return joined;
}

} // extern "C"
