// The critical path of the run, traced backwards across ranks by joining per-rank links.
#pragma once

#include "operation_profile.h"
#include "pattern_sink.h"
#include "waitscope/analysis/transport.h"
#include "waitscope/base/result.h"
#include "waitscope/trace/definitions.h"
#include "waitscope/trace/event_stream.h"

#include <cstdint>
#include <vector>

namespace waitscope::analysis {

class ThreadJoins;

/// What the forward and backward replays tell each end of a message about the other's call,
/// besides its times, when the root causes are analyzed (ReplayRecord::info): the call's span
/// (where the critical path lands on it), whether a send was nonblocking (it cannot wait for
/// its receiver) and whether a receive waited for its sender (a Late Sender synchronization
/// point, for the delay pass).
struct PartnerCall {
    uint32_t span = 0;
    bool nonblocking = false;
    bool waited = false;
    /// A send that can be a Late Receiver: a blocking MPI_Send or MPI_Ssend (Scalasca 2.6
    /// finds none at MPI_Sendrecv, MPI_Bsend, MPI_Rsend)
    bool canWaitForReceiver = false;

    double encode() const {
        return static_cast<double>((uint64_t{span} << 3) | (nonblocking ? 1u : 0u) |
                                   (waited ? 2u : 0u) | (canWaitForReceiver ? 4u : 0u));
    }
    static PartnerCall decode(double info) {
        const auto bits = static_cast<uint64_t>(info);
        return PartnerCall{static_cast<uint32_t>(bits >> 3), (bits & 1) != 0, (bits & 2) != 0,
                           (bits & 4) != 0};
    }
};

/// Where the path lands on another rank: the span whose enter it arrives at.
struct PathLanding {
    uint32_t span = 0;
    uint32_t rank = 0xFFFFFFFFu; ///< world rank; none when unknown
};

/// What every member knows of a synchronizing collective after the forward replay's exchange.
struct PathCollective {
    size_t operation = 0; ///< the collective's operation on this rank
    uint32_t members = 0;
    uint32_t last = 0; ///< the member that entered last (the lowest on ties)
    double lastEnter = 0.0;
    double rootEnter = 0.0;
    PathLanding lastAt;
    PathLanding rootAt;
};

/// Records, during the forward replay, the collectives through which the critical path can
/// pass, so that the critical-path pass needs no exchange of its own for them. The forward
/// replay contributes each member's span (kWidth values per member: enter, exit, span) when
/// it records.
class PathCollectives {
public:
    static constexpr size_t kWidth = 3;

    PathCollectives(const trace::Definitions& definitions, uint32_t rank)
        : m_definitions(definitions), m_rank(rank) {}

    /// Records collective operation `operation` (a record on `collective.comm`, not a self
    /// communicator) when the path can pass through it; `view` holds every member's enter,
    /// exit and span (width kWidth). Operations are recorded in ascending order.
    void record(size_t operation, const trace::CollectiveRecord& collective,
                const CollectiveView& view);
    /// Makes room for `collectives` records up front.
    void reserve(size_t collectives) { m_collectives.reserve(collectives); }
    /// The recorded collectives, by ascending operation.
    const std::vector<PathCollective>& collectives() const { return m_collectives; }
    /// Frees them (after the critical-path pass).
    void clear() { m_collectives = {}; }

private:
    const trace::Definitions& m_definitions;
    uint32_t m_rank; ///< this rank (the member of its self communicators)
    std::vector<PathCollective> m_collectives;
};

/// What the critical-path pass reads of one rank's replay.
struct CriticalPathInput {
    const trace::Definitions& definitions;
    const trace::EventStream& events; ///< kinds and records only: timestamps may be freed
    const CallTree& tree;
    const std::vector<CallSpan>& spans;
    const std::vector<ReplayOperation>& operations;
    const OperationProfile& profile; ///< finished: its gaps are read
    double end = 0.0;                ///< the time of the rank's last event
    /// Per operation: the partner call's enter, exit and PartnerCall info for a receive (the
    /// send's, from the forward replay) and for a send or a send's completion (the receive's,
    /// from the backward replay)
    const SpilledArray<ReplayRecord>& partners;
    /// Per operation, where this rank waited for its partner (a Late Sender's receive, a Late
    /// Receiver's send completion: kWaitedHere) and where the partner waited for it
    /// (kPartnerWaited), as the replays found them (RankState::partnerWaited)
    const std::vector<uint8_t>& waits;
    /// Per operation, the message of a request operation (RankState::pairedOf)
    const std::vector<uint32_t>& paired;
    /// The synchronizing collectives, recorded by the forward replay
    const std::vector<PathCollective>& collectives;
    /// With replay lanes (further threads that call MPI; their spans follow the main
    /// location's): their profiles (lane k at k - 1, with their ThreadBegin and ThreadEnd) and
    /// the threads the main location created and joined; the walk back then follows the
    /// threads' order (critical_path_lanes.cpp). Null: the rank has none.
    const std::vector<ThreadResult>* lanes = nullptr;
    const ThreadJoins* joins = nullptr;
    /// This rank's lanes cannot be followed (laneWalkUnsupported()): no rank's share is charged
    bool lanesUnsupported = false;
};

/// Traces the critical path backwards from the end of the run and adds this rank's share to
/// `critical_path` in `sink`. Collective over all ranks (two gathers of `transport`); fails
/// when the transport fails. Memory beyond the time profile, the partners' calls and the
/// recorded collectives (48 bytes each): 8 bytes per message operation (freed before the
/// gathers), 20 per reachable local exit (the latest span
/// before a possible entry where a holder would hand the path on) and, while joining, 16 per
/// reachable exit of the rank with the most such exits times the rank count. A rank with replay
/// lanes holds 24 bytes per call and 8 per entry instead, and the join 24 per entry of the rank
/// with the most records times the rank count (critical_path_lanes.h).
Status traceCriticalPath(const CriticalPathInput& input, Transport& transport, PatternSink& sink);

class OpenmpTimeline;
struct ThreadPiece;

/// Moves this rank's share of the critical path (`result.criticalPath`, its critical_path on
/// the main location) through its OpenMP teams (critical_path_openmp.cpp): inside a parallel
/// region of the master on the path, to the thread that arrived last at each barrier, on that
/// thread's call paths in `result.threads`. `master` is the main location's timeline,
/// `threads[k]` that of `result.threads[k]`. Does nothing where the path does not pass. With
/// `pieces`, adds the path's pieces on the workers there, for cutPathOntoThreads().
void traceOpenmpCriticalPath(const OpenmpTimeline& master,
                             const std::vector<OpenmpTimeline>& threads, RankResult& result,
                             std::vector<ThreadPiece>* pieces = nullptr);

} // namespace waitscope::analysis
