// Handlers of the one-sided (RMA) calls: window creation and free, transfers, and every kind of
// synchronization, writing OTF2's RMA records as Score-P 8 does (docs/rma_records.md).
#pragma once

#include "call.h"
#include "rma_windows.h"

namespace waitscope::measure::mpi {

/// OTF2_RmaSyncLevel bits.
inline constexpr std::uint32_t kSyncNone = 0, kSyncProcess = 1, kSyncMemory = 2;

/// MPI_Win_create, _allocate, _allocate_shared, _create_dynamic: RmaCollectiveBegin at enter;
/// RmaWinCreate and RmaCollectiveEnd(create op, PROCESS) at leave. The window is defined even
/// when the call is not recorded, so later events can name it.
class WinCreate : public Call {
public:
    WinCreate(std::uint32_t region, std::uint32_t group, MPI_Comm comm, MPI_Win* win,
              const char* name, bool allocates) noexcept;
    void finish(int rc) noexcept;

private:
    MPI_Comm m_comm;
    MPI_Win* m_win;
    const char* m_name;
    bool m_allocates;
};

/// MPI_Win_free: RmaCollectiveBegin at enter; RmaWinDestroy and RmaCollectiveEnd(destroy op,
/// PROCESS) at leave.
class WinFree : public Call {
public:
    WinFree(std::uint32_t region, std::uint32_t group, MPI_Win* win) noexcept;
    void finish(int rc) noexcept;

private:
    MPI_Win m_win;
    std::uint32_t m_id = OTF2_UNDEFINED_UINT32;
    bool m_allocated = false;
};

/// The kinds of transfer, with the record each writes.
enum class RmaTransfer : std::uint8_t {
    Put,                ///< RmaPut, separate completion
    Get,                ///< RmaGet, combined completion
    Accumulate,         ///< RmaAtomic ACCUMULATE
    FetchAndAccumulate, ///< RmaAtomic FETCH_AND_ACCUMULATE (Get_accumulate, Fetch_and_op)
    CompareAndSwap,     ///< RmaAtomic COMPARE_AND_SWAP
};

/// Put, Get, the accumulates and atomics, and their request variants (`request` not null): the
/// transfer's record at enter (nothing for MPI_PROC_NULL), its pending completion after.
class RmaOp : public Call {
public:
    RmaOp(std::uint32_t region, std::uint32_t group, RmaTransfer kind, MPI_Win win, int target,
          std::uint64_t sent, std::uint64_t received, MPI_Request* request = nullptr) noexcept;
    void finish(int rc) noexcept;

private:
    RmaTransfer m_kind;
    WindowInfo* m_window = nullptr;
    int m_target;
    MPI_Request* m_request;
    std::uint64_t m_id = 0;
};

/// MPI_Win_fence: RmaCollectiveBegin at enter; the window's completions and
/// RmaCollectiveEnd(BARRIER, MEMORY|PROCESS) at leave.
class WinFence : public Call {
public:
    WinFence(std::uint32_t region, std::uint32_t group, MPI_Win win) noexcept;
    void finish(int rc) noexcept;

private:
    WindowInfo* m_window;
};

/// MPI_Win_post (`access` false) and MPI_Win_start (true): the epoch's group noted, RmaGroupSync
/// (PROCESS) at leave.
class WinEpochStart : public Call {
public:
    WinEpochStart(std::uint32_t region, std::uint32_t group, MPI_Group members, MPI_Win win,
                  bool access) noexcept;
    void finish(int rc) noexcept;

private:
    WindowInfo* m_window;
    std::uint32_t m_group = WindowInfo::kNoGroup;
};

/// MPI_Win_complete (`access` true), MPI_Win_wait (false) and MPI_Win_test (`flag` not null):
/// at leave the window's completions and RmaGroupSync(MEMORY|PROCESS) with the epoch's group;
/// a test that did not end the epoch writes RmaGroupSync(NONE) only.
class WinEpochEnd : public Call {
public:
    WinEpochEnd(std::uint32_t region, std::uint32_t group, MPI_Win win, bool access,
                int* flag = nullptr) noexcept;
    void finish(int rc) noexcept;

private:
    WindowInfo* m_window;
    bool m_access;
    int* m_flag;
};

/// MPI_Win_lock (`rank` a target) and MPI_Win_lock_all (kAllTargets, shared): RmaRequestLock
/// at enter.
class WinLock : public Call {
public:
    WinLock(std::uint32_t region, std::uint32_t group, int lockType, int rank,
            MPI_Win win) noexcept;
    void finish(int rc) noexcept;
};

/// MPI_Win_unlock, _unlock_all (`release` true), _flush, _flush_all, _flush_local,
/// _flush_local_all: at leave the completions to `rank` (or all targets), then RmaReleaseLock
/// for an unlock.
class WinFlush : public Call {
public:
    WinFlush(std::uint32_t region, std::uint32_t group, int rank, MPI_Win win, RmaCompletes how,
             bool release) noexcept;
    void finish(int rc) noexcept;

private:
    WindowInfo* m_window;
    int m_rank;
    RmaCompletes m_how;
    bool m_release;
};

} // namespace waitscope::measure::mpi
