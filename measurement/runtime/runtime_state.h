// The runtime's private state of one rank, shared by the parts of the lifecycle, and the small
// helpers they all use.
#pragma once

#include "buffer_memory.h"
#include "profile_builder.h"
#include "self_measurement.h"
#include "spill_writer.h"
#include "trace_writer.h"
#include "waitscope/measure/rank_definitions_file.h"
#include "waitscope/measure/runtime.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mpi.h>
#include <new>
#include <string>
#include <vector>

namespace waitscope::measure {

struct RuntimeState {
    Config config;
    Definitions defs;
    TraceWriter writer;
    ProfileBuilder* profile = nullptr; ///< when WAITSCOPE_PROFILING is on
    std::vector<std::uint64_t, UninitializedAllocator<std::uint64_t>> memory;
    std::string directory;
    std::string programPath;
    std::string statusPath;
    std::string spillPath; ///< full buffers go here during the run, as raw records
    std::string defsPath;  ///< the rank's definitions, for recovering the records (see recover)
    std::string defsTempPath;
    RankIdentity identity; ///< written with the definitions; set before recording starts
    std::size_t savedDefinitions = ~std::size_t{0}; ///< definitions in the last defs file
    int writeErrno = 0;         ///< the first failed write of the experiment's files
    bool spillFailed = false;   ///< a spill failed: the records file ends at the last whole one
    std::string writeErrorPath; ///< and its file
    int spillFd = -1;
    std::uint64_t spilledBytes = 0;
    std::uint64_t eventsAtLastFlush = 0;
    SpillWriter spillWriter;          ///< writes full buffer chunks during the run
    double spillWriterCpuSeconds = 0; ///< its thread's CPU time, once drained
    std::uint64_t encodedBytes = 0;   ///< the spill file's bytes it translated, once drained
    std::string runEventsPath;        ///< the OTF2 events it translated, until finalize
    std::string encodedMarkPath;      ///< where they end, for recovery (EncodedMark)
    int encodedMarkFd = -1;
    int rank = 0;
    int size = 1;
    bool started = false;     ///< recording (user regions at least) since runtimeStart
    bool initialized = false; ///< runtimeInit ran
    bool measured = false;    ///< MPI_Init found a place for the experiment: all is recorded
    bool finalized = false;
    std::size_t pool = 0; ///< bytes of OTF2 chunk memory, part of WAITSCOPE_TOTAL_MEMORY
    std::uint64_t startNs = 0;
    std::uint64_t startCostNs = 0; ///< how long runtimeStart took (part of the setup)
    MPI_Comm comm = MPI_COMM_NULL; ///< private duplicate of MPI_COMM_WORLD
    std::uint32_t flushRegion = 0;
    std::vector<ClockOffset> offsets;
    bool probeClock = true;        ///< this rank's clock may differ from rank 0's
    std::vector<char> probedRanks; ///< on rank 0: which ranks' offsets are measured
    SelfMeasurement self;
    std::uint64_t firstTime = 0;
    std::uint64_t lastTime = 0;
};

/// The rank's state: created by runtimeStart, never freed (the process ends with it).
extern RuntimeState* g_state;

/// Prints a warning to stderr (never stdout, which is the program's).
void warn(const std::string& text);

/// The running program's path ("program" when it cannot be read).
std::string readExecutablePath();

/// This host's name ("localhost" when it has none).
std::string hostName();

/// Event-clock ticks as seconds.
double seconds(std::uint64_t ticks);

/// The event-clock reading at CLOCK_MONOTONIC time `ns` (in the past), by the current rate.
std::uint64_t ticksAt(std::uint64_t ns);

} // namespace waitscope::measure
