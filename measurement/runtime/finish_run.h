// The end of a measured run: closing the record stream and writing the experiment (events,
// unified definitions, profile, self-measurement, status).
#pragma once

#include <cstdint>

namespace waitscope::measure {

struct RuntimeState;

/// Ends the record stream at `leave` and writes everything: events, definitions, profile,
/// the self-measurement and the status. Collective on s.comm (none without MPI).
void finishRun(RuntimeState& state, std::uint64_t leave);

} // namespace waitscope::measure
