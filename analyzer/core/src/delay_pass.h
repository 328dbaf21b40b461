// One run of the root-cause pass: the message-driven backward replay over one rank's
// synchronization points and the state it needs, freed when it ends (see delay_analysis.cpp).
#pragma once

#include "delay_interval.h"
#include "delay_ledger.h"
#include "delay_payload.h"
#include "delay_sync_points.h"
#include "operation_profile.h"
#include "spilled_array.h"
#include "waitscope/analysis/transport.h"
#include "waitscope/base/result.h"
#include "waitscope/trace/definitions.h"
#include "waitscope/trace/event_stream.h"

#include <array>
#include <cstdint>
#include <deque>
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

/// What the passes of one rank's locations share: the indirect shares owed to the waiters,
/// counted over all of them in the order of the walk, and the rank's own point-to-point wait
/// states in the order they were posted (as their delayers count them).
struct RankShares {
    /// A wait state posted: its location and SP.
    struct Posted {
        uint32_t location = 0;
        int32_t point = 0;
    };
    OwedShares owed;
    /// In blocks on the rank's scratch file when it has one (DelayAnalysis::keepPointsIn()),
    /// read forward once at the end of the walk
    SpilledArray<Posted> posted;
};

/// The root-cause pass over one location of a rank (its main location, or a replay lane: a
/// further thread that calls MPI itself), once every SP is known and the replays are done. The
/// location's SPs, intervals and accounts are its own; the walk is driven by RankPass.
class Pass {
public:
    /// `points` and `collectives` hold the location's SPs and collectives; its operations
    /// start at `first`; `location` is its index in the RankPass.
    Pass(const trace::Definitions& definitions, const trace::EventStream& events,
         Transport& transport, const CallTree& tree, SyncPoints& points,
         const std::vector<Collective>& collectives, const std::vector<ReplayOperation>& operations,
         const std::vector<CallSpan>& spans, const std::vector<uint32_t>& paired,
         const OperationProfile& profile, size_t first, uint32_t location, RankShares& shared);

    /// What the location does next in a walk: at `operation`, its SP and collective (-1:
    /// none), and the time that orders it among the rank's locations (see RankPass).
    struct Step {
        uint32_t operation = 0;
        int point = -1;
        int collective = -1;
        double time = 0.0;
    };
    /// The next early share to post (backward), false when none is left.
    bool nextEarly(Step& step);
    /// Posts it.
    Status takeEarly(const Step& step);
    /// The walk goes on among other locations' (RankPass), or in slabs of time: next() says
    /// when each step comes.
    void interleave() { m_interleaved = true; }
    /// Whether the times next() gives fall (or stay) from step to step over the whole walk, as
    /// the walk in slabs needs; leaves the walk where it was (needs interleave()).
    bool timesFall();
    /// The enter of operation `operation`'s call.
    double enterOf(uint32_t operation) const { return m_spans[m_operations[operation].span].enter; }
    /// The next SP or collective of the backward walk, false when none is left.
    bool next(Step& step);
    /// Computes its delay (awaiting or posting payloads).
    Status take(const Step& step);
    /// After the walk and the indirect shares: classifies the location's wait states (its
    /// values in `rows`) and adds the delay values to `rows`.
    void finish(SeverityRows& rows);
    /// Before the walk: SP `point` takes on `cost` of type `kind` (seeded from outside the pass).
    void addCost(int point, Kind kind, double cost) { m_ledger.addCost(point, kind, cost); }

    const SyncPoints& points() const { return m_points; }
    Ledger& ledger() { return m_ledger; }
    /// The message record of point-to-point operation `operation` (a request's: its message's).
    trace::MessageRecord messageOf(uint32_t operation) const {
        return m_events.message(
            m_operations[messageOperation(m_operations, m_paired, m_events, operation)].event);
    }

private:
    /// Moves the walk's cursors below `operation`.
    void skipPast(uint32_t operation);

    // Point-to-point delay (delay_point_to_point.cpp).
    Status pointToPoint(int point);
    double delayAtPartner(int point, Kind kind, uint32_t waiterRank, const Inputs& inputs);

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
    const CallTree& m_tree;
    SyncPoints& m_points;
    const std::vector<Collective>& m_collectives;
    const std::vector<ReplayOperation>& m_operations;
    const std::vector<CallSpan>& m_spans;
    const std::vector<uint32_t>& m_paired; ///< the message of each request operation
    uint32_t m_location;
    RankShares& m_shared;
    SyncIntervals m_intervals;
    TimesPayload m_payload;
    Ledger m_ledger;
    // The cursors of the walks (backward): the next SP and collective.
    int m_point, m_collective;
    int m_earlyPoint, m_earlyCollective;
    bool m_interleaved = false;
    // Reused per synchronization point, so that the walk allocates nothing per point.
    Interval m_own, m_group, m_since;
    std::vector<double> m_arrived;                   ///< the payload awaited
    std::vector<std::pair<NodeId, double>> m_delays; ///< excess time per call path
    LatecomerShares m_latecomer;
};

/// The root-cause pass over one rank: a Pass per location, walked together. Each location
/// walks its own SPs backward; among the locations the one whose next step is latest goes
/// first, a step that awaits a payload counting at its call's enter and one that posts at its
/// call's exit. A payload is posted at a call that waited for the call that awaits it, so it
/// comes later on that time scale: every rank posts what another awaits before it needs it
/// (with one location per rank the walk is in operation order, as before), and each channel
/// sees its payloads in the order the forward replay matched its messages.
///
/// In slabs (walkInSlabs(), a rank with one location read in windows): the walk would otherwise
/// post along the whole rank before its partners take any, so that the payloads in flight grow
/// with how far one rank runs ahead of another. Instead all ranks walk one slab of the traced
/// time at a time, from the end of the run backward, with a gather of every rank between two
/// slabs: a step comes at its time as above (an await at its call's enter, a post at its
/// call's exit), and a slab holds the steps at or after its start. Each rank proposes the enter
/// of the operation `operations` before its next step; the slab starts at the latest
/// proposal, so that no rank walks more than about `operations` operations in it and the rank
/// that proposed walks at least its next step. A payload is posted at or after the time it is
/// awaited (the poster waited for the awaiting call), so it is posted in the slab that awaits it
/// or an earlier one, and the walk within a slab is the message-driven one above: no rank
/// waits for a payload of a later slab. What is in flight is then what a slab posts, and
/// what crosses a slab's start. That needs times that fall along every rank's walk and every
/// awaited payload posted no earlier than its await, as in a trace whose clocks agree; when a
/// rank finds otherwise (a clock behind, Pass::timesFall()), every rank walks in one slab.
class RankPass {
public:
    explicit RankPass(Transport& transport) : m_transport(transport) {}
    RankPass(const RankPass&) = delete;
    RankPass& operator=(const RankPass&) = delete;

    /// The shares the locations' passes have in common (Pass's constructor).
    RankShares& shared() { return m_shared; }
    /// Adds a location's pass (the main location first, then the lanes in order).
    template <class... Args> Pass& add(Args&&... args) {
        return m_passes.emplace_back(std::forward<Args>(args)...);
    }
    /// The pass of location `l` (in the order added).
    Pass& location(size_t l) { return m_passes[l]; }
    /// Walks in slabs of about `operations` operations (see the class), unless
    /// `postedBeforeAwait`: this rank knows of a payload posted before its await. Every rank of
    /// the run calls it alike, before run().
    void walkInSlabs(size_t operations, bool postedBeforeAwait) {
        m_slabOperations = operations;
        m_postedBeforeAwait = postedBeforeAwait;
    }
    /// Posts the early shares, walks, settles the indirect shares, classifies and adds the delay
    /// values to `rows` (per location, in the order added). Collective over all ranks; fails
    /// when the transport fails.
    Status run(const std::vector<SeverityRows*>& rows);

private:
    /// Runs `take` on every step `next` gives, over all locations (see the class).
    Status merge(bool (Pass::*next)(Pass::Step&), Status (Pass::*take)(const Pass::Step&));
    /// Whether every rank can walk in slabs (a gather of all ranks).
    Result<bool> slabsAgreed();
    /// The early shares and the walk, slab by slab (one location).
    Status walkSlabs();

    // The indirect shares (delay_point_to_point.cpp).
    Status settleIndirect();
    void partnerRanks(std::vector<uint32_t>& delayers, std::vector<uint32_t>& waiters) const;
    Status postOwedShares(const std::vector<uint32_t>& waiters);
    Status awaitOwedShares(const std::vector<uint32_t>& delayers, OwedShares::Received& shares);
    void creditIndirect(const OwedShares::Received& shares);

    Transport& m_transport;
    RankShares m_shared;
    std::deque<Pass> m_passes;
    std::vector<double> m_arrived; ///< the payload awaited
    size_t m_slabOperations = 0;   ///< 0: the walk at once
    bool m_postedBeforeAwait = false;
};

} // namespace waitscope::analysis::delay
