// The Fortran entry points (mpif.h, use mpi, use mpi_f08) of the completion calls that return an
// index, which the generator does not convert: Fortran counts requests from 1, C from 0.
#include "fortran_support.h"

#include <vector>

namespace waitscope::measure::mpi {
namespace {

/// The C requests of a Fortran request array, converted back after the call.
class FortranRequests {
public:
    FortranRequests(MPI_Fint* handles, MPI_Fint* count)
        : m_handles(handles), m_requests(count && *count > 0 ? static_cast<size_t>(*count) : 0) {
        for (size_t i = 0; i < m_requests.size(); ++i)
            m_requests[i] = MPI_Request_f2c(m_handles[i]);
    }
    ~FortranRequests() {
        for (size_t i = 0; i < m_requests.size(); ++i)
            m_handles[i] = MPI_Request_c2f(m_requests[i]);
    }
    FortranRequests(const FortranRequests&) = delete;
    FortranRequests& operator=(const FortranRequests&) = delete;
    int count() const { return static_cast<int>(m_requests.size()); }
    MPI_Request* data() { return m_requests.data(); }

private:
    MPI_Fint* m_handles;
    std::vector<MPI_Request> m_requests;
};

/// A C index as Fortran counts it (MPI_UNDEFINED stays).
MPI_Fint fortranIndex(int index) {
    return static_cast<MPI_Fint>(index == MPI_UNDEFINED ? index : index + 1);
}

void setError(MPI_Fint* ierr, int rc) {
    if (ierr)
        *ierr = static_cast<MPI_Fint>(rc);
}

/// Calls `complete(requests, statuses)` on the C twins of a Fortran request array with
/// `outcount` statuses, then converts the statuses and requests back.
template <class Complete>
void someCall(MPI_Fint* incount, MPI_Fint* requests, MPI_Fint* outcount, MPI_Fint* indices,
              MPI_Fint* statuses, MPI_Fint* ierr, Complete complete) {
    FortranRequests c(requests, incount);
    const bool ignore = statuses == MPI_F_STATUSES_IGNORE;
    std::vector<MPI_Status> cStatuses(static_cast<size_t>(c.count()));
    std::vector<int> cIndices(static_cast<size_t>(c.count()));
    int n = 0;
    const int rc = complete(c.count(), c.data(), &n, cIndices.data(),
                            ignore ? MPI_STATUSES_IGNORE : cStatuses.data());
    *outcount = static_cast<MPI_Fint>(n);
    for (int k = 0; n != MPI_UNDEFINED && k < n; ++k) {
        indices[k] = fortranIndex(cIndices[static_cast<size_t>(k)]);
        if (!ignore)
            MPI_Status_c2f(&cStatuses[static_cast<size_t>(k)], statuses + k * kFortranStatusSize);
    }
    setError(ierr, rc);
}

} // namespace
} // namespace waitscope::measure::mpi

using namespace waitscope::measure::mpi;

// Each entry point under gfortran's name, its other manglings and mpi_f08's name.
#define WAITSCOPE_FORTRAN_ALIASES(lower, upper, ...)                                               \
    extern "C" WAITSCOPE_EXPORT void lower(__VA_ARGS__) __attribute__((alias(#lower "_")));        \
    extern "C" WAITSCOPE_EXPORT void lower##__(__VA_ARGS__) __attribute__((alias(#lower "_")));    \
    extern "C" WAITSCOPE_EXPORT void upper(__VA_ARGS__) __attribute__((alias(#lower "_")));        \
    extern "C" WAITSCOPE_EXPORT void lower##_f08_(__VA_ARGS__) __attribute__((alias(#lower "_")));

extern "C" WAITSCOPE_EXPORT void mpi_waitany_(MPI_Fint* count, MPI_Fint* requests, MPI_Fint* index,
                                              MPI_Fint* status, MPI_Fint* ierr) {
    FortranRequests c(requests, count);
    MPI_Status cStatus;
    const bool ignore = status == MPI_F_STATUS_IGNORE;
    int i = MPI_UNDEFINED;
    const int rc = MPI_Waitany(c.count(), c.data(), &i, ignore ? MPI_STATUS_IGNORE : &cStatus);
    *index = fortranIndex(i);
    if (!ignore)
        MPI_Status_c2f(&cStatus, status);
    setError(ierr, rc);
}
// NOLINTNEXTLINE(bugprone-reserved-identifier): the name gfortran gives with -fsecond-underscore
WAITSCOPE_FORTRAN_ALIASES(mpi_waitany, MPI_WAITANY, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*,
                          MPI_Fint*)

extern "C" WAITSCOPE_EXPORT void mpi_testany_(MPI_Fint* count, MPI_Fint* requests, MPI_Fint* index,
                                              MPI_Fint* flag, MPI_Fint* status, MPI_Fint* ierr) {
    FortranRequests c(requests, count);
    MPI_Status cStatus;
    const bool ignore = status == MPI_F_STATUS_IGNORE;
    int i = MPI_UNDEFINED, done = 0;
    const int rc =
        MPI_Testany(c.count(), c.data(), &i, &done, ignore ? MPI_STATUS_IGNORE : &cStatus);
    *index = fortranIndex(i);
    *flag = static_cast<MPI_Fint>(done);
    if (!ignore && done)
        MPI_Status_c2f(&cStatus, status);
    setError(ierr, rc);
}
// NOLINTNEXTLINE(bugprone-reserved-identifier): the name gfortran gives with -fsecond-underscore
WAITSCOPE_FORTRAN_ALIASES(mpi_testany, MPI_TESTANY, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*,
                          MPI_Fint*, MPI_Fint*)

extern "C" WAITSCOPE_EXPORT void mpi_waitsome_(MPI_Fint* incount, MPI_Fint* requests,
                                               MPI_Fint* outcount, MPI_Fint* indices,
                                               MPI_Fint* statuses, MPI_Fint* ierr) {
    someCall(incount, requests, outcount, indices, statuses, ierr,
             [](int n, MPI_Request* r, int* out, int* idx, MPI_Status* s) {
                 return MPI_Waitsome(n, r, out, idx, s);
             });
}
// NOLINTNEXTLINE(bugprone-reserved-identifier): the name gfortran gives with -fsecond-underscore
WAITSCOPE_FORTRAN_ALIASES(mpi_waitsome, MPI_WAITSOME, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*,
                          MPI_Fint*, MPI_Fint*)

extern "C" WAITSCOPE_EXPORT void mpi_testsome_(MPI_Fint* incount, MPI_Fint* requests,
                                               MPI_Fint* outcount, MPI_Fint* indices,
                                               MPI_Fint* statuses, MPI_Fint* ierr) {
    someCall(incount, requests, outcount, indices, statuses, ierr,
             [](int n, MPI_Request* r, int* out, int* idx, MPI_Status* s) {
                 return MPI_Testsome(n, r, out, idx, s);
             });
}
// NOLINTNEXTLINE(bugprone-reserved-identifier): the name gfortran gives with -fsecond-underscore
WAITSCOPE_FORTRAN_ALIASES(mpi_testsome, MPI_TESTSOME, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*,
                          MPI_Fint*, MPI_Fint*)
