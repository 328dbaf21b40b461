// Compiler-instrumentation hooks (-finstrument-functions) and the manual annotation API:
// user regions, resolved once per address or name, filtered, recorded as Enter/Leave.
//
// Fast path per call: the record mask, a thread check, one hash lookup by function address;
// a filtered function stops there (its decision is cached as kFiltered).
#include "waitscope/measure/filter.h"
#include "waitscope/measure/handle_map.h"
#include "waitscope/measure/interpreted_program.h"
#include "waitscope/measure/runtime.h"
#include "waitscope/measure/symbol_resolver.h"
#include "waitscope/user.h"

#include <cstdio>
#include <cstdlib>
#include <new>

namespace waitscope::measure {

namespace {

constexpr std::uint32_t kFiltered = ~0u;

// A direct-mapped cache of recent function addresses in front of the hash map: a hot function
// (filtered or not) costs one load and compare per hook.
struct CacheSlot {
    void* function = nullptr;
    std::uint32_t id = 0;
};
constexpr std::size_t kCacheSlots = 512;
CacheSlot g_cache[kCacheSlots];

inline CacheSlot& cacheSlot(void* function) noexcept {
    return g_cache[(reinterpret_cast<std::uintptr_t>(function) >> 4) & (kCacheSlots - 1)];
}

HandleMap<std::uint32_t>* g_regionsByAddress = nullptr;
HandleMap<std::uint32_t>* g_regionsByName = nullptr;
Filter* g_filter = nullptr;
bool g_setUp = false;
bool g_inside = false;      ///< resolving a symbol: hooks of anything it calls are ignored
bool g_interpreted = false; ///< an interpreter defined regions of its program's functions

/// The run-time filter file, WAITSCOPE_FILTER (as Score-P's SCOREP_FILTERING_FILE).
void loadFilter() {
    const char* path = std::getenv("WAITSCOPE_FILTER");
    if (!path || !*path)
        return;
    Result<Filter> filter = Filter::load(path);
    if (filter.ok())
        g_filter = new Filter(std::move(filter.value()));
    else
        std::fprintf(stderr, "waitscope: warning: %s; recording without a filter\n",
                     filter.error().message().c_str());
}

/// Starts the measurement at the first instrumented call, if it is not running yet.
bool ready() noexcept {
    if (g_hot.recordMask & kGroupUser) {
        // Other threads' functions (OpenMP workers running outlined code) are not recorded;
        // they call no MPI, so no foreign-thread warning either.
        if (t_onMainThread)
            return true;
        return pthread_equal(pthread_self(), g_hot.mainThread) && foreignThread();
    }
    if (g_setUp || g_inside)
        return false;
    g_setUp = true;
    g_inside = true;
    loadFilter();
    bool started = runtimeStart();
    g_inside = false;
    return started && (g_hot.recordMask & kGroupUser);
}

std::uint32_t regionForAddress(void* function) noexcept {
    CacheSlot& slot = cacheSlot(function);
    if (slot.function == function)
        return slot.id;
    if (!g_regionsByAddress)
        g_regionsByAddress = new (std::nothrow) HandleMap<std::uint32_t>();
    if (!g_regionsByAddress)
        return kFiltered; // no memory for the table: the function is not recorded
    std::uint64_t key = handleKey(function);
    if (std::uint32_t* id = g_regionsByAddress->find(key)) {
        slot = {function, *id};
        return *id;
    }
    g_inside = true;
    SymbolInfo symbol = resolveSymbol(reinterpret_cast<std::uintptr_t>(function));
    std::uint32_t id = kFiltered;
    if (!g_filter || !g_filter->excludes(symbol.name, symbol.mangled, symbol.file))
        id = definitions().addRegion({symbol.name, symbol.mangled, symbol.file, symbol.line,
                                      symbol.endLine, RegionRole::Function, Paradigm::Compiler});
    g_regionsByAddress->insert(key, id);
    slot = {function, id};
    g_inside = false;
    return id;
}

std::uint32_t regionForName(const char* name, const char* file, int line) noexcept {
    if (!g_regionsByName)
        g_regionsByName = new (std::nothrow) HandleMap<std::uint32_t>();
    if (!g_regionsByName)
        return kFiltered;
    std::uint64_t key = handleKey(name);
    if (std::uint32_t* id = g_regionsByName->find(key))
        return *id;
    g_inside = true;
    std::uint32_t id = kFiltered;
    std::string regionName = name ? name : "(null)";
    std::string fileName = file ? file : "";
    if (!g_filter || !g_filter->excludes(regionName, regionName, fileName))
        id = definitions().addRegion({regionName, regionName, fileName,
                                      line > 0 ? static_cast<std::uint32_t>(line) : 0, 0,
                                      RegionRole::Function, Paradigm::User});
    g_regionsByName->insert(key, id);
    g_inside = false;
    return id;
}

/// The first call of a function (or one from a cold cache slot), and calls while the
/// measurement starts: resolve, filter, then record. Kept out of line so the hot path stays small.
__attribute__((noinline, cold)) void enterSlow(void* function) noexcept {
    if (g_inside || !ready())
        return;
    std::uint32_t id = regionForAddress(function);
    if (id == kFiltered)
        ++g_diagnostics.filteredCalls;
    else
        enterUserRegion(id);
}

__attribute__((noinline, cold)) void exitSlow(void* function) noexcept {
    if (!(g_hot.recordMask & kGroupUser) || !t_onMainThread || g_inside || !g_regionsByAddress)
        return;
    std::uint32_t* known = g_regionsByAddress->find(handleKey(function));
    if (known && *known != kFiltered)
        leaveUserRegion(*known); // unknown: entered before the measurement started
}

inline bool hotPathOpen() noexcept {
    return (g_hot.recordMask & kGroupUser) && t_onMainThread && !g_inside;
}

} // namespace

bool interpretedProgram() noexcept {
    return g_interpreted;
}

} // namespace waitscope::measure

using namespace waitscope::measure;

extern "C" __attribute__((visibility("default"), no_instrument_function)) void
// NOLINTNEXTLINE(bugprone-reserved-identifier): the compiler's hook, named by GCC
__cyg_profile_func_enter(void* function, void*) {
    if (__builtin_expect(hotPathOpen(), 1)) {
        const CacheSlot& slot = cacheSlot(function);
        if (__builtin_expect(slot.function == function, 1)) {
            if (slot.id == kFiltered)
                ++g_diagnostics.filteredCalls;
            else
                enterUserRegion(slot.id);
            return;
        }
    }
    enterSlow(function);
}

extern "C" __attribute__((visibility("default"), no_instrument_function)) void
// NOLINTNEXTLINE(bugprone-reserved-identifier): the compiler's hook, named by GCC
__cyg_profile_func_exit(void* function, void*) {
    if (__builtin_expect(hotPathOpen(), 1)) {
        const CacheSlot& slot = cacheSlot(function);
        if (__builtin_expect(slot.function == function, 1)) {
            if (slot.id != kFiltered)
                leaveUserRegion(slot.id);
            return;
        }
    }
    exitSlow(function);
}

extern "C" __attribute__((visibility("default"))) void
waitscope_region_begin(const char* name, const char* file, int line) {
    if (g_inside || !ready())
        return;
    std::uint32_t id = regionForName(name, file, line);
    if (id != kFiltered)
        enterUserRegion(id);
}

extern "C" __attribute__((visibility("default"))) void waitscope_region_end(const char* name) {
    if (g_inside || !(g_hot.recordMask & kGroupUser) || !t_onMainThread || !g_regionsByName)
        return;
    std::uint32_t* id = g_regionsByName->find(handleKey(name));
    if (id && *id != kFiltered)
        leaveUserRegion(*id);
}

// Interpreted programs (share/python/waitscope: a profile hook of Python functions). The hook
// defines each function once and then enters and leaves it by id, so a call costs no lookup.

/// Defines the region of an interpreted function (`name` as shown, its source `file`, first and
/// last line); starts the measurement if it is not running. Returns its id, or -1 when the
/// function is filtered or nothing is measured. From then on unwound call paths of the main
/// thread leave the interpreter's own frames out. Main thread.
extern "C" __attribute__((visibility("default"))) long
waitscope_python_region(const char* name, const char* file, int firstLine, int lastLine) {
    if (!name || g_inside || !ready())
        return -1;
    g_inside = true;
    std::string regionName = name;
    std::string fileName = file ? file : "";
    long id = -1;
    if (!g_filter || !g_filter->excludes(regionName, regionName, fileName)) {
        id = definitions().addRegion({regionName, regionName, fileName,
                                      firstLine > 0 ? static_cast<std::uint32_t>(firstLine) : 0,
                                      lastLine > 0 ? static_cast<std::uint32_t>(lastLine) : 0,
                                      RegionRole::Function, Paradigm::User});
        g_interpreted = true;
    }
    g_inside = false;
    return id;
}

/// Enters a region defined by waitscope_python_region. Returns 1 when recorded, 0 when not
/// (not measuring, another thread): the caller then does not leave it. Main thread.
extern "C" __attribute__((visibility("default"))) int waitscope_python_enter(long region) {
    if (region < 0 || !hotPathOpen())
        return 0;
    enterUserRegion(static_cast<std::uint32_t>(region));
    return 1;
}

/// Leaves a region whose waitscope_python_enter returned 1. Main thread.
extern "C" __attribute__((visibility("default"))) void waitscope_python_leave(long region) {
    if (region >= 0 && hotPathOpen())
        leaveUserRegion(static_cast<std::uint32_t>(region));
}
