// Byte counts of collective operations per rank.
#include "collective_bytes.h"

#include "call.h"
#include "communicators.h"

namespace waitscope::measure::mpi::bytes {

namespace {

std::uint64_t sum(const int counts[], int n, MPI_Datatype type) {
    std::uint64_t total = 0;
    if (counts)
        for (int i = 0; i < n; ++i)
            total += typeBytes(counts[i], type);
    return total;
}

} // namespace

CollBytes bcast(int count, MPI_Datatype type, int root, MPI_Comm comm) noexcept {
    const CommInfo& c = commInfo(comm);
    std::uint64_t b = typeBytes(count, type);
    return {c.rank == root ? b * static_cast<std::uint64_t>(c.size) : 0, b};
}

CollBytes gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm) noexcept {
    const CommInfo& c = commInfo(comm);
    std::uint64_t block = typeBytes(recvcount, recvtype);
    std::uint64_t sent = sendbuf == MPI_IN_PLACE ? block : typeBytes(sendcount, sendtype);
    return {sent, c.rank == root ? block * static_cast<std::uint64_t>(c.size) : 0};
}

CollBytes gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, const int recvcounts[],
                  MPI_Datatype recvtype, int root, MPI_Comm comm) noexcept {
    const CommInfo& c = commInfo(comm);
    bool isRoot = c.rank == root;
    std::uint64_t sent = sendbuf == MPI_IN_PLACE && isRoot && recvcounts
                             ? typeBytes(recvcounts[c.rank], recvtype)
                             : typeBytes(sendcount, sendtype);
    return {sent, isRoot ? sum(recvcounts, c.size, recvtype) : 0};
}

CollBytes scatter(int sendcount, MPI_Datatype sendtype, const void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, int root, MPI_Comm comm) noexcept {
    const CommInfo& c = commInfo(comm);
    std::uint64_t block = typeBytes(sendcount, sendtype);
    bool isRoot = c.rank == root;
    std::uint64_t received = recvbuf == MPI_IN_PLACE ? block : typeBytes(recvcount, recvtype);
    return {isRoot ? block * static_cast<std::uint64_t>(c.size) : 0, received};
}

CollBytes scatterv(const int sendcounts[], MPI_Datatype sendtype, const void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) noexcept {
    const CommInfo& c = commInfo(comm);
    bool isRoot = c.rank == root;
    std::uint64_t received = recvbuf == MPI_IN_PLACE && isRoot && sendcounts
                                 ? typeBytes(sendcounts[c.rank], sendtype)
                                 : typeBytes(recvcount, recvtype);
    return {isRoot ? sum(sendcounts, c.size, sendtype) : 0, received};
}

CollBytes allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int recvcount,
                    MPI_Datatype recvtype, MPI_Comm comm) noexcept {
    const CommInfo& c = commInfo(comm);
    std::uint64_t n = static_cast<std::uint64_t>(c.size);
    std::uint64_t block = typeBytes(recvcount, recvtype);
    std::uint64_t mine = sendbuf == MPI_IN_PLACE ? block : typeBytes(sendcount, sendtype);
    return {n * mine, n * block};
}

CollBytes allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                     const int recvcounts[], MPI_Datatype recvtype, MPI_Comm comm) noexcept {
    const CommInfo& c = commInfo(comm);
    std::uint64_t mine = sendbuf == MPI_IN_PLACE && recvcounts
                             ? typeBytes(recvcounts[c.rank], recvtype)
                             : typeBytes(sendcount, sendtype);
    return {static_cast<std::uint64_t>(c.size) * mine, sum(recvcounts, c.size, recvtype)};
}

CollBytes alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm) noexcept {
    return allgather(sendbuf, sendcount, sendtype, recvcount, recvtype, comm);
}

CollBytes alltoallv(const void* sendbuf, const int sendcounts[], MPI_Datatype sendtype,
                    const int recvcounts[], MPI_Datatype recvtype, MPI_Comm comm) noexcept {
    const CommInfo& c = commInfo(comm);
    std::uint64_t received = sum(recvcounts, c.size, recvtype);
    return {sendbuf == MPI_IN_PLACE ? received : sum(sendcounts, c.size, sendtype), received};
}

CollBytes alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Datatype sendtypes[],
                    const int recvcounts[], const MPI_Datatype recvtypes[],
                    MPI_Comm comm) noexcept {
    const CommInfo& c = commInfo(comm);
    CollBytes b;
    for (int i = 0; i < c.size; ++i) {
        if (recvcounts && recvtypes)
            b.received += typeBytes(recvcounts[i], recvtypes[i]);
        if (sendbuf != MPI_IN_PLACE && sendcounts && sendtypes)
            b.sent += typeBytes(sendcounts[i], sendtypes[i]);
    }
    if (sendbuf == MPI_IN_PLACE)
        b.sent = b.received;
    return b;
}

CollBytes reduce(int count, MPI_Datatype type, int root, MPI_Comm comm) noexcept {
    const CommInfo& c = commInfo(comm);
    std::uint64_t b = typeBytes(count, type);
    return {b, c.rank == root ? b * static_cast<std::uint64_t>(c.size) : 0};
}

CollBytes allreduce(int count, MPI_Datatype type, MPI_Comm comm) noexcept {
    std::uint64_t all = typeBytes(count, type) * static_cast<std::uint64_t>(commInfo(comm).size);
    return {all, all};
}

CollBytes reduceScatter(const int recvcounts[], MPI_Datatype type, MPI_Comm comm) noexcept {
    const CommInfo& c = commInfo(comm);
    std::uint64_t mine = recvcounts ? typeBytes(recvcounts[c.rank], type) : 0;
    return {sum(recvcounts, c.size, type), mine * static_cast<std::uint64_t>(c.size)};
}

CollBytes reduceScatterBlock(int recvcount, MPI_Datatype type, MPI_Comm comm) noexcept {
    std::uint64_t all =
        typeBytes(recvcount, type) * static_cast<std::uint64_t>(commInfo(comm).size);
    return {all, all};
}

CollBytes scan(int count, MPI_Datatype type, MPI_Comm comm, bool exclusive) noexcept {
    const CommInfo& c = commInfo(comm);
    std::uint64_t b = typeBytes(count, type);
    std::uint64_t after = static_cast<std::uint64_t>(c.size - c.rank - (exclusive ? 1 : 0));
    std::uint64_t before = static_cast<std::uint64_t>(c.rank + (exclusive ? 0 : 1));
    return {after * b, before * b};
}

} // namespace waitscope::measure::mpi::bytes
