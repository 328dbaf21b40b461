// One-sided communication bookkeeping: the rank's windows (their ids, epochs' groups) and the
// transfers not yet completed, as Score-P's MPI adapter keeps them (docs/rma_records.md).
#pragma once

#include "call.h"

#include <cstdint>

namespace waitscope::measure::mpi {

/// What the wrappers know of an MPI window.
struct WindowInfo {
    static constexpr std::uint32_t kNoGroup = OTF2_UNDEFINED_UINT32;
    std::uint32_t id = 0;   ///< local id (index into the rank's RMA window definitions)
    bool allocated = false; ///< MPI_Win_allocate(_shared): its free deallocates
    std::uint32_t accessGroup = kNoGroup;   ///< the group of MPI_Win_start, until complete
    std::uint32_t exposureGroup = kNoGroup; ///< the group of MPI_Win_post, until wait/test
};

/// Defines the window `win` just created on `comm` by the call named by `name` (Score-P's
/// window names) and returns its info. Main thread, inside MPI calls only (allocates).
WindowInfo& defineWindow(MPI_Win win, MPI_Comm comm, const char* name, bool allocated);

/// The info of `win`, or nullptr for a window never defined.
WindowInfo* findWindow(MPI_Win win) noexcept;

/// Forgets `win` and the transfers still pending on it.
void forgetWindow(MPI_Win win) noexcept;

/// The local id of the group definition of `group` (its members' world ranks).
std::uint32_t rmaGroupOf(MPI_Group group) noexcept;

/// Whether a transfer completes locally and remotely at once (Get) or separately (the rest).
enum class RmaCompletion : std::uint8_t { Separate, Combined };

/// The matching id of a new transfer to `target` on window `win` without a request: the id of
/// the pending transfer of the same kind to the same target if there is one (its completion
/// covers both), else a new pending transfer's.
std::uint64_t implicitTransfer(std::uint32_t win, int target, RmaCompletion completion);

/// A new pending transfer with its own matching `id`, completed through `request` (Rput,
/// Rget, ...) as well as by the epoch's end; the request is tracked.
void attachTransfer(std::uint32_t win, int target, RmaCompletion completion, std::uint64_t id,
                    MPI_Request request);

/// How the end of an epoch, a flush or a test completes pending transfers (Score-P's three).
enum class RmaCompletes : std::uint8_t {
    LocalAndForget, ///< fence, complete, wait: local completion; remote too for combined ones
    Local,          ///< flush_local, test: local; remote and forgotten for combined ones only
    Full,           ///< flush, unlock: local if not yet, then remote; forgotten
};

/// Records the completions of the window's pending transfers at `time` (to `target` only,
/// unless it is kAllTargets).
inline constexpr int kAllTargets = -1;
void completeTransfers(std::uint32_t win, int target, RmaCompletes how,
                       std::uint64_t time) noexcept;

/// Records the completion of a request-based transfer by MPI_Wait/MPI_Test & co. at `time`.
void completeRequestTransfer(MPI_Request request, std::uint64_t time) noexcept;

} // namespace waitscope::measure::mpi
