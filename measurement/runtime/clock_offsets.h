// Clock offsets between ranks: which ranks need theirs measured, and the ping-pong with rank 0
// that measures them (at MPI_Init and again at MPI_Finalize).
#pragma once

namespace waitscope::measure {

struct RuntimeState;

/// Ranks on rank 0's host read rank 0's clock (CLOCK_MONOTONIC, or an invariant TSC, is one
/// clock per host): only the others need their offset measured. Collective on s.comm.
void decideClockProbes(RuntimeState& s);

/// Measures this rank's offset to rank 0 and appends it to s.offsets (offset 0 on rank 0 and
/// on ranks that share its clock). Collective on s.comm.
void measureClockOffset(RuntimeState& s);

} // namespace waitscope::measure
