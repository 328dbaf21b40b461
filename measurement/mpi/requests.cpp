// Request tracking and the records written when requests start and complete.
#include "requests.h"

#include "communicators.h"
#include "rma_windows.h"
#include "table_lock.h"
#include "waitscope/measure/handle_map.h"

#include <atomic>

namespace waitscope::measure::mpi {

namespace {

// The table is read and changed under TableLock: a request may be completed on another
// thread than the one that started it. Ids are unique per rank, over all its threads.
HandleMap<RequestInfo>* g_requests = nullptr;
std::atomic<std::uint64_t> g_nextId{1};
// Open MPI hands out one shared, already completed request object for eager sends, so several
// pending requests can have the same handle: the map holds the first, these the others (with
// their handle), each taking its place when the one before completes. Empty in most programs.
std::vector<std::pair<std::uint64_t, RequestInfo>>* g_sameHandle = nullptr;

#ifdef OPEN_MPI
} // namespace
} // namespace waitscope::measure::mpi
// Open MPI's shared completed request; weak, so that the library loads without it.
extern "C" char ompi_request_empty[] __attribute__((weak));
namespace waitscope::measure::mpi {
namespace {
#endif

/// Whether `request` is a handle several pending requests can share.
bool sharedHandle(MPI_Request request) {
#ifdef OPEN_MPI
    return ompi_request_empty != nullptr &&
           static_cast<void*>(request) == static_cast<void*>(ompi_request_empty);
#else
    (void)request;
    return false;
#endif
}

HandleMap<RequestInfo>& requests() {
    if (!g_requests)
        g_requests = new HandleMap<RequestInfo>();
    return *g_requests;
}

void recordMessage(std::uint64_t time, EventKind kind, std::uint32_t peer, std::uint32_t comm,
                   std::uint32_t tag, std::uint64_t bytes, std::uint64_t id) {
    std::uint64_t* x = appendRecord(time, kind, tracePeer(comm, static_cast<int>(peer)));
    x[0] = packPair(comm, tag);
    x[1] = bytes;
    x[2] = id;
}

RequestInfo* find(MPI_Request request) noexcept {
    return g_requests ? g_requests->find(handleKey(request)) : nullptr;
}

void forget(MPI_Request request) noexcept {
    if (!g_requests)
        return;
    const std::uint64_t key = handleKey(request);
    if (g_sameHandle)
        for (auto it = g_sameHandle->begin(); it != g_sameHandle->end(); ++it)
            if (it->first == key) {
                // The next request of the same handle takes the completed one's place.
                g_requests->insert(key, it->second);
                g_sameHandle->erase(it);
                return;
            }
    g_requests->erase(key);
}

} // namespace

std::uint64_t nextRequestId() noexcept {
    // Relaxed: only uniqueness matters, the order of ids between threads does not.
    return g_nextId.fetch_add(1, std::memory_order_relaxed);
}

void trackRequest(MPI_Request request, const RequestInfo& info) {
    TableLock lock;
    const std::uint64_t key = handleKey(request);
    if (RequestInfo* pending = sharedHandle(request) ? requests().find(key) : nullptr;
        pending && pending->active && !pending->persistent && !info.persistent) {
        if (!g_sameHandle)
            g_sameHandle = new std::vector<std::pair<std::uint64_t, RequestInfo>>();
        g_sameHandle->emplace_back(key, info);
        return;
    }
    requests().insert(key, info);
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
    // One-sided transfers, file operations and MPI_Comm_idup complete through the tables of
    // their own (windows, files, communicators): recorded after the request table's lock.
    RequestInfo done;
    {
        TableLock lock;
        RequestInfo* info = find(request);
        if (!info) {
            countFromAnyThread(g_diagnostics.unknownRequests);
            return;
        }
        if (!info->active)
            return; // an inactive persistent request completes at once and records nothing
        if (info->kind != RequestInfo::kRma && info->silent) {
            if (info->persistent)
                info->active = false;
            else
                forget(request);
            return;
        }
        done = *info;
        if (info->persistent)
            info->active = false;
        else if (info->kind != RequestInfo::kRma)
            forget(request);
    }
    if (done.kind == RequestInfo::kRma) {
        completeRequestTransfer(request, time);
        forgetRequest(request);
        return;
    }
    if (done.kind == RequestInfo::kFileIo) {
        // File I/O requests are not cancelled (MPI-IO leaves the status's cancelled flag
        // undefined for them): the operation completes with the bytes its status holds.
        recordFileCompletion(done.comm, done.id, status, time);
        return;
    }
    int cancelled = 0;
    if (status != MPI_STATUS_IGNORE)
        PMPI_Test_cancelled(status, &cancelled);
    if (cancelled) {
        appendRecord(time, EventKind::MpiRequestCancelled, 0)[0] = done.id;
        return;
    }
    switch (done.kind) {
    case RequestInfo::kSend:
        appendRecord(time, EventKind::MpiIsendComplete, 0)[0] = done.id;
        break;
    case RequestInfo::kRecv:
        if (status != MPI_STATUS_IGNORE && status->MPI_SOURCE != MPI_PROC_NULL)
            recordMessage(time, EventKind::MpiIrecv, static_cast<std::uint32_t>(status->MPI_SOURCE),
                          done.comm, static_cast<std::uint32_t>(status->MPI_TAG),
                          receivedBytes(status), done.id);
        break;
    case RequestInfo::kCollective: {
        std::uint64_t* x = appendRecord(time, EventKind::NbCollComplete, done.operation);
        x[0] = packPair(done.comm, done.root);
        x[1] = done.bytes;
        x[2] = done.received;
        x[3] = done.id;
        break;
    }
    case RequestInfo::kCommIdup:
        appendRecord(time, EventKind::CommCreate,
                     defineIdupComm(done.created, done.createdKey, done.parentKey));
        break;
    case RequestInfo::kRma:    // completed above
    case RequestInfo::kFileIo: // completed above
        break;
    }
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
    else if (info->kind == RequestInfo::kCollective)
        appendRecord(time, EventKind::NbCollRequest, 0)[0] = info->id;
    else
        appendRecord(time, EventKind::MpiIrecvRequest, 0)[0] = info->id;
}

} // namespace waitscope::measure::mpi
