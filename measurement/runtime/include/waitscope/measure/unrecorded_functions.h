// The MPI functions the measurement does not record: the table the MPI layer's generated
// count-and-forward wrappers keep, read by the self-measurement at finalize.
#pragma once

#include <cstddef>
#include <cstdint>

namespace waitscope::measure {

/// The MPI functions the wrappers do not record, each only counted and forwarded to its PMPI_
/// twin (generated from mpi.h by measurement/mpi/generate_unrecorded.py): `size` names and
/// the calls counted so far, in the same order. Counted by any thread.
struct UnrecordedFunctions {
    const char* const* names = nullptr;
    std::uint64_t* counts = nullptr;
    std::size_t size = 0;
};

/// The table, when the MPI layer is linked in (weak: absent without it).
UnrecordedFunctions unrecordedFunctionTable() noexcept __attribute__((weak));

} // namespace waitscope::measure
