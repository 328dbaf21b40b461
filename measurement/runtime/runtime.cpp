// The measurement's lifecycle: init, buffer flushes, finalize, abort and fatal signals.
#include "waitscope/measure/runtime.h"

#include "profile_builder.h"
#include "trace_writer.h"
#include "unification.h"
#include "waitscope/base/executable_path.h"
#include "waitscope/measure/rank_definitions_file.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <mpi.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace waitscope::measure {

HotState g_hot;
Diagnostics g_diagnostics;
__thread bool t_onMainThread __attribute__((tls_model("initial-exec"))) = false;

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
    ProfileBuilder* profile = nullptr; ///< when WAITSCOPE_PROFILING is on
    std::vector<std::uint64_t> memory;
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
    int rank = 0;
    int size = 1;
    bool started = false;     ///< recording (user regions at least) since runtimeStart
    bool initialized = false; ///< runtimeInit ran
    bool measured = false;    ///< MPI_Init found a place for the experiment: all is recorded
    bool finalized = false;
    std::size_t pool = 0; ///< bytes of OTF2 chunk memory, part of WAITSCOPE_TOTAL_MEMORY
    std::uint64_t startNs = 0;
    MPI_Comm comm = MPI_COMM_NULL; ///< private duplicate of MPI_COMM_WORLD
    std::uint32_t flushRegion = 0;
    std::vector<ClockOffset> offsets;
    bool probeClock = true;        ///< this rank's clock may differ from rank 0's
    std::vector<char> probedRanks; ///< on rank 0: which ranks' offsets are measured
    SelfMeasurement self;
    std::uint64_t firstTime = 0;
    std::uint64_t lastTime = 0;
};

RuntimeState* g_state = nullptr;
std::atomic<bool> g_foreignWarned{false};
std::atomic<int> g_inSignal{0};
struct sigaction g_previous[32];
constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM};

bool writeAll(int fd, const void* data, size_t n);

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

/// Remembers the first failed write (errno, file) for the rank's status and warning.
void noteWriteError(RuntimeState& s, const std::string& path, int error) {
    if (s.writeErrno == 0) {
        s.writeErrno = error != 0 ? error : EIO;
        s.writeErrorPath = path;
    }
}

bool writeTextFile(const std::string& path, const std::string& text) {
    FILE* f = std::fopen(path.c_str(), "w");
    if (!f)
        return false;
    bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
    ok = std::fflush(f) == 0 && ok;
    return std::fclose(f) == 0 && ok;
}

/// writeTextFile that records a failure in the rank's state (its status and warning say it).
bool writeExperimentFile(RuntimeState& s, const std::string& path, const std::string& text) {
    errno = 0;
    if (writeTextFile(path, text))
        return true;
    noteWriteError(s, path, errno);
    return false;
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

/// With WAITSCOPE_OVERWRITE: removes what an earlier run wrote into `dir` (OTF2 refuses to
/// write an archive over an existing one), leaving other files alone. False, after a warning,
/// when something could not be removed.
bool removePreviousExperiment(const std::string& dir) {
    namespace fs = std::filesystem;
    std::error_code ec;
    for (const char* name : {"traces", "ranks"})
        if (fs::remove_all(fs::path(dir) / name, ec) == static_cast<std::uintmax_t>(-1) || ec)
            break;
    for (const char* name :
         {"traces.otf2", "traces.def", "profile.cubex", "waitscope.measurement", "waitscope.config",
          "report.cubex", "trace.stat", "summary.txt", "summary.html", "recovery.txt"})
        if (!ec)
            fs::remove(fs::path(dir) / name, ec);
    if (ec) {
        warn("cannot remove the previous experiment in '" + dir + "': " + ec.message() +
             "; the program runs unmeasured");
        return false;
    }
    return true;
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
            } else if (!removePreviousExperiment(dir)) {
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
    broadcastFromRoot(&verdict, 1, MPI_INT, s.comm);
    s.directory = dir;
    return verdict != 0;
}

std::string configDump(const Config& c) {
    std::string out = "# Waitscope configuration of this experiment\n";
    out += "WAITSCOPE_ENABLE=" + std::string(c.enabled ? "true" : "false") + "\n";
    out += "WAITSCOPE_TRACING=" + std::string(c.tracing ? "true" : "false") + "\n";
    out += "WAITSCOPE_PROFILING=" + std::string(c.profiling ? "true" : "false") + "\n";
    out += "WAITSCOPE_TOTAL_MEMORY=" + std::to_string(c.totalMemory) + "\n";
    out += "WAITSCOPE_MPI_GROUPS=" + mpiGroupNames(c.mpiGroups) + "\n";
    out += "WAITSCOPE_CLOCK=" + std::string(g_hot.clock.name()) + "\n";
    out += "WAITSCOPE_SAMPLING=" + std::string(c.sampling ? "true" : "false") + "\n";
    if (c.sampling)
        out += "WAITSCOPE_SAMPLING_FREQUENCY=" + std::to_string(c.samplingFrequency) + "\n";
    return out;
}

/// Ranks on rank 0's host read rank 0's clock (CLOCK_MONOTONIC, or an invariant TSC, is one
/// clock per host): only the others need their offset measured. Collective on s.comm.
void decideClockProbes(RuntimeState& s) {
    char rootHost[64] = {0};
    if (s.rank == 0)
        std::snprintf(rootHost, sizeof(rootHost), "%s", s.identity.host.c_str());
    broadcastFromRoot(rootHost, sizeof(rootHost), MPI_CHAR, s.comm);
    char mine[64] = {0};
    std::snprintf(mine, sizeof(mine), "%s", s.identity.host.c_str());
    const bool oneClock = !g_hot.clock.usesTsc() || hasInvariantTsc();
    s.probeClock = s.rank != 0 && !(oneClock && std::strncmp(rootHost, mine, 64) == 0);
    char probe = s.probeClock ? 1 : 0;
    s.probedRanks.assign(s.rank == 0 ? static_cast<size_t>(s.size) : 0, 0);
    gatherToRoot(&probe, s.probedRanks.data(), 1, MPI_CHAR, 1, s.comm);
}

/// Ping-pong with every rank from rank 0 whose clock may differ; each such rank keeps the
/// offset of its fastest round, and only if it exceeds that round's uncertainty (half its
/// round trip). The others record offset 0.
void measureClockOffset(RuntimeState& s) {
    constexpr int kRounds = 10;
    if (s.rank == 0) {
        for (int peer = 1; peer < s.size; ++peer) {
            if (!s.probedRanks[static_cast<size_t>(peer)])
                continue;
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
            best = significantOffset(best, deviation);
            PMPI_Send(&best, 1, MPI_INT64_T, peer, kOffsetTag, s.comm);
            PMPI_Send(&deviation, 1, MPI_DOUBLE, peer, kOffsetTag, s.comm);
        }
        s.offsets.push_back({now(), 0, 0.0});
        return;
    }
    if (!s.probeClock) {
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
// False when the data could not all be written (errno says why; ENOSPC for a short write).
bool writeAll(int fd, const void* data, size_t n) {
    const char* p = static_cast<const char*>(data);
    while (n > 0) {
        ssize_t w = ::write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = ENOSPC;
            return false;
        }
        p += w;
        n -= static_cast<size_t>(w);
    }
    return true;
}

/// Writes the rank's definitions file (a new one beside, then renamed over the old one, so a
/// rank killed meanwhile leaves the previous one whole). Signal-safe.
bool saveDefinitions(RuntimeState& s) {
    if (s.defsPath.empty())
        return true;
    int fd = ::open(s.defsTempPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return false;
    bool ok = writeRankDefinitions(fd, s.identity, s.defs);
    ok = ::close(fd) == 0 && ok;
    if (ok)
        ok = ::rename(s.defsTempPath.c_str(), s.defsPath.c_str()) == 0;
    else
        ::unlink(s.defsTempPath.c_str());
    return ok;
}

std::size_t definitionCount(const Definitions& defs) {
    return defs.regions().size() + defs.comms().size() + defs.callingContexts().size();
}

/// Saves the definitions when they grew since the last save (normal context).
void saveNewDefinitions(RuntimeState& s) {
    std::size_t n = definitionCount(s.defs);
    if (n == s.savedDefinitions)
        return;
    errno = 0;
    if (saveDefinitions(s))
        s.savedDefinitions = n;
    else
        noteWriteError(s, s.defsPath, errno);
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
        // The definitions the records refer to, for `waitscope recover`: first, since they are
        // small and without them no record can be used (mpirun follows its SIGTERM with a
        // SIGKILL, and a rank may not get to finish a large write in between).
        saveDefinitions(*g_state);
        // The records still in memory join the spilled ones: the spill file then holds the
        // rank's whole run in Waitscope's record layout (see event_buffer.h).
        int spill = g_state->spillFailed ? -1 : g_state->spillFd;
        if (spill < 0 && !g_state->spillFailed)
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

/// Moves records spilled before MPI_Init (to an unnamed file) into the rank's spill file.
void adoptEarlySpill(RuntimeState& s) {
    if (s.spillFd < 0)
        return;
    int named = ::open(s.spillPath.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_APPEND, 0644);
    if (named < 0)
        return; // keep the unnamed one: still encoded at finalize, only not salvageable
    char chunk[1 << 16];
    ::lseek(s.spillFd, 0, SEEK_SET);
    for (ssize_t n; (n = ::read(s.spillFd, chunk, sizeof(chunk))) > 0;)
        writeAll(named, chunk, static_cast<size_t>(n));
    ::close(s.spillFd);
    s.spillFd = named;
}

/// Gives the rank its spill file (taking over records spilled before MPI_Init).
Status openSpill(RuntimeState& s) {
    adoptEarlySpill(s);
    if (s.spillFd < 0)
        s.spillFd = ::open(s.spillPath.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_APPEND, 0644);
    if (s.spillFd < 0)
        return Error("cannot create '" + s.spillPath + "': " + std::strerror(errno));
    return Status::success();
}

/// Encodes the records spilled during the run into the OTF2 event file, reading them back in
/// pieces through the (now idle) event buffer, then removes the spill file.
void encodeSpilledRecords(RuntimeState& s) {
    if (s.spillFd < 0)
        return;
    // Whatever is still buffered goes last; keep it by spilling it too (unless records are
    // already missing before it: it would decode with a wrong time base).
    errno = 0;
    if (!s.spillFailed && !writeAll(s.spillFd, g_hot.buffer.begin, g_hot.buffer.usedBytes())) {
        noteWriteError(s, s.spillPath, errno);
        s.spillFailed = true;
        if (::ftruncate(s.spillFd, static_cast<off_t>(s.spilledBytes)) != 0)
            ++g_diagnostics.otf2Errors;
    }
    g_hot.buffer.clear();
    int fd = s.spillFd;
    s.spillFd = -1;
    ::lseek(fd, 0, SEEK_SET);
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
}

} // namespace

bool foreignThread() noexcept {
    if (pthread_equal(pthread_self(), g_hot.mainThread)) {
        t_onMainThread = true; // started on this thread after all (MPI_Init from another one)
        return true;
    }
    countFromAnyThread(g_diagnostics.foreignThreadCalls); // threads may call at once
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
    if (s->profile)
        s->profile->consume(b.begin, b.cursor);
    if (s->config.tracing) {
        if (s->spillFd < 0 && !s->spillPath.empty())
            s->spillFd = ::open(s->spillPath.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_APPEND, 0644);
        if (s->spillFd < 0 && s->spillPath.empty()) {
            // Before MPI_Init there is no experiment yet: an unnamed file keeps the records.
            char name[] = "/tmp/waitscope_early_XXXXXX";
            s->spillFd = mkstemp(name);
            if (s->spillFd >= 0)
                ::unlink(name);
        }
        errno = 0;
        if (s->spillFailed) {
            // Records after a gap would decode with a wrong time base: keep none of them.
            g_diagnostics.lostEvents += b.events - s->eventsAtLastFlush;
        } else if (s->spillFd >= 0 && writeAll(s->spillFd, b.begin, b.usedBytes())) {
            s->spilledBytes += b.usedBytes();
        } else if (s->spillFd >= 0) {
            noteWriteError(*s, s->spillPath, errno);
            g_diagnostics.lostEvents += b.events - s->eventsAtLastFlush;
            // The records file keeps only whole records: those of the flushes before.
            s->spillFailed = true;
            if (::ftruncate(s->spillFd, static_cast<off_t>(s->spilledBytes)) != 0)
                ++g_diagnostics.otf2Errors;
        } else {
            g_diagnostics.lostEvents += b.events - s->eventsAtLastFlush; // nowhere to keep them
        }
    }
    b.clear();
    s->eventsAtLastFlush = b.events;
    // The records just spilled may name definitions made since the last save.
    if (s->measured && !s->finalized)
        saveNewDefinitions(*s);
    std::uint64_t end = now();
    ++g_diagnostics.flushes;
    g_diagnostics.flushTicks += end - start;
    if (recordRegion) {
        appendRecord(start, EventKind::Enter, s->flushRegion);
        appendRecord(end, EventKind::Leave, s->flushRegion);
    }
}

namespace {
void finishRun(RuntimeState& state, std::uint64_t leave);
void finishSerialRunAtExit();
} // namespace

bool runtimeStart() noexcept {
    if (g_state)
        return g_state->started;
    auto* s = new RuntimeState();
    g_state = s;
    s->config = configFromEnvironment();
    if (!s->config.enabled || (!s->config.tracing && !s->config.profiling))
        return false;
    if (s->config.profiling)
        s->profile = new ProfileBuilder();
    std::uint64_t startNs = Clock::monotonicNs();
    g_hot.clock.init(s->config.clock);
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
    s->self.processStart = ticksAt(g_startMonotonicNs ? g_startMonotonicNs : startNs);
    s->firstTime = s->self.processStart;
    appendRecord(s->self.processStart, EventKind::ProgramBegin, 0);
    s->startNs = startNs;
    s->started = true;
    std::atexit(finishSerialRunAtExit);
    g_hot.mainThread = pthread_self();
    t_onMainThread = true;
    g_hot.recordMask = kGroupUser;
    return true;
}

void runtimeInit(std::uint32_t initRegion, std::uint64_t initEnter,
                 std::uint64_t initLeave) noexcept {
    if (g_state && g_state->initialized)
        return;
    bool started = runtimeStart();
    RuntimeState* s = g_state;
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

    // One clock rate for every rank: rank 0's calibration.
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
    decideClockProbes(*s);
    measureClockOffset(*s);
    if (s->config.signalHandlers)
        installSignalHandlers();
    std::atexit(noteExit);

    // MPI_Init as Score-P records it: the region, and the creation of the predefined comms.
    std::uint64_t leave = now();
    s->self.initMeasurement = ticksAt(Clock::monotonicNs()) - ticksAt(s->startNs);
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
        kFilteredCalls,
        kLostEvents,
        kSamples,
        kSamplesInMpi,
        kFailedUnwinds,
        kLostSamples,
        kUnwoundCalls,
        kContextRecords,
        kSampledThreads,
        kUnsampledThreads,
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
                                                    "skipped_tests",
                                                    "filtered_calls",
                                                    "lost_events",
                                                    "samples",
                                                    "samples_in_mpi",
                                                    "failed_unwinds",
                                                    "lost_samples",
                                                    "unwound_calls",
                                                    "context_records",
                                                    "sampled_threads",
                                                    "unsampled_threads"};
    // Counted by any thread that creates one.
    const std::uint64_t unsampled = std::atomic_ref<std::uint64_t>(g_diagnostics.unsampledThreads)
                                        .load(std::memory_order_relaxed);
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
                                static_cast<double>(g_diagnostics.skippedTests),
                                static_cast<double>(g_diagnostics.filteredCalls),
                                static_cast<double>(g_diagnostics.lostEvents),
                                static_cast<double>(g_diagnostics.samples),
                                static_cast<double>(g_diagnostics.samplesInMpi),
                                static_cast<double>(g_diagnostics.failedUnwinds),
                                static_cast<double>(g_diagnostics.lostSamples),
                                static_cast<double>(g_diagnostics.unwoundCalls),
                                static_cast<double>(g_diagnostics.contextRecords),
                                static_cast<double>(g_diagnostics.sampledThreads),
                                static_cast<double>(unsampled)};
    std::vector<double> all(s.rank == 0 ? static_cast<size_t>(kFieldCount) * s.size : 0);
    gatherToRoot(mine, all.data(), kFieldCount, MPI_DOUBLE, sizeof(double), s.comm);
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
    writeExperimentFile(s, s.directory + "/waitscope.measurement", out);
}

std::vector<std::uint32_t> mapIds(const DefinitionSet& global,
                                  const std::vector<std::string>& keys) {
    std::vector<std::uint32_t> map(keys.size());
    for (size_t i = 0; i < keys.size(); ++i)
        map[i] = static_cast<std::uint32_t>(global.find(keys[i]));
    return map;
}

/// Local communicator ids to global ones, which put parents first (commIdsParentsFirst).
std::vector<std::uint32_t> mapCommIds(const DefinitionSet& global,
                                      const std::vector<std::string>& keys) {
    std::vector<std::uint32_t> map = mapIds(global, keys);
    const std::vector<std::uint32_t> ids = commIdsParentsFirst(global);
    for (std::uint32_t& id : map)
        if (id < ids.size())
            id = ids[id];
    return map;
}

} // namespace

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

/// Ends the record stream at `leave` and writes everything: events, definitions, profile,
/// the self-measurement and the status. Collective on s.comm (none without MPI).
void finishRun(RuntimeState& state, std::uint64_t leave) {
    RuntimeState* s = &state;
    // The unwound call path still open ends before the user regions around it.
    if (g_hot.sampling) {
        ensureRoom(kMaxRecordWords);
        g_hot.sampling->beforeUserEvent();
        g_hot.sampling = nullptr;
        leave = std::max(leave, g_hot.buffer.lastTime);
    }
    // User regions still open (main, and what called MPI_Finalize) end here: the trace ends.
    for (std::uint32_t d = std::min(g_hot.userDepth, kUserStackDepth); d > 0; --d) {
        ensureRoom(kMaxRecordWords);
        recordLeave(leave, g_hot.userStack[d - 1]);
    }
    g_hot.userDepth = 0;
    appendRecord(leave, EventKind::ProgramEnd, kUnknownExit);
    g_hot.recordMask = 0;
    s->finalized = true;
    s->lastTime = leave;

    std::uint64_t writeStart = now();
    // Sampled threads' records (kept apart from the main thread's, each its own location).
    std::vector<ThreadRecords> threadRecords;
    if (sampledThreadRecords)
        threadRecords = sampledThreadRecords();
    std::vector<ProfileBuilder> threadProfiles;
    if (s->profile) {
        s->profile->consume(g_hot.buffer.begin, g_hot.buffer.cursor);
        s->profile->closeOpenRegions(leave);
        threadProfiles.resize(threadRecords.size());
        for (size_t k = 0; k < threadRecords.size(); ++k) {
            threadProfiles[k].consume(threadRecords[k].begin, threadRecords[k].end);
            threadProfiles[k].closeOpenRegions(leave);
        }
    }
    std::uint64_t events = g_hot.buffer.events;
    Status archive = Status::success();
    bool writeTrace = s->config.tracing;
    if (writeTrace) {
        // Opening the archive is collective: every rank learns whether all could.
        archive = s->writer.open(s->directory, s->rank, s->pool, s->comm);
        int ok = archive.ok() ? 1 : 0, allOk = 0;
        reduceToAll(&ok, &allOk, 1, MPI_INT, sizeof(int), MPI_MIN, s->comm);
        writeTrace = allOk != 0;
        if (!writeTrace && archive.ok())
            archive = Error("another rank could not open the trace archive");
        if (!writeTrace)
            s->writer.abandon();
    }
    std::vector<ThreadLocation> threads; // sampled threads: each its own location
    if (writeTrace) {
        encodeSpilledRecords(*s);
        s->writer.write(g_hot.buffer.begin, g_hot.buffer.cursor);
        events = s->writer.eventsWritten();
        for (const ThreadRecords& t : threadRecords)
            threads.push_back({t.number, s->writer.writeThread(t.number, t.begin, t.end)});
    }
    g_hot.buffer.clear();
    s->self.finalizeWrite = now() - writeStart;
    measureClockOffset(*s);

    // Host names, for the system trees of trace and profile.
    char host[64] = {0};
    std::snprintf(host, sizeof(host), "%s", hostName().c_str());
    std::vector<char> hosts(s->rank == 0 ? 64u * s->size : 0);
    gatherToRoot(host, hosts.data(), 64, MPI_CHAR, 1, s->comm);
    std::vector<std::string> hostNames;
    for (int r = 0; s->rank == 0 && r < s->size; ++r)
        hostNames.emplace_back(&hosts[64u * r], strnlen(&hosts[64u * r], 64));

    GlobalDefinitions global;
    global.programPath = s->programPath;
    Status local = Status::success();
    Status globalStatus = Status::success();
    bool unified = true;
    if (writeTrace) {
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
        DefinitionSet contexts;
        std::vector<std::string> contextKeys;
        for (std::uint32_t c = 0; c < s->defs.callingContexts().size(); ++c) {
            contextKeys.push_back(callingContextKey(s->defs, c));
            contexts.add(contextKeys.back(), {});
        }
        unified = unifyDefinitionSet(regions, s->comm, kUnifyTag);
        unified = unifyDefinitionSet(comms, s->comm, kUnifyTag) && unified;
        unified = unifyDefinitionSet(contexts, s->comm, kUnifyTag) && unified;
        local = s->writer.writeLocalDefinitions(mapIds(regions, regionKeys),
                                                mapCommIds(comms, commKeys),
                                                mapIds(contexts, contextKeys), s->offsets);
        global.ticksPerSecond = g_hot.clock.ticksPerSecond();
        unsigned long long first = s->firstTime, last = s->lastTime, globalFirst = 0,
                           globalLast = 0;
        reduceToAll(&first, &globalFirst, 1, MPI_UNSIGNED_LONG_LONG, sizeof(first), MPI_MIN,
                    s->comm);
        reduceToAll(&last, &globalLast, 1, MPI_UNSIGNED_LONG_LONG, sizeof(last), MPI_MAX, s->comm);
        global.globalOffset = globalFirst;
        global.traceLength = globalLast - globalFirst;
        std::vector<unsigned long long> counts(s->rank == 0 ? s->size : 0);
        unsigned long long myEvents = events;
        gatherToRoot(&myEvents, counts.data(), 1, MPI_UNSIGNED_LONG_LONG, sizeof(myEvents),
                     s->comm);
        // Every rank's thread locations (number, events), for the global location list.
        std::vector<unsigned long long> myThreads;
        for (const ThreadLocation& t : threads) {
            myThreads.push_back(t.number);
            myThreads.push_back(t.events);
        }
        std::vector<std::vector<unsigned long long>> allThreads =
            gatherVariableToRoot(myThreads, s->comm);
        if (s->rank == 0) {
            for (int r = 0; r < s->size; ++r) {
                const std::string& name = hostNames[static_cast<size_t>(r)];
                auto it = std::find(global.nodeNames.begin(), global.nodeNames.end(), name);
                RankSummary summary;
                summary.events = counts[r];
                summary.nodeIndex = static_cast<std::uint32_t>(it - global.nodeNames.begin());
                const std::vector<unsigned long long>& rankThreads = allThreads[r];
                for (size_t k = 0; k + 1 < rankThreads.size(); k += 2)
                    summary.threads.push_back(
                        {static_cast<std::uint32_t>(rankThreads[k]), rankThreads[k + 1]});
                if (it == global.nodeNames.end())
                    global.nodeNames.push_back(name);
                global.ranks.push_back(summary);
            }
            global.regions = std::move(regions);
            global.comms = std::move(comms);
            global.contexts = std::move(contexts);
            if (s->config.sampling)
                global.samplingPeriodNs = 1000000000ull / s->config.samplingFrequency;
            globalStatus = s->writer.writeGlobalDefinitions(global);
        }
    }
    Status profiled = Status::success();
    if (s->profile) {
        std::string program = s->programPath.substr(s->programPath.find_last_of('/') + 1);
        std::vector<ThreadProfile> threadLocations;
        for (size_t k = 0; k < threadProfiles.size(); ++k)
            threadLocations.push_back({threadRecords[k].number, &threadProfiles[k]});
        profiled = s->profile->write(s->directory + "/profile.cubex", s->defs.regions(),
                                     static_cast<double>(g_hot.clock.ticksPerSecond()), s->comm,
                                     hostNames, program, threadLocations);
    }
    Status closed = s->writer.close(); // nothing to close without a trace
    struct stat info;
    std::string eventFile = s->directory + "/traces/" + std::to_string(s->rank) + ".evt";
    if (stat(eventFile.c_str(), &info) == 0)
        s->self.traceBytes = static_cast<std::uint64_t>(info.st_size);
    s->self.finalizeMeasurement = now() - leave;
    writeMeasurementRecord(*s, global);

    std::string status = "complete\n";
    // A full disk is said once below, plainly, not as each OTF2 call that it made fail.
    const bool diskFull = g_diagnostics.otf2Errors > 0 && firstOtf2Error() == OTF2_ERROR_ENOSPC;
    for (const Status* st : {&archive, &local, &globalStatus, &closed, &profiled})
        if (!st->ok()) {
            status = "incomplete: " + st->error().message() + "\n";
            if (!diskFull)
                warn("rank " + std::to_string(s->rank) + ": " + st->error().message());
        }
    if (!unified) {
        status = "incomplete: definitions could not be unified\n";
        warn("rank " + std::to_string(s->rank) + ": definitions could not be unified");
    }
    // OTF2 counts its failed writes; the first one says why (a full disk, mostly).
    if (g_diagnostics.otf2Errors > 0 && writeTrace) {
        std::string why = firstOtf2Error() == OTF2_ERROR_ENOSPC
                              ? "no space left on device"
                              : OTF2_Error_GetDescription(firstOtf2Error());
        std::string text = why + " writing the trace in '" + s->directory + "' (" +
                           std::to_string(g_diagnostics.otf2Errors) + " failed OTF2 calls)";
        status = "incomplete: " + text + "\n";
        warn("rank " + std::to_string(s->rank) + ": " + text + "; the trace is incomplete");
    }
    if (s->writeErrno != 0) {
        std::string why = std::strerror(s->writeErrno);
        if (!why.empty())
            why[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(why[0])));
        std::string text = why + " writing '" + s->writeErrorPath + "'";
        status = "incomplete: " + text + "\n";
        warn("rank " + std::to_string(s->rank) + ": " + text + "; the experiment is incomplete");
    }
    writeStatus(*s, status);
    // A trace that lost writes is not an OTF2 archive any tool should read: without its anchor
    // the experiment is one of a failed run, which `waitscope recover` reads from the records
    // (kept below) once there is room again.
    int failedWrite = (s->writeErrno != 0 || (g_diagnostics.otf2Errors > 0 && writeTrace)) ? 1 : 0;
    int anyFailedWrite = 0;
    reduceToAll(&failedWrite, &anyFailedWrite, 1, MPI_INT, sizeof(int), MPI_MAX, s->comm);
    if (anyFailedWrite && s->rank == 0) {
        ::unlink((s->directory + "/traces.otf2").c_str());
        warn("the trace in '" + s->directory +
             "' is incomplete and was not finished; run `waitscope recover " + s->directory +
             "` when there is room again");
    }
    // A complete trace no longer needs the rank's records and definitions.
    if (status == "complete\n") {
        if (!s->spillPath.empty())
            ::unlink(s->spillPath.c_str());
        if (!s->defsPath.empty())
            ::unlink(s->defsPath.c_str());
    }
    if (s->config.verbose && s->rank == 0)
        std::fprintf(stderr, "waitscope: experiment written to '%s' (%.3f s at finalize)\n",
                     s->directory.c_str(), seconds(s->self.finalizeMeasurement));
    s->self.finalizeLeave = now();
}

/// A program that never initialized MPI (built with `waitscope instrument --nompi`, or a
/// serial tool): at exit this process finishes the run alone, as rank 0 of 1, with no MPI call.
void finishSerialRunAtExit() {
    RuntimeState* s = g_state;
    if (!s || !s->started || s->initialized || s->finalized)
        return;
    s->initialized = true;
    g_hot.recordMask = 0;
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
    if (s->spillFd >= 0) {
        if (!s->spillFailed)
            writeAll(s->spillFd, g_hot.buffer.begin, g_hot.buffer.usedBytes());
        ::close(s->spillFd);
        s->spillFd = -1;
    }
    g_hot.buffer.clear();
    saveDefinitions(*s);
    writeStatus(*s, "incomplete: MPI_Abort with error code " + std::to_string(errorCode) + "\n");
}

} // namespace waitscope::measure
