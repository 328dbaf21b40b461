// The handler of calls that start a request whose completion records no event of its own
// (nonblocking file I/O, request-based one-sided transfers): Enter/Leave around the call, and
// the request tracked as silent, so that MPI_Wait/MPI_Test complete it as a known request.
#pragma once

#include "call.h"
#include "requests.h"

namespace waitscope::measure::mpi {

class SilentRequest : public Plain {
public:
    SilentRequest(std::uint32_t region, std::uint32_t group, MPI_Request* request) noexcept
        : Plain(region, group), m_request(request) {}
    void finish(int rc) noexcept {
        if (m_active && rc == MPI_SUCCESS && m_request && *m_request != MPI_REQUEST_NULL) {
            RequestInfo info;
            info.silent = true;
            info.active = true;
            trackRequest(*m_request, info);
        }
        Plain::finish(rc);
    }

private:
    MPI_Request* m_request;
};

} // namespace waitscope::measure::mpi
