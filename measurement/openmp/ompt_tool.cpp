// The OMPT tool: an OMPT runtime (LLVM's libomp) calls ompt_start_tool when it starts, and the
// tool registers the callbacks that record OpenMP constructs as regions (openmp_recorder.h).
// A runtime without OMPT (GCC's libgomp) never calls it; finalize then notes in the
// self-measurement that the program's OpenMP was not recorded.
//
// What each construct records, on the thread the callback runs on:
//   parallel_begin .. implicit task begin (thread 0)   "!$omp fork"   (the encountering thread)
//   implicit task begin .. end (every team thread)      "!$omp parallel"
//   implicit task end (thread 0) .. parallel_end        "!$omp join"
//   sync region: explicit / implicit barrier, taskwait  "!$omp barrier", "!$omp implicit
//                                                       barrier", "!$omp taskwait"
//   work: loop, sections, single                        "!$omp for", ...
//   mutex acquire .. acquired .. released (critical)    "!$omp critical" around
//                                                       "!$omp critical sblock"
//   mutex acquire .. acquired (lock)                    "omp_set_lock"
//   task create (an instant)                            "!$omp create task"
//   task schedule: an explicit task starts .. completes "!$omp task"
// Leaves find the region their enter opened on a small per-thread stack, so a construct whose
// end callback carries another code address (or none) still closes the right region.
#include "openmp_recorder.h"

#include WAITSCOPE_OMPT_HEADER

#include <algorithm>
#include <cstdint>

namespace waitscope::measure::openmp {
namespace {

struct OpenConstruct {
    Construct construct;
    const void* codeptr;
};

constexpr int kStackDepth = 64;
__thread OpenConstruct t_open[kStackDepth] __attribute__((tls_model("initial-exec")));
__thread int t_depth __attribute__((tls_model("initial-exec"))) = 0;

void open(Construct construct, const void* codeptr) noexcept {
    if (t_depth < kStackDepth)
        t_open[t_depth] = {construct, codeptr};
    ++t_depth;
    enter(construct, codeptr);
}

/// Leaves the innermost open `construct` (and the constructs left open inside it).
void close(Construct construct) noexcept {
    for (int d = std::min(t_depth, kStackDepth) - 1; d >= 0; --d) {
        if (t_open[d].construct != construct)
            continue;
        for (int inner = std::min(t_depth, kStackDepth) - 1; inner > d; --inner)
            leave(t_open[inner].construct, t_open[inner].codeptr);
        leave(construct, t_open[d].codeptr);
        t_depth = d;
        return;
    }
}

/// The code address of the innermost open parallel region (for barriers without one).
const void* parallelCodeptr() noexcept {
    for (int d = std::min(t_depth, kStackDepth) - 1; d >= 0; --d)
        if (t_open[d].construct == Construct::Parallel)
            return t_open[d].codeptr;
    return nullptr;
}

// A task's data: its code address shifted by 2; bit 1 an explicit task, bit 0 for an implicit
// task "thread 0 of its team", for an explicit one "started".
constexpr std::uint64_t kExplicit = 2;
constexpr std::uint64_t kFlag = 1;

std::uint64_t pack(const void* codeptr, std::uint64_t bits) {
    return (reinterpret_cast<std::uintptr_t>(codeptr) << 2) | bits;
}
const void* codeptrOf(std::uint64_t value) {
    // The code address round-trips through the task's data word, with two flag bits.
    return reinterpret_cast<const void*>( // NOLINT(performance-no-int-to-ptr)
        static_cast<std::uintptr_t>(value >> 2));
}

void onThreadBegin(ompt_thread_t type, ompt_data_t*) {
    if (type == ompt_thread_worker)
        threadBegin();
}

void onParallelBegin(ompt_data_t*, const ompt_frame_t*, ompt_data_t* parallel, unsigned int, int,
                     const void* codeptr) {
    if (parallel)
        parallel->ptr = const_cast<void*>(codeptr);
    open(Construct::Fork, codeptr);
}

void onParallelEnd(ompt_data_t*, ompt_data_t*, int, const void*) {
    close(Construct::Join);
}

void onImplicitTask(ompt_scope_endpoint_t endpoint, ompt_data_t* parallel, ompt_data_t* task,
                    unsigned int, unsigned int index, int flags) {
    if ((flags & ompt_task_initial) != 0 || !task)
        return;
    if (endpoint == ompt_scope_begin) {
        const void* codeptr = parallel ? parallel->ptr : nullptr;
        task->value = pack(codeptr, index == 0 ? kFlag : 0);
        if (index == 0)
            close(Construct::Fork);
        open(Construct::Parallel, codeptr);
        return;
    }
    close(Construct::Parallel);
    if ((task->value & kFlag) != 0)
        open(Construct::Join, codeptrOf(task->value));
}

void onSyncRegion(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t*,
                  ompt_data_t*, const void* codeptr) {
    Construct construct = Construct::ImplicitBarrier;
    switch (kind) {
    case ompt_sync_region_barrier_explicit:
        construct = Construct::Barrier;
        break;
    case ompt_sync_region_taskwait:
        construct = Construct::Taskwait;
        break;
    case ompt_sync_region_barrier:
    case ompt_sync_region_barrier_implicit:
    case ompt_sync_region_barrier_implementation:
    case ompt_sync_region_barrier_implicit_workshare:
    case ompt_sync_region_barrier_implicit_parallel:
        break;
    default:
        return; // taskgroup, reduction, teams
    }
    if (endpoint == ompt_scope_end) {
        close(construct);
        return;
    }
    open(construct, codeptr ? codeptr : parallelCodeptr());
}

void onWork(ompt_work_t type, ompt_scope_endpoint_t endpoint, ompt_data_t*, ompt_data_t*,
            std::uint64_t, const void* codeptr) {
    Construct construct = Construct::Loop;
    switch (type) {
    case ompt_work_loop:
        break;
    case ompt_work_sections:
        construct = Construct::Sections;
        break;
    case ompt_work_single_executor:
    case ompt_work_single_other:
        construct = Construct::Single;
        break;
    default:
        return;
    }
    if (endpoint == ompt_scope_begin)
        open(construct, codeptr);
    else
        close(construct);
}

void onMutexAcquire(ompt_mutex_t kind, unsigned int, unsigned int, ompt_wait_id_t,
                    const void* codeptr) {
    if (kind == ompt_mutex_critical)
        open(Construct::Critical, codeptr);
    else if (kind == ompt_mutex_lock)
        open(Construct::Lock, codeptr);
    else if (kind == ompt_mutex_ordered)
        open(Construct::Ordered, codeptr);
}

void onMutexAcquired(ompt_mutex_t kind, ompt_wait_id_t, const void* codeptr) {
    if (kind == ompt_mutex_critical)
        open(Construct::CriticalSblock, codeptr);
    else if (kind == ompt_mutex_lock)
        close(Construct::Lock);
    else if (kind == ompt_mutex_ordered)
        open(Construct::OrderedSblock, codeptr);
}

void onMutexReleased(ompt_mutex_t kind, ompt_wait_id_t, const void*) {
    if (kind == ompt_mutex_critical)
        close(Construct::Critical);
    else if (kind == ompt_mutex_ordered)
        close(Construct::Ordered);
}

void onTaskCreate(ompt_data_t*, const ompt_frame_t*, ompt_data_t* task, int flags, int,
                  const void* codeptr) {
    if ((flags & ompt_task_explicit) == 0 || !task)
        return;
    task->value = pack(codeptr, kExplicit);
    enter(Construct::TaskCreate, codeptr);
    leave(Construct::TaskCreate, codeptr);
}

void onTaskSchedule(ompt_data_t* prior, ompt_task_status_t status, ompt_data_t* next) {
    const bool finished = status == ompt_task_complete || status == ompt_task_cancel ||
                          status == ompt_task_detach || status == ompt_task_late_fulfill;
    if (prior && finished && (prior->value & (kExplicit | kFlag)) == (kExplicit | kFlag))
        close(Construct::Task);
    if (next && (next->value & (kExplicit | kFlag)) == kExplicit) {
        next->value |= kFlag;
        open(Construct::Task, codeptrOf(next->value));
    }
}

template <class Callback>
void set(ompt_set_callback_t setCallback, ompt_callbacks_t which, Callback f) {
    setCallback(which, reinterpret_cast<ompt_callback_t>(f));
}

int initialize(ompt_function_lookup_t lookup, int, ompt_data_t*) {
    auto setCallback = reinterpret_cast<ompt_set_callback_t>(lookup("ompt_set_callback"));
    if (!setCallback)
        return 0;
    toolStarted();
    set(setCallback, ompt_callback_thread_begin, onThreadBegin);
    set(setCallback, ompt_callback_parallel_begin, onParallelBegin);
    set(setCallback, ompt_callback_parallel_end, onParallelEnd);
    set(setCallback, ompt_callback_implicit_task, onImplicitTask);
    set(setCallback, ompt_callback_sync_region, onSyncRegion);
    set(setCallback, ompt_callback_work, onWork);
    set(setCallback, ompt_callback_mutex_acquire, onMutexAcquire);
    set(setCallback, ompt_callback_mutex_acquired, onMutexAcquired);
    set(setCallback, ompt_callback_mutex_released, onMutexReleased);
    set(setCallback, ompt_callback_task_create, onTaskCreate);
    set(setCallback, ompt_callback_task_schedule, onTaskSchedule);
    return 1; // keep the tool
}

void finalize(ompt_data_t*) {}

} // namespace
} // namespace waitscope::measure::openmp

/// The OMPT entry point (OpenMP 5.0, 4.5.1): the runtime asks whether a tool is present.
extern "C" __attribute__((visibility("default"))) ompt_start_tool_result_t*
ompt_start_tool(unsigned int, const char*) {
    static ompt_start_tool_result_t result = {
        waitscope::measure::openmp::initialize, waitscope::measure::openmp::finalize, {0}};
    return &result;
}
