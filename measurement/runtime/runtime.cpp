// The measurement's lifecycle: init, buffer flushes, finalize, abort and fatal signals.
#include "waitscope/measure/runtime.h"

#include "trace_writer.h"
#include "unification.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <mpi.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace waitscope::measure {

HotState g_hot;
Diagnostics g_diagnostics;

namespace {

// Process start, taken by a constructor function that only stores two numbers (no C++ static
// objects are constructed when the library loads).
std::uint64_t g_startMonotonicNs = 0;
__attribute__((constructor)) void noteProcessStart() {
    g_startMonotonicNs = Clock::monotonicNs();
}

constexpr int kUnifyTag = 7301;
constexpr int kOffsetTag = 7302;

/// Costs the measurement records about itself, in clock ticks.
struct SelfMeasurement {
    std::uint64_t processStart = 0; ///< converted to the event clock
    std::uint64_t initEnter = 0;
    std::uint64_t initHook = 0; ///< inside PMPI_Init
    std::uint64_t initMeasurement = 0;
    std::uint64_t finalizeEnter = 0;
    std::uint64_t finalizeMeasurement = 0;
    std::uint64_t finalizeWrite = 0; ///< translating and writing events at finalize
    std::uint64_t finalizeHook = 0;  ///< inside PMPI_Finalize
    std::uint64_t finalizeLeave = 0;
    std::uint64_t traceBytes = 0;
};

struct RuntimeState {
    Config config;
    Definitions defs;
    TraceWriter writer;
    std::vector<std::uint64_t> memory;
    std::string directory;
    std::string programPath;
    std::string statusPath;
    std::string spillPath; ///< full buffers go here during the run, as raw records
    int spillFd = -1;
    std::uint64_t spilledBytes = 0;
    int rank = 0;
    int size = 1;
    bool measured = false;
    bool finalized = false;
    MPI_Comm comm = MPI_COMM_NULL; ///< private duplicate of MPI_COMM_WORLD
    std::uint32_t flushRegion = 0;
    std::vector<ClockOffset> offsets;
    SelfMeasurement self;
    std::uint64_t firstTime = 0;
    std::uint64_t lastTime = 0;
};

RuntimeState* g_state = nullptr;
std::atomic<bool> g_foreignWarned{false};
std::atomic<int> g_inSignal{0};
struct sigaction g_previous[32];
constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM};

void warn(const std::string& text) {
    // Warnings go to stderr once per job (rank 0) and never to stdout, which is the program's.
    std::fprintf(stderr, "waitscope: warning: %s\n", text.c_str());
}

std::string readExecutablePath() {
    char buffer[4096];
    ssize_t n = readlink("/proc/self/exe", buffer, sizeof(buffer) - 1);
    if (n <= 0)
        return "program";
    buffer[n] = '\0';
    return buffer;
}

std::string hostName() {
    char buffer[256] = {0};
    if (gethostname(buffer, sizeof(buffer) - 1) != 0 || !buffer[0])
        return "localhost";
    return buffer;
}

bool writeTextFile(const std::string& path, const std::string& text) {
    FILE* f = std::fopen(path.c_str(), "w");
    if (!f)
        return false;
    bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
    return std::fclose(f) == 0 && ok;
}

double seconds(std::uint64_t ticks) {
    return static_cast<double>(ticks) / static_cast<double>(g_hot.clock.ticksPerSecond());
}

/// Rank 0 decides whether the run is measured and where; every rank learns the answer.
bool prepareDirectory(RuntimeState& s) {
    int verdict = 1;
    std::string dir = s.config.experimentDirectory;
    if (dir.empty())
        dir = defaultExperimentDirectory(s.programPath, s.size);
    if (s.rank == 0) {
        struct stat info;
        if (stat(dir.c_str(), &info) == 0) {
            if (!s.config.overwrite) {
                warn(
                    "experiment directory '" + dir +
                    "' already exists; the program runs unmeasured (remove it, set "
                    "WAITSCOPE_EXPERIMENT_DIRECTORY to another path, or WAITSCOPE_OVERWRITE=true)");
                verdict = 0;
            }
        } else if (mkdir(dir.c_str(), 0755) != 0) {
            warn("cannot create experiment directory '" + dir + "': " + std::strerror(errno) +
                 "; the program runs unmeasured");
            verdict = 0;
        }
        if (verdict && mkdir((dir + "/ranks").c_str(), 0755) != 0 && errno != EEXIST) {
            warn("cannot create '" + dir + "/ranks': " + std::strerror(errno) +
                 "; the program runs unmeasured");
            verdict = 0;
        }
    }
    PMPI_Bcast(&verdict, 1, MPI_INT, 0, s.comm);
    s.directory = dir;
    return verdict != 0;
}

std::string configDump(const Config& c) {
    std::string out = "# Waitscope configuration of this experiment\n";
    out += "WAITSCOPE_ENABLE=" + std::string(c.enabled ? "true" : "false") + "\n";
    out += "WAITSCOPE_TRACING=" + std::string(c.tracing ? "true" : "false") + "\n";
    out += "WAITSCOPE_TOTAL_MEMORY=" + std::to_string(c.totalMemory) + "\n";
    out += "WAITSCOPE_MPI_GROUPS=" + std::to_string(c.mpiGroups) + "\n";
    out += "WAITSCOPE_CLOCK=" + std::string(g_hot.clock.name()) + "\n";
    return out;
}

/// Ping-pong with every rank from rank 0; each rank keeps the offset of its fastest round.
void measureClockOffset(RuntimeState& s) {
    constexpr int kRounds = 5;
    if (s.rank == 0) {
        for (int peer = 1; peer < s.size; ++peer) {
            std::int64_t best = 0;
            std::uint64_t bestRtt = ~0ull;
            for (int i = 0; i < kRounds; ++i) {
                std::uint64_t t0 = now();
                std::uint64_t remote = 0;
                PMPI_Send(&t0, 1, MPI_UINT64_T, peer, kOffsetTag, s.comm);
                PMPI_Recv(&remote, 1, MPI_UINT64_T, peer, kOffsetTag, s.comm, MPI_STATUS_IGNORE);
                std::uint64_t t1 = now();
                if (t1 - t0 < bestRtt) {
                    bestRtt = t1 - t0;
                    best = static_cast<std::int64_t>(t0 + (t1 - t0) / 2) -
                           static_cast<std::int64_t>(remote);
                }
            }
            double deviation = static_cast<double>(bestRtt) / 2.0;
            PMPI_Send(&best, 1, MPI_INT64_T, peer, kOffsetTag, s.comm);
            PMPI_Send(&deviation, 1, MPI_DOUBLE, peer, kOffsetTag, s.comm);
        }
        s.offsets.push_back({now(), 0, 0.0});
        return;
    }
    std::uint64_t probe = 0;
    std::uint64_t lastReply = 0;
    for (int i = 0; i < kRounds; ++i) {
        PMPI_Recv(&probe, 1, MPI_UINT64_T, 0, kOffsetTag, s.comm, MPI_STATUS_IGNORE);
        lastReply = now();
        PMPI_Send(&lastReply, 1, MPI_UINT64_T, 0, kOffsetTag, s.comm);
    }
    ClockOffset offset;
    offset.localTime = lastReply;
    PMPI_Recv(&offset.offset, 1, MPI_INT64_T, 0, kOffsetTag, s.comm, MPI_STATUS_IGNORE);
    PMPI_Recv(&offset.deviation, 1, MPI_DOUBLE, 0, kOffsetTag, s.comm, MPI_STATUS_IGNORE);
    s.offsets.push_back(offset);
}

void writeStatus(RuntimeState& s, const std::string& text) {
    if (!s.statusPath.empty())
        writeTextFile(s.statusPath, text);
}

// Signal context: only async-signal-safe calls (open, write, close), no allocation, no locks.
void writeAll(int fd, const void* data, size_t n) {
    const char* p = static_cast<const char*>(data);
    while (n > 0) {
        ssize_t w = ::write(fd, p, n);
        if (w <= 0)
            return;
        p += w;
        n -= static_cast<size_t>(w);
    }
}

void fatalSignal(int sig, siginfo_t* info, void* context) {
    if (g_inSignal.exchange(1) == 0 && g_state && g_state->measured && !g_state->finalized) {
        g_hot.recordMask = 0;
        int fd = ::open(g_state->statusPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            char text[64] = "incomplete: signal ";
            int len = static_cast<int>(std::strlen(text));
            char digits[16];
            int d = 0;
            for (int v = sig; v > 0 && d < 15; v /= 10)
                digits[d++] = static_cast<char>('0' + v % 10);
            while (d > 0 && len < 62)
                text[len++] = digits[--d];
            text[len++] = '\n';
            writeAll(fd, text, static_cast<size_t>(len));
            ::close(fd);
        }
        // The records still in memory join the spilled ones: the spill file then holds the
        // rank's whole run in Waitscope's record layout (see event_buffer.h).
        int spill = g_state->spillFd;
        if (spill < 0)
            spill =
                ::open(g_state->spillPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
        if (spill >= 0)
            writeAll(spill, g_hot.buffer.begin, g_hot.buffer.usedBytes());
    }
    // Hand the signal on as if we had not been here.
    if (sig > 0 && sig < 32) {
        struct sigaction& previous = g_previous[sig];
        if (previous.sa_flags & SA_SIGINFO) {
            if (previous.sa_sigaction) {
                previous.sa_sigaction(sig, info, context);
                return;
            }
        } else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
            previous.sa_handler(sig);
            return;
        }
        sigaction(sig, &previous, nullptr);
        raise(sig);
    }
}

void installSignalHandlers() {
    for (int sig : kFatalSignals) {
        struct sigaction action;
        std::memset(&action, 0, sizeof(action));
        action.sa_sigaction = fatalSignal;
        action.sa_flags = SA_SIGINFO | SA_RESETHAND;
        sigemptyset(&action.sa_mask);
        sigaction(sig, &action, &g_previous[sig]);
    }
}

void noteExit() {
    if (!g_state || !g_state->measured || !g_state->finalized)
        return;
    // Appended at exit: the only cost we can see after MPI_Finalize.
    FILE* f = std::fopen(g_state->statusPath.c_str(), "a");
    if (!f)
        return;
    std::fprintf(f, "finalize_hook_seconds=%.9f\nafter_finalize_seconds=%.9f\n",
                 seconds(g_state->self.finalizeHook), seconds(now() - g_state->self.finalizeLeave));
    std::fclose(f);
}

/// Encodes the records spilled during the run into the OTF2 event file, reading them back in
/// pieces through the (now idle) event buffer, then removes the spill file.
void encodeSpilledRecords(RuntimeState& s) {
    if (s.spillFd < 0)
        return;
    // Whatever is still buffered goes last; keep it by spilling it too.
    writeAll(s.spillFd, g_hot.buffer.begin, g_hot.buffer.usedBytes());
    g_hot.buffer.clear();
    ::close(s.spillFd);
    s.spillFd = -1;
    int fd = ::open(s.spillPath.c_str(), O_RDONLY);
    if (fd < 0) {
        ++g_diagnostics.otf2Errors;
        return;
    }
    std::uint64_t* memory = g_hot.buffer.begin;
    const size_t capacity = s.memory.size() * 8;
    size_t filled = 0;
    while (true) {
        ssize_t n = ::read(fd, reinterpret_cast<char*>(memory) + filled, capacity - filled);
        if (n < 0 && errno == EINTR)
            continue;
        if (n > 0)
            filled += static_cast<size_t>(n);
        // Encode the whole records; a record cut by the read boundary waits for the next read.
        std::uint64_t probeTime = s.writer.decodeTime();
        RecordCursor cursor(memory, memory + filled / 8, probeTime);
        RecordHeader h;
        const std::uint64_t* x = nullptr;
        while (cursor.next(h, x)) {
        }
        const std::uint64_t* consumed = cursor.consumed();
        s.writer.write(memory, consumed);
        size_t used = static_cast<size_t>(consumed - memory) * 8;
        std::memmove(memory, reinterpret_cast<char*>(memory) + used, filled - used);
        filled -= used;
        if (n <= 0)
            break;
    }
    ::close(fd);
    if (filled != 0)
        ++g_diagnostics.otf2Errors; // a damaged tail; the events before it are kept
    ::unlink(s.spillPath.c_str());
}

} // namespace

bool foreignThread() noexcept {
    ++g_diagnostics.foreignThreadCalls;
    if (!g_foreignWarned.exchange(true))
        warn("MPI is called from a thread other than the one that initialized it; only the "
             "main thread's MPI calls are recorded (counted in the experiment)");
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

void flushEvents(bool recordRegion) noexcept {
    RuntimeState* s = g_state;
    EventBuffer& b = g_hot.buffer;
    if (!s || !b.begin)
        return;
    std::uint64_t start = now();
    if (s->spillFd < 0)
        s->spillFd = ::open(s->spillPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
    if (s->spillFd >= 0) {
        writeAll(s->spillFd, b.begin, b.usedBytes());
        s->spilledBytes += b.usedBytes();
    } else {
        s->writer.write(b.begin, b.cursor); // no spill file: encode now, slower but lossless
    }
    b.clear();
    std::uint64_t end = now();
    ++g_diagnostics.flushes;
    g_diagnostics.flushTicks += end - start;
    if (recordRegion) {
        appendRecord(start, EventKind::Enter, s->flushRegion);
        appendRecord(end, EventKind::Leave, s->flushRegion);
    }
}

void runtimeInit(void (*registerRegions)(Definitions&), std::uint32_t initRegion,
                 std::uint64_t initEnter, std::uint64_t initLeave) noexcept {
    if (g_state)
        return;
    auto* s = new RuntimeState();
    g_state = s;
    s->config = configFromEnvironment();
    PMPI_Comm_dup(MPI_COMM_WORLD, &s->comm);
    PMPI_Comm_rank(MPI_COMM_WORLD, &s->rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &s->size);
    if (s->rank == 0)
        for (const std::string& w : s->config.warnings)
            warn(w);
    if (!s->config.enabled || !s->config.tracing)
        return;

    // One clock rate for every rank: rank 0 calibrates, the others take its number.
    std::uint64_t initStart = Clock::monotonicNs();
    g_hot.clock.init(s->config.clock);
    unsigned long long rate[2] = {g_hot.clock.ticksPerSecond(),
                                  g_hot.clock.usesTsc() ? 1ull : 0ull};
    PMPI_Bcast(rate, 2, MPI_UNSIGNED_LONG_LONG, 0, s->comm);
    if ((rate[1] != 0) != g_hot.clock.usesTsc())
        g_hot.clock.init(rate[1] ? ClockKind::Tsc : ClockKind::Monotonic);
    g_hot.clock.setRate(rate[0]);

    // initEnter/initLeave were taken before the clock was chosen: re-express them.
    std::uint64_t nowTicks = now();
    std::uint64_t nowNs = Clock::monotonicNs();
    auto fromNs = [&](std::uint64_t ns) {
        long double back = static_cast<long double>(nowNs - ns) * rate[0] / 1e9L;
        return nowTicks - static_cast<std::uint64_t>(back);
    };
    initEnter = fromNs(initEnter);
    initLeave = fromNs(initLeave);
    s->self.processStart = g_startMonotonicNs ? fromNs(g_startMonotonicNs) : initEnter;
    s->self.initEnter = initEnter;
    s->self.initHook = initLeave - initEnter;

    s->programPath = readExecutablePath();
    if (!prepareDirectory(*s))
        return;
    s->statusPath = s->directory + "/ranks/" + std::to_string(s->rank) + ".status";
    s->spillPath = s->directory + "/ranks/" + std::to_string(s->rank) + ".records";

    std::size_t pool = std::min<std::uint64_t>(4u << 20, s->config.totalMemory / 4);
    Status opened = s->writer.open(s->directory, s->rank, pool);
    int ok = opened.ok() ? 1 : 0;
    int allOk = 0;
    PMPI_Allreduce(&ok, &allOk, 1, MPI_INT, MPI_MIN, s->comm);
    if (!allOk) {
        if (!opened.ok())
            warn(opened.error().message() + "; the program runs unmeasured");
        return;
    }
    if (s->rank == 0)
        writeTextFile(s->directory + "/waitscope.config", configDump(s->config));
    writeStatus(*s, "incomplete: running\n");

    s->memory.resize((s->config.totalMemory - pool) / 8);
    g_hot.buffer.reset(s->memory.data(), s->memory.size());
    registerRegions(s->defs);
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
    measureClockOffset(*s);
    if (s->config.signalHandlers)
        installSignalHandlers();
    std::atexit(noteExit);

    // MPI_Init as Score-P records it: the region, and the creation of the predefined comms.
    std::uint64_t leave = now();
    s->self.initMeasurement = static_cast<std::uint64_t>(
        static_cast<long double>(Clock::monotonicNs() - initStart) * rate[0] / 1e9L);
    s->firstTime = s->self.processStart;
    appendRecord(s->self.processStart, EventKind::ProgramBegin, 0);
    recordEnter(initEnter, initRegion);
    appendRecord(initEnter, EventKind::MpiCollectiveBegin, 0);
    appendRecord(leave, EventKind::CommCreate, 0);
    appendRecord(leave, EventKind::CommCreate, 1);
    recordCollectiveEnd(leave, OTF2_COLLECTIVE_OP_CREATE_HANDLE, 0, OTF2_UNDEFINED_UINT32, 0, 0);
    recordLeave(leave, initRegion);
    s->measured = true;
    g_hot.mainThread = pthread_self();
    g_hot.recordMask = s->config.mpiGroups;
    if (s->config.verbose && s->rank == 0)
        std::fprintf(stderr, "waitscope: measuring %d ranks into '%s' (clock %s)\n", s->size,
                     s->directory.c_str(), g_hot.clock.name());
}

namespace {

/// Gathers per-rank numbers on rank 0 and writes waitscope.measurement.
void writeMeasurementRecord(RuntimeState& s, const GlobalDefinitions& defs) {
    enum Field {
        kWrapBefore,
        kInitHook,
        kInitMeasurement,
        kFinalizeMeasurement,
        kFinalizeWrite,
        kFlushSeconds,
        kFlushes,
        kEvents,
        kTraceBytes,
        kForeignCalls,
        kUnknownRequests,
        kUnknownComms,
        kOtf2Errors,
        kCountedCalls,
        kSkippedTests,
        kFieldCount
    };
    static const char* const kNames[kFieldCount] = {"wrap_before_init_seconds",
                                                    "init_hook_seconds",
                                                    "init_measurement_seconds",
                                                    "finalize_measurement_seconds",
                                                    "finalize_write_seconds",
                                                    "flush_seconds",
                                                    "flushes",
                                                    "events",
                                                    "trace_bytes",
                                                    "foreign_thread_calls",
                                                    "unknown_requests",
                                                    "unknown_comms",
                                                    "otf2_errors",
                                                    "counted_calls",
                                                    "skipped_tests"};
    double mine[kFieldCount] = {seconds(s.self.initEnter - s.self.processStart),
                                seconds(s.self.initHook),
                                seconds(s.self.initMeasurement),
                                seconds(s.self.finalizeMeasurement),
                                seconds(s.self.finalizeWrite),
                                seconds(g_diagnostics.flushTicks),
                                static_cast<double>(g_diagnostics.flushes),
                                static_cast<double>(g_hot.buffer.events),
                                static_cast<double>(s.self.traceBytes),
                                static_cast<double>(g_diagnostics.foreignThreadCalls),
                                static_cast<double>(g_diagnostics.unknownRequests),
                                static_cast<double>(g_diagnostics.unknownComms),
                                static_cast<double>(g_diagnostics.otf2Errors),
                                static_cast<double>(g_diagnostics.countedCalls),
                                static_cast<double>(g_diagnostics.skippedTests)};
    std::vector<double> all(s.rank == 0 ? static_cast<size_t>(kFieldCount) * s.size : 0);
    PMPI_Gather(mine, kFieldCount, MPI_DOUBLE, all.data(), kFieldCount, MPI_DOUBLE, 0, s.comm);
    if (s.rank != 0)
        return;
    std::string out = "# Waitscope self-measurement: key=value; rank.<r>.<key> per rank\n";
    out += "version=1\nprogram=" + defs.programPath + "\nranks=" + std::to_string(s.size) +
           "\nclock=" + g_hot.clock.name() +
           "\nticks_per_second=" + std::to_string(g_hot.clock.ticksPerSecond()) +
           "\nbuffer_bytes=" + std::to_string(s.memory.size() * 8) + "\n";
    char line[160];
    for (int r = 0; r < s.size; ++r) {
        for (int f = 0; f < kFieldCount; ++f) {
            double v = all[static_cast<size_t>(r) * kFieldCount + f];
            if (f >= kFlushes && f != kFlushSeconds)
                std::snprintf(line, sizeof(line), "rank.%d.%s=%.0f\n", r, kNames[f], v);
            else
                std::snprintf(line, sizeof(line), "rank.%d.%s=%.9f\n", r, kNames[f], v);
            out += line;
        }
    }
    writeTextFile(s.directory + "/waitscope.measurement", out);
}

std::vector<std::uint32_t> mapIds(const DefinitionSet& global,
                                  const std::vector<std::string>& keys) {
    std::vector<std::uint32_t> map(keys.size());
    for (size_t i = 0; i < keys.size(); ++i)
        map[i] = static_cast<std::uint32_t>(global.find(keys[i]));
    return map;
}

} // namespace

void runtimeFinalize(std::uint32_t finalizeRegion, std::uint64_t enter) noexcept {
    RuntimeState* s = g_state;
    if (!s || !s->measured || s->finalized)
        return;
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
    appendRecord(leave, EventKind::ProgramEnd, kUnknownExit);
    g_hot.recordMask = 0;
    s->finalized = true;
    s->lastTime = leave;

    std::uint64_t writeStart = now();
    encodeSpilledRecords(*s);
    s->writer.write(g_hot.buffer.begin, g_hot.buffer.cursor);
    g_hot.buffer.clear();
    std::uint64_t events = s->writer.eventsWritten();
    s->self.finalizeWrite = now() - writeStart;
    measureClockOffset(*s);

    // Unify regions and communicators; each rank then maps its local ids to global ones.
    DefinitionSet regions, comms;
    std::vector<std::string> regionKeys, commKeys;
    for (const RegionDefinition& r : s->defs.regions()) {
        regionKeys.push_back(regionKey(r));
        regions.add(regionKeys.back(), {});
    }
    for (const CommDefinition& c : s->defs.comms()) {
        commKeys.push_back(commKeyBytes(c.key));
        comms.add(commKeys.back(), commDescription(c));
    }
    bool unified = unifyDefinitionSet(regions, s->comm, kUnifyTag);
    unified = unifyDefinitionSet(comms, s->comm, kUnifyTag) && unified;
    Status local = s->writer.writeLocalDefinitions(mapIds(regions, regionKeys),
                                                   mapIds(comms, commKeys), s->offsets);

    GlobalDefinitions global;
    global.ticksPerSecond = g_hot.clock.ticksPerSecond();
    unsigned long long first = s->firstTime, last = s->lastTime, globalFirst = 0, globalLast = 0;
    PMPI_Allreduce(&first, &globalFirst, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, s->comm);
    PMPI_Allreduce(&last, &globalLast, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, s->comm);
    global.globalOffset = globalFirst;
    global.traceLength = globalLast - globalFirst;
    global.programPath = s->programPath;
    // Per-rank event counts and host names.
    char host[64] = {0};
    std::snprintf(host, sizeof(host), "%s", hostName().c_str());
    std::vector<char> hosts(s->rank == 0 ? 64u * s->size : 0);
    std::vector<unsigned long long> counts(s->rank == 0 ? s->size : 0);
    unsigned long long myEvents = events;
    PMPI_Gather(host, 64, MPI_CHAR, hosts.data(), 64, MPI_CHAR, 0, s->comm);
    PMPI_Gather(&myEvents, 1, MPI_UNSIGNED_LONG_LONG, counts.data(), 1, MPI_UNSIGNED_LONG_LONG, 0,
                s->comm);
    Status globalStatus = Status::success();
    if (s->rank == 0) {
        for (int r = 0; r < s->size; ++r) {
            std::string name(&hosts[64u * r], strnlen(&hosts[64u * r], 64));
            auto it = std::find(global.nodeNames.begin(), global.nodeNames.end(), name);
            RankSummary summary;
            summary.events = counts[r];
            summary.nodeIndex = static_cast<std::uint32_t>(it - global.nodeNames.begin());
            if (it == global.nodeNames.end())
                global.nodeNames.push_back(name);
            global.ranks.push_back(summary);
        }
        global.regions = std::move(regions);
        global.comms = std::move(comms);
        globalStatus = s->writer.writeGlobalDefinitions(global);
    }
    Status closed = s->writer.close();
    struct stat info;
    std::string eventFile = s->directory + "/traces/" + std::to_string(s->rank) + ".evt";
    if (stat(eventFile.c_str(), &info) == 0)
        s->self.traceBytes = static_cast<std::uint64_t>(info.st_size);
    s->self.finalizeMeasurement = now() - leave;
    writeMeasurementRecord(*s, global);

    std::string status = "complete\n";
    for (const Status* st : {&local, &globalStatus, &closed})
        if (!st->ok()) {
            status = "incomplete: " + st->error().message() + "\n";
            warn("rank " + std::to_string(s->rank) + ": " + st->error().message());
        }
    if (!unified) {
        status = "incomplete: definitions could not be unified\n";
        warn("rank " + std::to_string(s->rank) + ": definitions could not be unified");
    }
    writeStatus(*s, status);
    if (s->config.verbose && s->rank == 0)
        std::fprintf(stderr, "waitscope: experiment written to '%s' (%.3f s at finalize)\n",
                     s->directory.c_str(), seconds(s->self.finalizeMeasurement));
    s->self.finalizeLeave = now();
}

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
    // This rank leaves alone: what it recorded goes into its OTF2 event file, spilled part first.
    encodeSpilledRecords(*s);
    s->writer.write(g_hot.buffer.begin, g_hot.buffer.cursor);
    g_hot.buffer.clear();
    s->writer.closeEventsAlone();
    writeStatus(*s, "incomplete: MPI_Abort with error code " + std::to_string(errorCode) + "\n");
}

} // namespace waitscope::measure
