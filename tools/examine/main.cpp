// waitscope-examine: opens a report in waitscope-gui, or prints or writes its findings summary.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>
#include <waitscope/cli/command_line.h>
#include <waitscope/cli/guarded_main.h>
#include <waitscope/report/experiment_report.h>
#include <waitscope/summary/experiment_summary.h>

namespace {

using namespace waitscope;
namespace fs = std::filesystem;

enum class Mode { Automatic, Text, Html, Gui };

bool hasDisplay() {
    const char* x11 = std::getenv("DISPLAY");
    const char* wayland = std::getenv("WAYLAND_DISPLAY");
    return (x11 != nullptr && *x11 != '\0') || (wayland != nullptr && *wayland != '\0');
}

fs::path binaryDirectory() {
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::path(".") : self.parent_path();
}

// Runs the explorer on `report` with `options` and waits for it; true if it ran and exited
// with 0. It prints its own errors (naming a display it cannot open).
bool runExplorer(const fs::path& gui, const std::string& report,
                 const std::vector<std::string>& options) {
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(gui.c_str()));
    argv.push_back(const_cast<char*>(report.c_str()));
    for (const std::string& option : options)
        argv.push_back(const_cast<char*>(option.c_str()));
    argv.push_back(nullptr);
    std::fflush(stdout);
    std::fflush(stderr);
    pid_t child = fork();
    if (child == 0) {
        execv(gui.c_str(), argv.data());
        _exit(127);
    }
    int status = 0;
    return child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) &&
           WEXITSTATUS(status) == 0;
}

int printSummary(const std::string& path) {
    auto summary = summary::summarizeExperiment(path);
    if (!summary) {
        std::fprintf(stderr, "waitscope examine: error: %s\n", summary.error().message().c_str());
        return 1;
    }
    std::fputs(summary::renderText(*summary).c_str(), stdout);
    return 0;
}

} // namespace

// The command itself; main() only guards it.
static int runCommand(int argc, char** argv) {
    Mode mode = Mode::Automatic;
    std::string path;
    std::string htmlFile;
    std::vector<std::string> explorerOptions;
    bool screenshot = false;
    cli::CommandLine commandLine("examine");
    commandLine.usage("<experiment dir | report.cubex> [--text | --html FILE | --gui]")
        .usage("<experiment dir | report.cubex> [--screenshot FILE] [-- explorer options]")
        .flag("--text", "print the findings summary (the default without a display)",
              [&] { mode = Mode::Text; })
        .option("--html", "FILE", "write the summary as a single-file HTML page",
                [&](const std::string& file) {
                    mode = Mode::Html;
                    htmlFile = file;
                    return Status::success();
                })
        .flag("--gui", "open the explorer (waitscope-gui; the default with a display)",
              [&] { mode = Mode::Gui; })
        .option("--screenshot", "FILE",
                "open the explorer, save its window as a PNG picture and exit",
                [&](const std::string& file) {
                    mode = Mode::Gui;
                    screenshot = true;
                    explorerOptions.insert(explorerOptions.end(), {"--screenshot", file});
                    return Status::success();
                })
        .positional("PATH", "an experiment directory or a .cubex report", path)
        .afterSeparator("OPTIONS", "pass the rest to the explorer (see waitscope-gui --help)",
                        [&](std::vector<std::string> rest) {
                            mode = mode == Mode::Automatic ? Mode::Gui : mode;
                            explorerOptions.insert(explorerOptions.end(), rest.begin(), rest.end());
                        })
        .note("An experiment directory opens its most complete report: report.cubex, Scalasca's "
              "trace.cubex, scout.cubex or summary.cubex, or a profile.cubex.");
    if (auto exit = commandLine.parse(argc, argv))
        return *exit;
    // The same report in the explorer and in the summary, Waitscope's or Scalasca's.
    auto located = report::locateExperimentReport(path);
    if (!located) {
        std::fprintf(stderr, "waitscope examine: error: %s\n", located.error().message().c_str());
        return 1;
    }
    const std::string& reportFile = *located;
    if (mode == Mode::Html) {
        auto summary = summary::summarizeExperiment(reportFile);
        if (!summary) {
            std::fprintf(stderr, "waitscope examine: error: %s\n",
                         summary.error().message().c_str());
            return 1;
        }
        std::ofstream out(htmlFile, std::ios::binary);
        out << summary::renderHtml(*summary);
        if (!out) {
            std::fprintf(stderr, "waitscope examine: error: %s: cannot write\n", htmlFile.c_str());
            return 1;
        }
        std::fprintf(stderr, "waitscope examine: summary written to %s\n", htmlFile.c_str());
        return 0;
    }
    if (mode == Mode::Gui || (mode == Mode::Automatic && hasDisplay())) {
        const fs::path gui = binaryDirectory() / "waitscope-gui";
        if (access(gui.c_str(), X_OK) != 0) {
            std::fprintf(
                stderr,
                "waitscope examine: the explorer (%s) is not installed; printing the summary\n",
                gui.c_str());
        } else if (runExplorer(gui, reportFile, explorerOptions)) {
            return 0;
        } else if (screenshot) {
            return 1; // a script asked for the picture: the explorer said why it failed
        } else {
            // The explorer could not open the display (or failed otherwise): the user still
            // gets the findings, as text.
            std::fprintf(stderr,
                         "waitscope examine: the explorer could not run; printing the summary\n");
        }
    }
    return printSummary(reportFile);
}

int main(int argc, char** argv) {
    return waitscope::cli::guardedMain("waitscope examine", [&] { return runCommand(argc, argv); });
}
