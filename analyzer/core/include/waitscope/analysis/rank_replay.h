// The replay of one rank: profile, consistency check, forward and backward passes.
#pragma once

#include "waitscope/analysis/clock_correction.h"
#include "waitscope/analysis/rank_result.h"
#include "waitscope/analysis/transport.h"
#include "waitscope/base/result.h"
#include "waitscope/trace/definitions.h"
#include "waitscope/trace/event_stream.h"

#include <functional>
#include <optional>
#include <string_view>

namespace waitscope::analysis {

/// What the replay computes beyond the wait states.
struct ReplayOptions {
    /// Root causes: the critical path, delay costs and the wait-state classification
    /// (message-driven backward replays after the basic ones).
    bool rootCause = true;
    /// Timestamp correction before the replay (--time-correct), if wanted.
    std::optional<ClockCorrectionOptions> correction;
};

/// Called with a phase name and its progress in percent (0..100).
using ProgressCallback = std::function<void(std::string_view phase, int percent)>;

/// Replays the events of `transport.rank()`. `events` is null when this rank could not read
/// its events (then every rank fails with a message naming it, and nobody hangs).
/// Before any message is replayed all ranks check together that sends and receives match
/// per rank pair and that every communicator's members took part in as many collectives;
/// an inconsistent trace is refused with a message naming ranks and communicator.
/// `timesDone`, if given, is called once the timestamps of `events` are no longer read (after
/// the profile pass), so that an owner can free them before the exchanges.
Result<RankResult> replayRank(const trace::Definitions& definitions,
                              const trace::EventStream* events, Transport& transport,
                              const ProgressCallback& progress = {},
                              const std::function<void()>& timesDone = {},
                              const ReplayOptions& options = {});

} // namespace waitscope::analysis
