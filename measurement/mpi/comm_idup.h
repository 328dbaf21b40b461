// MPI_Comm_idup: the new communicator is defined when the request completes (before that it
// must not be used), under an identity its members agree on without communicating.
#pragma once

#include "call.h"
#include "communicators.h"
#include "requests.h"

namespace waitscope::measure::mpi {

/// Enter/Leave around the call; the request is tracked so that the completing MPI_Wait/MPI_Test
/// defines the communicator and records its CommCreate. The identity is taken at the call,
/// even when the call is not recorded, so that every member numbers its dups alike.
class CommIdup : public Plain {
public:
    CommIdup(std::uint32_t region, std::uint32_t group, MPI_Comm parent, MPI_Comm* created,
             MPI_Request* request) noexcept
        : Plain(region, group), m_parent(parent), m_created(created), m_request(request) {}
    void finish(int rc) noexcept {
        if (rc == MPI_SUCCESS && g_hot.recordMask != 0 &&
            pthread_equal(pthread_self(), g_hot.mainThread) && m_created && m_request &&
            *m_created != MPI_COMM_NULL && *m_request != MPI_REQUEST_NULL) {
            RequestInfo info;
            info.kind = RequestInfo::kCommIdup;
            info.active = true;
            info.created = *m_created;
            info.parentKey = commKey(m_parent);
            info.createdKey = idupKey(m_parent);
            trackRequest(*m_request, info);
        }
        Plain::finish(rc);
    }

private:
    MPI_Comm m_parent;
    MPI_Comm* m_created;
    MPI_Request* m_request;
};

} // namespace waitscope::measure::mpi
