// The one-sided call handlers: which records each call writes and when (docs/rma_records.md).
#include "rma.h"

#include "requests.h"

namespace waitscope::measure::mpi {

namespace {

constexpr std::uint32_t kUndefined = OTF2_UNDEFINED_UINT32;

bool onMainThreadWhileMeasuring() noexcept {
    return g_hot.recordMask != 0 && pthread_equal(pthread_self(), g_hot.mainThread);
}

std::uint32_t windowId(const WindowInfo* window) noexcept {
    return window ? window->id : kUndefined;
}

std::uint32_t rankOperand(int rank) noexcept {
    return rank < 0 ? kUndefined : static_cast<std::uint32_t>(rank);
}

void recordRmaCollectiveEnd(std::uint64_t time, std::uint32_t op, std::uint32_t syncLevel,
                            std::uint32_t win) noexcept {
    std::uint64_t* x = appendRecord(time, EventKind::RmaCollectiveEnd, op | (syncLevel << 8));
    x[0] = packPair(win, kUndefined);
    x[1] = 0;
    x[2] = 0;
}

void recordGroupSync(std::uint64_t time, std::uint32_t syncLevel, std::uint32_t win,
                     std::uint32_t group) noexcept {
    appendRecord(time, EventKind::RmaGroupSync, syncLevel)[0] = packPair(win, group);
}

} // namespace

WinCreate::WinCreate(std::uint32_t region, std::uint32_t group, MPI_Comm comm, MPI_Win* win,
                     const char* name, bool allocates) noexcept
    : Call(region, group), m_comm(comm), m_win(win), m_name(name), m_allocates(allocates) {
    if (m_active) {
        enter();
        appendRecord(m_enter, EventKind::RmaCollectiveBegin, 0);
    }
}

void WinCreate::finish(int rc) noexcept {
    const WindowInfo* window = nullptr;
    if (rc == MPI_SUCCESS && m_win && *m_win != MPI_WIN_NULL && onMainThreadWhileMeasuring())
        window = &defineWindow(*m_win, m_comm, m_name, m_allocates);
    if (!m_active)
        return;
    const std::uint64_t t = now();
    if (window)
        appendRecord(t, EventKind::RmaWinCreate, window->id);
    recordRmaCollectiveEnd(t,
                           m_allocates ? OTF2_COLLECTIVE_OP_CREATE_HANDLE_AND_ALLOCATE
                                       : OTF2_COLLECTIVE_OP_CREATE_HANDLE,
                           kSyncProcess, windowId(window));
    leave(t);
}

WinFree::WinFree(std::uint32_t region, std::uint32_t group, MPI_Win* win) noexcept
    : Call(region, group), m_win(win ? *win : MPI_WIN_NULL) {
    if (const WindowInfo* window = findWindow(m_win)) {
        m_id = window->id;
        m_allocated = window->allocated;
    }
    if (m_active) {
        enter();
        appendRecord(m_enter, EventKind::RmaCollectiveBegin, 0);
    }
}

void WinFree::finish(int rc) noexcept {
    if (rc == MPI_SUCCESS)
        forgetWindow(m_win);
    if (!m_active)
        return;
    const std::uint64_t t = now();
    if (m_id != kUndefined)
        appendRecord(t, EventKind::RmaWinDestroy, m_id);
    recordRmaCollectiveEnd(t,
                           m_allocated ? OTF2_COLLECTIVE_OP_DESTROY_HANDLE_AND_DEALLOCATE
                                       : OTF2_COLLECTIVE_OP_DESTROY_HANDLE,
                           kSyncProcess, m_id);
    leave(t);
}

RmaOp::RmaOp(std::uint32_t region, std::uint32_t group, RmaTransfer kind, MPI_Win win, int target,
             std::uint64_t sent, std::uint64_t received, MPI_Request* request) noexcept
    : Call(region, group), m_kind(kind), m_target(target), m_request(request) {
    if (!m_active)
        return;
    enter();
    m_window = findWindow(win);
    if (!m_window || target == MPI_PROC_NULL)
        return;
    const RmaCompletion completion =
        kind == RmaTransfer::Get ? RmaCompletion::Combined : RmaCompletion::Separate;
    // A request-based transfer gets its own id; the others share the one of a transfer of the
    // same kind to the same target still pending (Score-P's implicit requests).
    if (request) {
        m_id = nextRequestId();
    } else {
        m_id = implicitTransfer(m_window->id, target, completion);
    }
    const std::uint64_t pair = packPair(m_window->id, static_cast<std::uint32_t>(target));
    switch (kind) {
    case RmaTransfer::Put:
    case RmaTransfer::Get: {
        std::uint64_t* x = appendRecord(
            m_enter, kind == RmaTransfer::Put ? EventKind::RmaPut : EventKind::RmaGet, 0);
        x[0] = pair;
        x[1] = sent;
        x[2] = m_id;
        break;
    }
    case RmaTransfer::Accumulate:
    case RmaTransfer::FetchAndAccumulate:
    case RmaTransfer::CompareAndSwap: {
        const std::uint32_t type = kind == RmaTransfer::Accumulate ? OTF2_RMA_ATOMIC_TYPE_ACCUMULATE
                                   : kind == RmaTransfer::CompareAndSwap
                                       ? OTF2_RMA_ATOMIC_TYPE_COMPARE_AND_SWAP
                                       : OTF2_RMA_ATOMIC_TYPE_FETCH_AND_ACCUMULATE;
        std::uint64_t* x = appendRecord(m_enter, EventKind::RmaAtomic, type);
        x[0] = pair;
        x[1] = sent;
        x[2] = received;
        x[3] = m_id;
        break;
    }
    }
}

void RmaOp::finish(int rc) noexcept {
    if (!m_active)
        return;
    if (m_id != 0 && m_request) {
        // Tracked even when the call failed, as Score-P does; a null request completes nothing.
        if (rc == MPI_SUCCESS && *m_request != MPI_REQUEST_NULL)
            attachTransfer(m_window->id, m_target,
                           m_kind == RmaTransfer::Get ? RmaCompletion::Combined
                                                      : RmaCompletion::Separate,
                           m_id, *m_request);
    }
    leave(now());
}

WinFence::WinFence(std::uint32_t region, std::uint32_t group, MPI_Win win) noexcept
    : Call(region, group), m_window(findWindow(win)) {
    if (m_active) {
        enter();
        appendRecord(m_enter, EventKind::RmaCollectiveBegin, 0);
    }
}

void WinFence::finish(int) noexcept {
    if (!m_active)
        return;
    const std::uint64_t t = now();
    if (m_window)
        completeTransfers(m_window->id, kAllTargets, RmaCompletes::LocalAndForget, t);
    recordRmaCollectiveEnd(t, OTF2_COLLECTIVE_OP_BARRIER, kSyncMemory | kSyncProcess,
                           windowId(m_window));
    leave(t);
}

WinEpochStart::WinEpochStart(std::uint32_t region, std::uint32_t group, MPI_Group members,
                             MPI_Win win, bool access) noexcept
    : Call(region, group), m_window(findWindow(win)) {
    if (m_window && onMainThreadWhileMeasuring()) {
        m_group = rmaGroupOf(members);
        (access ? m_window->accessGroup : m_window->exposureGroup) = m_group;
    }
    if (m_active)
        enter();
}

void WinEpochStart::finish(int) noexcept {
    if (!m_active)
        return;
    const std::uint64_t t = now();
    if (m_window)
        recordGroupSync(t, kSyncProcess, m_window->id, m_group);
    leave(t);
}

WinEpochEnd::WinEpochEnd(std::uint32_t region, std::uint32_t group, MPI_Win win, bool access,
                         int* flag) noexcept
    : Call(region, group), m_window(findWindow(win)), m_access(access), m_flag(flag) {
    if (m_active)
        enter();
}

void WinEpochEnd::finish(int rc) noexcept {
    const bool ended = rc == MPI_SUCCESS && (m_flag == nullptr || *m_flag != 0);
    std::uint32_t* epochGroup = nullptr;
    if (m_window)
        epochGroup = m_access ? &m_window->accessGroup : &m_window->exposureGroup;
    if (m_active && m_window) {
        const std::uint64_t t = now();
        if (ended) {
            completeTransfers(m_window->id, kAllTargets,
                              m_flag ? RmaCompletes::Local : RmaCompletes::LocalAndForget, t);
            recordGroupSync(t, kSyncMemory | kSyncProcess, m_window->id, *epochGroup);
        } else {
            recordGroupSync(t, kSyncNone, m_window->id, *epochGroup);
        }
        leave(t);
    } else if (m_active) {
        leave(now());
    }
    if (ended && epochGroup)
        *epochGroup = WindowInfo::kNoGroup;
}

WinLock::WinLock(std::uint32_t region, std::uint32_t group, int lockType, int rank,
                 MPI_Win win) noexcept
    : Call(region, group) {
    if (!m_active)
        return;
    enter();
    if (const WindowInfo* window = findWindow(win)) {
        std::uint64_t* x =
            appendRecord(m_enter, EventKind::RmaRequestLock,
                         lockType == MPI_LOCK_EXCLUSIVE ? OTF2_LOCK_EXCLUSIVE : OTF2_LOCK_SHARED);
        x[0] = packPair(window->id, rankOperand(rank));
        x[1] = 0; // Score-P's lock id
    }
}

void WinLock::finish(int) noexcept {
    if (m_active)
        leave(now());
}

WinFlush::WinFlush(std::uint32_t region, std::uint32_t group, int rank, MPI_Win win,
                   RmaCompletes how, bool release) noexcept
    : Call(region, group), m_window(findWindow(win)), m_rank(rank), m_how(how), m_release(release) {
    if (m_active)
        enter();
}

void WinFlush::finish(int) noexcept {
    if (!m_active)
        return;
    const std::uint64_t t = now();
    if (m_window) {
        completeTransfers(m_window->id, m_rank, m_how, t);
        if (m_release) {
            std::uint64_t* x = appendRecord(t, EventKind::RmaReleaseLock, 0);
            x[0] = packPair(m_window->id, rankOperand(m_rank));
            x[1] = 0;
        }
    }
    leave(t);
}

} // namespace waitscope::measure::mpi
