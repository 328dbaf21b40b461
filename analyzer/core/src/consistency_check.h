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

/// Compares the tallies of all ranks and fails, on every rank alike, naming the ranks and the
/// communicator of the first mismatch. Collective over all ranks: first one gather of a few
/// sums per rank (tallyAgreement()); only when they disagree, the exchanges that find the
/// mismatch (an all-to-all of per-peer counts and a gather of per-communicator counts, O(N)
/// per rank).
Status checkConsistency(RankState& state, Transport& transport, ConsistencyTally& tally);

/// What all ranks' tallies say when summed (see tallyAgreement()).
struct TallyAgreement {
    bool agree = false;         ///< every rank pair and communicator matches, no rank has problems
    bool lanesAnywhere = false; ///< some rank said it has replay lanes
};

/// Whether all ranks' tallies match, from sums over the ranks of checksums of what each rank
/// tallied: per rank pair (sender, receiver, count, channel checksum) from both ends, and per
/// communicator (count, collective checksum) from every member and, times the member count,
/// from its first member. The same answer on every rank, in one gather of constant width per
/// rank (collective over all ranks; O(communicators with collectives) work per rank beyond the
/// tally). Matching tallies always agree; mismatching ones are told apart with probability
/// 1 - 2^-52 (two independent 26-bit checksums per comparison). `problem`: this rank found one
/// on its own (partners outside their communicators, no events); `lanes`: it has replay lanes.
Result<TallyAgreement> tallyAgreement(const ConsistencyTally& tally, const trace::Definitions& defs,
                                      Transport& transport, bool problem, bool lanes);

} // namespace waitscope::analysis
