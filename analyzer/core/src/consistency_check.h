// The consistency check of the replay's input, for the whole-rank stage and the windowed replay:
// what a rank tallies of its operations, and the exchange that compares the tallies.
#pragma once

#include "rank_state.h"

#include <cstdint>
#include <vector>

namespace waitscope::analysis {

/// What the consistency check compares, tallied over a rank's operations in event order.
struct ConsistencyTally {
    ConsistencyTally(uint32_t ranks, size_t comms);
    /// Counts a collective of the rank (its MPI call's class marks MPI_Init and MPI_Finalize).
    void addCollective(const trace::CollectiveRecord& c, RegionClass cls);
    /// Counts a message sent to or received from world rank `peer` (one beyond the ranks: a
    /// partner outside its communicator).
    void addMessage(bool send, const trace::MessageRecord& m, uint32_t peer);

    /// Per peer: [messages sent to it, checksum of their comm/tag]; the same for receives.
    std::vector<uint64_t> sent, received;
    /// Per communicator: the number of collectives, then (filled by the check) their checksums.
    std::vector<double> collectives;
    std::vector<uint64_t> signatures; ///< per communicator: the chained collectiveSignature()
    uint64_t badPartners = 0;
};

/// Compares the tallies of all ranks (two world exchanges; collective over all ranks) and
/// fails, on every rank alike, naming the ranks and the communicator of the first mismatch.
Status checkConsistency(RankState& state, Transport& transport, ConsistencyTally& tally);

} // namespace waitscope::analysis
