// waitscope-examine: opens a report in waitscope-gui, or prints or writes its findings summary.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <waitscope/summary/experiment_summary.h>

namespace {

using namespace waitscope;
namespace fs = std::filesystem;

const char* const kUsage =
    "usage: waitscope examine <experiment dir | report.cubex> [--text | --html FILE | --gui]\n"
    "  --text       print the findings summary (the default without a display)\n"
    "  --html FILE  write the summary as a single-file HTML page\n"
    "  --gui        open the explorer (waitscope-gui; the default with a display)\n";

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

int main(int argc, char** argv) {
    Mode mode = Mode::Automatic;
    std::string path;
    std::string htmlFile;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--text") {
            mode = Mode::Text;
        } else if (arg == "--gui") {
            mode = Mode::Gui;
        } else if (arg == "--html" && i + 1 < argc) {
            mode = Mode::Html;
            htmlFile = argv[++i];
        } else if (arg == "-h" || arg == "--help") {
            std::fputs(kUsage, stdout);
            return 0;
        } else if (!arg.empty() && arg[0] != '-' && path.empty()) {
            path = arg;
        } else {
            std::fprintf(stderr, "waitscope examine: error: unexpected argument '%s'\n%s",
                         arg.c_str(), kUsage);
            return 2;
        }
    }
    if (path.empty()) {
        std::fputs(kUsage, stderr);
        return 2;
    }
    if (mode == Mode::Html) {
        auto summary = summary::summarizeExperiment(path);
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
        if (access(gui.c_str(), X_OK) == 0) {
            // Run the explorer as a child: if it cannot open the display (or fails otherwise),
            // the user still gets the findings, as text.
            std::fflush(stdout);
            pid_t child = fork();
            if (child == 0) {
                execl(gui.c_str(), gui.c_str(), path.c_str(), static_cast<char*>(nullptr));
                _exit(127);
            }
            int status = 0;
            if (child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) &&
                WEXITSTATUS(status) == 0)
                return 0;
            std::fprintf(
                stderr,
                "waitscope examine: the explorer (%s) could not run; printing the summary\n",
                gui.c_str());
        } else {
            std::fprintf(
                stderr,
                "waitscope examine: the explorer (%s) is not installed; printing the summary\n",
                gui.c_str());
        }
    }
    return printSummary(path);
}
