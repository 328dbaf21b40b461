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

/// What the critical-path pass reads of one rank's replay.
struct CriticalPathInput {
    const trace::Definitions& definitions;
    const trace::EventStream& events; ///< kinds and records only: timestamps may be freed
    const CallTree& tree;
    const std::vector<CallSpan>& spans;
    const std::vector<ReplayOperation>& operations;
    const OperationProfile& profile; ///< finished: its gaps are read
    double end = 0.0;                ///< the time of the rank's last event
    /// Per operation: the partner call's enter and exit for a receive (the send's, from the
    /// forward replay) and for a send (the receive's, from the backward replay)
    const std::vector<ReplayRecord>& partners;
    /// Per operation: 1 where this rank waited (see DelayAnalysis::waitStates())
    const std::vector<uint8_t>& waited;
    /// Filled per operation, for the delay pass: 1 where the message partner waited
    std::vector<uint8_t>& partnerWaited;
};

/// Traces the critical path backwards from the end of the run and adds this rank's share to
/// `critical_path` in `sink`. Collective over all ranks (one bulk exchange, then two gathers of
/// `transport`); fails when the transport fails. Memory beyond the time profile and the
/// partners' times: 8 bytes per message operation and about 90 per synchronizing collective (freed
/// before the gathers), 20 per reachable local exit (the latest span before a possible entry where
/// a holder would hand the path on) and, while joining, 16 per reachable exit of the rank with the
/// most such exits times the rank count.
Status traceCriticalPath(const CriticalPathInput& input, Transport& transport, PatternSink& sink);

} // namespace waitscope::analysis
