// Request tracking and the records written when requests start and complete.
#include "requests.h"

#include "table_lock.h"
#include "waitscope/measure/handle_map.h"

#include <atomic>

namespace waitscope::measure::mpi {

namespace {

// The table is read and changed under TableLock: a request may be completed on another
// thread than the one that started it. Ids are unique per rank, over all its threads.
HandleMap<RequestInfo>* g_requests = nullptr;
std::atomic<std::uint64_t> g_nextId{1};

HandleMap<RequestInfo>& requests() {
    if (!g_requests)
        g_requests = new HandleMap<RequestInfo>();
    return *g_requests;
}

void recordMessage(std::uint64_t time, EventKind kind, std::uint32_t peer, std::uint32_t comm,
                   std::uint32_t tag, std::uint64_t bytes, std::uint64_t id) {
    std::uint64_t* x = appendRecord(time, kind, peer);
    x[0] = packPair(comm, tag);
    x[1] = bytes;
    x[2] = id;
}

RequestInfo* find(MPI_Request request) noexcept {
    return g_requests ? g_requests->find(handleKey(request)) : nullptr;
}

void forget(MPI_Request request) noexcept {
    if (g_requests)
        g_requests->erase(handleKey(request));
}

} // namespace

std::uint64_t nextRequestId() noexcept {
    // Relaxed: only uniqueness matters, the order of ids between threads does not.
    return g_nextId.fetch_add(1, std::memory_order_relaxed);
}

void trackRequest(MPI_Request request, const RequestInfo& info) {
    TableLock lock;
    requests().insert(handleKey(request), info);
}

bool requestTestRecord(MPI_Request request, std::uint64_t& id) noexcept {
    TableLock lock;
    const RequestInfo* info = find(request);
    if (!info || !info->active || info->silent)
        return false;
    id = info->id;
    return true;
}

void forgetRequest(MPI_Request request) noexcept {
    TableLock lock;
    forget(request);
}

void recordCompletion(MPI_Request request, MPI_Status* status, std::uint64_t time) noexcept {
    if (request == MPI_REQUEST_NULL)
        return;
    TableLock lock;
    RequestInfo* info = find(request);
    if (!info) {
        countFromAnyThread(g_diagnostics.unknownRequests);
        return;
    }
    if (!info->active)
        return; // an inactive persistent request completes at once and records nothing
    if (info->silent) {
        if (info->persistent)
            info->active = false;
        else
            forget(request);
        return;
    }
    int cancelled = 0;
    if (status != MPI_STATUS_IGNORE)
        PMPI_Test_cancelled(status, &cancelled);
    if (cancelled) {
        appendRecord(time, EventKind::MpiRequestCancelled, 0)[0] = info->id;
    } else {
        switch (info->kind) {
        case RequestInfo::kSend:
            appendRecord(time, EventKind::MpiIsendComplete, 0)[0] = info->id;
            break;
        case RequestInfo::kRecv:
            if (status != MPI_STATUS_IGNORE && status->MPI_SOURCE != MPI_PROC_NULL)
                recordMessage(time, EventKind::MpiIrecv,
                              static_cast<std::uint32_t>(status->MPI_SOURCE), info->comm,
                              static_cast<std::uint32_t>(status->MPI_TAG), receivedBytes(status),
                              info->id);
            break;
        case RequestInfo::kCollective: {
            std::uint64_t* x = appendRecord(time, EventKind::NbCollComplete, info->operation);
            x[0] = packPair(info->comm, info->root);
            x[1] = info->bytes;
            x[2] = info->received;
            x[3] = info->id;
            break;
        }
        }
    }
    if (info->persistent)
        info->active = false;
    else
        forget(request);
}

void recordStart(MPI_Request request, std::uint64_t time) noexcept {
    TableLock lock;
    RequestInfo* info = find(request);
    if (!info) {
        countFromAnyThread(g_diagnostics.unknownRequests);
        return;
    }
    info->active = true;
    if (info->silent)
        return;
    info->id = nextRequestId();
    if (info->kind == RequestInfo::kSend)
        recordMessage(time, EventKind::MpiIsend, info->peer, info->comm, info->tag, info->bytes,
                      info->id);
    else
        appendRecord(time, EventKind::MpiIrecvRequest, 0)[0] = info->id;
}

} // namespace waitscope::measure::mpi
