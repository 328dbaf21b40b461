// Timestamp correction (--time-correct): the controlled logical clock over the transport.
#pragma once

#include "waitscope/analysis/rank_result.h"
#include "waitscope/analysis/transport.h"
#include "waitscope/base/result.h"
#include "waitscope/trace/definitions.h"
#include "waitscope/trace/event_stream.h"

namespace waitscope::analysis {

/// Parameters of the controlled logical clock.
struct ClockCorrectionOptions {
    /// The least time a message takes, in seconds: a receive is moved to at least its send
    /// plus this, a collective's exit to at least the latest enter binding it plus this. With
    /// estimateLatency, the upper bound of the estimate.
    double minLatency = 1e-6;
    /// How much backward amortization may stretch a local interval before a jump (0.01: by 1 %).
    double maxSlope = 0.01;
    /// Estimate the least latency from the trace rather than take minLatency as it is: per
    /// rank pair the smallest gap from a send to its receive among the messages that keep the
    /// clock condition (without any, the smallest of all pairs), for collectives the smallest
    /// gap from the latest binding enter to an exit; each at most minLatency. So a trace that
    /// keeps the clock condition is left as it is, however fast its messages were.
    bool estimateLatency = true;
};

/// Corrects the timestamps of this rank's `events` in place so that every receive follows its
/// send and every collective exit the enters that bind it, moving events only forward and
/// keeping local intervals (see clock_correction.cpp). Collective over all ranks of
/// `transport`, run before the replay. `events` is null when this rank could not read its
/// events; then, as when the ranks' sends and receives or collectives do not match (which the
/// replay reports), nothing is corrected on any rank and the counter
/// clock_correction_skipped is set. Returns this rank's counters for its diagnostics:
/// clock_corrected_p2p, clock_corrected_collective (receives and collective exits moved
/// forward) and clock_correction_max_shift_ns (the largest jump); with an estimated latency,
/// clock_correction_min_latency_ns (the least it uses for this rank's receives and exits). Fails
/// naming the ranks when the exchange fails.
Result<Diagnostics> correctClocks(const trace::Definitions& definitions, trace::EventStream* events,
                                  Transport& transport, const ClockCorrectionOptions& options);

} // namespace waitscope::analysis
