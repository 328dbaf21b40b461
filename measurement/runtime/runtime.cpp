// The measurement's lifecycle: start, MPI_Init, MPI_Finalize, MPI_Abort, and the end of a run
// without MPI; the parts it calls live beside it (experiment directory, spill file, clock
// offsets, fatal signals, self-measurement, finish_run).
#include "waitscope/measure/runtime.h"

#include "clock_offsets.h"
#include "experiment_directory.h"
#include "fatal_signals.h"
#include "finish_run.h"
#include "runtime_state.h"
#include "self_measurement.h"
#include "spill_file.h"
#include "spill_writer.h"
#include "unification.h"
#include "waitscope/base/executable_path.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <pthread.h>
#include <string>
#include <unistd.h>
#include <vector>

namespace waitscope::measure {

HotState g_hot;
Diagnostics g_diagnostics;
__thread bool t_onMainThread __attribute__((tls_model("initial-exec"))) = false;
__thread EventBuffer* t_events __attribute__((tls_model("initial-exec"))) = &g_hot.buffer;

namespace {

// Process start, taken by a constructor function that only stores numbers (no C++ static
// objects are constructed when the library loads); it also starts the clock's calibration.
std::uint64_t g_startMonotonicNs = 0;
ClockAnchor g_clockAnchor;
__attribute__((constructor)) void noteProcessStart() {
    g_clockAnchor = Clock::anchorNow();
    g_startMonotonicNs = g_clockAnchor.ns;
}

std::atomic<bool> g_foreignWarned{false};

// Set in a child forked while the run was measured: the run is its parent's.
bool g_leftByFork = false;

void finishSerialRunAtExit();

/// In a child the program forked (without exec), the measurement steps aside: the run, its
/// buffer and its files are the parent's. Otherwise the child would record into the parent's
/// spill file, and at its exit write the parent's experiment (or a serial run's whole
/// experiment, which the parent then finds taken). Nothing is recorded in the child any more;
/// every hook sees a run that never started.
void leaveRunInChild() {
    g_leftByFork = true;
    g_hot.recordMask = 0;
    g_state = nullptr;
}

} // namespace

RuntimeState* g_state = nullptr;

void warn(const std::string& text) {
    // Warnings go to stderr once per job (rank 0) and never to stdout, which is the program's.
    std::fprintf(stderr, "waitscope: warning: %s\n", text.c_str());
}

std::string readExecutablePath() {
    std::string path = executablePath();
    return path.empty() ? std::string("program") : path;
}

std::string hostName() {
    char buffer[256] = {0};
    if (gethostname(buffer, sizeof(buffer) - 1) != 0 || !buffer[0])
        return "localhost";
    return buffer;
}

double seconds(std::uint64_t ticks) {
    return static_cast<double>(ticks) / static_cast<double>(g_hot.clock.ticksPerSecond());
}

/// The event-clock reading at CLOCK_MONOTONIC time `ns` (in the past), by the current rate.
std::uint64_t ticksAt(std::uint64_t ns) {
    std::uint64_t nowTicks = now();
    std::uint64_t nowNs = Clock::monotonicNs();
    long double back = static_cast<long double>(nowNs > ns ? nowNs - ns : 0) *
                       static_cast<long double>(g_hot.clock.ticksPerSecond()) / 1e9L;
    return nowTicks - static_cast<std::uint64_t>(back);
}

bool foreignThread() noexcept {
    if (pthread_equal(pthread_self(), g_hot.mainThread)) {
        t_onMainThread = true; // started on this thread after all (MPI_Init from another one)
        return true;
    }
    if (threadMpiRegister && threadMpiRegister())
        return true; // the thread records its MPI calls on its own location
    countFromAnyThread(g_diagnostics.foreignThreadCalls); // threads may call at once
    if (!g_foreignWarned.exchange(true))
        warn("MPI is called from a thread that cannot be recorded (no memory or too many "
             "threads); its MPI calls are counted in the experiment, not recorded");
    return false;
}

Definitions& definitions() noexcept {
    return g_state->defs;
}
int worldRank() noexcept {
    return g_state ? g_state->rank : 0;
}
int worldSize() noexcept {
    return g_state ? g_state->size : 1;
}
std::uint32_t flushRegion() noexcept {
    return g_state ? g_state->flushRegion : 0;
}
bool runtimeInitialized() noexcept {
    return g_state != nullptr;
}

bool runtimeStart() noexcept {
    if (g_state)
        return g_state->started;
    if (g_leftByFork)
        return false;
    auto* s = new (std::nothrow) RuntimeState();
    if (!s)
        return false; // no memory even for its state: the run is not measured
    g_state = s;
    s->config = configFromEnvironment();
    if (!s->config.enabled || (!s->config.tracing && !s->config.profiling))
        return false;
    if (s->config.profiling)
        s->profile = new (std::nothrow) ProfileBuilder(); // without memory: no profile
    std::uint64_t startNs = Clock::monotonicNs();
    g_hot.clock.init(s->config.clock, &g_clockAnchor);
    s->pool = std::min<std::uint64_t>(4u << 20, s->config.totalMemory / 4);
    s->memory.resize((s->config.totalMemory - s->pool) / 8);
    g_hot.buffer.reset(s->memory.data(), s->memory.size());
    if (registerWrappedRegions)
        registerWrappedRegions(s->defs);
    s->flushRegion = s->defs.addRegion({"TRACE BUFFER FLUSH", "TRACE BUFFER FLUSH", "", 0, 0,
                                        RegionRole::Artificial, Paradigm::MeasurementSystem});
    CommDefinition world;
    world.key = kWorldKey;
    world.describes = true;
    s->defs.addComm(world); // local id 0
    CommDefinition self;
    self.key = kSelfKey;
    self.describes = true;
    s->defs.addComm(self); // local id 1
    // The TSC's rate is not known yet (Clock::calibrate, at MPI_Init): the process start is
    // the clock's reading at the anchor, taken when the library was loaded.
    s->self.processStart = g_startMonotonicNs ? g_hot.clock.ticksAt(g_clockAnchor) : now();
    s->firstTime = s->self.processStart;
    appendRecord(s->self.processStart, EventKind::ProgramBegin, 0);
    s->startNs = startNs;
    s->startCostNs = Clock::monotonicNs() - startNs;
    s->started = true;
    std::atexit(finishSerialRunAtExit);
    pthread_atfork(nullptr, nullptr, leaveRunInChild);
    g_hot.mainThread = pthread_self();
    t_onMainThread = true;
    g_hot.recordMask = kGroupUser;
    return true;
}

void runtimeInit(std::uint32_t initRegion, std::uint64_t initEnter,
                 std::uint64_t initLeave) noexcept {
    if (g_state && g_state->initialized)
        return;
    // The setup's own time: from here (PMPI_Init has returned) to its end, plus runtimeStart's
    // when it ran earlier (at the first instrumented function): what lies between is the
    // program's and MPI_Init's, not the measurement's.
    const std::uint64_t setupNs = Clock::monotonicNs();
    const bool startedBefore = g_state && g_state->started;
    bool started = runtimeStart();
    RuntimeState* s = g_state;
    if (!s)
        return; // no memory for the measurement's state: the run is not measured
    s->initialized = true;
    PMPI_Comm_dup(MPI_COMM_WORLD, &s->comm);
    PMPI_Comm_rank(MPI_COMM_WORLD, &s->rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &s->size);
    if (s->rank == 0)
        for (const std::string& w : s->config.warnings)
            warn(w);
    if (!started)
        return;
    g_hot.recordMask = 0; // nothing is recorded while the run's settings are agreed

    // One clock rate for every rank: rank 0's calibration (each rank's own, should the clocks
    // differ), over the time since the library was loaded.
    g_hot.clock.calibrate();
    unsigned long long rate[2] = {g_hot.clock.ticksPerSecond(),
                                  g_hot.clock.usesTsc() ? 1ull : 0ull};
    PMPI_Bcast(rate, 2, MPI_UNSIGNED_LONG_LONG, 0, s->comm);
    if ((rate[1] != 0) != g_hot.clock.usesTsc())
        ++g_diagnostics.clockMismatch;
    g_hot.clock.setRate(rate[0]);
    // Converted from CLOCK_MONOTONIC, they may land a hair before a user event already
    // recorded with the event clock; events of one rank must not go back in time.
    initEnter = std::max<std::uint64_t>(ticksAt(initEnter), g_hot.buffer.lastTime);
    initLeave = std::max(ticksAt(initLeave), initEnter);
    s->self.initEnter = initEnter;
    s->self.initHook = initLeave - initEnter;

    s->programPath = readExecutablePath();
    if (!prepareDirectory(*s)) {
        g_hot.buffer.clear();
        return;
    }
    s->statusPath = s->directory + "/ranks/" + std::to_string(s->rank) + ".status";
    if (s->config.tracing) {
        s->spillPath = s->directory + "/ranks/" + std::to_string(s->rank) + ".records";
        s->defsPath = s->directory + "/ranks/" + std::to_string(s->rank) + ".defs";
        s->defsTempPath = s->defsPath + ".new";
    }
    s->identity.rank = static_cast<std::uint32_t>(s->rank);
    s->identity.size = static_cast<std::uint32_t>(s->size);
    s->identity.ticksPerSecond = g_hot.clock.ticksPerSecond();
    s->identity.host = hostName();
    s->identity.program = s->programPath;
    // During the run records go to the rank's spill file; the OTF2 archive is opened only at
    // finalize (an OTF2 archive open during the run slows the program's own MPI operations).
    Status opened = s->config.tracing ? openSpill(*s) : Status::success();
    int ok = opened.ok() ? 1 : 0;
    int allOk = 0;
    PMPI_Allreduce(&ok, &allOk, 1, MPI_INT, MPI_MIN, s->comm);
    if (!allOk) {
        if (!opened.ok())
            warn(opened.error().message() + "; the program runs unmeasured");
        g_hot.buffer.clear();
        return;
    }
    if (s->rank == 0)
        writeExperimentFile(*s, s->directory + "/waitscope.config", configDump(s->config));
    writeStatus(*s, "incomplete: running\n");
    // From here on full chunks of the buffer are written by a thread of their own.
    startSpillWriter(*s);
    decideClockProbes(*s);
    measureClockOffset(*s);
    if (s->config.signalHandlers)
        installSignalHandlers();
    std::atexit(noteExit);

    // MPI_Init as Score-P records it: the region, and the creation of the predefined comms.
    std::uint64_t leave = now();
    recordEnter(initEnter, initRegion);
    appendRecord(initEnter, EventKind::MpiCollectiveBegin, 0);
    appendRecord(leave, EventKind::CommCreate, 0);
    appendRecord(leave, EventKind::CommCreate, 1);
    recordCollectiveEnd(leave, OTF2_COLLECTIVE_OP_CREATE_HANDLE, 0, OTF2_UNDEFINED_UINT32, 0, 0);
    recordLeave(leave, initRegion);
    s->measured = true;
    saveNewDefinitions(*s);
    g_hot.recordMask = s->config.mpiGroups | kGroupUser;
    if (s->config.sampling && samplingStart && !samplingStart(s->config) && s->rank == 0)
        warn("the sampling timer could not be set up; MPI call paths are still unwound");
    // The setup's cost ends here, the sampling's start (symbols of the path to MPI_Init)
    // included; it lies in the trace's time, after MPI_Init's region.
    s->self.initMeasurement = ticksAt(Clock::monotonicNs()) - ticksAt(setupNs);
    if (startedBefore)
        s->self.initMeasurement += ticksAt(s->startNs + s->startCostNs) - ticksAt(s->startNs);
    if (s->config.verbose && s->rank == 0)
        std::fprintf(stderr, "waitscope: measuring %d ranks into '%s' (clock %s)\n", s->size,
                     s->directory.c_str(), g_hot.clock.name());
}

void runtimeFinalize(std::uint32_t finalizeRegion, std::uint64_t enter) noexcept {
    RuntimeState* s = g_state;
    if (!s || !s->measured || s->finalized)
        return;
    if (samplingStop)
        samplingStop();
    // Samples recorded just now may be later than the enter time taken in the wrapper.
    enter = std::max(enter, g_hot.buffer.lastTime);
    s->self.finalizeEnter = enter;
    // MPI_Finalize as Score-P records it; the barrier is where ranks wait for the last one.
    ensureRoom(6 * kMaxRecordWords);
    recordEnter(enter, finalizeRegion);
    appendRecord(enter, EventKind::MpiCollectiveBegin, 0);
    PMPI_Barrier(s->comm);
    std::uint64_t leave = now();
    appendRecord(leave, EventKind::CommDestroy, 0);
    appendRecord(leave, EventKind::CommDestroy, 1);
    recordCollectiveEnd(leave, OTF2_COLLECTIVE_OP_DESTROY_HANDLE, 0, OTF2_UNDEFINED_UINT32, 0, 0);
    recordLeave(leave, finalizeRegion);
    finishRun(*s, leave);
}

namespace {

/// A program that never initialized MPI (built with `waitscope instrument --nompi`, or a
/// serial tool): at exit this process finishes the run alone, as rank 0 of 1, with no MPI call.
void finishSerialRunAtExit() {
    RuntimeState* s = g_state;
    if (!s || !s->started || s->initialized || s->finalized)
        return;
    s->initialized = true;
    g_hot.recordMask = 0;
    g_hot.clock.calibrate();
    std::uint64_t leave = now();
    s->comm = MPI_COMM_NULL;
    s->rank = 0;
    s->size = 1;
    s->self.initEnter = s->self.processStart;
    s->programPath = readExecutablePath();
    for (const std::string& w : s->config.warnings)
        warn(w);
    if (!prepareDirectory(*s))
        return;
    s->statusPath = s->directory + "/ranks/0.status";
    if (s->config.tracing)
        s->spillPath = s->directory + "/ranks/0.records";
    if (s->config.tracing) {
        Status opened = openSpill(*s);
        if (!opened.ok()) {
            warn(opened.error().message() + "; nothing was written");
            return;
        }
    }
    writeExperimentFile(*s, s->directory + "/waitscope.config", configDump(s->config));
    s->measured = true;
    finishRun(*s, leave);
}

} // namespace

void runtimeAfterFinalize(std::uint64_t finalizeHookTicks) noexcept {
    if (g_state) {
        g_state->self.finalizeHook = finalizeHookTicks;
        g_state->self.finalizeLeave = now();
    }
}

void runtimeAbort(int errorCode) noexcept {
    RuntimeState* s = g_state;
    if (!s || !s->measured || s->finalized)
        return;
    g_hot.recordMask = 0;
    s->finalized = true;
    // This rank leaves alone: everything it recorded stays in its spill file, in order.
    drainSpillWriter(*s);
    if (s->spillFd >= 0) {
        if (!s->spillFailed)
            writeAllAt(s->spillFd, g_hot.buffer.begin, g_hot.buffer.usedBytes(), s->spilledBytes);
        ::close(s->spillFd);
        s->spillFd = -1;
    }
    g_hot.buffer.clear();
    saveDefinitions(*s);
    writeStatus(*s, "incomplete: MPI_Abort with error code " + std::to_string(errorCode) + "\n");
}

} // namespace waitscope::measure
