// The experiment directory: where the run goes, and its configuration and status files.
#include "experiment_directory.h"

#include "runtime_state.h"
#include "unification.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <sys/stat.h>

namespace waitscope::measure {

namespace {

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

} // namespace

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

void writeStatus(RuntimeState& s, const std::string& text) {
    if (!s.statusPath.empty())
        writeTextFile(s.statusPath, text);
}

} // namespace waitscope::measure
