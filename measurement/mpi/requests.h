// Request bookkeeping: what each pending nonblocking or persistent request will record when
// it completes, keyed by its MPI_Request handle.
#pragma once

#include "call.h"

#include <cstdint>

namespace waitscope::measure::mpi {

struct RequestInfo {
    /// kRma: Rput, Rget, ...; kFileIo: MPI_File_iread, MPI_File_iwrite, ...
    enum Kind : std::uint8_t { kSend, kRecv, kCollective, kRma, kFileIo, kCommIdup };
    Kind kind = kSend;
    bool persistent = false;
    bool active = false;
    bool silent = false;    ///< to or from MPI_PROC_NULL: completes, records nothing
    std::uint32_t comm = 0; ///< file I/O: the I/O handle
    std::uint32_t peer = 0; ///< destination of a send; source (or MPI_ANY_SOURCE) of a receive
    std::uint32_t tag = 0;
    std::uint32_t root = 0;      ///< collectives: root or OTF2_UNDEFINED_UINT32
    std::uint32_t operation = 0; ///< collectives: OTF2_CollectiveOp
    std::uint64_t bytes = 0;     ///< sends: bytes; collectives: bytes sent
    std::uint64_t received = 0;  ///< collectives: bytes received
    std::uint64_t id = 0;        ///< the request id in the trace (file I/O: the matching id)
    /// MPI_Comm_idup: the new communicator (its handle is set at the call, usable after the
    /// completion, when it is defined) and its identity
    MPI_Comm created = MPI_COMM_NULL;
    std::uint64_t createdKey = 0;
    std::uint64_t parentKey = 0;
};

/// A fresh request id for the trace.
std::uint64_t nextRequestId() noexcept;

// Every function here may run on any thread of the rank (a request may be completed on another
// thread than the one that started it): the table is locked under MPI_THREAD_MULTIPLE.

/// Starts tracking `request`.
void trackRequest(MPI_Request request, const RequestInfo& info);

/// Whether a test of `request` records an MpiRequestTest (an active request with a record of
/// its own), and then its id in `id`.
bool requestTestRecord(MPI_Request request, std::uint64_t& id) noexcept;

/// Stops tracking `request`.
void forgetRequest(MPI_Request request) noexcept;

/// Records the completion of `request` (its handle before the completing call) with `status`
/// at `time`: MpiIsendComplete, MpiIrecv, NbCollComplete or MpiRequestCancelled; for a
/// one-sided transfer its completion records (completeRequestTransfer).
void recordCompletion(MPI_Request request, MPI_Status* status, std::uint64_t time) noexcept;

/// Records the completion of nonblocking file operation `id` on I/O handle `handle` with the
/// bytes of `status` (MPI_STATUS_IGNORE: none) at `time` (file_io.cpp).
void recordFileCompletion(std::uint32_t handle, std::uint64_t id, MPI_Status* status,
                          std::uint64_t time) noexcept;

/// Records the (re)activation of a persistent request by MPI_Start at `time` (a persistent
/// collective, MPIX_*_init, starts as a nonblocking collective does).
void recordStart(MPI_Request request, std::uint64_t time) noexcept;

} // namespace waitscope::measure::mpi
