// The profile of a rank's further threads: time and visits per call path, no replay.
#pragma once

#include "waitscope/analysis/event_observer.h"
#include "waitscope/analysis/rank_result.h"
#include "waitscope/trace/definitions.h"
#include "waitscope/trace/event_stream.h"

#include <string>
#include <vector>

namespace waitscope::analysis {

class OpenmpTimeline;

/// Profiles the events of `location`, a further thread of a rank, on `tree` (the rank's call
/// tree; nodes are added as needed): Enter/Leave and calling-context records give exclusive
/// time in its categories and visits by the rules of the main location's profile (a sample
/// stands for the time since the previous event, its path hangs below the region open on the
/// location). Communication events are not replayed on threads: they are counted in
/// `diagnostics` as "thread_mpi_events", like input anomalies (unmatched leaves, ...).
/// The thread's paths hang below `root` (the program's node, as in the runtime profile and
/// Score-P's reports: one root for all threads of the program), or are roots of their own
/// when it is kNoNode; `root` itself gets neither time nor visits from the thread.
ThreadResult profileThread(const trace::Definitions& definitions, const trace::Location& location,
                           const trace::EventStream& events, CallTree& tree,
                           Diagnostics& diagnostics, NodeId root = kNoNode,
                           OpenmpTimeline* openmp = nullptr);

/// Reads and profiles every further CPU-thread location of `result.rank` (the locations after
/// the main one, see trace::Definitions::locationsOfRank()) into `result.threads`, below the
/// main location's outermost region when it has exactly one (the program). A location
/// whose events cannot be read is left out: its error, naming the file and the location, goes
/// to `result.warnings` and the diagnostic "unreadable_thread_locations" counts it.
/// With `openmp`, one timeline per thread profiled is appended there, in the order of
/// `result.threads`; a thread's parallel regions then hang below the master's (`master`, the
/// main location's timeline) call path to the same region.
/// Locations listed in `profiled` (their ids: the replay lanes, profiled with the rank's main
/// location) are left out. `observer` (if any) sees each location's events as read.
void addThreadProfiles(const std::string& anchorFile, const trace::Definitions& definitions,
                       RankResult& result, std::vector<OpenmpTimeline>* openmp = nullptr,
                       const OpenmpTimeline* master = nullptr,
                       const std::vector<uint64_t>& profiled = {},
                       EventObserver* observer = nullptr);

} // namespace waitscope::analysis
