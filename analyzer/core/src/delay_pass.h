// One run of the root-cause pass: the message-driven backward replay over one rank's
// synchronization points and the state it needs, freed when it ends (see delay_analysis.cpp).
#pragma once

#include "delay_interval.h"
#include "delay_ledger.h"
#include "delay_payload.h"
#include "delay_sync_points.h"
#include "operation_profile.h"
#include "waitscope/analysis/transport.h"
#include "waitscope/base/result.h"
#include "waitscope/trace/definitions.h"
#include "waitscope/trace/event_stream.h"

#include <array>
#include <cstdint>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

namespace waitscope::analysis::delay {

// Tags of the message-driven exchange next to the traced ones (assumed below 0x7FFFFF00).
/// ORed into a traced tag: Late Receiver, sender to receiver.
inline constexpr uint32_t kLateReceiverTag = 0x80000000u;
/// Member to latecomer, in the walk.
inline constexpr uint32_t kCollectiveUp = 0xFFFFFF02u;
/// Delayer to waiter, after the walk.
inline constexpr uint32_t kIndirectTag = 0xFFFFFF03u;
/// Member to latecomer, before the walk.
inline constexpr uint32_t kCollectiveUpEarly = 0xFFFFFF04u;

/// Indirect shares a delayer owes its waiters, collected per waiter rank during the walk and
/// settled at its end, each with its channel (communicator, tag, type) and position on it.
class OwedShares {
public:
    /// An indirect share owed to a waiter: its channel, position on it, and value.
    struct Owed {
        uint32_t comm, tag, kind, sequence;
        double value;
    };

    /// The next wait state of `waiter` on channel (comm, tag, kind) has indirect share
    /// `value` (none when 0).
    void add(uint32_t waiter, uint32_t comm, uint32_t tag, uint32_t kind, double value);
    /// Shares received from the delayers: by (delayer, comm, tag, kind, position).
    using Received = std::map<std::tuple<uint32_t, uint32_t, uint32_t, uint32_t, uint32_t>, double>;

    /// The shares owed to each waiter rank.
    const std::map<uint32_t, std::vector<Owed>>& byWaiter() const { return m_owed; }

private:
    using Channel = std::tuple<uint32_t, uint32_t, uint32_t, uint32_t>; ///< waiter, comm, tag, kind

    std::map<uint32_t, std::vector<Owed>> m_owed;
    std::map<Channel, uint32_t> m_sequence; ///< the next position on each channel
    // Runs of wait states on one channel: its position is looked up once per run.
    Channel m_positionOf;
    uint32_t* m_position = nullptr; ///< m_sequence[m_positionOf]
};

/// The latecomer's side of collective delays: scratch kept across collectives (a barrier loop
/// computes one per barrier).
struct LatecomerShares {
    std::vector<uint32_t> others;                       ///< world ranks of the other members
    std::vector<std::pair<uint32_t, int>> intermediate; ///< world rank, SP met at (sorted)
    size_t count = 0;                                   ///< call paths of the group interval
    std::vector<double> sums;                           ///< per input and call path
    std::vector<double> delay;                          ///< excess time per call path
    std::array<bool, kInputs> used{};                   ///< inputs that some member has
    std::vector<Inputs> memberScales;                   ///< per communicator rank
    std::vector<std::pair<int, double>> increments;     ///< SP, scale met there
    std::array<ScaleMap, kInputs> scaleMaps;            ///< per input

    /// The SP at which the latecomer met `worldRank` after the group SP, or -1.
    int metAt(uint32_t worldRank) const;
    /// Adds a member's share of the delays to the sums: its inputs scaled by the excess time
    /// over all call paths and `propagatingWait`. Returns the scales.
    Inputs addShare(double propagatingWait, const Inputs& inputs);
};

/// The root-cause pass over one rank, once every SP is known and the replays are done.
class Pass {
public:
    Pass(const trace::Definitions& definitions, const trace::EventStream& events,
         Transport& transport, RankResult& result, SyncPoints& points,
         const std::vector<Collective>& collectives, const std::vector<ReplayOperation>& operations,
         const std::vector<uint32_t>& paired, const OperationProfile& profile);

    /// Before run(): SP `point` takes on `cost` of type `kind` (seeded from outside the pass).
    void addCost(int point, Kind kind, double cost) { m_ledger.addCost(point, kind, cost); }
    /// Posts the early shares, walks backward over the operations, settles the indirect
    /// shares, classifies and adds the delay values to the result. Collective over all ranks;
    /// fails when the transport fails.
    Status run();

private:
    // The walk (delay_pass.cpp).
    Status postEarlyShares();
    Status walk();

    // Point-to-point delay (delay_point_to_point.cpp).
    /// The message record of point-to-point operation `operation` (a request's: its message's).
    trace::MessageRecord messageOf(uint32_t operation) const {
        return m_events.message(
            m_operations[messageOperation(m_operations, m_paired, m_events, operation)].event);
    }
    Status pointToPoint(int point);
    double delayAtPartner(int point, Kind kind, uint32_t waiterRank, const Inputs& inputs);
    Status settleIndirect();
    void partnerRanks(std::vector<uint32_t>& delayers, std::vector<uint32_t>& waiters) const;
    Status postOwedShares(const std::vector<uint32_t>& waiters);
    Status awaitOwedShares(const std::vector<uint32_t>& delayers, OwedShares::Received& shares);
    void creditIndirect(const OwedShares::Received& shares);

    // Collective delay (delay_collective.cpp).
    Status collectiveDelay(const Collective& collective, int point);
    int groupInterval(const std::vector<uint32_t>& world, uint32_t self, int point);
    void latecomerShare(int point, uint32_t self);
    Status memberShare(uint32_t comm, const std::vector<uint32_t>& world, uint32_t member,
                       uint32_t tag, int point);
    void buildScaleMaps(const std::vector<uint32_t>& world, int groupStart);
    void addCollectiveDelays(Kind kind);

    const trace::Definitions& m_defs;
    const trace::EventStream& m_events;
    Transport& m_transport;
    RankResult& m_result;
    SyncPoints& m_points;
    const std::vector<Collective>& m_collectives;
    const std::vector<ReplayOperation>& m_operations;
    const std::vector<uint32_t>& m_paired; ///< the message of each request operation
    SyncIntervals m_intervals;
    TimesPayload m_payload;
    Ledger m_ledger;
    OwedShares m_owed;
    // Reused per synchronization point, so that the walk allocates nothing per point.
    Interval m_own, m_group, m_since;
    std::vector<double> m_arrived;                   ///< the payload awaited
    std::vector<std::pair<NodeId, double>> m_delays; ///< excess time per call path
    LatecomerShares m_latecomer;
};

} // namespace waitscope::analysis::delay
