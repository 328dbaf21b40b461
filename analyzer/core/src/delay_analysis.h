// The root-cause pass: delay costs and the classification of wait states, replayed backward.
#pragma once

#include "delay_sync_points.h"
#include "operation_profile.h"
#include "pattern_sink.h"
#include "waitscope/analysis/region_class.h"
#include "waitscope/analysis/transport.h"
#include "waitscope/base/result.h"
#include "waitscope/trace/definitions.h"
#include "waitscope/trace/event_stream.h"

#include <cstdint>
#include <deque>
#include <utility>
#include <vector>

namespace waitscope::analysis {

namespace delay {
class Pass;
} // namespace delay

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
        timeline(0).points.reserve(operations);
        timeline(0).collectives.reserve(collectives);
    }
    /// A Late Sender instance at receive operation `operation` in MPI call `call` (forward
    /// pass).
    void onLateSender(uint32_t operation, const CallSpan& call, double wait, double completion);
    /// A Late Receiver instance at operation `operation` in MPI call `call`: a blocking send,
    /// or the completion of a nonblocking one (backward pass, in operation order).
    void onLateReceiver(uint32_t operation, const CallSpan& call, double wait, double completion);
    /// A replayed collective at operation `operation` with all members' call times.
    void onCollective(uint32_t operation, const CollectiveView& view, RegionClass cls,
                      const trace::CollectiveRecord& record);
    /// After the backward pass: merges its synchronization points into the forward pass's.
    void replaysDone();
    /// The main location's synchronization points found so far (all that waited, after
    /// replaysDone()): the master thread's, when the rank runs OpenMP teams.
    const delay::SyncPoints& points() { return timeline(0).points; }
    /// Before run(): the wait state at operation `operation` (one of points() that waited)
    /// caused `cost` of OpenMP barrier waiting (delay::kOmpBarrier), which the pass carries on
    /// to its cause (the OpenMP analysis finds it, openmp_analysis.cpp).
    void addOmpBarrierCost(uint32_t operation, double cost) {
        if (cost > 0.0) {
            m_ompBarrierCosts.emplace_back(operation, cost);
        }
    }
    /// Before the replays: the SPs go to `file` in blocks of `blockEntries` as the replays find
    /// them, the walk reads the complete SPs from there, and the ledger's retired propagating
    /// shares go there too (a rank read in windows; otherwise they stay in memory); the walk
    /// then goes in slabs of about `blockEntries` operations, with an exchange between slabs
    /// (RankPass::walkInSlabs()). Every rank of the run must call it alike.
    void keepPointsIn(ScratchFile* file, size_t blockEntries);
    /// The root-cause pass over `operations` (as listed by the replay, each location's in a
    /// row: the main location's, then each replay lane's; `spans` their calls;
    /// `paired` the message of each request operation (RankState::pairedOf);
    /// `profile` the time between them, as recorded by the profile pass and finished, each
    /// location's from its first operation on; `partners` the partner calls' times and
    /// `partnerWaited` whether the partner waited, per message operation; freed once read).
    /// Each location is a timeline of its own, its values going to the rank's result (the main
    /// location) or to `lanes` (lane k at k - 1). Needs replaysDone() first. Collective over all
    /// ranks; fails when the transport fails.
    Status run(const std::vector<ReplayOperation>& operations, const std::vector<CallSpan>& spans,
               const std::vector<uint32_t>& paired, const OperationProfile& profile,
               SpilledArray<ReplayRecord> partners, std::vector<uint8_t> partnerWaited,
               std::vector<ThreadResult>& lanes);

    /// Wait-state types, each with a short-term and a long-term delay metric.
    using Kind = delay::Kind;

private:
    /// How one collective synchronized its members, as onCollective() finds it.
    struct Synchronization {
        /// Which members synchronize: all; those that entered before the latest enter and the
        /// latecomer (an n-to-n operation without overlap, with members tied at the latest
        /// enter); the root (the latecomer here) and the members that entered before it, when
        /// there are any (1-to-n); the root and the latecomer (n-to-1).
        enum class Mode { All, BeforeLatest, BeforeRoot, Pair };
        Mode mode = Mode::All;
        size_t late = 0;  ///< the latecomer's communicator rank
        size_t count = 0; ///< members that synchronize (1-to-n: with the root)
        double wait = 0.0;
        double completion = 0.0;
        /// Whether `member` synchronizes.
        bool includes(const CollectiveView& view, size_t member) const;
    };

    /// One location's SPs and collectives (the main location's or a replay lane's), in
    /// operation order.
    struct Timeline {
        Timeline(const trace::Definitions& definitions, uint32_t ranks)
            : points(definitions, ranks) {}
        delay::SyncPoints points;
        std::vector<delay::Collective> collectives;
        NodeId lastGroupNode = kNoNode; ///< call of the last collective SP
        double lastGroupEnter = 0.0;
    };
    /// Seeds the main location's pass with the OpenMP barrier costs (addOmpBarrierCost()).
    void seedOmpBarrierCosts(delay::Pass& pass, const delay::SyncPoints& points) const;
    /// The timeline of location `lane` (0: the main one), added when new.
    Timeline& timeline(uint32_t lane);

    // Finding collective SPs in the forward pass (delay_collective_sync.cpp).
    void initFinalizePoint(Timeline& line, uint32_t operation, const CollectiveView& view,
                           RegionClass cls);
    bool nToNSync(Kind kind, const CollectiveView& view, Synchronization& sync);
    bool oneToNSync(const CollectiveView& view, Synchronization& sync);
    bool nToOneSync(const CollectiveView& view, Synchronization& sync);
    bool postsEarly(Kind kind, const CollectiveView& view, const Synchronization& sync,
                    size_t member) const;
    void addCollective(Timeline& line, uint32_t operation, const CollectiveView& view, Kind kind,
                       const Synchronization& sync);
    void addGroupPoint(Timeline& line, uint32_t operation, const CallSpan& call, double wait,
                       double completion, uint32_t set);

    const trace::Definitions& m_defs;
    const trace::EventStream& m_events;
    Transport& m_transport;
    RankResult& m_result;
    std::deque<Timeline> m_timelines; ///< per location: the main one, then the replay lanes
    /// Costs of OpenMP barrier waiting by operation of the main location, in the order added
    std::vector<std::pair<uint32_t, double>> m_ompBarrierCosts;
    ScratchFile* m_pointsFile = nullptr; ///< where the walk's SPs go (keepPointsIn()), if any
    size_t m_blockEntries = 0;
    /// A member of a collective this rank was the latecomer of left it before this rank entered
    /// (a clock behind): the walk cannot go in slabs of time (delay_pass.h)
    bool m_postedBeforeAwait = false;
    /// Scratch of onCollective(), reused per collective (the forward pass calls it for each).
    struct {
        std::vector<uint32_t> partners; ///< the world ranks this rank synchronizes with
        std::vector<uint32_t> waiting;  ///< the latecomer's waiters that post in the walk
        std::vector<uint32_t> early;    ///< ... and those that post before it
    } m_scratch;
};

} // namespace waitscope::analysis
