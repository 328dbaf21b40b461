// Cross-rank operations of the measurement (PMPI only): unifying definition sets by a
// binomial reduction tree, and the few gathers and reductions finalize needs. With
// MPI_COMM_NULL (a program that never initialized MPI) the process is rank 0 of 1.
#pragma once

#include "waitscope/measure/definitions.h"

#include <mpi.h>
#include <vector>

namespace waitscope::measure {

/// Merges every rank's `set` up a binomial tree on `comm` (PMPI only), then broadcasts the
/// merged set, so on return `set` holds the global set on every rank. No rank receives from
/// more than log2(size) others. Returns false if a message could not be decoded.
bool unifyDefinitionSet(DefinitionSet& set, MPI_Comm comm, int tag);

/// Gathers `count` items of `type` (each `itemBytes` long) from every rank on rank 0.
void gatherToRoot(const void* mine, void* all, int count, MPI_Datatype type, size_t itemBytes,
                  MPI_Comm comm);
/// Gathers every rank's `mine` (any length) on rank 0: one vector per rank there, none
/// elsewhere.
std::vector<std::vector<unsigned long long>>
gatherVariableToRoot(const std::vector<unsigned long long>& mine, MPI_Comm comm);
std::vector<std::vector<double>> gatherVariableToRoot(const std::vector<double>& mine,
                                                      MPI_Comm comm);
/// Reduces `count` items with `op` onto every rank.
void reduceToAll(const void* mine, void* result, int count, MPI_Datatype type, size_t itemBytes,
                 MPI_Op op, MPI_Comm comm);
/// Returns once every rank of `comm` called it, sleeping meanwhile instead of spinning in MPI's
/// progress loop (which burns the waiting rank's CPU, yielding or not): for the points where
/// ranks arrive far apart because their own work differs (finalize's translation of the rest of
/// their records). Adds about 0.1 ms at most to the wait for the last rank.
void awaitEveryRank(MPI_Comm comm) noexcept;
/// Broadcasts `count` items from rank 0.
void broadcastFromRoot(void* data, int count, MPI_Datatype type, MPI_Comm comm);

} // namespace waitscope::measure
