// Unwinds stacks (libunwind, local only) and turns them into calling contexts, with the caches
// that make unwinding at every MPI call cheap.
#pragma once

#include "waitscope/measure/handle_map.h"
#include "waitscope/measure/own_code.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace waitscope::measure {

/// Frames to calling contexts. Function start addresses are cached by return address and
/// regions by function start, so a call site seen before costs two hash lookups per frame and
/// no symbol lookup. Main thread only, never in signal context (except the unwind functions
/// marked so).
class CallPathUnwinder {
public:
    /// Finds the measurement's own code, sets libunwind's per-thread cache and unwinds once so
    /// its lazily set-up state exists before a signal handler needs it. `cached` false resolves
    /// every frame anew (to measure what the caches save).
    void init(bool cached) noexcept;

    /// Unwinds the calling thread's stack from here, innermost first (return addresses; the
    /// measurement's frames included). Returns the depth; 0 when unwinding failed.
    static int unwindHere(std::uintptr_t* frames, int max) noexcept;

    /// Signal context (async-signal-safe): unwinds the stack interrupted by a signal from the
    /// handler's `ucontext`; frames[0] is the interrupted program counter, the others return
    /// addresses. Returns the depth, or -1 when a step failed or nothing was found.
    static int unwindInterrupted(void* ucontext, std::uintptr_t* frames, int max) noexcept;

    /// Any thread, not signal context: unwinds once on the calling thread the way the
    /// signal handler does, so libunwind's per-thread state exists before the handler needs
    /// it.
    static void warmUpThread() noexcept;

    /// The region of the function that starts at `start` (a thread's start routine), defined
    /// as the unwinder defines the functions it finds on stacks, so a path of the thread's
    /// samples ends below it when `contextOf` gets it as `stopRegion`.
    std::uint32_t functionRegion(std::uintptr_t start) noexcept;

    /// The calling context of a stack, frames innermost first (`firstIsPc`: frames[0] is a
    /// program counter, not a return address). The measurement's frames are dropped from the
    /// inside and the frames that call main from the outside (in a stripped program: libc's
    /// start-up code, below which the function it calls is named main). A run of frames without
    /// symbols becomes one node named after its innermost ("hpcc+0x1a2b3"). C library and vDSO
    /// frames at the inner end are left out (their time is their caller's); a run of them further
    /// out is one node named after its outermost (the call the program made). `stopRegion`
    /// (when instrumented regions are open: the innermost one; kNoStop otherwise) ends the path
    /// below the function of that region's name (looked up per frame: defining new functions may
    /// move the region table, so no reference into it is held). kNoContext when nothing is left
    /// below the stop; failedContext() when nothing is left. `skipOwnCode`: the measurement's
    /// frames further out are left out too (a sampled thread's stack: its MPI wrappers, and the
    /// thread start wrapper below the start routine when the stop is not found). In an
    /// interpreted program (interpretedProgram()) the main thread's frames are the
    /// interpreter's: kNoContext, its own regions are the path.
    std::uint32_t contextOf(const std::uintptr_t* frames, int depth, bool firstIsPc,
                            std::uint32_t stopRegion, bool skipOwnCode = false) noexcept;
    /// No stop region for contextOf().
    static constexpr std::uint32_t kNoStop = ~0u;

    /// contextOf() of a stack unwound at an MPI call (return addresses only), remembered per
    /// stack: the same frames under the same stop (a loop around a call site) give the
    /// remembered context at the cost of one hash and one comparison of the frames, without a
    /// lookup per frame. Exactly what contextOf() returns for them, since a stack's context
    /// never changes once its functions are defined. Not remembered in uncached mode, in an
    /// interpreted program, or for stacks deeper than kRememberedFrames.
    std::uint32_t callSiteContext(const std::uintptr_t* frames, int depth,
                                  std::uint32_t stopRegion) noexcept;

    /// The calling context of the stack of the calling function's caller (an MPI call site,
    /// main thread, never in signal context): callSiteContext() of its unwound frames, but a
    /// stack seen before costs no unwinding. On x86-64 each remembered stack keeps where every
    /// frame's return address lies (a frame's canonical frame address minus 8) and its value;
    /// when this function's frame is where it was then and every one of those words still holds
    /// its return address, from the innermost to main, the chain of frames is the same and so is
    /// the context (an outer frame popped and pushed again shows as a changed word unless it
    /// returns to the same place from the same stack address: the same path). Frames whose
    /// return address is not in that place (signal frames) are never remembered. Elsewhere, in
    /// uncached mode and in an interpreted program: unwound every time. `unwound` is set when
    /// the stack was unwound (a miss). failedContext() when unwinding failed. `reached`, when
    /// not null and 0, is set to now() before a miss is unwound: a hit reads no clock.
    std::uint32_t contextOfCallSite(std::uint32_t stopRegion, bool& unwound,
                                    std::uint64_t* reached = nullptr) noexcept
        __attribute__((noinline));

    /// True for an address in the measurement's own code. Any thread.
    bool inOwnCode(std::uintptr_t address) const noexcept { return m_own.contains(address); }

    /// The context "failed unwind": samples and calls whose stack could not be unwound.
    std::uint32_t failedContext() noexcept;
    /// True for the "failed unwind" context (without defining it).
    bool isFailed(std::uint32_t context) const noexcept { return context == m_failed; }

private:
    struct Function {
        std::uint32_t region = 0;
        bool isMain = false;    ///< main or MAIN__: paths start there
        bool startup = false;   ///< libc's start-up code, which calls main
        bool anonymous = false; ///< no symbol: named "module+0xoffset"
        bool system = false;    ///< in libc, the dynamic linker or the vDSO
    };
    /// Where the code at `address` starts: its symbol's entry (`known`), else (stripped) the
    /// start of its unwind-information range or the address itself; 0 in no module.
    static std::uintptr_t codeStart(std::uintptr_t address, bool& known) noexcept;
    /// True for a return address beyond main in a system module (libc's start-up code) whose
    /// function was not looked up before: contextOf() ends the path's frames there without
    /// reading that module's symbols (the module list only).
    bool outsideBeforeSymbols(std::uintptr_t returnAddress) noexcept;
    /// The region "main" for a stripped program's main (the function libc's start-up calls).
    std::uint32_t mainRegion() noexcept;
    Function functionAt(std::uintptr_t returnAddress, bool isPc) noexcept;
    Function defineFunction(std::uintptr_t start, bool known, std::uintptr_t address) noexcept;

    /// A remembered call-site stack and its context.
    static constexpr int kRememberedFrames = 48;
    static constexpr std::size_t kRememberedStacks = 64; ///< direct-mapped by the stack's hash
    struct RememberedStack {
        std::uint64_t hash = 0;
        std::int32_t depth = -1; ///< -1: empty
        std::uint32_t stop = 0;
        std::uint32_t context = 0;
        std::uintptr_t frames[kRememberedFrames];
    };

    /// A stack whose frames are known by where their return addresses lie (contextOfCallSite).
    static constexpr int kSnapshotFrames = 64;
    static constexpr std::size_t kSnapshots = 8; ///< searched in turn, replaced round robin
    struct StackSnapshot {
        std::uintptr_t anchor = 0; ///< contextOfCallSite's frame address when taken
        std::int32_t depth = -1;   ///< -1: empty
        std::uint32_t stop = 0;
        std::uint32_t context = 0;
        std::uintptr_t slot[kSnapshotFrames];  ///< where frame i's return address lies
        std::uintptr_t value[kSnapshotFrames]; ///< and its value
    };
    /// Unwinds the stack from contextOfCallSite's frame `anchor` into `frames`, keeping the
    /// slots in `snapshot` (its depth -1 when they cannot be trusted). Returns the depth.
    static int unwindWithSlots(std::uintptr_t* frames, int max, StackSnapshot& snapshot) noexcept;

    OwnCode m_own;
    std::vector<StackSnapshot> m_snapshots; ///< kSnapshots, allocated by init() (x86-64)
    std::size_t m_nextSnapshot = 0;
    std::vector<RememberedStack> m_remembered; ///< kRememberedStacks, allocated by init()

    std::string m_program; ///< the executable's path (its functions get source lines)
    bool m_cached = true;
    HandleMap<std::uintptr_t>
        m_startByReturn; ///< looked-up address -> function start (top bit: no symbol)
    HandleMap<Function> m_functionByStart;
    std::unordered_map<std::string, Function> m_functionByName; ///< uncached mode only
    std::vector<Function> m_path;
    std::uint32_t m_failed = ~0u;
    std::uint32_t m_main = ~0u;
};

} // namespace waitscope::measure
