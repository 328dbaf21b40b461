// The rank's windows and pending one-sided transfers, and the completion records of Score-P's
// MPI adapter (SCOREP_Mpi_Rma.c, scorep_mpi_rma_request.c; docs/rma_records.md).
#include "rma_windows.h"

#include "communicators.h"
#include "requests.h"
#include "table_lock.h"
#include "waitscope/measure/handle_map.h"

#include <algorithm>
#include <tuple>
#include <utility>
#include <vector>

namespace waitscope::measure::mpi {

namespace {

/// A transfer not completed yet (Score-P's "RMA request").
struct PendingTransfer {
    std::uint32_t win = 0;
    int target = 0;
    RmaCompletion completion = RmaCompletion::Separate;
    bool explicitRequest = false;  ///< started by Rput/Rget/...: completed by its request too
    std::uint64_t requestKey = 0;  ///< handleKey of its request while that is pending, else 0
    std::uint64_t id = 0;          ///< matching id
    bool completedLocally = false; ///< RmaOpCompleteNonBlocking written
    bool forgotten = false;        ///< completed for good; kept only until its request ends
};

// Constant-initialized; allocated on first use, inside MPI calls only.
HandleMap<WindowInfo>* g_windows = nullptr;
std::vector<PendingTransfer>* g_pending = nullptr;
std::vector<std::pair<CommKey, std::uint32_t>>* g_windowCounts = nullptr; ///< windows per comm

std::vector<PendingTransfer>& pending() {
    if (!g_pending)
        g_pending = new std::vector<PendingTransfer>();
    return *g_pending;
}

void recordOp(std::uint64_t time, EventKind kind, const PendingTransfer& p) noexcept {
    std::uint64_t* x = appendRecord(time, kind, 0);
    x[0] = p.win;
    x[1] = p.id;
}

/// The window's `count`-th creation on the communicator of `key`.
std::uint32_t nextWindowOn(CommKey key) {
    if (!g_windowCounts)
        g_windowCounts = new std::vector<std::pair<CommKey, std::uint32_t>>();
    for (auto& [comm, count] : *g_windowCounts)
        if (comm == key)
            return count++;
    g_windowCounts->emplace_back(key, 1);
    return 0;
}

/// Drops the transfers completed for good that no pending request refers to any more.
void dropForgotten() noexcept {
    std::vector<PendingTransfer>& all = pending();
    all.erase(
        std::remove_if(all.begin(), all.end(),
                       [](const PendingTransfer& p) { return p.forgotten && p.requestKey == 0; }),
        all.end());
}

} // namespace

WindowInfo& defineWindow(MPI_Win win, MPI_Comm comm, const char* name, bool allocated) {
    if (!g_windows)
        g_windows = new HandleMap<WindowInfo>();
    const std::uint32_t commId = commInfo(comm).id;
    RmaWindowDefinition def;
    def.name = name;
    WindowInfo info;
    {
        // Another thread may define a communicator meanwhile (the definitions' lists grow).
        TableLock lock;
        def.comm =
            commId < definitions().comms().size() ? definitions().comms()[commId].key : kNoCommKey;
        def.sequence = nextWindowOn(def.comm);
        info.id = definitions().addRmaWindow(std::move(def));
    }
    info.allocated = allocated;
    return g_windows->insert(handleKey(win), info);
}

WindowInfo* findWindow(MPI_Win win) noexcept {
    return g_windows ? g_windows->find(handleKey(win)) : nullptr;
}

void forgetWindow(MPI_Win win) noexcept {
    WindowInfo* info = findWindow(win);
    if (!info)
        return;
    const std::uint32_t id = info->id;
    g_windows->erase(handleKey(win));
    if (g_pending) {
        std::vector<PendingTransfer>& all = *g_pending;
        all.erase(std::remove_if(all.begin(), all.end(),
                                 [id](const PendingTransfer& p) { return p.win == id; }),
                  all.end());
    }
}

std::uint32_t rmaGroupOf(MPI_Group group) noexcept {
    int size = 0;
    if (group == MPI_GROUP_NULL || PMPI_Group_size(group, &size) != MPI_SUCCESS || size < 0)
        return WindowInfo::kNoGroup;
    MPI_Group world;
    PMPI_Comm_group(MPI_COMM_WORLD, &world);
    std::vector<int> local(static_cast<size_t>(size)), global(static_cast<size_t>(size));
    for (int i = 0; i < size; ++i)
        local[static_cast<size_t>(i)] = i;
    PMPI_Group_translate_ranks(group, size, local.data(), world, global.data());
    PMPI_Group_free(&world);
    return definitions().rmaGroup({global.begin(), global.end()});
}

std::uint64_t implicitTransfer(std::uint32_t win, int target, RmaCompletion completion) {
    for (const PendingTransfer& p : pending())
        if (p.win == win && p.target == target && p.completion == completion &&
            !p.explicitRequest && !p.forgotten)
            return p.id;
    PendingTransfer p;
    p.win = win;
    p.target = target;
    p.completion = completion;
    p.id = nextRequestId();
    pending().push_back(p);
    return p.id;
}

void attachTransfer(std::uint32_t win, int target, RmaCompletion completion, std::uint64_t id,
                    MPI_Request request) {
    PendingTransfer p;
    p.win = win;
    p.target = target;
    p.completion = completion;
    p.explicitRequest = true;
    p.requestKey = handleKey(request);
    p.id = id;
    pending().push_back(p);
    RequestInfo info;
    info.kind = RequestInfo::kRma;
    info.active = true;
    info.id = id;
    trackRequest(request, info);
}

void completeTransfers(std::uint32_t win, int target, RmaCompletes how,
                       std::uint64_t time) noexcept {
    if (!g_pending)
        return;
    std::vector<PendingTransfer>& all = *g_pending;
    // Score-P walks its list sorted by target, then implicit before explicit, separate before
    // combined; among equals in the order they started.
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < all.size(); ++i)
        if (all[i].win == win && !all[i].forgotten &&
            (target == kAllTargets || all[i].target == target))
            order.push_back(i);
    std::stable_sort(order.begin(), order.end(), [&all](std::size_t a, std::size_t b) {
        const PendingTransfer& x = all[a];
        const PendingTransfer& y = all[b];
        return std::make_tuple(x.target, x.explicitRequest, x.completion) <
               std::make_tuple(y.target, y.explicitRequest, y.completion);
    });
    for (std::size_t i : order) {
        PendingTransfer& p = all[i];
        const bool combined = p.completion == RmaCompletion::Combined;
        switch (how) {
        case RmaCompletes::LocalAndForget:
            if (!p.completedLocally) {
                recordOp(time, EventKind::RmaOpCompleteNonBlocking, p);
                p.completedLocally = true;
                if (combined)
                    recordOp(time, EventKind::RmaOpCompleteRemote, p);
            }
            p.forgotten = true;
            break;
        case RmaCompletes::Local:
            if (!p.completedLocally) {
                recordOp(time, EventKind::RmaOpCompleteNonBlocking, p);
                p.completedLocally = true;
                if (combined) {
                    recordOp(time, EventKind::RmaOpCompleteRemote, p);
                    p.forgotten = true;
                }
            }
            break;
        case RmaCompletes::Full:
            if (!p.completedLocally) {
                recordOp(time, EventKind::RmaOpCompleteNonBlocking, p);
                p.completedLocally = true;
            }
            recordOp(time, EventKind::RmaOpCompleteRemote, p);
            p.forgotten = true;
            break;
        }
    }
    dropForgotten();
}

void completeRequestTransfer(MPI_Request request, std::uint64_t time) noexcept {
    if (!g_pending)
        return;
    const std::uint64_t key = handleKey(request);
    for (PendingTransfer& p : *g_pending) {
        if (!p.explicitRequest || p.requestKey != key)
            continue;
        if (!p.completedLocally) {
            recordOp(time, EventKind::RmaOpCompleteNonBlocking, p);
            p.completedLocally = true;
            if (!p.forgotten && p.completion == RmaCompletion::Combined) {
                recordOp(time, EventKind::RmaOpCompleteRemote, p);
                p.forgotten = true;
            }
        }
        // The handle is free for reuse now; a separate transfer still waits for the epoch's
        // end (its remote completion) and is found by its window from here on.
        p.requestKey = 0;
        break;
    }
    dropForgotten();
}

} // namespace waitscope::measure::mpi
