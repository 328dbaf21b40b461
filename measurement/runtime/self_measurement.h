// The measurement's record of its own cost: what it keeps during the run, and the
// waitscope.measurement file and status lines it writes at the end.
#pragma once

#include <cstdint>

namespace waitscope::measure {

struct RuntimeState;
struct GlobalDefinitions;

/// Costs the measurement records about itself, in clock ticks.
struct SelfMeasurement {
    std::uint64_t processStart = 0; ///< converted to the event clock
    std::uint64_t initEnter = 0;
    std::uint64_t initHook = 0; ///< inside PMPI_Init
    std::uint64_t initMeasurement = 0;
    std::uint64_t finalizeEnter = 0;
    std::uint64_t finalizeMeasurement = 0;
    std::uint64_t finalizeWrite = 0;    ///< translating and writing events at finalize
    double finalizeWriteCpuSeconds = 0; ///< the same, this thread's CPU time
    std::uint64_t finalizeHook = 0;     ///< inside PMPI_Finalize
    std::uint64_t finalizeLeave = 0;
    std::uint64_t traceBytes = 0;
};

/// Gathers per-rank numbers on rank 0 and writes waitscope.measurement. Collective on s.comm;
/// a failed write is noted in the rank's state (noteWriteError).
void writeMeasurementRecord(RuntimeState& s, const GlobalDefinitions& defs);

/// At exit, after MPI_Finalize: appends the finalize hook time and the time after finalize to
/// the rank's status file (registered with atexit by runtimeInit).
void noteExit();

} // namespace waitscope::measure
