// Binomial-tree unification of definition sets over PMPI point-to-point and a broadcast.
//
// Rank r receives from r + 2^k for every k with r + 2^k < size and r's lowest set bit above k,
// merging each child's set into its own, then sends the result to r - lowbit(r). Rank 0 ends
// with the union, which it broadcasts. Merging is by key, so the order children arrive in
// does not change the result, and every rank derives the same global ids from it.
#include "unification.h"

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

bool unifyDefinitionSet(DefinitionSet& set, MPI_Comm comm, int tag) {
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
