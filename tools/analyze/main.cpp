// waitscope-analyze: measures an MPI run through its launcher, analyzes the traces, summarizes.
#include "child_process.h"
#include "compiler_instrumented.h"
#include "elf_needed.h"
#include "launch_command.h"

#include <algorithm>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sched.h>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>
#include <waitscope/cli/command_line.h>
#include <waitscope/cli/guarded_main.h>
#include <waitscope/summary/experiment_summary.h>
#include <waitscope/summary/measurement_record.h>

extern char** environ;

namespace {

using namespace waitscope;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct Options {
    std::string directory;
    std::string filter;
    bool profile = false;
    bool again = false;
    bool dryRun = false;
    bool quiet = false;
    bool timeCorrect = false;
    bool serial = false;
    bool llvmOpenmp = false;
    std::string memoryLimit; ///< passed on to waitscope-replay when given
    std::vector<std::string> command;
};

/// Our options come before the launcher; the launcher's and the program's are never read.
cli::CommandLine declareOptions(Options& options) {
    cli::CommandLine line("analyze");
    line.usage("[options] <launcher> [launcher options] <program> [arguments]")
        .usage("-a [--time-correct] <experiment dir> [<launcher> [options]]")
        .description(
            "Measures the program under mpirun, mpiexec or srun, analyzes its wait states with "
            "waitscope-replay on as many ranks, and writes report.cubex, trace.stat, summary.txt "
            "and summary.html into the experiment directory. Without a rank count (-np N) the "
            "launcher decides it and the analysis takes it from the trace. Analyzing again (-a) "
            "reuses the launcher and its options from the experiment's waitscope.command; a "
            "launcher with other options after the directory replaces them (e.g. -a DIR mpirun "
            "--oversubscribe). The analysis runs on one process per core of this machine, at "
            "most one per traced rank (each process replays a block of ranks, with the same "
            "report); a rank count after -a DIR (e.g. -a DIR mpirun -np 8) sets it.")
        .option("-e", "DIR", "experiment directory (default: waitscope_<program>_<ranks>)",
                options.directory)
        .option("-f", "FILTER", "measurement filter file (passed on as WAITSCOPE_FILTER)",
                options.filter)
        .flag("-t", "trace and analyze (the default)", options.profile, false)
        .flag("-p, --profile", "only a runtime profile: no trace, no analysis", options.profile)
        .flag("-a", "analyze an existing experiment again (nothing is measured)", options.again)
        .flag("-n", "print what would run, run nothing", options.dryRun)
        .flag("--time-correct",
              "correct clock condition violations before the analysis (suggested when the "
              "traces violate the clock condition; with -a to redo an analysis)",
              options.timeCorrect)
        .flag("--serial", "analyze in this one process, without the launcher (every rank a thread)",
              options.serial)
        .option("--memory-limit", "SIZE",
                "the memory each analysis process may use (512M, 2G, ...; none: no limit; "
                "passed on to waitscope-replay, whose default is half the machine's memory "
                "shared by its processes)",
                options.memoryLimit)
        .flag("-q", "quiet: no phase lines, no summary on the terminal", options.quiet)
        .flag("--llvm-openmp",
              "run the program's OpenMP on LLVM's libomp (preloaded), whose OMPT interface "
              "records the OpenMP events: for programs built with GCC, whose libgomp has none",
              options.llvmOpenmp)
        .passThrough("<launcher> ...",
                     "the launcher command line, or with -a the experiment directory and "
                     "optionally a launcher; everything from here on is the launcher's and the "
                     "program's (`--` before it when it starts with a dash)",
                     options.command);
    return line;
}

/// LLVM's OpenMP runtime (it implements GCC's GOMP_ entry points too), or "" when not found.
std::string llvmOpenmpRuntime() {
    std::error_code ec;
    for (const char* dir : {"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib"})
        if (fs::exists(fs::path(dir) / "libomp.so.5", ec))
            return (fs::path(dir) / "libomp.so.5").string();
    std::vector<fs::path> found;
    for (const auto& entry : fs::directory_iterator("/usr/lib", ec))
        if (entry.path().filename().string().rfind("llvm-", 0) == 0 &&
            fs::exists(entry.path() / "lib" / "libomp.so.5", ec))
            found.push_back(entry.path() / "lib" / "libomp.so.5");
    std::sort(found.begin(), found.end());
    return found.empty() ? std::string() : found.back().string();
}

fs::path binaryDirectory() {
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::path(".") : self.parent_path();
}

/// Runs `args` with extra environment `variables`, a progress line ticking on a terminal
/// while it runs when `label` is given; returns its exit code (128 + signal).
int run(const std::vector<std::string>& args,
        const std::vector<std::pair<std::string, std::string>>& variables,
        const std::string& label = {}) {
    return analysis::runChild(args, variables, "waitscope analyze", label);
}

double secondsSince(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

class Analyze {
public:
    explicit Analyze(Options options) : m_options(std::move(options)) {}

    int analyze() {
        if (m_options.again && !m_options.command.empty() && m_options.directory.empty() &&
            fs::is_directory(m_options.command[0])) {
            // A failed run's experiment: its trace (and record of the rank count) come first.
            const fs::path again(m_options.command[0]);
            if (!fs::exists(again / "traces.otf2") && fs::exists(again / "ranks")) {
                m_directory = again.string();
                m_bin = binaryDirectory();
                if (const int status = recover(); status != 0) {
                    return status;
                }
            }
            if (const int status = againFromExperiment(); status != 0) {
                return status;
            }
        } else if (m_options.again && m_options.command.size() == 1) {
            std::fprintf(stderr, "waitscope analyze: error: experiment directory '%s' not found\n",
                         m_options.command[0].c_str());
            return 1;
        } else {
            auto launch = analysis::parseLaunchCommand(m_options.command);
            if (!launch) {
                std::fprintf(stderr, "waitscope analyze: error: %s\n",
                             launch.error().message().c_str());
                return 2;
            }
            m_launch = *launch;
        }
        if (!analysis::findInPath(m_launch.launcher)) {
            std::fprintf(stderr, "waitscope analyze: error: launcher '%s' not found in PATH\n",
                         m_launch.launcher.c_str());
            return 2;
        }
        const std::string exe = fs::path(m_launch.program).filename().string();
        // Without a rank count the name gets it once the run has told it (see measure()).
        m_directory = !m_options.directory.empty() ? m_options.directory
                      : m_launch.ranks > 0
                          ? "waitscope_" + exe + "_" + std::to_string(m_launch.ranks)
                          : "waitscope_" + exe;
        m_directory = fs::absolute(m_directory).lexically_normal().string();
        m_bin = binaryDirectory();
        // Phases: measure (unless -a), analyze and summarize (unless --profile).
        m_steps = (m_options.again ? 0 : 1) + (m_options.profile ? 0 : 2);

        if (!m_options.again) {
            if (const int status = measure(); status != 0) {
                return status;
            }
        } else if (!fs::exists(fs::path(m_directory) / "traces.otf2") &&
                   fs::exists(fs::path(m_directory) / "ranks")) {
            // A failed run's experiment: recover its trace first.
            if (const int status = recover(); status != 0) {
                return status;
            }
        } else if (!fs::exists(fs::path(m_directory) / "traces.otf2")) {
            std::fprintf(stderr,
                         "waitscope analyze: error: %s: no traces.otf2 to analyze again (measure "
                         "first, without -a)\n",
                         m_directory.c_str());
            return 1;
        }
        if (m_options.profile) {
            if (!m_options.dryRun) {
                phase("runtime profile written to %s/profile.cubex (a profile has no trace to "
                      "analyze)",
                      m_directory.c_str());
                if (!m_options.quiet) {
                    std::printf("examine it: waitscope examine %s\n", m_directory.c_str());
                }
            }
            return 0;
        }
        if (const int status = replay(); status != 0) {
            return m_programStatus != 0 ? m_programStatus : status;
        }
        const int summarized = summarize();
        // A run that failed keeps its exit code; the report says what was lost.
        if (fs::exists(fs::path(m_directory) / "recovery.txt")) {
            const auto notes = recoveryNotes();
            std::fprintf(
                stderr,
                "waitscope analyze: the run failed, so this analysis covers only what its ranks "
                "left%s\n",
                notes.empty() ? "" : "; lost:");
            for (const std::string& note : notes) {
                std::fprintf(stderr, "waitscope analyze:   %s\n", note.c_str());
            }
        }
        return m_programStatus != 0 ? m_programStatus : summarized;
    }

private:
    /// `waitscope analyze -a DIR [launcher [options]]`: the launcher, its options and the rank
    /// count come from the experiment (waitscope.command, waitscope.measurement); a launcher
    /// given after DIR replaces the recorded one and its options.
    int againFromExperiment() {
        m_options.directory = m_options.command[0];
        const fs::path directory(m_options.directory);
        auto record =
            summary::MeasurementRecord::read((directory / "waitscope.measurement").string());
        const int traced = record ? record->ranks() : 0;
        std::vector<std::string> launcher(m_options.command.begin() + 1, m_options.command.end());
        if (launcher.empty()) {
            if (std::ifstream file(directory / summary::kCommandFile); file) {
                std::string line;
                std::getline(file, line);
                launcher = analysis::shellSplit(line);
            }
        }
        if (launcher.empty()) {
            launcher = {"mpirun"};
        }
        auto launch = analysis::parseLaunchCommand(launcher, analysis::ProgramRequired::No);
        if (!launch) {
            std::fprintf(stderr, "waitscope analyze: error: %s\n",
                         launch.error().message().c_str());
            return 2;
        }
        m_launch = *launch;
        // A rank count given with the launcher after the directory is the analysis's.
        if (m_options.command.size() > 1) {
            m_analysisProcesses = launch->ranks;
        }
        // The trace's rank count, from which the analysis's follows.
        if (traced > 0) {
            m_launch.ranks = traced;
        }
        if (m_launch.ranks <= 0) {
            std::fprintf(stderr,
                         "waitscope analyze: error: %s: no rank count in waitscope.measurement; "
                         "give the launcher with one after the directory, e.g. `waitscope analyze "
                         "-a %s mpirun -np 4`\n",
                         m_options.directory.c_str(), m_options.directory.c_str());
            return 1;
        }
        if (m_launch.program.empty() && record) {
            m_launch.program = record->text("program");
        }
        return 0;
    }

    /// "[2/3] " for the current phase, counting only the phases this run does.
    std::string step() {
        ++m_step;
        return m_steps > 1 ? "[" + std::to_string(m_step) + "/" + std::to_string(m_steps) + "] "
                           : "";
    }

    void phase(const char* format, ...) __attribute__((format(printf, 2, 3))) {
        if (m_options.quiet) {
            return;
        }
        va_list args;
        va_start(args, format);
        std::fputs("waitscope analyze: ", stderr);
        // va_start above initializes args; clang-analyzer 14 does not follow it through the
        // attribute-annotated variadic member.
        std::vfprintf(stderr, format, args); // NOLINT(clang-analyzer-valist.Uninitialized)
        std::fputc('\n', stderr);
        va_end(args);
    }

    int measure() {
        std::error_code ec;
        if (fs::exists(m_directory, ec)) {
            std::fprintf(stderr,
                         "waitscope analyze: error: experiment directory '%s' already exists; "
                         "remove it yourself, "
                         "choose another with -e DIR, or analyze it again with -a\n",
                         m_directory.c_str());
            return 1;
        }
        const auto program = analysis::findInPath(m_launch.program);
        if (!program) {
            std::fprintf(stderr,
                         "waitscope analyze: error: program '%s' not found or not executable\n",
                         m_launch.program.c_str());
            return 2;
        }
        std::vector<std::pair<std::string, std::string>> variables{
            {"WAITSCOPE_EXPERIMENT_DIRECTORY", m_directory}};
        if (!m_options.filter.empty()) {
            if (!fs::is_regular_file(m_options.filter, ec)) {
                std::fprintf(stderr, "waitscope analyze: error: filter file '%s' not found\n",
                             m_options.filter.c_str());
                return 2;
            }
            variables.emplace_back("WAITSCOPE_FILTER", fs::absolute(m_options.filter).string());
        }
        if (m_options.profile) {
            variables.emplace_back("WAITSCOPE_TRACING", "false");
            variables.emplace_back("WAITSCOPE_PROFILING", "true");
        }
        // A program not linked with the measurement library gets it preloaded.
        auto needed = analysis::neededLibraries(*program);
        bool linked = false;
        if (needed) {
            for (const std::string& library : *needed) {
                linked = linked || library.find("libwaitscope") != std::string::npos;
            }
        }
        std::string preload;
        if (m_options.llvmOpenmp) {
            const std::string libomp = llvmOpenmpRuntime();
            if (libomp.empty()) {
                std::fprintf(stderr, "waitscope analyze: error: --llvm-openmp: LLVM's OpenMP "
                                     "runtime (libomp.so.5, Debian package libomp5) not found\n");
                return 2;
            }
            preload = libomp;
        }
        if (!linked) {
            const fs::path library = (m_bin / ".." / "lib" / "libwaitscope.so").lexically_normal();
            if (!fs::exists(library, ec)) {
                std::fprintf(stderr,
                             "waitscope analyze: error: %s is not linked with libwaitscope.so and "
                             "%s is missing, so "
                             "it cannot be preloaded\n",
                             program->c_str(), library.string().c_str());
                return 2;
            }
            preload += (preload.empty() ? "" : ":") + library.string();
        }
        if (!preload.empty())
            variables.emplace_back("LD_PRELOAD", preload);
        // A Python program run with `python3 -m waitscope`: the package comes with the tools.
        const std::vector<std::string>& arguments = m_launch.programArguments;
        for (size_t i = 0; i + 1 < arguments.size(); ++i) {
            if (arguments[i] != "-m" || arguments[i + 1] != "waitscope")
                continue;
            std::string path =
                (m_bin / ".." / "share" / "waitscope" / "python").lexically_normal().string();
            if (const char* own = std::getenv("PYTHONPATH"); own && *own)
                path += std::string(":") + own;
            variables.emplace_back("PYTHONPATH", path);
            break;
        }
        // Without compiler instrumentation, call paths come from unwinding at MPI calls and
        // sampling (hybrid measurement); the user's own setting wins.
        if (const char* sampling = std::getenv("WAITSCOPE_SAMPLING"); sampling && *sampling)
            variables.emplace_back("WAITSCOPE_SAMPLING", sampling);
        else if (!analysis::isCompilerInstrumented(*program))
            variables.emplace_back("WAITSCOPE_SAMPLING", "true");
        const auto command = m_launch.commandLine(m_launch.exportOptions(variables),
                                                  m_launch.program, m_launch.programArguments);
        if (m_options.dryRun) {
            std::printf("measure:   %s\n", analysis::shellJoin(command).c_str());
            return 0;
        }
        const std::string label = step() + "measuring";
        const std::string ranks = m_launch.ranks > 0 ? std::to_string(m_launch.ranks) + " ranks"
                                                     : "the ranks the launcher starts";
        phase("%s %s (%s) into %s", label.c_str(), ranks.c_str(),
              linked ? "linked with libwaitscope" : "libwaitscope preloaded", m_directory.c_str());
        phase("      %s", analysis::shellJoin(command).c_str());
        const auto start = Clock::now();
        // When a rank fails, Open MPI's mpirun ends the others with SIGTERM and, a second
        // later, SIGKILL; on a loaded node a rank may not get to save its events in that
        // second. Give it three (mpirun waits them out even when the ranks are gone; the user's
        // setting wins).
        std::vector<std::pair<std::string, std::string>> launcherVariables;
        if (!std::getenv("OMPI_MCA_odls_base_sigkill_timeout")) {
            launcherVariables.emplace_back("OMPI_MCA_odls_base_sigkill_timeout", "3");
        }
        const int status = run(command, launcherVariables, m_options.quiet ? std::string() : label);
        phase("      measurement took %.2f s", secondsSince(start));
        if (status != 0) {
            const bool wrote = fs::exists(fs::path(m_directory) / "ranks", ec);
            if (!wrote || m_options.profile) {
                std::fprintf(
                    stderr,
                    "waitscope analyze: the program exited with code %d; analysis skipped\n",
                    status);
                return status;
            }
            // The ranks left their records (or the whole trace, failing after MPI_Finalize):
            // analyze what they hold, then pass the code on.
            m_programStatus = status;
            if (fs::exists(fs::path(m_directory) / "traces.otf2", ec)) {
                std::fprintf(stderr,
                             "waitscope analyze: the program exited with code %d after writing its "
                             "trace; analyzing it\n",
                             status);
            } else {
                std::fprintf(
                    stderr,
                    "waitscope analyze: the program exited with code %d; recovering the trace "
                    "from what its ranks left (%s/ranks)\n",
                    status, m_directory.c_str());
                if (const int recovered = recover(); recovered != 0) {
                    return status;
                }
            }
        }
        if (!fs::exists(fs::path(m_directory) / (m_options.profile ? "" : "traces.otf2"), ec)) {
            std::fprintf(
                stderr,
                "waitscope analyze: error: the run wrote no experiment to %s (was the measurement "
                "disabled, e.g. WAITSCOPE_ENABLE=false?); analysis skipped\n",
                m_directory.c_str());
            return 1;
        }
        std::ofstream(fs::path(m_directory) / summary::kCommandFile)
            << analysis::shellJoin(m_options.command) << '\n';
        if (m_launch.ranks <= 0) {
            return takeRankCount();
        }
        return 0;
    }

    /// After a run whose launcher chose the rank count: read it from the measurement record,
    /// and give the default experiment directory its usual name, waitscope_<program>_<ranks>.
    int takeRankCount() {
        auto record = summary::MeasurementRecord::read(
            (fs::path(m_directory) / "waitscope.measurement").string());
        if (!record || record->ranks() <= 0) {
            std::fprintf(stderr,
                         "waitscope analyze: error: %s/waitscope.measurement: no rank count; "
                         "analyze it with `waitscope analyze -a %s mpirun -np N`\n",
                         m_directory.c_str(), m_directory.c_str());
            return 1;
        }
        m_launch.ranks = record->ranks();
        phase("      the launcher started %d ranks", m_launch.ranks);
        if (m_options.directory.empty()) {
            const std::string named = m_directory + "_" + std::to_string(m_launch.ranks);
            std::error_code ec;
            if (!fs::exists(named, ec)) {
                fs::rename(m_directory, named, ec);
                if (!ec) {
                    m_directory = named;
                }
            }
        }
        return 0;
    }

    /// Runs `waitscope-recover` on the experiment; 0 when it wrote a trace.
    int recover() {
        const fs::path beside = m_bin / "waitscope-recover";
        const std::string program =
            access(beside.c_str(), X_OK) == 0 ? beside.string() : WAITSCOPE_BUILD_TREE_RECOVER;
        const int status = run({program, m_directory}, {});
        std::error_code ec;
        if (status != 0 || !fs::exists(fs::path(m_directory) / "traces.otf2", ec)) {
            std::fprintf(
                stderr, "waitscope analyze: nothing could be recovered from %s; analysis skipped\n",
                m_directory.c_str());
            return status != 0 ? status : 1;
        }
        return 0;
    }

    /// The lines of recovery.txt (what a failed run lost), empty when there is none.
    std::vector<std::string> recoveryNotes() const {
        std::vector<std::string> notes;
        std::ifstream in(fs::path(m_directory) / "recovery.txt");
        for (std::string line; std::getline(in, line);) {
            if (!line.empty()) {
                notes.push_back(line);
            }
        }
        return notes;
    }

    /// waitscope-replay beside this program (installed), else the one of the build tree.
    std::string replayPath() const {
        const fs::path beside = m_bin / "waitscope-replay";
        if (access(beside.c_str(), X_OK) == 0) {
            return beside.string();
        }
        return WAITSCOPE_BUILD_TREE_REPLAY;
    }

    /// The processes the analysis runs on: one per core this process may run on, at most one
    /// per traced rank (a process replays a block of ranks as threads; more processes than
    /// cores only take turns), unless the user gave a count after -a DIR.
    int analysisProcesses() const {
        if (m_analysisProcesses > 0) {
            return m_analysisProcesses;
        }
        int cores = 0;
        cpu_set_t set;
        if (sched_getaffinity(0, sizeof set, &set) == 0) {
            cores = CPU_COUNT(&set);
        }
        if (cores <= 0) {
            cores = static_cast<int>(std::thread::hardware_concurrency());
        }
        return std::max(1, std::min(m_launch.ranks, cores));
    }

    int replay() {
        std::vector<std::string> arguments;
        if (m_options.serial) {
            arguments.emplace_back("--serial");
        }
        if (m_options.quiet) {
            arguments.emplace_back("--quiet");
        }
        if (m_options.timeCorrect) {
            arguments.emplace_back("--time-correct");
        }
        if (!m_options.memoryLimit.empty()) {
            arguments.emplace_back("--memory-limit");
            arguments.push_back(m_options.memoryLimit);
        }
        arguments.push_back(m_directory);
        analysis::LaunchCommand launch = m_launch;
        // Without a rank count yet (a dry run whose launcher decides it) the launcher decides.
        launch.ranks = m_options.serial ? 1 : m_launch.ranks > 0 ? analysisProcesses() : 0;
        std::vector<std::string> command = launch.commandLine({}, replayPath(), arguments);
        if (m_options.serial) {
            command = arguments;
            command.insert(command.begin(), replayPath());
        }
        if (m_options.dryRun) {
            std::printf("analyze:   %s\n", analysis::shellJoin(command).c_str());
            return 0;
        }
        const std::string label = step() + "analyzing";
        if (launch.ranks == m_launch.ranks) {
            phase("%s the traces on %d ranks", label.c_str(), m_launch.ranks);
        } else {
            phase("%s the traces of %d ranks on %d process%s", label.c_str(), m_launch.ranks,
                  launch.ranks, launch.ranks == 1 ? "" : "es");
        }
        phase("      %s", analysis::shellJoin(command).c_str());
        const auto start = Clock::now();
        const int status = run(command, {}, m_options.quiet ? std::string() : label);
        phase("      analysis took %.2f s", secondsSince(start));
        if (status != 0) {
            std::fprintf(stderr,
                         "waitscope analyze: error: the analysis failed (waitscope-replay exit "
                         "code %d); the traces "
                         "in %s are kept\n",
                         status, m_directory.c_str());
            return status;
        }
        return 0;
    }

    int summarize() {
        if (m_options.dryRun) {
            std::printf("summarize: %s/summary.txt, %s/summary.html\n", m_directory.c_str(),
                        m_directory.c_str());
            return 0;
        }
        const auto start = Clock::now();
        phase("%ssummarizing", step().c_str());
        auto result = summary::summarizeExperiment(m_directory);
        if (!result) {
            std::fprintf(stderr, "waitscope analyze: error: %s\n",
                         result.error().message().c_str());
            return 1;
        }
        if (Status status = summary::writeSummaryFiles(*result, m_directory); !status) {
            std::fprintf(stderr, "waitscope analyze: error: %s\n",
                         status.error().message().c_str());
            return 1;
        }
        phase("      summary took %.2f s: %s/summary.txt, summary.html", secondsSince(start),
              m_directory.c_str());
        if (!m_options.quiet) {
            std::printf("\n%s", summary::renderText(*result).c_str());
            std::printf("\nexamine it: waitscope examine %s\n", m_directory.c_str());
        }
        return 0;
    }

    Options m_options;
    int m_steps = 3;
    int m_step = 0;
    int m_programStatus = 0; ///< the measured program's exit code when it failed
    analysis::LaunchCommand m_launch;
    int m_analysisProcesses = 0; ///< given after -a DIR; 0: analysisProcesses() decides
    std::string m_directory;
    fs::path m_bin;
};

} // namespace

// The command itself; main() only guards it.
static int runCommand(int argc, char** argv) {
    Options options;
    cli::CommandLine commandLine = declareOptions(options);
    if (auto exit = commandLine.parse(argc, argv))
        return *exit;
    if (options.command.empty())
        return commandLine.usageError("no launcher given (expected e.g. `mpirun -np 4 ./app`)");
    return Analyze(std::move(options)).analyze();
}

int main(int argc, char** argv) {
    return waitscope::cli::guardedMain("waitscope analyze", [&] { return runCommand(argc, argv); });
}
