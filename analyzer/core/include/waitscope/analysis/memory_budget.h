// The memory an analysis process may use (--memory-limit) and the check, before any event is
// read, that the ranks a process replays fit into it.
#pragma once

#include "waitscope/base/result.h"
#include "waitscope/trace/definitions.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace waitscope::analysis {

/// Parses a size as `--memory-limit` takes it: a number of bytes with an optional binary
/// suffix K, M, G or T (also KB/KiB, ...; case-insensitive; fractions allowed: 1.5G). Fails
/// naming the text when it is not such a size or is zero.
Result<uint64_t> parseMemorySize(std::string_view text);

/// `bytes` for people: "1.0 GB", "512.0 MB", "800.0 kB" (decimal units, one decimal).
std::string formatMemorySize(uint64_t bytes);

/// The default budget of one analysis process: kDefaultMemoryShare of the machine's physical
/// memory divided among the `processesOnNode` analysis processes that share it.
uint64_t defaultMemoryLimit(uint32_t processesOnNode);
inline constexpr double kDefaultMemoryShare = 0.5;

/// What the analysis of one rank holds per event of its trace at its peak (the events, the
/// operations and call spans, the replays' records and the root-cause passes' state), an upper
/// bound of what tests/bench/memory_limit.sh measures on generated and measured traces (about
/// 80 bytes per event with the root-cause passes, 42 without), and what a process needs
/// besides (MPI, definitions, the result), when a rank's events are read whole.
inline constexpr uint64_t kBytesPerEventFull = 96;
inline constexpr uint64_t kBytesPerEventBasic = 52;
inline constexpr uint64_t kProcessBaseBytes = 32ull << 20;

/// What the windowed replay (without root causes) holds per event of a window: the window's
/// events, its pending operations and calls, and the records that arrived ahead of their
/// operations, with room for the skew between ranks; and the window sizes it uses.
inline constexpr uint64_t kBytesPerWindowEvent = 200;
inline constexpr uint64_t kMinWindowEvents = 1024;
inline constexpr uint64_t kMaxWindowEvents = uint64_t{1} << 18;

/// Why the windowed replay cannot analyze the trace of `definitions` (its one-sided windows,
/// its MPI file I/O or MPI calls from further threads are analyzed by the whole-rank stages
/// only), or empty when it can.
std::string windowedReplayRefusal(const trace::Definitions& definitions);

/// The events per window for `ranks` ranks replayed at once in a process of `limit` bytes that
/// holds `held` bytes besides its base and its windows.
uint64_t windowEventsFor(uint64_t limit, uint32_t ranks, uint64_t held = 0);

/// What the root-cause passes over a rank read in windows hold per event of the rank to the end
/// (windowed_profile_stage.cpp: its communication events, operations and calls, the replays'
/// records, the critical path's and the delay passes' state, the wait-state instances; the time
/// profile between operations, the partners' calls after the backward replay and the
/// synchronization points during the walk are spilled in blocks to a scratch file and read
/// back; the replays' records are exchanged in steps of a window, replay_steps.h), an upper
/// bound of what tests/bench/memory_limit.sh measures: 27 bytes per event on its generated trace
/// (the growth of the peak from 1.2 to 12 million events with windows of 250,000 events, 24 with
/// windows of 65,536; 32 with the replays' records exchanged in one step, when the budget was
/// 46; 41.7 with only the time profile spilled, when it was 56, and 7-8 bytes per event more
/// before that, when it was 64; the breakdown is in docs/memory.md). At the peak of the full
/// analysis the timestamps are freed anyway, and the per-operation state dominates; the windows
/// (and a step's records, in their place) come on top.
inline constexpr uint64_t kBytesPerEventRootCauseWindowed = 41;

/// What the wait-state instances take in a process that spills them (instance_spill.h): its
/// ranks' buffers (8 MiB in all) and, on the process that writes the outputs, the merge's read
/// buffers (256 runs of 12 KiB) — fixed, whatever the number of instances. (Each instance still
/// leaves its severity as a float for trace.stat's statistics: 4 bytes, in the per-event
/// figures above.)
inline constexpr uint64_t kInstanceSpillBytes = 12ull << 20;

/// The bytes a process whose blocks are read in windows holds besides its base and its
/// windows, for `blocks` as in checkMemoryBudget(): the instances' buffers
/// (kInstanceSpillBytes), and with the root-cause passes its largest block's events at
/// kBytesPerEventRootCauseWindowed, without them none. `observed` bytes per event of the block
/// come on top (an event observer's, such as the timeline's collector:
/// EventObserver::heldBytesPerEvent()).
uint64_t windowedHeldBytes(const trace::Definitions& definitions, const std::string& anchorFile,
                           const std::vector<std::pair<uint32_t, uint32_t>>& blocks, bool rootCause,
                           uint64_t observed = 0);

/// Checks, for a trace whose ranks do not fit whole (checkMemoryBudget() refused them), that
/// every process's block fits when read in windows: always without the root-cause passes (a
/// window of kMinWindowEvents fits over the base); with them, what they hold to the end
/// (kBytesPerEventRootCauseWindowed) and the smallest windows must fit. Fails as
/// checkMemoryBudget() does, naming the first process that does not fit.
/// `observed` bytes per event are held to the end besides (as in windowedHeldBytes()).
Status checkWindowedMemoryBudget(const trace::Definitions& definitions,
                                 const std::string& anchorFile,
                                 const std::vector<std::pair<uint32_t, uint32_t>>& blocks,
                                 uint64_t limit, bool rootCause, uint64_t observed = 0);

/// The events the analysis holds for `rank`: the count its main location announces, else an
/// estimate from the size of its event file (`anchorFile`'s archive), else 0.
uint64_t rankEventCount(const trace::Definitions& definitions, const std::string& anchorFile,
                        uint32_t rank);

/// Checks that every process's block of ranks fits into `limit` bytes: `blocks` lists each
/// process's ranks as [first, end), `rootCause` whether the root-cause passes run. Every
/// process checks all blocks, so all fail alike, before reading events and before any
/// exchange. Fails naming the first process that does not fit, its largest rank, that rank's
/// events and the estimated and allowed sizes.
/// `observed` bytes per event come on top (an event observer's,
/// EventObserver::heldBytesPerEvent()).
Status checkMemoryBudget(const trace::Definitions& definitions, const std::string& anchorFile,
                         const std::vector<std::pair<uint32_t, uint32_t>>& blocks, uint64_t limit,
                         bool rootCause, uint64_t observed = 0);

} // namespace waitscope::analysis
