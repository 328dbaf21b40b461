// Bytes sent and received by one rank in each collective operation, as the trace records them.
#pragma once

#include <cstdint>
#include <mpi.h>

namespace waitscope::measure::mpi {

struct CollBytes {
    std::uint64_t sent = 0;
    std::uint64_t received = 0;
};

/// One function per collective. The convention (Score-P's): a root's 1-to-n send counts every
/// destination including itself; an n-to-1 root receives from every rank including itself;
/// all-to-all operations send and receive one block per rank.
namespace bytes {
CollBytes bcast(int count, MPI_Datatype type, int root, MPI_Comm comm) noexcept;
CollBytes gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm) noexcept;
CollBytes gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, const int recvcounts[],
                  MPI_Datatype recvtype, int root, MPI_Comm comm) noexcept;
CollBytes scatter(int sendcount, MPI_Datatype sendtype, const void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, int root, MPI_Comm comm) noexcept;
CollBytes scatterv(const int sendcounts[], MPI_Datatype sendtype, const void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) noexcept;
CollBytes allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int recvcount,
                    MPI_Datatype recvtype, MPI_Comm comm) noexcept;
CollBytes allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                     const int recvcounts[], MPI_Datatype recvtype, MPI_Comm comm) noexcept;
CollBytes alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm) noexcept;
CollBytes alltoallv(const void* sendbuf, const int sendcounts[], MPI_Datatype sendtype,
                    const int recvcounts[], MPI_Datatype recvtype, MPI_Comm comm) noexcept;
CollBytes alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Datatype sendtypes[],
                    const int recvcounts[], const MPI_Datatype recvtypes[], MPI_Comm comm) noexcept;
CollBytes reduce(int count, MPI_Datatype type, int root, MPI_Comm comm) noexcept;
CollBytes allreduce(int count, MPI_Datatype type, MPI_Comm comm) noexcept;
CollBytes reduceScatter(const int recvcounts[], MPI_Datatype type, MPI_Comm comm) noexcept;
CollBytes reduceScatterBlock(int recvcount, MPI_Datatype type, MPI_Comm comm) noexcept;
CollBytes scan(int count, MPI_Datatype type, MPI_Comm comm, bool exclusive) noexcept;
} // namespace bytes

} // namespace waitscope::measure::mpi
