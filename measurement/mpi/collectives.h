// Handlers of collective operations, blocking and nonblocking.
#pragma once

#include "call.h"
#include "collective_bytes.h"
#include "communicators.h"
#include "requests.h"

namespace waitscope::measure::mpi {

inline std::uint32_t rootOf(int root) noexcept {
    return root < 0 ? OTF2_UNDEFINED_UINT32 : static_cast<std::uint32_t>(root);
}

/// Blocking collectives: MpiCollectiveBegin at enter, MpiCollectiveEnd with the operation,
/// communicator, root and bytes at leave (sharing the leave's timestamp).
class Coll : public Call {
public:
    Coll(std::uint32_t region, std::uint32_t group, OTF2_CollectiveOp op, MPI_Comm comm, int root,
         CollBytes bytes) noexcept
        : Call(region, group), m_op(op), m_comm(comm), m_root(root), m_bytes(bytes) {
        if (!m_active)
            return;
        enter();
        // A rooted collective on an intercommunicator (MPI_ROOT, MPI_PROC_NULL or a remote
        // root): its members name the root differently; recorded as Enter/Leave only.
        m_rootedInter = root != -1 && commInfo(comm).inter;
        if (!m_rootedInter)
            appendRecord(m_enter, EventKind::MpiCollectiveBegin, 0);
    }
    void finish(int) noexcept {
        if (!m_active)
            return;
        std::uint64_t t = now();
        if (m_rootedInter) {
            leave(t);
            return;
        }
        recordCollectiveEnd(t, m_op, commInfo(m_comm).id, rootOf(m_root), m_bytes.sent,
                            m_bytes.received);
        leave(t);
    }

private:
    OTF2_CollectiveOp m_op;
    MPI_Comm m_comm;
    int m_root;
    CollBytes m_bytes;
    bool m_rootedInter = false;
};

/// Nonblocking collectives: a request record now, the operation's end when a completion
/// call finishes the request.
class NbColl : public Call {
public:
    NbColl(std::uint32_t region, std::uint32_t group, OTF2_CollectiveOp op, MPI_Comm comm, int root,
           CollBytes bytes, MPI_Request* request) noexcept
        : Call(region, group), m_request(request) {
        if (!m_active)
            return;
        enter();
        m_info.kind = RequestInfo::kCollective;
        m_info.active = true;
        m_info.operation = op;
        m_info.comm = commInfo(comm).id;
        m_info.root = rootOf(root);
        m_info.bytes = bytes.sent;
        m_info.received = bytes.received;
    }
    void finish(int rc) noexcept {
        if (!m_active)
            return;
        if (rc == MPI_SUCCESS && m_request) {
            m_info.id = nextRequestId();
            appendRecord(m_enter, EventKind::NbCollRequest, 0)[0] = m_info.id;
            trackRequest(*m_request, m_info);
        }
        leave(now());
    }

private:
    MPI_Request* m_request;
    RequestInfo m_info;
};

} // namespace waitscope::measure::mpi
