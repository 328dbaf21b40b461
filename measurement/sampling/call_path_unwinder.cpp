// Unwinding with libunwind's local-only fast path and the frame-to-context caches.
#define UNW_LOCAL_ONLY
#include "waitscope/measure/call_path_unwinder.h"

#include "waitscope/measure/definitions.h"
#include "waitscope/measure/interpreted_program.h"
#include "waitscope/measure/runtime.h"
#include "waitscope/measure/sample_ring.h"
#include "waitscope/measure/symbol_resolver.h"

#include <algorithm>
#include <libunwind.h>
#include <unistd.h>

namespace waitscope::measure {

namespace {
constexpr std::uintptr_t kUnknownBit = std::uintptr_t{1} << 63;
} // namespace

void CallPathUnwinder::init(bool cached) noexcept {
    m_cached = cached;
    m_own.find();
    char path[4096];
    ssize_t length = readlink("/proc/self/exe", path, sizeof(path) - 1);
    if (length > 0)
        m_program.assign(path, static_cast<size_t>(length));
    m_path.reserve(256);
    if (cached) {
        m_remembered.resize(kRememberedStacks);
#if defined(__x86_64__)
        m_snapshots.resize(kSnapshots);
#endif
    }
    // libunwind's global cache takes a lock; the per-thread one does not, which is what a
    // signal handler that may interrupt an unwind needs.
    unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
    std::uintptr_t frames[8];
    unwindHere(frames, 8);
    warmUpThread();
}

void CallPathUnwinder::warmUpThread() noexcept {
    // Not unw_backtrace: its trace cache is per-thread state freed by a key destructor at
    // thread exit, which a sampled thread (that never unwinds at call sites) does not need.
    std::uintptr_t frames[8];
    unw_context_t context;
    unw_getcontext(&context);
    unwindInterrupted(&context, frames, 8);
}

std::uint32_t CallPathUnwinder::functionRegion(std::uintptr_t start) noexcept {
    return functionAt(start, true).region;
}

int CallPathUnwinder::unwindHere(std::uintptr_t* frames, int max) noexcept {
    int depth = unw_backtrace(reinterpret_cast<void**>(frames), max);
    return depth > 0 ? depth : 0;
}

int CallPathUnwinder::unwindInterrupted(void* ucontext, std::uintptr_t* frames, int max) noexcept {
    unw_cursor_t cursor;
    // On x86-64 and aarch64 Linux, unw_context_t is the ucontext_t a handler receives.
    if (unw_init_local2(&cursor, static_cast<unw_context_t*>(ucontext), UNW_INIT_SIGNAL_FRAME) < 0)
        return -1;
    int depth = 0;
    while (depth < max) {
        unw_word_t ip = 0;
        if (unw_get_reg(&cursor, UNW_REG_IP, &ip) < 0 || ip == 0)
            break;
        frames[depth++] = static_cast<std::uintptr_t>(ip);
        int step = unw_step(&cursor);
        if (step == 0)
            break;
        if (step < 0)
            return -1;
    }
    return depth > 0 ? depth : -1;
}

namespace {

/// The C library, the dynamic linker and the vDSO: their inner frames are implementation
/// details of the call the program made (clock_gettime, fopen), never a place to blame.
bool isSystemModule(const std::string& path) {
    const std::string base = path.substr(path.find_last_of('/') + 1);
    for (const char* prefix :
         {"libc.so", "libc-", "ld-linux", "ld64.so", "libpthread", "[vdso", "linux-vdso"})
        if (base.rfind(prefix, 0) == 0)
            return true;
    return false;
}

/// The C library's start-up code, which calls main.
bool isStartup(const std::string& name) {
    return name == "__libc_start_call_main" || name == "__libc_start_main" ||
           name == "__libc_start_main_impl" || name == "_start";
}

} // namespace

std::uintptr_t CallPathUnwinder::codeStart(std::uintptr_t address, bool& known) noexcept {
    std::uintptr_t start = functionStart(address, known);
    if (known || start == 0)
        return start;
    // No symbol (a stripped binary): the function's start by its unwind information, else the
    // address itself, so distinct code stays distinct.
    std::uintptr_t unwound = unwindInfoStart(address);
    return unwound ? unwound : address;
}

CallPathUnwinder::Function CallPathUnwinder::defineFunction(std::uintptr_t start, bool known,
                                                            std::uintptr_t address) noexcept {
    RegionDefinition region;
    Function f;
    const std::string module = moduleName(known || start == 0 ? start : address);
    if (known) {
        // Source lines only for the program's own functions: the line tables of libraries
        // (libc with its debug information installed, MPI) take long to load.
        SymbolInfo symbol = module == m_program ? resolveSymbol(start) : resolveSymbolName(start);
        region.name = symbol.name;
        region.canonicalName = symbol.mangled;
        region.file = symbol.file;
        region.beginLine = symbol.line;
        region.endLine = symbol.endLine;
        f.startup = isStartup(region.canonicalName);
    } else if (start != 0) {
        // Code no symbol names: "module+0xoffset" of its start, which addr2line reads.
        region.name = moduleOffsetName(start);
        region.canonicalName = region.name;
        region.file = module;
        f.anonymous = true;
    } else {
        region.name = "[unknown]"; // in no module at all
        region.canonicalName = region.name;
        f.anonymous = true;
    }
    f.system = isSystemModule(module);
    region.role = RegionRole::Function;
    region.paradigm = Paradigm::Sampling;
    f.isMain = region.canonicalName == "main" || region.canonicalName == "MAIN__";
    if (!m_cached) {
        std::string key = region.canonicalName + '\n' + region.file;
        auto it = m_functionByName.find(key);
        if (it != m_functionByName.end())
            return it->second;
        f.region = definitions().addRegion(std::move(region));
        m_functionByName.emplace(std::move(key), f);
        return f;
    }
    f.region = definitions().addRegion(std::move(region));
    return f;
}

CallPathUnwinder::Function CallPathUnwinder::functionAt(std::uintptr_t frame, bool isPc) noexcept {
    // A return address points after its call, maybe past the end of the calling function.
    std::uintptr_t address = isPc ? frame : frame - 1;
    if (!m_cached) {
        bool known = false;
        std::uintptr_t start = codeStart(address, known);
        return defineFunction(start, known, address);
    }
    std::uint64_t returnKey = handleKey(address);
    std::uintptr_t start = 0;
    if (std::uintptr_t* cached = m_startByReturn.find(returnKey)) {
        start = *cached;
    } else {
        bool known = true;
        start = codeStart(address, known);
        // Code without a symbol is keyed with the top bit set, apart from symbols (user-space
        // addresses never have it).
        if (!known)
            start |= kUnknownBit;
        m_startByReturn.insert(returnKey, start);
    }
    if (Function* f = m_functionByStart.find(handleKey(start)))
        return *f;
    Function f = defineFunction(start & ~kUnknownBit, (start & kUnknownBit) == 0, address);
    m_functionByStart.insert(handleKey(start), f);
    return f;
}

bool CallPathUnwinder::outsideBeforeSymbols(std::uintptr_t returnAddress) noexcept {
    if (m_cached && m_startByReturn.find(handleKey(returnAddress - 1)) != nullptr)
        return false; // looked up before: its function is known at no cost
    return isSystemModule(moduleName(returnAddress - 1));
}

std::uint32_t CallPathUnwinder::mainRegion() noexcept {
    if (m_main == ~0u)
        m_main = definitions().addRegion(
            {"main", "main", m_program, 0, 0, RegionRole::Function, Paradigm::Sampling});
    return m_main;
}

std::uint32_t CallPathUnwinder::contextOf(const std::uintptr_t* frames, int depth, bool firstIsPc,
                                          std::uint32_t stopRegion, bool skipOwnCode) noexcept {
    int first = 0;
    while (first < depth && m_own.contains(frames[first]))
        ++first;
    if (first >= depth)
        return failedContext();
    if (interpretedProgram() && !skipOwnCode)
        return kNoContext; // the interpreter's own frames: its program's regions are the path
    m_path.clear();
    bool pastMain = false;
    for (int i = first; i < depth; ++i) {
        if (skipOwnCode && m_own.contains(frames[i]))
            continue;
        // Beyond main only another main further out would count: none lies beyond the C
        // library's start-up code, whose symbols (libc's whole table) are not read for it.
        if (pastMain && outsideBeforeSymbols(frames[i]))
            break;
        Function f = functionAt(frames[i], firstIsPc && i == 0);
        pastMain = pastMain || f.isMain;
        const std::vector<RegionDefinition>& regions = definitions().regions();
        if (stopRegion != kNoStop && regions[f.region].name == regions[stopRegion].name)
            break;
        m_path.push_back(f);
    }
    if (m_path.empty())
        return stopRegion != kNoStop ? kNoContext : failedContext();
    // The path starts at the outermost main; what calls main (libc start-up) is left out. In a
    // stripped program, main is the function the start-up code calls.
    size_t top = m_path.size() - 1;
    bool hasMain = false;
    for (size_t k = m_path.size(); k-- > 0;)
        if (m_path[k].isMain) {
            top = k;
            hasMain = true;
            break;
        }
    if (!hasMain)
        for (size_t k = 1; k < m_path.size(); ++k)
            if (m_path[k].startup) {
                // Without a symbol it is main; a named one is what runs after main returned
                // (exit and its handlers: an MPI_Finalize called at exit).
                top = k - 1;
                if (m_path[top].anonymous)
                    m_path[top] = Function{mainRegion(), true, false, false, false};
                break;
            }
    // C library and vDSO frames at the inner end (clock_gettime, its vDSO code, memcpy) are
    // not where to look: their time belongs to the function that called them.
    size_t inner = 0;
    while (inner < top && m_path[inner].system)
        ++inner;
    std::uint32_t context = kNoContext;
    for (size_t k = top + 1; k-- > inner;) {
        const Function& f = m_path[k];
        // A run of C library frames further out (qsort calling back) shows as its outermost:
        // the call the program made.
        if (f.system && k < top && m_path[k + 1].system)
            continue;
        // A run of frames without symbols shows as its innermost: the code nearest the call.
        if (f.anonymous && k > inner && m_path[k - 1].anonymous)
            continue;
        context = definitions().callingContext(f.region, context);
    }
    return context;
}

std::uint32_t CallPathUnwinder::callSiteContext(const std::uintptr_t* frames, int depth,
                                                std::uint32_t stopRegion) noexcept {
    if (m_remembered.empty() || depth <= 0 || depth > kRememberedFrames || interpretedProgram())
        return contextOf(frames, depth, false, stopRegion);
    std::uint64_t hash = 0x9e3779b97f4a7c15ull ^ stopRegion;
    for (int i = 0; i < depth; ++i) {
        hash ^= frames[i];
        hash *= 0xff51afd7ed558ccdull;
        hash ^= hash >> 29;
    }
    RememberedStack& slot = m_remembered[hash % kRememberedStacks];
    if (slot.hash == hash && slot.depth == depth && slot.stop == stopRegion &&
        std::equal(frames, frames + depth, slot.frames))
        return slot.context;
    const std::uint32_t context = contextOf(frames, depth, false, stopRegion);
    slot.hash = hash;
    slot.depth = depth;
    slot.stop = stopRegion;
    slot.context = context;
    std::copy(frames, frames + depth, slot.frames);
    return context;
}

std::uint32_t CallPathUnwinder::failedContext() noexcept {
    if (m_failed == ~0u) {
        std::uint32_t region =
            definitions().addRegion({"failed unwind", "failed unwind", "", 0, 0,
                                     RegionRole::Artificial, Paradigm::MeasurementSystem});
        m_failed = definitions().callingContext(region, kNoContext);
    }
    return m_failed;
}

} // namespace waitscope::measure

namespace waitscope::measure {

namespace {

/// The word at stack address `address` (the unwinder gives stack addresses as integers).
std::uintptr_t stackWord(std::uintptr_t address) noexcept {
    // NOLINTNEXTLINE(performance-no-int-to-ptr): a stack address from libunwind or a snapshot
    return *reinterpret_cast<const volatile std::uintptr_t*>(address);
}

} // namespace

__attribute__((noinline)) int CallPathUnwinder::unwindWithSlots(std::uintptr_t* frames, int max,
                                                                StackSnapshot& snapshot) noexcept {
    unw_context_t context;
    unw_cursor_t cursor;
    snapshot.depth = -1;
    if (unw_getcontext(&context) < 0 || unw_init_local(&cursor, &context) < 0)
        return 0;
    int depth = 0;
    bool trusted = true;
    while (depth < max) {
        unw_word_t ip = 0;
        if (unw_get_reg(&cursor, UNW_REG_IP, &ip) < 0 || ip == 0)
            break;
        frames[depth] = static_cast<std::uintptr_t>(ip);
        if (depth > 0) {
            // x86-64: a call pushes the return address just below the caller's stack pointer,
            // which is what the unwinder restores as this frame's SP.
            unw_word_t sp = 0;
            const bool inPlace = unw_get_reg(&cursor, UNW_REG_SP, &sp) == 0 && sp >= 8 &&
                                 stackWord(static_cast<std::uintptr_t>(sp - 8)) == frames[depth];
            if (!inPlace || depth > kSnapshotFrames || unw_is_signal_frame(&cursor) > 0)
                trusted = false;
            else {
                snapshot.slot[depth - 1] = static_cast<std::uintptr_t>(sp - 8);
                snapshot.value[depth - 1] = frames[depth];
            }
        }
        ++depth;
        const int step = unw_step(&cursor);
        if (step == 0)
            break;
        if (step < 0) {
            trusted = false;
            break;
        }
    }
    // Frame 0 is this function's own code: its return addresses start at frame 1.
    if (trusted && depth > 1)
        snapshot.depth = depth - 1;
    return depth;
}

std::uint32_t CallPathUnwinder::contextOfCallSite(std::uint32_t stopRegion, bool& unwound,
                                                  std::uint64_t* reached) noexcept {
    unwound = true;
    std::uintptr_t frames[kMaxFrames];
    if (m_snapshots.empty() || interpretedProgram()) {
        if (reached && *reached == 0)
            *reached = now();
        const int depth = unwindHere(frames, kMaxFrames);
        return depth > 0 ? callSiteContext(frames, depth, stopRegion) : failedContext();
    }
    const auto anchor = reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
    for (const StackSnapshot& snapshot : m_snapshots) {
        if (snapshot.depth <= 0 || snapshot.anchor != anchor || snapshot.stop != stopRegion)
            continue;
        // From the outermost frame in: an outer change shows first, usually.
        int i = snapshot.depth;
        while (i > 0 && stackWord(snapshot.slot[i - 1]) == snapshot.value[i - 1])
            --i;
        if (i == 0) {
            unwound = false;
            return snapshot.context;
        }
    }
    if (reached && *reached == 0)
        *reached = now();
    StackSnapshot& snapshot = m_snapshots[m_nextSnapshot];
    const int depth = unwindWithSlots(frames, kMaxFrames, snapshot);
    if (depth <= 0) {
        snapshot.depth = -1;
        return failedContext();
    }
    const std::uint32_t context = callSiteContext(frames, depth, stopRegion);
    // The innermost slots lie in frames that are gone once this returns (the unwinding's own):
    // only those in this function's frame and further out stay, and are checked next time.
    int kept = 0;
    for (int i = 0; i < snapshot.depth; ++i)
        if (snapshot.slot[i] > anchor) {
            snapshot.slot[kept] = snapshot.slot[i];
            snapshot.value[kept++] = snapshot.value[i];
        }
    snapshot.depth = snapshot.depth > 0 ? kept : -1;
    if (snapshot.depth > 0 && !isFailed(context)) {
        snapshot.anchor = anchor;
        snapshot.stop = stopRegion;
        snapshot.context = context;
        m_nextSnapshot = (m_nextSnapshot + 1) % kSnapshots;
    } else {
        snapshot.depth = -1;
    }
    return context;
}

} // namespace waitscope::measure
