// The one-sided (RMA) part of the forward replay: what each rank tells the others about its
// windows' collectives, epochs and locks, and the RMA patterns found in what arrives.
#pragma once

#include "rank_state.h"

namespace waitscope::analysis {

/// Posts this rank's one-sided records before the forward replay's exchange: a contribution per
/// window collective (create, free, fence) on the window's communicator, after the MPI
/// collectives'; per fence a record to every other member (its last transfer there); per post
/// and complete a record to each rank of the epoch's group; and the lock epochs to their
/// targets (their number first, by an all-to-all). Every rank calls it when the trace defines
/// RMA windows (state.rma is set), none otherwise.
Status postRmaRecords(RankState& state, Transport& transport);

/// After the forward replay's exchange and its MPI patterns: finds the RMA patterns (Wait at
/// Create/Free/Fence, Early Fence, Late Post, Early Wait, Late Complete, the pair-wise
/// synchronization counts), then Lock Contention on each target, whose findings go back to the
/// origins in one more exchange. Every rank calls it after postRmaRecords().
Status replayRma(RankState& state, Transport& transport);

} // namespace waitscope::analysis
