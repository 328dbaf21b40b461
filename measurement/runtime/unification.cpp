// Binomial-tree unification of definition sets over PMPI point-to-point and a broadcast.
//
// Rank r receives from r + 2^k for every k with r + 2^k < size and r's lowest set bit above k,
// merging each child's set into its own, then sends the result to r - lowbit(r). Rank 0 ends
// with the union, which it broadcasts. Merging is by key, so the order children arrive in
// does not change the result, and every rank derives the same global ids from it.
#include "unification.h"

#include <algorithm>
#include <cstring>
#include <ctime>
#include <string>

namespace waitscope::measure {

namespace {

bool receiveSet(DefinitionSet& out, int source, MPI_Comm comm, int tag) {
    MPI_Status status;
    PMPI_Probe(source, tag, comm, &status);
    int bytes = 0;
    PMPI_Get_count(&status, MPI_BYTE, &bytes);
    std::string buffer(static_cast<size_t>(bytes), '\0');
    PMPI_Recv(buffer.data(), bytes, MPI_BYTE, source, tag, comm, MPI_STATUS_IGNORE);
    return out.deserialize(buffer);
}

} // namespace

void gatherToRoot(const void* mine, void* all, int count, MPI_Datatype type, size_t itemBytes,
                  MPI_Comm comm) {
    if (comm == MPI_COMM_NULL)
        std::memcpy(all, mine, static_cast<size_t>(count) * itemBytes);
    else
        PMPI_Gather(mine, count, type, all, count, type, 0, comm);
}

namespace {

template <class T>
std::vector<std::vector<T>> gatherVariable(const std::vector<T>& mine, MPI_Datatype type,
                                           MPI_Comm comm) {
    if (comm == MPI_COMM_NULL)
        return {mine};
    int rank = 0, size = 1;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    int length = static_cast<int>(mine.size());
    std::vector<int> lengths(rank == 0 ? size : 0);
    PMPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, comm);
    std::vector<int> displacements(lengths.size());
    int total = 0;
    for (size_t r = 0; r < lengths.size(); ++r) {
        displacements[r] = total;
        total += lengths[r];
    }
    std::vector<T> all(static_cast<size_t>(total));
    PMPI_Gatherv(mine.data(), length, type, all.data(), lengths.data(), displacements.data(), type,
                 0, comm);
    std::vector<std::vector<T>> out(lengths.size());
    for (size_t r = 0; r < lengths.size(); ++r)
        out[r].assign(all.begin() + displacements[r], all.begin() + displacements[r] + lengths[r]);
    return out;
}

} // namespace

std::vector<std::vector<unsigned long long>>
gatherVariableToRoot(const std::vector<unsigned long long>& mine, MPI_Comm comm) {
    return gatherVariable(mine, MPI_UNSIGNED_LONG_LONG, comm);
}

std::vector<std::vector<double>> gatherVariableToRoot(const std::vector<double>& mine,
                                                      MPI_Comm comm) {
    return gatherVariable(mine, MPI_DOUBLE, comm);
}

void reduceToAll(const void* mine, void* result, int count, MPI_Datatype type, size_t itemBytes,
                 MPI_Op op, MPI_Comm comm) {
    if (comm == MPI_COMM_NULL)
        std::memcpy(result, mine, static_cast<size_t>(count) * itemBytes);
    else
        PMPI_Allreduce(mine, result, count, type, op, comm);
}

void awaitEveryRank(MPI_Comm comm) noexcept {
    if (comm == MPI_COMM_NULL)
        return;
    MPI_Request request = MPI_REQUEST_NULL;
    if (PMPI_Ibarrier(comm, &request) != MPI_SUCCESS)
        return;
    // Each look costs some microseconds of MPI's progress: the pauses grow from 10 to 80 us (the
    // kernel's timer slack adds some tens), so that a long wait costs few looks and the last
    // rank's arrival is seen within about 0.1 ms.
    long pauseNs = 10 * 1000;
    int done = 0;
    while (PMPI_Test(&request, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && done == 0) {
        timespec pause{0, pauseNs};
        ::nanosleep(&pause, nullptr);
        pauseNs = std::min(2 * pauseNs, 80L * 1000);
    }
}

void broadcastFromRoot(void* data, int count, MPI_Datatype type, MPI_Comm comm) {
    if (comm != MPI_COMM_NULL)
        PMPI_Bcast(data, count, type, 0, comm);
}

bool unifyDefinitionSet(DefinitionSet& set, MPI_Comm comm, int tag) {
    if (comm == MPI_COMM_NULL)
        return true; // one process: its set is the global one
    int rank = 0, size = 1;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    bool ok = true;
    for (int step = 1; step < size; step <<= 1) {
        if (rank & step) {
            std::string bytes = set.serialize();
            PMPI_Send(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, rank - step, tag,
                      comm);
            break;
        }
        if (rank + step < size) {
            DefinitionSet child;
            ok = receiveSet(child, rank + step, comm, tag) && ok;
            set.merge(child);
        }
    }
    // Broadcast the union: the length first, then the bytes.
    std::string bytes = rank == 0 ? set.serialize() : std::string();
    unsigned long long length = bytes.size();
    PMPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, 0, comm);
    bytes.resize(length);
    PMPI_Bcast(bytes.data(), static_cast<int>(length), MPI_BYTE, 0, comm);
    if (rank != 0)
        ok = set.deserialize(bytes) && ok;
    return ok;
}

} // namespace waitscope::measure
