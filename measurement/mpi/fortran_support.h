// Conversions the generated Fortran entry points need: special buffers and status sizes.
#pragma once

#include "call.h"

#include <mpi.h>

// Open MPI's Fortran MPI_BOTTOM and MPI_IN_PLACE are addresses of these common blocks; weak,
// so the library also loads where the Fortran bindings are absent.
extern "C" {
extern int mpi_fortran_bottom_ __attribute__((weak));
extern int mpi_fortran_in_place_ __attribute__((weak));
}

namespace waitscope::measure::mpi {

// NOLINTNEXTLINE(misc-redundant-expression): MPI_Fint is int in Open MPI, not in every MPI
static_assert(sizeof(MPI_Fint) == sizeof(int), "Fortran INTEGER arrays are passed as int arrays");

/// A Fortran status is the C status seen as INTEGERs.
inline constexpr size_t kFortranStatusSize = sizeof(MPI_Status) / sizeof(MPI_Fint);

inline void* fortranBuffer(void* buffer) noexcept {
    if (&mpi_fortran_bottom_ && buffer == static_cast<void*>(&mpi_fortran_bottom_))
        return MPI_BOTTOM;
    if (&mpi_fortran_in_place_ && buffer == static_cast<void*>(&mpi_fortran_in_place_))
        return MPI_IN_PLACE;
    return buffer;
}
inline const void* fortranBuffer(const void* buffer) noexcept {
    return fortranBuffer(const_cast<void*>(buffer));
}

/// The ranks an alltoallw form has a datatype for: the group's size, the remote group's of an
/// intercommunicator (0 for an invalid communicator: the call itself reports it).
inline int fortranPeers(MPI_Comm comm) noexcept {
    int inter = 0, size = 0;
    if (comm == MPI_COMM_NULL || PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
        return 0;
    if ((inter != 0 ? PMPI_Comm_remote_size(comm, &size) : PMPI_Comm_size(comm, &size)) !=
        MPI_SUCCESS)
        return 0;
    return size;
}

} // namespace waitscope::measure::mpi
