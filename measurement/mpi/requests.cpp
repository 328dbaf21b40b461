// Request tracking and the records written when requests start and complete.
#include "requests.h"

#include "waitscope/measure/handle_map.h"

namespace waitscope::measure::mpi {

namespace {

HandleMap<RequestInfo>* g_requests = nullptr;
std::uint64_t g_nextId = 1;

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

} // namespace

std::uint64_t nextRequestId() noexcept {
    return g_nextId++;
}

RequestInfo& trackRequest(MPI_Request request, const RequestInfo& info) {
    return requests().insert(handleKey(request), info);
}

RequestInfo* findRequest(MPI_Request request) noexcept {
    return g_requests ? g_requests->find(handleKey(request)) : nullptr;
}

void forgetRequest(MPI_Request request) noexcept {
    if (g_requests)
        g_requests->erase(handleKey(request));
}

void recordCompletion(MPI_Request request, MPI_Status* status, std::uint64_t time) noexcept {
    if (request == MPI_REQUEST_NULL)
        return;
    RequestInfo* info = findRequest(request);
    if (!info) {
        ++g_diagnostics.unknownRequests;
        return;
    }
    if (!info->active)
        return; // an inactive persistent request completes at once and records nothing
    if (info->silent) {
        if (info->persistent)
            info->active = false;
        else
            forgetRequest(request);
        return;
    }
    if (info->kind == RequestInfo::kFileIo) {
        // File I/O requests are not cancelled (MPI-IO leaves the status's cancelled flag
        // undefined for them): the operation completes with the bytes its status holds.
        recordFileCompletion(info->comm, info->id, status, time);
        forgetRequest(request);
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
        case RequestInfo::kFileIo: // recorded above
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
        forgetRequest(request);
}

void recordStart(MPI_Request request, std::uint64_t time) noexcept {
    RequestInfo* info = findRequest(request);
    if (!info) {
        ++g_diagnostics.unknownRequests;
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
