// The root-cause pass: delay costs and the classification of wait states, replayed backward.
#pragma once

#include "operation_profile.h"
#include "pattern_sink.h"
#include "waitscope/analysis/region_class.h"
#include "waitscope/analysis/transport.h"
#include "waitscope/base/result.h"
#include "waitscope/trace/definitions.h"
#include "waitscope/trace/event_stream.h"

#include <array>
#include <cstdint>
#include <map>
#include <vector>

namespace waitscope::analysis {

/// Delay costs (short- and long-term, per wait-state type) and the propagating/terminal and
/// direct/indirect split of point-to-point wait states for one rank (see delay_analysis.cpp).
///
/// The replay feeds it while it runs: the forward pass reports Late Sender instances and
/// collectives, the backward pass Late Receiver instances; the same replays tell the partners
/// of those wait states. run() then adds the remaining synchronization points and replays
/// backward, message-driven, over the transport, summing the time profile between operations
/// that the profile pass recorded (shared with the critical path). Memory beyond that profile:
/// 36 bytes per synchronization point (its record and its slot for costs), and costs only for
/// wait states that caused further waiting.
class DelayAnalysis {
public:
    DelayAnalysis(const trace::Definitions& definitions, const trace::EventStream& events,
                  Transport& transport, RankResult& result);

    /// Makes room for the synchronization points of `operations` operations (at most one
    /// each) and for `collectives` collectives, so that the lists grow without copies; only
    /// the part used takes up memory.
    void reserve(size_t operations, size_t collectives) {
        m_points.reserve(operations);
        m_collectives.reserve(collectives);
    }
    /// A Late Sender instance at receive operation `operation` in MPI call `call` (forward
    /// pass).
    void onLateSender(uint32_t operation, const CallSpan& call, double wait, double completion);
    /// A Late Receiver instance at blocking send operation `operation` in MPI call `call`
    /// (backward pass).
    void onLateReceiver(uint32_t operation, const CallSpan& call, double wait, double completion);
    /// A replayed collective at operation `operation` with all members' call times.
    void onCollective(uint32_t operation, const CollectiveView& view, RegionClass cls,
                      const trace::CollectiveRecord& record);
    /// After the backward pass: merges its synchronization points into the forward pass's.
    void replaysDone();
    /// The root-cause pass over `operations` (as listed by the replay; `spans` their calls;
    /// `profile` the time between them, as recorded by the profile pass and finished;
    /// `partners` the partner calls' times and `partnerWaited` whether the partner waited,
    /// per message operation; freed once read). Needs replaysDone() first. Collective over all
    /// ranks; fails when the transport fails.
    Status run(const std::vector<ReplayOperation>& operations, const std::vector<CallSpan>& spans,
               const OperationProfile& profile, std::vector<ReplayRecord> partners,
               std::vector<uint8_t> partnerWaited);

    /// Wait-state types, each with a short-term and a long-term delay metric.
    enum Kind : uint8_t { kLateSender, kLateReceiver, kBarrier, kNxn, kOneToN, kNToOne, kKinds };

private:
    enum class Role : uint8_t { LateSender, SenderOfLate, LateReceiver, ReceiverOfLate, Group };

    /// A synchronization point: an operation at which this rank synchronized with others.
    /// 32 bytes (the call's duration comes from its span).
    struct SyncPoint {
        uint32_t operation = 0;
        Role role = Role::Group;
        uint32_t partner = 0; ///< world rank (point-to-point) or index into m_rankSets
        NodeId node = 0;      ///< the call path of its MPI call
        double wait = 0.0;
        /// The part of its call before its completion, which the interval it opens leaves out
        double beforeCompletion = 0.0;
    };
    static_assert(sizeof(SyncPoint) == 32, "the call path fits into the padding");

    /// A pruned time profile of a synchronization interval.
    struct Interval {
        int from = -1; ///< synchronization point that opens it (-1: the trace start)
        int to = -1;   ///< the one that closes it
        std::vector<std::pair<NodeId, double>> times;
        double sum = 0.0;
        double waiting = 0.0; ///< wait time of the synchronization points inside
    };

    /// A collective this rank takes part in where the latecomer is an SP.
    struct Collective {
        uint32_t operation = 0;
        uint32_t late = 0;      ///< communicator rank of the latecomer
        uint32_t waiting = 0;   ///< index into m_rankSets: the other members that are SPs
        uint32_t early = 0;     ///< index into m_rankSets: those of them that post up early
        bool postEarly = false; ///< this member posts its share before the walk
    };

    /// An indirect share owed to a waiter: its channel, position on it, and value.
    struct Owed {
        uint32_t comm, tag, kind, sequence;
        double value;
    };

    using Costs = std::array<double, kKinds>;
    /// Inputs of a collective delay computation: the member's wait, then its costs per type.
    static constexpr size_t kInputs = 1 + kKinds;
    /// Scales from an SP on (ascending SPs; the first one holds from the interval's start).
    using ScaleMap = std::vector<std::pair<int, double>>;

    /// The SP at `operation` in MPI call `call`, which waited `wait` and completed `completion`
    /// before its exit.
    static SyncPoint syncPoint(uint32_t operation, Role role, const CallSpan& call, double wait,
                               double completion, uint32_t partner);
    uint32_t rankSet(std::vector<uint32_t>& worldRanks);
    uint32_t memberSet(uint32_t comm);
    bool contains(const SyncPoint& point, uint32_t worldRank) const;
    int syncPointAt(uint32_t operation) const;
    int previousWith(int point, uint32_t worldRank) const;
    int previousGroup(int point, const std::vector<uint32_t>& others,
                      std::vector<std::pair<uint32_t, int>>& intermediate);
    void interval(int from, int to, Interval& result);
    NodeId nodeOf(int point) const;
    const std::vector<double>& timesPayload(double wait, const Costs& costs, const Interval& times);
    void addUp(Metric metric, NodeId node, double value);
    void addSums();
    void addCosts(const Interval& span, Kind kind, double scale);
    void addCosts(const Interval& span, Kind kind, const ScaleMap& scales);
    Status readTimesPayload(const std::vector<double>& payload, uint32_t from,
                            std::array<double, kInputs>& inputs);
    /// The time m_remote holds for call-path `key` (0 when none).
    double remoteTime(uint64_t key) const;
    /// Up to this many times m_remote is scanned rather than sorted and searched.
    static constexpr size_t kScannedTimes = 8;
    double delayAtPartner(int point, Kind kind, uint32_t waiterRank,
                          const std::array<double, kInputs>& inputs);
    void findPartnerSyncPoints(const std::vector<ReplayRecord>& partners,
                               const std::vector<uint8_t>& partnerWaited);
    void mergeTail(size_t first);
    Status collectiveDelay(const Collective& collective, int point);
    Status settleIndirect(const std::map<uint32_t, std::vector<Owed>>& owed);
    Costs costsOf(int point) const;
    void classify();
    uint32_t commRankOf(uint32_t comm) const;
    uint32_t worldRankOf(uint32_t comm, uint32_t commRank) const;

    const trace::Definitions& m_defs;
    const trace::EventStream& m_events;
    Transport& m_transport;
    RankResult& m_result;
    const OperationProfile* m_profile = nullptr;
    const std::vector<ReplayOperation>* m_operations = nullptr;
    const std::vector<CallSpan>* m_spans = nullptr;
    std::vector<SyncPoint> m_points;
    std::vector<Collective> m_collectives;
    /// What a waiting SP caused: the waiting it caused later (its costs) and its propagating
    /// share.
    struct Caused {
        int point = 0;
        Costs costs{};
        double propagating = 0.0;
    };
    Caused& causedAt(int point);
    std::vector<Caused> m_caused;       ///< for the SPs that caused any, in order of first cost
    std::vector<uint32_t> m_causedSlot; ///< per SP: 1 + its index in m_caused, or 0
    std::vector<std::vector<uint32_t>> m_rankSets;
    std::map<std::vector<uint32_t>, uint32_t> m_rankSetIds; ///< each distinct set listed once
    /// The sets rankSet() found last, newest first (kNoSet: none)
    std::array<uint32_t, 4> m_recentRankSets{kNoSet, kNoSet, kNoSet, kNoSet};
    static constexpr uint32_t kNoSet = 0xFFFFFFFFu;
    uint32_t m_lastMemberComm = kNoSet; ///< the communicator memberSet() found last
    uint32_t m_lastMemberSet = 0;       ///< ... and its set
    std::map<uint32_t, uint32_t> m_memberSets;
    std::vector<uint64_t> m_keys;    ///< per node: a rank-independent call-path key
    std::vector<double> m_dense;     ///< scratch, indexed by node
    std::vector<NodeId> m_touched;   ///< scratch
    std::vector<double> m_denseWait; ///< scratch, indexed by node
    std::vector<NodeId> m_waited;    ///< scratch
    // Reused per synchronization point, so that the walk allocates nothing per point.
    Interval m_own, m_group, m_since;                  ///< scratch intervals
    std::vector<double> m_payload;                     ///< scratch: the payload being posted
    std::vector<double> m_arrived;                     ///< scratch: the payload awaited
    std::vector<std::pair<uint64_t, double>> m_remote; ///< scratch: a partner's times by key
    std::vector<std::pair<NodeId, double>> m_delays;   ///< scratch: excess time per call path
    std::vector<double> m_indirectLs, m_indirectLr;    ///< per node
    SeverityRows m_leafSums; ///< the pass's values per metric, without their ancestors (addUp())
    std::vector<double> m_enters;         ///< scratch of onCollective(): members' enters
    std::vector<char> m_synchronizes;     ///< ... whether each member synchronizes
    std::vector<uint32_t> m_partnerRanks; ///< ... the world ranks this rank synchronizes with
    std::vector<uint32_t> m_waitingMembers, m_earlyMembers; ///< ... the latecomer's waiters
    // Scratch of collectiveDelay() (the latecomer's side) and previousGroup().
    std::vector<uint32_t> m_others, m_remaining, m_left;
    std::vector<std::pair<uint32_t, int>> m_intermediate; ///< world rank, SP met at (sorted)
    std::vector<double> m_sums, m_delay;
    std::vector<std::array<double, kInputs>> m_memberScales;
    std::vector<std::pair<int, double>> m_increments;
    std::array<ScaleMap, kInputs> m_scaleMaps;
    NodeId m_lastGroupNode = kNoNode; ///< call of the last collective SP
    double m_lastGroupEnter = 0.0;
};

} // namespace waitscope::analysis
