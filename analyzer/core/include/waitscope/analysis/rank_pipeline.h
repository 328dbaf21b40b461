// The analysis of one rank as a sequence of named stages, shared by every driver.
#pragma once

#include "waitscope/analysis/clock_correction.h"
#include "waitscope/analysis/event_observer.h"
#include "waitscope/analysis/instance_spill.h"
#include "waitscope/analysis/rank_result.h"
#include "waitscope/analysis/transport.h"
#include "waitscope/base/result.h"
#include "waitscope/trace/definitions.h"
#include "waitscope/trace/event_stream.h"
#include "waitscope/trace/otf2_archive.h"

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace waitscope::analysis {

/// What the replay computes beyond the wait states.
struct ReplayOptions {
    /// Root causes: the critical path, delay costs and the wait-state classification
    /// (message-driven backward replays after the basic ones).
    bool rootCause = true;
    /// A receive right after a blocking probe is replayed in the probe's call (docs/fidelity.md,
    /// "Late Sender at blocking probes"); false (--no-probe-links): in its own call, as
    /// Scalasca does, for comparisons.
    bool probeLinks = true;
    /// Timestamp correction before the replay (--time-correct), if wanted.
    std::optional<ClockCorrectionOptions> correction;
    /// The memory an analysis process may use, in bytes (0: no limit): the archive drivers
    /// refuse, before reading any events, a trace whose ranks would not fit (memory_budget.h).
    uint64_t memoryLimit = 0;
    /// The events a windowed replay reads at a time per rank (--window-events); 0: the
    /// archive drivers read windows only when a rank does not fit `memoryLimit` whole (and only
    /// without root causes and timestamp correction, which need the whole rank).
    uint64_t windowEvents = 0;
    /// Sees every location's events as they are read (event_observer.h); null: none.
    EventObserver* observer = nullptr;
    /// Where this process's ranks put their wait-state instances as the passes find them, in
    /// bounded memory (instance_spill.h): RankResult::spilledRuns instead of
    /// RankResult::instances. Null: every instance is kept in memory.
    InstanceSpill* instanceSpill = nullptr;
    /// Where the root-cause passes over a rank read in windows put the per-operation state
    /// they read back backward (the time profile between operations, in blocks: a scratch file
    /// per rank, its name removed at once); empty: the system's temporary directory.
    std::string scratchDirectory;
    /// Entries per block of those scratch files (0: the default, 32,768); tests make it small so
    /// that the reads cross many blocks.
    size_t scratchBlockEntries = 0;
};

/// Called with a phase name and its progress in percent (0..100).
using ProgressCallback = std::function<void(std::string_view phase, int percent)>;

/// What a driver hands the pipeline of one rank besides the transport. The drivers differ
/// only in the transport, in these hooks and in how they gather the ranks' results.
struct RankInput {
    const trace::Definitions& definitions;
    /// This rank's events, corrected in place when `options.correction` is given; null when
    /// they could not be read (then every rank fails with a message naming this rank, and
    /// nobody hangs).
    trace::EventStream* events = nullptr;
    /// Instead of `events`: the rank's events to read in windows of `options.windowEvents`
    /// (the windowed replay, windowed_replay.cpp: without root causes and clock correction).
    trace::RankEventWindows* windows = nullptr;
    ReplayOptions options;
    /// The archive's anchor file, from which the rank's further threads are read and profiled
    /// after the replay; empty: no thread profiles.
    std::string anchorFile;
    ProgressCallback progress;
    /// Called once the timestamps of `events` are no longer read (after the profile), so
    /// that an owner can free them before the exchanges.
    std::function<void()> timesDone;
    /// Called once `events` are no longer read at all (before the thread profiles).
    std::function<void()> eventsDone;
    /// Makes all ranks stop together after the clock correction and after the replay: called
    /// there with whether this rank failed, returns whether any rank failed. Without it a
    /// failing rank stops alone, and the transport must end the others' waits for it.
    std::function<bool(bool failed)> anyFailed;
    /// Called on the rank's thread with the error when `windows` cannot be read (midway), before
    /// the other ranks learn of it and stop with errors of their own that only name this rank
    /// ("no events to replay"): a driver reports this cause rather than theirs.
    std::function<void(const Error& error)> readFailed;
};

/// Analyzes the events of `transport.rank()` stage by stage (see rank_pipeline.cpp): clock
/// correction, profile, consistency check, forward and backward replay, critical path, root
/// causes, thread profiles. Collective over all ranks of `transport`. Before any message is
/// replayed all ranks check together that sends and receives match per rank pair and that
/// every communicator's members took part in as many collectives; an inconsistent trace is
/// refused with a message naming ranks and communicator. Fails with the first failing
/// stage's error.
Result<RankResult> analyzeRank(const RankInput& input, Transport& transport);

} // namespace waitscope::analysis
