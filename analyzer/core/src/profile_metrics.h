// The metrics the profile counts per call (location_profile.cpp, the one pass that the
// whole-rank and the windowed profiles share).
#pragma once

#include "rank_state.h"

namespace waitscope::analysis {

/// Adds `seconds` of exclusive time to `node` in `rows` (the rank's or a replay lane's), in the
/// metric category of `region`'s class.
void addTime(RankState& state, SeverityRows& rows, NodeId node, uint32_t region, double seconds);
/// Counts a read or write of MPI file I/O on `node` (Scalasca's mpi_file_* counts).
void countFileOperation(RankState& state, SeverityRows& rows, NodeId node, uint32_t region);
/// Counts a point-to-point message (or a synchronization without bytes) of the call `span`.
void countMessage(SeverityRows& rows, const CallSpan& span, bool send, uint64_t length);
/// Counts a collective of the call `span` by the bytes it moved.
void countCollective(SeverityRows& rows, const CallSpan& span, const trace::CollectiveRecord& c);

} // namespace waitscope::analysis
