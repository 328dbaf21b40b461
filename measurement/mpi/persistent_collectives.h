// Persistent collectives (MPI 4's MPI_X_init, in Open MPI 4.1 the MPIX_X_init of its pcollreq
// extension): the init call is Enter/Leave; each MPI_Start then records the request as a
// nonblocking collective does, and its completion the operation's end.
#pragma once

#include "call.h"
#include "collective_bytes.h"
#include "collectives.h"
#include "communicators.h"
#include "requests.h"

#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

namespace waitscope::measure::mpi {

class PersistentColl : public Plain {
public:
    PersistentColl(std::uint32_t region, std::uint32_t group, OTF2_CollectiveOp op, MPI_Comm comm,
                   int root, CollBytes bytes, MPI_Request* request) noexcept
        : Plain(region, group), m_request(request) {
        m_info.kind = RequestInfo::kCollective;
        m_info.persistent = true;
        m_info.active = false;
        m_info.operation = op;
        m_info.comm = commInfo(comm).id;
        m_info.root = rootOf(root);
        m_info.bytes = bytes.sent;
        m_info.received = bytes.received;
    }
    void finish(int rc) noexcept {
        // Tracked even when the init is not recorded: a recorded MPI_Start must know it.
        if (rc == MPI_SUCCESS && m_request && *m_request != MPI_REQUEST_NULL &&
            pthread_equal(pthread_self(), g_hot.mainThread))
            trackRequest(*m_request, m_info);
        Plain::finish(rc);
    }

private:
    MPI_Request* m_request;
    RequestInfo m_info;
};

/// Persistent neighbourhood collectives: Enter/Leave around the init, the request tracked as
/// silent (recorded like the blocking ones: no collective records), inactive until started.
class PersistentSilent : public Plain {
public:
    PersistentSilent(std::uint32_t region, std::uint32_t group, MPI_Request* request) noexcept
        : Plain(region, group), m_request(request) {}
    void finish(int rc) noexcept {
        if (rc == MPI_SUCCESS && m_request && *m_request != MPI_REQUEST_NULL &&
            pthread_equal(pthread_self(), g_hot.mainThread)) {
            RequestInfo info;
            info.silent = true;
            info.persistent = true;
            trackRequest(*m_request, info);
        }
        Plain::finish(rc);
    }

private:
    MPI_Request* m_request;
};

} // namespace waitscope::measure::mpi
