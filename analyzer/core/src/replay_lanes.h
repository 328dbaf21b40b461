// The rank's further threads that call MPI themselves (MPI_THREAD_MULTIPLE): each one is a
// replay lane of its rank, its events appended to the rank's stream, so that the replays match
// its messages and collectives along with the main location's, and its wait states land on
// its own location.
#pragma once

#include "waitscope/analysis/event_observer.h"
#include "waitscope/trace/definitions.h"
#include "waitscope/trace/event_stream.h"

#include <cstddef>
#include <string>
#include <vector>

namespace waitscope::analysis {

/// A further thread of the rank replayed with it.
struct ReplayLane {
    const trace::Location* location = nullptr;
    size_t begin = 0; ///< its first event in the rank's stream
    size_t end = 0;   ///< one past its last
};

/// Whether the further threads of a rank may have called MPI: only a program that entered
/// MPI_Init_thread on its main location (`events`) may (with MPI_Init, MPI calls are the
/// main thread's). Then the further locations are read before the replay.
bool mayCallMpiFromThreads(const trace::Definitions& definitions, const trace::EventStream& events);

/// Reads the further CPU-thread locations of `rank` (definition order) from `anchorFile`; each
/// with a communication event (a message, a request, a collective) is appended to `events` and
/// becomes a lane. A location whose events cannot be read is left to the thread-profile stage
/// (which reports it). `observer` (if any) sees each lane's events as read.
std::vector<ReplayLane> appendReplayLanes(const std::string& anchorFile,
                                          const trace::Definitions& definitions, uint32_t rank,
                                          trace::EventStream& events,
                                          EventObserver* observer = nullptr);

} // namespace waitscope::analysis
