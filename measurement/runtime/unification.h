// Unifies the ranks' definition sets into global ones by a binomial reduction tree.
#pragma once

#include "waitscope/measure/definitions.h"

#include <mpi.h>

namespace waitscope::measure {

/// Merges every rank's `set` up a binomial tree on `comm` (PMPI only), then broadcasts the
/// merged set, so on return `set` holds the global set on every rank. No rank receives from
/// more than log2(size) others. Returns false if a message could not be decoded.
bool unifyDefinitionSet(DefinitionSet& set, MPI_Comm comm, int tag);

} // namespace waitscope::measure
