// The one-sided (RMA) calls of one rank as the RMA patterns need them: each RMA record with the
// MPI call around it, collected by the profile stage (the last reader of the timestamps) and
// replayed by the forward replay stage (rma_replay.cpp).
#pragma once

#include "pattern_sink.h"
#include "rma_patterns.h"
#include "waitscope/analysis/region_class.h"
#include "waitscope/trace/definitions.h"
#include "waitscope/trace/event_stream.h"

#include <cstdint>
#include <vector>

namespace waitscope::analysis {

/// What an MPI call with one-sided records does, by its name (Score-P's records do not say
/// which of MPI_Win_post, _start, _complete, _wait or _test wrote an RmaGroupSync).
enum class RmaCallKind : uint8_t {
    Other,
    Create,   ///< MPI_Win_create, _allocate, _allocate_shared, _create_dynamic
    Free,     ///< MPI_Win_free
    Fence,    ///< MPI_Win_fence
    Post,     ///< MPI_Win_post: opens an exposure epoch
    Start,    ///< MPI_Win_start: opens an access epoch
    Complete, ///< MPI_Win_complete: closes an access epoch
    Wait,     ///< MPI_Win_wait, MPI_Win_test (when it closes the epoch)
    Lock,     ///< MPI_Win_lock, _lock_all
    Unlock,   ///< MPI_Win_unlock, _unlock_all
    Transfer, ///< MPI_Put, MPI_Get, MPI_Accumulate, ... (role RMA or ATOMIC)
};

/// The kind of MPI call `region` is (Other for every region that is no one-sided call).
RmaCallKind rmaCallKind(const trace::Region& region);

/// Whether an MPI_Win_* call synchronizes actively (both sides take part: fence, post, start,
/// complete, wait, test), passively (locks, flushes, sync), or neither (0, 1, 2).
uint8_t rmaSyncSide(const trace::Region& region);

/// One one-sided record of the rank and the MPI call it sits in.
struct RmaEvent {
    trace::EventKind kind;
    RmaCallKind call;
    uint32_t span; ///< the call, an index into RmaTimeline::spans
    double time;   ///< the record's own time
    trace::RmaRecord record;
};

/// The rank's one-sided records in event order, with their calls.
struct RmaTimeline {
    std::vector<RmaEvent> events;
    std::vector<CallSpan> spans;        ///< the MPI calls with one-sided records
    std::vector<uint32_t> regions;      ///< per span, the call's region
    std::vector<RmaCallKind> callKinds; ///< per region of the definitions: rmaCallKind()
    std::vector<uint8_t> syncSides;     ///< per region of the definitions: rmaSyncSide()
    std::vector<uint8_t> mpiRegions;    ///< per region of the definitions: an MPI call (1)
    /// The rank's MPI calls (its main location's outermost ones) in order: when it could make
    /// progress on the one-sided operations of others (Wait for Progress)
    std::vector<MpiInterval> inMpi;

    // What the forward replay posted and consumes later (rma_replay.cpp):
    /// A lock epoch this rank sent to its target: the target's world rank and the epoch's calls
    /// (indices into spans), in sending order
    struct SentLockEpoch {
        uint32_t target;
        std::vector<uint32_t> calls;
    };
    std::vector<SentLockEpoch> sentLocks;
    /// Per world rank, how many lock epochs it sent to this rank
    std::vector<uint64_t> lockEpochsFrom;
};

/// Adds the counts and bytes of one-sided record `event` (Scalasca's syncs_rma*, comms_rma*,
/// bytes_put/get and their parents) on `node`, the node of its MPI call.
void countRmaEvent(SeverityRows& severities, NodeId node, trace::EventKind kind,
                   const trace::RmaRecord& record, RmaCallKind call);

} // namespace waitscope::analysis
