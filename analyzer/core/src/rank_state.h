// What the stages of one rank's analysis share, and the one interface every stage has.
#pragma once

#include "critical_path.h"
#include "delay_analysis.h"
#include "openmp_timeline.h"
#include "operation_profile.h"
#include "partner_calls.h"
#include "pattern_sink.h"
#include "replay_lanes.h"
#include "rma_timeline.h"
#include "thread_joins.h"
#include "waitscope/analysis/rank_pipeline.h"
#include "waitscope/analysis/region_class.h"

#include <algorithm>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

namespace waitscope::analysis {

/// The state of one rank's analysis, handed from stage to stage (see rank_pipeline.cpp):
/// its input, the result built so far and what one stage leaves for the next ones.
struct RankState {
    /// Starts the analysis of `transport.rank()`: its result is empty but for the rank and its
    /// event count; the root-cause analyses are ready to be fed when they run.
    RankState(const RankInput& input, Transport& transport);
    RankState(const RankState&) = delete;
    RankState& operator=(const RankState&) = delete;

    const RankInput& input;
    const trace::Definitions& defs;
    /// With the root-cause passes over a rank read in windows (RankInput::windows): its
    /// communication events only, which `events` then points to and the operations index
    /// (windowed_profile_stage.cpp)
    trace::EventStream windowEvents;
    /// This rank's events; null when they could not be read. From the profile stage on, the
    /// events of its replay lanes follow the main location's (replay_lanes.h).
    trace::EventStream* events;
    /// The root-cause stages run (and the profile stage records their time profile)
    bool rootCause;
    RankResult result;
    /// The further threads that call MPI themselves (MPI_THREAD_MULTIPLE), lane k at k - 1:
    /// where their events lie in `events`, and (in `laneResults`) their profiles and wait
    /// states. Empty for a rank whose MPI calls are all on its main location.
    std::vector<ReplayLane> lanes;
    std::vector<ThreadResult> laneResults;
    /// The main location's events: `events` up to here
    size_t mainEvents = 0;
    /// Some rank has replay lanes (learnt in the consistency stage, alike on every rank): the
    /// critical path's walk back then follows the order of the rank's threads
    /// (critical_path_lanes.cpp), and the delay pass runs with each lane a timeline of its own
    bool lanesAnywhere = false;
    PatternSink sink{result, &laneResults};
    /// The rank's buffer in the process's scratch files of instances, when the driver gave them
    /// (ReplayOptions::instanceSpill); `sink` puts its instances there
    std::unique_ptr<InstanceSpill::Buffer> spill;
    std::vector<RegionClass> classes; ///< per region of the definitions

    // From the profile stage on:
    /// For every communication event, the MPI call around it (span); in event order. Besides
    /// the messages and collectives, the request events are operations too: the MpiIrecvRequest
    /// of the call that posted a nonblocking receive (MPI_Irecv, MPI_Start), the
    /// MpiIsendComplete of the call that completed a nonblocking send (MPI_Wait*, MPI_Test*),
    /// where Scalasca 2.6 puts a Late Receiver's synchronization points.
    std::vector<ReplayOperation> operations;
    std::vector<CallSpan> spans; ///< the MPI calls with a communication or request event
    /// Per operation, the operation paired with it (else kNoOperation): a nonblocking receive's
    /// MpiIrecvRequest and back, a nonblocking send's MpiIsendComplete and back
    std::vector<uint32_t> pairedOf;
    static constexpr uint32_t kNoOperation = 0xFFFFFFFFu;
    /// The blocking receives replayed at their probe (docs/fidelity.md), by operation in
    /// ascending order: the enter of the receive's own call, where a Late Receiver is measured
    /// to (the operation's call is the probe's)
    std::vector<std::pair<uint32_t, double>> probedReceiveEnters;
    size_t collectiveCount = 0; ///< collective operations
    /// With the root-cause passes over a rank read in windows: the rank's scratch file, which
    /// the time profile and the partners' calls go to in blocks (else null: held in memory)
    std::unique_ptr<ScratchFile> scratch;
    OperationProfile profile;             ///< for the root-cause stages: time between operations
    double end = 0.0;                     ///< the time of the last event (root-cause stages)
    std::unique_ptr<DelayAnalysis> delay; ///< the root-cause stage, fed by the replays
    /// The main location's OpenMP constructs (profile stage), for the thread-profile stage
    std::unique_ptr<OpenmpTimeline> openmp;
    /// The further threads' OpenMP constructs, in the order of result.threads, and whether the
    /// threads are profiled and their OpenMP wait states analyzed: before the root-cause stage
    /// when that runs on OpenMP threads (which it then needs), else in the thread-profile stage
    std::vector<OpenmpTimeline> openmpThreads;
    bool threadsProfiled = false;
    /// The threads the main location created and joined (profile stage), for the critical path
    /// and delay costs through them (thread-profile stage)
    ThreadJoins threadJoins;
    /// What the critical path needs of the collectives, recorded by the forward replay
    std::unique_ptr<PathCollectives> pathCollectives;
    /// The one-sided records and their calls (profile stage), only when the trace defines RMA
    /// windows; the forward replay finds the RMA patterns in them (rma_replay.cpp)
    std::unique_ptr<RmaTimeline> rma;

    // From the forward replay on (root-cause stages only):
    /// Per operation: the partner call's times (see CriticalPathInput::partners), written by
    /// the replays (in memory, or in blocks in `scratch` when there is one); then merged into
    /// `partnerCalls`
    PartnerCallWrites partners;
    /// After the backward replay: `partners`, read by the critical path (backward) and the
    /// delay pass (forward); in blocks in `scratch` when there is one
    SpilledArray<ReplayRecord> partnerCalls;
    /// Per operation, bits: kPartnerWaited where the partner waited (a Late Sender's send, a
    /// Late Receiver's receive request: the partner's synchronization point), kWaitedHere
    /// where this rank waited (a Late Sender's receive, a Late Receiver's send completion)
    std::vector<uint8_t> partnerWaited;
    static constexpr uint8_t kPartnerWaited = 1;
    static constexpr uint8_t kWaitedHere = 2;
    /// The collective being replayed: its members' times
    std::shared_ptr<const GatheredCollective> collected;
    /// Per span, 1 where a Late Sender was found in the call (forward replay on)
    std::vector<uint8_t> lateSenderIn;
    /// With replay lanes, the operations in the order their messages are matched (by the time
    /// of their events over all the rank's locations, main location first at a tie); empty:
    /// `operations` order
    std::vector<uint32_t> matchOrder;

    /// The operations in the order the replays post and match them (see matchOrder).
    class MatchOrder {
    public:
        MatchOrder(const std::vector<ReplayOperation>& operations,
                   const std::vector<uint32_t>& order)
            : m_operations(operations), m_order(order) {}
        class Iterator {
        public:
            Iterator(const MatchOrder& range, size_t i) : m_range(range), m_i(i) {}
            const ReplayOperation& operator*() const {
                return m_range.m_order.empty() ? m_range.m_operations[m_i]
                                               : m_range.m_operations[m_range.m_order[m_i]];
            }
            Iterator& operator++() {
                ++m_i;
                return *this;
            }
            bool operator!=(const Iterator& other) const { return m_i != other.m_i; }

        private:
            const MatchOrder& m_range;
            size_t m_i;
        };
        Iterator begin() const { return Iterator(*this, 0); }
        Iterator end() const { return Iterator(*this, m_operations.size()); }

    private:
        const std::vector<ReplayOperation>& m_operations;
        const std::vector<uint32_t>& m_order;
    };
    MatchOrder inMatchOrder() const { return MatchOrder(operations, matchOrder); }

    RegionClass classOf(uint32_t region) const {
        return region < classes.size() ? classes[region] : RegionClass::Computation;
    }
    double seconds(size_t event) const { return defs.seconds(events->time(event)); }
    /// Reports `phase` `done` of `total` to the driver's progress callback, if any.
    void report(std::string_view phase, size_t done, size_t total) const {
        if (input.progress) {
            input.progress(phase, total == 0 ? 100 : static_cast<int>(100 * done / total));
        }
    }
    uint32_t commRankOf(uint32_t comm) const {
        return analysis::commRankOf(defs, comm, result.rank);
    }
    /// World rank of communicator rank `commRank`, or kUndefined.
    uint32_t worldRankOf(uint32_t comm, uint32_t commRank) const {
        return defs.worldRank(comm, commRank, result.rank);
    }
    bool isSelf(uint32_t comm) const {
        return comm < defs.communicators.size() && defs.communicators[comm].isSelf;
    }
    /// The region of the MPI call around `op`.
    uint32_t regionOfSpan(const ReplayOperation& op) const {
        return result.tree.node(spans[op.span].node).region;
    }
    /// The name of the region of call-tree node `node` (empty when unknown).
    std::string_view nameOfNode(NodeId node) const {
        const uint32_t region = result.tree.node(node).region;
        return region < defs.regions.size() ? std::string_view(defs.regions[region].name)
                                            : std::string_view();
    }
    /// Whether `op`, a send, is one that can wait for its receiver (a Late Receiver): a blocking
    /// MPI_Send or MPI_Ssend only, as Scalasca 2.6 rules (docs/fidelity.md).
    bool canWaitForReceiver(const ReplayOperation& op) const {
        if (events->kind(op.event) != trace::EventKind::MpiSend) {
            return false;
        }
        const std::string_view name = nameOfNode(spans[op.span].node);
        return name == "MPI_Send" || name == "MPI_Ssend";
    }
    /// The index of `op` in `operations`.
    uint32_t indexOf(const ReplayOperation& op) const {
        return static_cast<uint32_t>(&op - operations.data());
    }
    /// The operation that posted receive operation `k`: its MpiIrecvRequest, else `k` itself
    /// (a blocking receive, or a request the trace does not hold).
    uint32_t requestOf(uint32_t k) const {
        return k < pairedOf.size() && pairedOf[k] != kNoOperation ? pairedOf[k] : k;
    }
    /// When receive operation `k` was posted, for its sender's Late Receiver: the enter of the
    /// call that posted it (requestOf), or of its own call when it is replayed at its probe.
    double postedEnter(uint32_t k) const {
        const auto found = std::lower_bound(
            probedReceiveEnters.begin(), probedReceiveEnters.end(), k,
            [](const std::pair<uint32_t, double>& p, uint32_t op) { return p.first < op; });
        if (found != probedReceiveEnters.end() && found->first == k) {
            return found->second;
        }
        return spans[operations[requestOf(k)].span].enter;
    }
};

/// A stage of one rank's analysis: reads and extends `state`, exchanging over `transport`
/// when it needs the other ranks (then every rank runs it). A stage that does not apply
/// (clock correction without --time-correct, the root-cause stages with --no-root-cause)
/// succeeds without doing anything. Fails with a message naming the rank or what is wrong.
using RankStage = Status (*)(RankState& state, Transport& transport);

// The stages, in the order analyzeRank() runs them; each file says what its stage does.

/// Corrects the timestamps (--time-correct) and counts what moved (clock_correction_stage.cpp);
/// with RankInput::anyFailed, all ranks stop after it together when one failed.
Status correctClocksStage(RankState& state, Transport& transport);
/// Builds the call tree, the time and count metrics and the operations (profile_stage.cpp).
Status profileStage(RankState& state, Transport& transport);
/// Refuses, on every rank alike, a trace whose ranks do not match (consistency_stage.cpp).
Status checkConsistencyStage(RankState& state, Transport& transport);
/// Late Sender and the collective patterns (forward_replay_stage.cpp).
Status forwardReplayStage(RankState& state, Transport& transport);
/// Runs the pattern of collective operation `operation` (its record `c`, in MPI call `span` of
/// region class `cls`) on its members' `gathered` times, and feeds the root-cause stages when
/// they run (forward_replay_stage.cpp). Fails when the exchange does not fit the communicator.
Status replayCollectivePattern(RankState& state, uint32_t operation, const CallSpan& span,
                               const trace::CollectiveRecord& c, RegionClass cls,
                               std::shared_ptr<const GatheredCollective> gathered);
/// Late Receiver (backward_replay_stage.cpp).
Status backwardReplayStage(RankState& state, Transport& transport);
/// The rank's share of the critical path (critical_path_stage.cpp).
Status criticalPathStage(RankState& state, Transport& transport);
/// Delay costs and the wait-state classification (root_cause_stage.cpp).
Status rootCauseStage(RankState& state, Transport& transport);
/// Stages 2 to 5 over a rank read in windows (RankInput::windows; windowed_replay.cpp): the
/// profile, the forward and backward replays in bulk-synchronous steps, the consistency check
/// at the end.
Status windowedReplayStage(RankState& state, Transport& transport);
/// Stage 2 over a rank read in windows (RankInput::windows) for the root-cause passes: the
/// profile of profileStage(), keeping only the communication events (windowEvents), so that
/// stages 3 to 7 then run unchanged (windowed_profile_stage.cpp).
Status windowedProfileStage(RankState& state, Transport& transport);
/// The rank's further threads, profiled (thread_profile_stage.cpp).
Status threadProfileStage(RankState& state, Transport& transport);
/// Profiles the rank's further threads with their OpenMP constructs and analyzes the OpenMP
/// wait states (with `mpiWaits`, the master's MPI wait states, see analyzeOpenmp()); for the
/// root-cause stage, which needs the OpenMP barrier waits, or the thread-profile stage.
/// Returns false (nothing done) when the rank has no OpenMP regions or no archive.
bool profileOpenmpThreads(RankState& state, std::vector<OmpMpiWait>* mpiWaits);

} // namespace waitscope::analysis
