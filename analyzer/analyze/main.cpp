// waitscope-analyze: measures an MPI run through its launcher, analyzes the traces, summarizes.
#include "compiler_instrumented.h"
#include "elf_needed.h"
#include "launch_command.h"

#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>
#include <waitscope/summary/experiment_summary.h>
#include <waitscope/summary/measurement_record.h>

extern char** environ;

namespace {

using namespace waitscope;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

const char* const kUsage =
    "usage: waitscope analyze [options] <launcher> [launcher options] <program> [arguments]\n"
    "       waitscope analyze -a <experiment dir>\n"
    "Measures the program under mpirun, mpiexec or srun, analyzes its wait states with\n"
    "waitscope-replay on as many ranks, and writes report.cubex, trace.stat, summary.txt and\n"
    "summary.html into the experiment directory.\n"
    "options:\n"
    "  -e DIR      experiment directory (default: waitscope_<program>_<ranks>)\n"
    "  -f FILTER   measurement filter file (passed on as WAITSCOPE_FILTER)\n"
    "  -t          trace and analyze (the default)\n"
    "  --profile   only a runtime profile: no trace, no analysis\n"
    "  -a          analyze an existing experiment again (nothing is measured)\n"
    "  -n          print what would run, run nothing\n"
    "  --time-correct  correct clock condition violations before the analysis (suggested\n"
    "              when the traces violate the clock condition; with -a to redo an analysis)\n"
    "  -q          quiet: no phase lines, no summary on the terminal\n";

struct Options {
    std::string directory;
    std::string filter;
    bool profile = false;
    bool again = false;
    bool dryRun = false;
    bool quiet = false;
    bool timeCorrect = false;
    std::vector<std::string> command;
};

/// Parses our options up to the launcher; returns false on a usage error (already printed).
bool parseOptions(int argc, char** argv, Options& options) {
    int i = 1;
    for (; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg.empty() || arg[0] != '-') {
            break;
        }
        if (arg == "-e" || arg == "-f") {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "error: option %s needs a value\n%s", arg.c_str(), kUsage);
                return false;
            }
            (arg == "-e" ? options.directory : options.filter) = argv[++i];
        } else if (arg == "-t") {
            options.profile = false;
        } else if (arg == "--profile" || arg == "-p") {
            options.profile = true;
        } else if (arg == "-a") {
            options.again = true;
        } else if (arg == "-n") {
            options.dryRun = true;
        } else if (arg == "-q") {
            options.quiet = true;
        } else if (arg == "--time-correct") {
            options.timeCorrect = true;
        } else if (arg == "-h" || arg == "--help") {
            std::fputs(kUsage, stdout);
            std::exit(0);
        } else {
            std::fprintf(stderr, "error: unknown option %s\n%s", arg.c_str(), kUsage);
            return false;
        }
    }
    options.command.assign(argv + i, argv + argc);
    return true;
}

fs::path binaryDirectory() {
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::path(".") : self.parent_path();
}

/// Runs `args` with extra environment `variables`; returns its exit code (128 + signal).
int run(const std::vector<std::string>& args,
        const std::vector<std::pair<std::string, std::string>>& variables) {
    std::fflush(stdout);
    std::fflush(stderr);
    const pid_t pid = fork();
    if (pid < 0) {
        std::perror("waitscope: fork");
        return 127;
    }
    if (pid == 0) {
        for (const auto& [name, value] : variables) {
            setenv(name.c_str(), value.c_str(), 1);
        }
        std::vector<char*> argv;
        for (const std::string& a : args) {
            argv.push_back(const_cast<char*>(a.c_str()));
        }
        argv.push_back(nullptr);
        execvp(argv[0], argv.data());
        std::fprintf(stderr, "error: cannot run %s\n", args[0].c_str());
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
    }
    if (WIFSIGNALED(status)) {
        return 128 + WTERMSIG(status);
    }
    return WEXITSTATUS(status);
}

double secondsSince(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

class Analyze {
public:
    explicit Analyze(Options options) : m_options(std::move(options)) {}

    int main() {
        if (m_options.again && m_options.command.size() == 1 && m_options.directory.empty() &&
            fs::is_directory(m_options.command[0])) {
            // `waitscope analyze -a DIR`: the launcher and rank count come from the experiment.
            m_options.directory = m_options.command[0];
            // A failed run's experiment: its trace (and record of the rank count) come first.
            if (!fs::exists(fs::path(m_options.directory) / "traces.otf2") &&
                fs::exists(fs::path(m_options.directory) / "ranks")) {
                m_directory = m_options.directory;
                m_bin = binaryDirectory();
                if (const int status = recover(); status != 0) {
                    return status;
                }
            }
            auto record = summary::MeasurementRecord::read(
                (fs::path(m_options.directory) / "waitscope.measurement").string());
            if (!record || record->ranks() <= 0) {
                std::fprintf(stderr,
                             "error: %s: no rank count in waitscope.measurement; give the "
                             "launcher command line, e.g. `waitscope analyze -a -e %s mpirun "
                             "-np 4 ./app`\n",
                             m_options.directory.c_str(), m_options.directory.c_str());
                return 1;
            }
            m_options.command = {"mpirun", "-np", std::to_string(record->ranks()),
                                 record->text("program")};
        }
        if (m_options.again && m_options.command.size() == 1 &&
            !fs::is_directory(m_options.command[0])) {
            std::fprintf(stderr, "error: experiment directory '%s' not found\n",
                         m_options.command[0].c_str());
            return 1;
        }
        auto launch = analysis::parseLaunchCommand(m_options.command);
        if (!launch) {
            std::fprintf(stderr, "error: %s\n%s", launch.error().message().c_str(),
                         m_options.command.empty() ? kUsage : "");
            return 2;
        }
        m_launch = *launch;
        if (!analysis::findInPath(m_launch.launcher)) {
            std::fprintf(stderr, "error: launcher '%s' not found in PATH\n",
                         m_launch.launcher.c_str());
            return 2;
        }
        const std::string exe = fs::path(m_launch.program).filename().string();
        m_directory = m_options.directory.empty()
                          ? "waitscope_" + exe + "_" + std::to_string(m_launch.ranks)
                          : m_options.directory;
        m_directory = fs::absolute(m_directory).lexically_normal().string();
        m_bin = binaryDirectory();

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
                         "error: %s: no traces.otf2 to analyze again (measure first, without "
                         "-a)\n",
                         m_directory.c_str());
            return 1;
        }
        if (m_options.profile) {
            phase("runtime profile written to %s (no trace analysis for --profile)",
                  m_directory.c_str());
            return 0;
        }
        if (const int status = replay(); status != 0) {
            return m_programStatus != 0 ? m_programStatus : status;
        }
        const int summarized = summarize();
        // A run that failed keeps its exit code; the report says what was lost.
        if (fs::exists(fs::path(m_directory) / "recovery.txt")) {
            const auto notes = recoveryNotes();
            std::fprintf(stderr,
                         "waitscope: the run failed, so this analysis covers only what its ranks "
                         "left%s\n",
                         notes.empty() ? "" : "; lost:");
            for (const std::string& note : notes) {
                std::fprintf(stderr, "waitscope:   %s\n", note.c_str());
            }
        }
        return m_programStatus != 0 ? m_programStatus : summarized;
    }

private:
    void phase(const char* format, ...) __attribute__((format(printf, 2, 3))) {
        if (m_options.quiet) {
            return;
        }
        va_list args;
        va_start(args, format);
        std::fputs("waitscope: ", stderr);
        std::vfprintf(stderr, format, args);
        std::fputc('\n', stderr);
        va_end(args);
    }

    int measure() {
        std::error_code ec;
        if (fs::exists(m_directory, ec)) {
            std::fprintf(stderr,
                         "error: experiment directory '%s' already exists; remove it yourself, "
                         "choose another with -e DIR, or analyze it again with -a\n",
                         m_directory.c_str());
            return 1;
        }
        const auto program = analysis::findInPath(m_launch.program);
        if (!program) {
            std::fprintf(stderr, "error: program '%s' not found or not executable\n",
                         m_launch.program.c_str());
            return 2;
        }
        std::vector<std::pair<std::string, std::string>> variables{
            {"WAITSCOPE_EXPERIMENT_DIRECTORY", m_directory}};
        if (!m_options.filter.empty()) {
            if (!fs::is_regular_file(m_options.filter, ec)) {
                std::fprintf(stderr, "error: filter file '%s' not found\n",
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
        if (!linked) {
            const fs::path library = (m_bin / ".." / "lib" / "libwaitscope.so").lexically_normal();
            if (!fs::exists(library, ec)) {
                std::fprintf(stderr,
                             "error: %s is not linked with libwaitscope.so and %s is missing, so "
                             "it cannot be preloaded\n",
                             program->c_str(), library.string().c_str());
                return 2;
            }
            variables.emplace_back("LD_PRELOAD", library.string());
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
        phase("[1/3] measuring %d ranks (%s) into %s", m_launch.ranks,
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
        const int status = run(command, launcherVariables);
        phase("      measurement took %.2f s", secondsSince(start));
        if (status != 0) {
            const bool wrote = fs::exists(fs::path(m_directory) / "ranks", ec);
            if (!wrote || m_options.profile) {
                std::fprintf(stderr,
                             "waitscope: the program exited with code %d; analysis skipped\n",
                             status);
                return status;
            }
            // The ranks left their records (or the whole trace, failing after MPI_Finalize):
            // analyze what they hold, then pass the code on.
            m_programStatus = status;
            if (fs::exists(fs::path(m_directory) / "traces.otf2", ec)) {
                std::fprintf(stderr,
                             "waitscope: the program exited with code %d after writing its "
                             "trace; analyzing it\n",
                             status);
            } else {
                std::fprintf(stderr,
                             "waitscope: the program exited with code %d; recovering the trace "
                             "from what its ranks left (%s/ranks)\n",
                             status, m_directory.c_str());
                if (const int recovered = recover(); recovered != 0) {
                    return status;
                }
            }
        }
        if (!fs::exists(fs::path(m_directory) / (m_options.profile ? "" : "traces.otf2"), ec)) {
            std::fprintf(stderr,
                         "error: the run wrote no experiment to %s (was the measurement "
                         "disabled, e.g. WAITSCOPE_ENABLE=false?); analysis skipped\n",
                         m_directory.c_str());
            return 1;
        }
        std::ofstream commandFile(fs::path(m_directory) / summary::kCommandFile);
        commandFile << analysis::shellJoin(m_options.command) << '\n';
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
            std::fprintf(stderr,
                         "waitscope: nothing could be recovered from %s; analysis skipped\n",
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

    int replay() {
        std::vector<std::string> arguments;
        if (m_options.quiet) {
            arguments.push_back("--quiet");
        }
        if (m_options.timeCorrect) {
            arguments.push_back("--time-correct");
        }
        arguments.push_back(m_directory);
        const auto command = m_launch.commandLine({}, replayPath(), arguments);
        if (m_options.dryRun) {
            std::printf("analyze:   %s\n", analysis::shellJoin(command).c_str());
            return 0;
        }
        phase("[2/3] analyzing the traces on %d ranks", m_launch.ranks);
        phase("      %s", analysis::shellJoin(command).c_str());
        const auto start = Clock::now();
        const int status = run(command, {});
        phase("      analysis took %.2f s", secondsSince(start));
        if (status != 0) {
            std::fprintf(stderr,
                         "error: the analysis failed (waitscope-replay exit code %d); the traces "
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
        phase("[3/3] summarizing");
        auto result = summary::summarizeExperiment(m_directory);
        if (!result) {
            std::fprintf(stderr, "error: %s\n", result.error().message().c_str());
            return 1;
        }
        if (Status status = summary::writeSummaryFiles(*result, m_directory); !status) {
            std::fprintf(stderr, "error: %s\n", status.error().message().c_str());
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
    int m_programStatus = 0; ///< the measured program's exit code when it failed
    analysis::LaunchCommand m_launch;
    std::string m_directory;
    fs::path m_bin;
};

} // namespace

int main(int argc, char** argv) {
    Options options;
    if (!parseOptions(argc, argv, options)) {
        return 2;
    }
    if (options.command.empty()) {
        std::fputs(kUsage, stderr);
        return 2;
    }
    return Analyze(std::move(options)).main();
}
