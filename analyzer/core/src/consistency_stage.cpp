// The consistency-check stage: before any message is replayed, all ranks check together that
// sends and receives match per rank pair and that every communicator's members took part in
// as many collectives (with the same operations, roots and MPI calls). An inconsistent trace
// is refused on every rank with the same message, naming ranks and communicator, instead of
// replaying wrong matches or waiting forever.
#include "consistency_check.h"
#include "exchange_signature.h"

#include <algorithm>

namespace waitscope::analysis {
namespace {

using trace::EventKind;

std::string rankText(uint32_t rank) {
    return "rank " + std::to_string(rank);
}

} // namespace

ConsistencyTally::ConsistencyTally(uint32_t ranks, size_t comms)
    : sent(2 * size_t{ranks}, 0), received(2 * size_t{ranks}, 0), collectives(2 * comms, 0.0),
      signatures(comms, 0) {}

void ConsistencyTally::addCollective(const trace::CollectiveRecord& c, RegionClass cls) {
    if (c.comm < signatures.size()) {
        collectives[c.comm] += 1;
        const uint32_t call = cls == RegionClass::MpiInit       ? 1
                              : cls == RegionClass::MpiFinalize ? 2
                                                                : 0;
        signatures[c.comm] = collectiveSignature(signatures[c.comm], c, call);
    }
}

void ConsistencyTally::addMessage(bool send, const trace::MessageRecord& m, uint32_t peer) {
    if (peer >= sent.size() / 2) {
        ++badPartners;
        return;
    }
    auto& table = send ? sent : received;
    table[2 * size_t{peer}] += 1;
    table[2 * size_t{peer} + 1] =
        (table[2 * size_t{peer} + 1] + messageSignature(m.comm, m.tag)) & kSignatureMask;
}

namespace {

// The tally of the whole rank's operations.
ConsistencyTally tallyOperations(const RankState& state, uint32_t ranks) {
    const trace::EventStream& events = *state.events;
    ConsistencyTally tally(ranks, state.defs.communicators.size());
    for (const ReplayOperation& op : state.operations) {
        const EventKind kind = events.kind(op.event);
        if (kind == EventKind::MpiCollectiveEnd) {
            tally.addCollective(events.collective(op.event), state.classOf(state.regionOfSpan(op)));
            continue;
        }
        if (kind == EventKind::MpiIrecvRequest || kind == EventKind::MpiIsendComplete) {
            continue; // a request: its message is counted where it is sent or received
        }
        const trace::MessageRecord& m = events.message(op.event);
        tally.addMessage(kind == EventKind::MpiSend || kind == EventKind::MpiIsend, m,
                         state.worldRankOf(m.comm, m.partner));
    }
    return tally;
}

} // namespace

namespace {

// The sums of tallyAgreement() are taken modulo 2^26, so that a rank's part (below 2^26) and
// their sum over up to 2^27 ranks are exact in the doubles the gather carries.
constexpr uint64_t kSumMask = (uint64_t{1} << 26) - 1;

// The columns of a rank's part.
enum SumColumn : size_t {
    SentFirst,      // per rank pair from the sender, first checksum
    ReceivedFirst,  // ... from the receiver
    SentSecond,     // the same with the second checksum
    ReceivedSecond, //
    MembersFirst,   // per communicator from every member, first checksum
    LeadersFirst,   // ... from its first member, times the member count
    MembersSecond,  //
    LeadersSecond,  //
    Problems,       // ranks that found a problem on their own
    Lanes,          // ranks with replay lanes
    SumColumns
};

// A 26-bit checksum of `values` with `seed` (two seeds: two independent checksums).
uint64_t sumChecksum(uint64_t seed, std::initializer_list<uint64_t> values) {
    uint64_t h = mixSignature(seed);
    for (const uint64_t v : values) {
        h = mixSignature(h ^ v);
    }
    return h & kSumMask;
}

// The part of a rank pair's tally from one end: zero for no messages, so that a pair that never
// communicates costs nothing on either side.
void addPair(uint64_t* sums, size_t first, uint64_t sender, uint64_t receiver, uint64_t count,
             uint64_t checksum) {
    if (count == 0) {
        return;
    }
    sums[first] += sumChecksum(1, {sender, receiver, count, checksum});
    sums[first + 2] += sumChecksum(2, {sender, receiver, count, checksum});
}

} // namespace

Result<TallyAgreement> tallyAgreement(const ConsistencyTally& tally, const trace::Definitions& defs,
                                      Transport& transport, bool problem, bool lanes) {
    const uint32_t n = transport.size();
    const uint32_t self = transport.rank();
    uint64_t sums[SumColumns] = {};
    for (uint32_t peer = 0; peer < tally.sent.size() / 2 && peer < n; ++peer) {
        addPair(sums, SentFirst, self, peer, tally.sent[2 * size_t{peer}],
                tally.sent[2 * size_t{peer} + 1]);
        addPair(sums, ReceivedFirst, peer, self, tally.received[2 * size_t{peer}],
                tally.received[2 * size_t{peer} + 1]);
    }
    for (size_t comm = 0; comm < tally.signatures.size() && comm < defs.communicators.size();
         ++comm) {
        const trace::Communicator& c = defs.communicators[comm];
        if (c.isSelf) {
            continue;
        }
        // Communicators naming ranks beyond the trace: the full check names them.
        if (!c.worldRanks.empty() &&
            *std::max_element(c.worldRanks.begin(), c.worldRanks.end()) >= n) {
            problem = true;
        }
        const auto count = static_cast<uint64_t>(tally.collectives[comm]);
        if (count == 0) {
            continue; // a member without collectives leaves its share out: a mismatch
        }
        if (std::find(c.worldRanks.begin(), c.worldRanks.end(), self) == c.worldRanks.end()) {
            problem = true; // collectives on a communicator the rank is not a member of
            continue;
        }
        const uint64_t signature = tally.signatures[comm];
        const uint64_t first = sumChecksum(3, {comm, count, signature});
        const uint64_t second = sumChecksum(4, {comm, count, signature});
        sums[MembersFirst] += first;
        sums[MembersSecond] += second;
        if (c.worldRanks[0] == self) {
            sums[LeadersFirst] += first * c.worldRanks.size();
            sums[LeadersSecond] += second * c.worldRanks.size();
        }
    }
    sums[Problems] = problem || tally.badPartners > 0 ? 1 : 0;
    sums[Lanes] = lanes ? 1 : 0;
    std::vector<double> mine(SumColumns);
    for (size_t k = 0; k < SumColumns; ++k) {
        mine[k] = static_cast<double>(sums[k] & kSumMask);
    }
    // One instance per process where ranks share one (the co-located transport).
    auto all = transport.sharedGather(kWorldComm, mine);
    if (!all) {
        return all.error();
    }
    uint64_t total[SumColumns] = {};
    for (size_t r = 0; r + SumColumns <= (*all)->size(); r += SumColumns) {
        for (size_t k = 0; k < SumColumns; ++k) {
            total[k] += static_cast<uint64_t>((**all)[r + k]);
        }
    }
    for (uint64_t& t : total) {
        t &= kSumMask;
    }
    TallyAgreement agreement;
    agreement.lanesAnywhere = total[Lanes] != 0;
    agreement.agree = total[SentFirst] == total[ReceivedFirst] &&
                      total[SentSecond] == total[ReceivedSecond] &&
                      total[MembersFirst] == total[LeadersFirst] &&
                      total[MembersSecond] == total[LeadersSecond] && total[Problems] == 0;
    return agreement;
}

namespace {

// Finds the first mismatch: compares, with two world exchanges, the sends and receives per rank
// pair (count and a checksum of communicator and tag) and the collectives per communicator
// (count and a checksum of what the replays read of them), so that every rank refuses an
// inconsistent trace alike.
Status findMismatch(RankState& state, Transport& transport, ConsistencyTally& tally) {
    const uint32_t n = transport.size();
    const size_t comms = state.defs.communicators.size();
    std::vector<uint64_t>& sent = tally.sent;
    std::vector<uint64_t>& received = tally.received;
    std::vector<double>& collectives = tally.collectives;
    const std::vector<uint64_t>& signatures = tally.signatures;
    const uint64_t badPartners = tally.badPartners;
    for (size_t comm = 0; comm < comms; ++comm) {
        collectives[comms + comm] = static_cast<double>(signatures[comm]);
    }
    auto incoming = transport.allToAll(sent);
    if (!incoming) {
        return incoming.error();
    }
    // The first problem found here, as numbers: kind (0 none, 1 count, 2 comm/tag,
    // 3 partner outside communicator), peer, the peer's count, the own count.
    double problem[4] = {0, 0, 0, 0};
    for (uint32_t peer = 0; peer < n && problem[0] == 0; ++peer) {
        const uint64_t theySent = (*incoming)[2 * size_t{peer}];
        const uint64_t iReceived = received[2 * size_t{peer}];
        if (theySent != iReceived) {
            problem[0] = 1;
            problem[1] = peer;
            problem[2] = static_cast<double>(theySent);
            problem[3] = static_cast<double>(iReceived);
        } else if ((*incoming)[2 * size_t{peer} + 1] != received[2 * size_t{peer} + 1]) {
            problem[0] = 2;
            problem[1] = peer;
        }
    }
    if (problem[0] == 0 && badPartners > 0) {
        problem[0] = 3;
        problem[2] = static_cast<double>(badPartners);
    }
    // Everyone learns the problems and the collective counts, so that every rank refuses
    // with the same message (about the lowest rank that found a problem).
    std::vector<double> mine = collectives;
    mine.insert(mine.end(), problem, problem + 4);
    // Last, whether this rank has replay lanes (further threads that call MPI).
    mine.push_back(state.lanes.empty() ? 0.0 : 1.0);
    auto all = transport.allGather(kWorldComm, mine);
    if (!all) {
        return all.error();
    }
    const size_t width = mine.size();
    const size_t p = collectives.size(); // where the problems start
    for (uint32_t r = 0; r < n; ++r) {
        state.lanesAnywhere = state.lanesAnywhere || (*all)[r * width + width - 1] != 0.0;
    }
    for (uint32_t r = 0; r < n; ++r) {
        const double* found = &(*all)[r * width + p];
        const auto peer = static_cast<uint64_t>(found[1]);
        if (found[0] == 1) {
            return Error(rankText(r) + ": receives " +
                         std::to_string(static_cast<uint64_t>(found[3])) + " messages from rank " +
                         std::to_string(peer) + " but rank " + std::to_string(peer) + " sends " +
                         std::to_string(static_cast<uint64_t>(found[2])));
        }
        if (found[0] == 2) {
            return Error(rankText(r) + ": messages from rank " + std::to_string(peer) +
                         " differ in communicator or tag between sender and receiver");
        }
        if (found[0] == 4) {
            return Error(rankText(r) + ": no events to replay");
        }
        if (found[0] == 3) {
            return Error(rankText(r) + ": " + std::to_string(static_cast<uint64_t>(found[2])) +
                         " messages name a partner outside their communicator");
        }
    }
    for (uint32_t comm = 0; comm < state.defs.communicators.size(); ++comm) {
        const trace::Communicator& c = state.defs.communicators[comm];
        if (c.isSelf) {
            continue;
        }
        for (size_t i = 0; i < c.worldRanks.size(); ++i) {
            const uint32_t member = c.worldRanks[i];
            const uint32_t first = c.worldRanks[0];
            if (member >= n || first >= n) {
                return Error("communicator " + std::to_string(comm) + " names rank " +
                             std::to_string(member) + " but the trace has " + std::to_string(n) +
                             " ranks");
            }
            const double a = (*all)[first * width + comm];
            const double b = (*all)[member * width + comm];
            if (a != b) {
                return Error("communicator " + std::to_string(comm) + ": rank " +
                             std::to_string(first) + " takes part in " +
                             std::to_string(static_cast<uint64_t>(a)) + " collectives but rank " +
                             std::to_string(member) + " in " +
                             std::to_string(static_cast<uint64_t>(b)));
            }
            if ((*all)[first * width + comms + comm] != (*all)[member * width + comms + comm]) {
                return Error("communicator " + std::to_string(comm) + ": the collectives of rank " +
                             std::to_string(first) + " and rank " + std::to_string(member) +
                             " differ in operation, root or MPI call");
            }
        }
        for (uint32_t r = 0; r < n; ++r) {
            const bool member =
                std::find(c.worldRanks.begin(), c.worldRanks.end(), r) != c.worldRanks.end();
            if (!member && (*all)[r * width + comm] != 0.0) {
                return Error("communicator " + std::to_string(comm) + ": rank " +
                             std::to_string(r) + " is not a member but records collectives on it");
            }
        }
    }
    return Status::success();
}

} // namespace

Status checkConsistency(RankState& state, Transport& transport, ConsistencyTally& tally) {
    // Nearly always the sums agree, and the full exchanges below are not needed.
    auto agreement = tallyAgreement(tally, state.defs, transport, false, !state.lanes.empty());
    if (!agreement) {
        return agreement.error();
    }
    if (agreement->agree) {
        state.lanesAnywhere = agreement->lanesAnywhere;
        return Status::success();
    }
    return findMismatch(state, transport, tally);
}

Status checkConsistencyStage(RankState& state, Transport& transport) {
    if (state.events == nullptr) {
        // Take part in the check's exchanges, so the others find the missing messages and
        // stop there instead of waiting forever: the sums (which this rank's problem makes
        // disagree), then findMismatch()'s.
        const ConsistencyTally none(0, 0);
        if (auto agreement = tallyAgreement(none, state.defs, transport, true, false); !agreement) {
            return agreement.error();
        }
        auto sent = transport.allToAll(std::vector<uint64_t>(2 * size_t{transport.size()}, 0));
        // The layout of findMismatch()'s: counts and checksums per communicator, then the
        // problem, then whether the rank has replay lanes.
        std::vector<double> mine(2 * state.defs.communicators.size() + 5, 0.0);
        mine[2 * state.defs.communicators.size()] = 4; // "no events": every rank refuses
        auto all = transport.allGather(kWorldComm, mine);
        (void)sent;
        (void)all;
        return Error(rankText(transport.rank()) + ": no events to replay");
    }
    ConsistencyTally tally = tallyOperations(state, transport.size());
    return checkConsistency(state, transport, tally);
}

} // namespace waitscope::analysis
