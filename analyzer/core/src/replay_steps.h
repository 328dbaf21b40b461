// The whole-rank replays' exchanges, in one bulk step or in bounded steps (issue 22's traces
// larger than memory, with the root-cause passes).
//
// A replay pass posts a record per message and a contribution per collective, exchanges, and
// consumes its operations in match order. Posted in one step, the records of every message of
// the rank are in memory at once (in the outboxes and then in the deliveries): about 60 bytes
// per message, held to the exchange and beyond. In steps, a rank posts the records of at most
// `stepOperations` operations per step, exchanges, and consumes its operations in match order
// as far as their records and collectives have arrived; what has not arrived waits, with
// everything after it, for the next step. Collectives are contributed only up to what every
// member of their communicator has posted (one all-gather of a count per communicator per
// step), as the transports want every member's contribution to one collective in one exchange.
// Records never depend on consumption, so a consistent trace is consumed entirely once every
// rank has posted all; operations are consumed in the same order either way, so every severity
// and every root-cause input is added in the same order and the report is the same byte for
// byte.
#pragma once

#include "rank_state.h"

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <tuple>
#include <vector>

namespace waitscope::analysis {

/// The operations per step of the replays' exchanges for `state`'s rank: with the root-cause
/// passes over a rank read in windows, the window's events (ReplayOptions::windowEvents, else
/// kMaxWindowEvents); else 0 (one step).
uint64_t replayStepOperations(const RankState& state);

class ReplaySteps {
public:
    /// What an operation waits for before it can be consumed.
    struct Need {
        enum class Kind { Nothing, Record, Collective };
        Kind kind = Kind::Nothing;
        uint32_t comm = 0;
        uint32_t source = 0; ///< a record: the partner's rank in `comm`
        uint32_t tag = 0;
        static Need nothing() { return {}; }
        static Need record(uint32_t comm, uint32_t source, uint32_t tag) {
            return {Kind::Record, comm, source, tag};
        }
        static Need collective(uint32_t comm) { return {Kind::Collective, comm, 0, 0}; }
    };
    /// Posts operation `k`'s records (send()) or contribution (contribute()).
    using Post = std::function<Status(const ReplayOperation& op, uint32_t k)>;
    /// What operation `k` waits for (read in steps only).
    using Needs = std::function<Need(const ReplayOperation& op, uint32_t k)>;
    /// Consumes operation `k`, taking what it waits for by receive() or gathered().
    using Consume = std::function<Status(const ReplayOperation& op, uint32_t k)>;

    /// `stepOperations` 0: one step (every record posted, one exchange, the records read from
    /// the transport as they are consumed).
    ReplaySteps(RankState& state, Transport& transport, uint64_t stepOperations);

    /// Posts, exchanges and consumes every operation of the rank in match order. Fails with the
    /// first hook's or the transport's error, or naming the rank and the operation whose record
    /// never arrived.
    /// In one step, `postedAll` runs after the last operation is posted, before the exchange.
    Status run(const Post& post, const Needs& needs, const Consume& consume,
               const std::function<Status()>& postedAll = {});

    // For the hooks.
    Status send(uint32_t comm, uint32_t destination, uint32_t tag, const ReplayRecord& record) {
        ++m_postedNow;
        return m_transport.send(comm, destination, tag, record);
    }
    Status contribute(uint32_t comm, std::span<const double> values);
    Result<ReplayRecord> receive(uint32_t comm, uint32_t source, uint32_t tag);
    Result<std::shared_ptr<const GatheredCollective>> gathered(uint32_t comm);

    /// The exchanges run.
    uint64_t steps() const { return m_steps; }
    /// The most records this rank posted for one exchange, or held after one without having
    /// consumed them: what its records take in memory at most, on its side of the transport.
    uint64_t peakRecords() const { return m_peakRecords; }

private:
    const ReplayOperation& at(size_t i) const {
        return m_state.matchOrder.empty() ? m_state.operations[i]
                                          : m_state.operations[m_state.matchOrder[i]];
    }
    Status runInOneStep(const Post& post, const Consume& consume,
                        const std::function<Status()>& postedAll);
    Result<bool> agree(bool finished);
    bool consumable(const Need& need);

    RankState& m_state;
    Transport& m_transport;
    uint64_t m_stepOperations;
    uint64_t m_steps = 0;
    uint64_t m_postedNow = 0;
    uint64_t m_held = 0;
    uint64_t m_peakRecords = 0;
    // In steps: per communicator, the contributions posted but not yet sent, how many were
    // sent, how many all members have posted, and how many went in the current exchange.
    std::map<uint32_t, std::deque<std::vector<double>>> m_unsent;
    std::vector<uint64_t> m_contributed;
    std::vector<uint64_t> m_bound;
    std::map<uint32_t, uint64_t> m_contributedNow;
    // In steps: what arrived and was not consumed yet, records per (communicator, world rank of
    // the source, tag).
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::deque<ReplayRecord>> m_records;
    std::map<uint32_t, std::deque<std::shared_ptr<const GatheredCollective>>> m_collectives;
};

/// What the ranks agreed in a step's world all-gather `all`: one row of `width` values per rank,
/// column 0 whether that rank has finished and, from column `first` on, how many collectives per
/// communicator it has ready. Sets `bound[c]` to the least of column `first + c` over the members
/// of communicator c (a self communicator keeps `bound[c]`), and returns whether every rank has
/// finished. Shared by the replays' steps and the windowed replay.
bool agreeOnStep(const std::vector<double>& all, size_t width, size_t first, uint32_t ranks,
                 const trace::Definitions& defs, std::vector<uint64_t>& bound);

} // namespace waitscope::analysis
