// waitscope-export: writes an experiment in formats other tools open.
#include "chrome_trace.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

namespace {

const char* const kUsage =
    "usage: waitscope export --chrome-trace OUT.json [--instances FILE] <experiment dir>\n"
    "  --chrome-trace OUT.json  the trace in the Trace Event format (Perfetto UI,\n"
    "                           chrome://tracing): one process per rank, a slice per region\n"
    "                           visit, an arrow per message, wait states on their own track\n"
    "  --instances FILE         the wait-state instances to draw (default: instances.txt of\n"
    "                           the experiment, written by waitscope replay, when present)\n"
    "  --quiet                  no summary on stderr\n";

int exportChromeTrace(const std::string& output, std::string instances,
                      const std::string& experiment, bool quiet) {
    namespace fs = std::filesystem;
    if (instances.empty()) {
        const fs::path dir = fs::is_directory(experiment) ? fs::path(experiment)
                                                          : fs::path(experiment).parent_path();
        if (fs::exists(dir / "instances.txt")) {
            instances = (dir / "instances.txt").string();
        }
    }
    const auto start = std::chrono::steady_clock::now();
    auto counts = waitscope::exporter::writeChromeTrace(experiment, instances, output);
    if (!counts) {
        std::fprintf(stderr, "waitscope-export: error: %s\n", counts.error().message().c_str());
        return 1;
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!quiet) {
        std::fprintf(stderr,
                     "waitscope-export: %s: %llu events in %.2f s (%.1f million/s): %llu region "
                     "visits, %llu messages, %llu wait states\n",
                     output.c_str(), static_cast<unsigned long long>(counts->events), seconds,
                     seconds > 0 ? static_cast<double>(counts->events) / seconds / 1e6 : 0.0,
                     static_cast<unsigned long long>(counts->slices),
                     static_cast<unsigned long long>(counts->flows),
                     static_cast<unsigned long long>(counts->waitStates));
        if (counts->unmatched > 0) {
            std::fprintf(stderr,
                         "waitscope-export: warning: %llu message ends have no partner in the "
                         "trace (drawn without arrow)\n",
                         static_cast<unsigned long long>(counts->unmatched));
        }
    }
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    std::string chromeTrace, instances, experiment;
    bool quiet = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "-h" || arg == "--help") {
            std::fputs(kUsage, stdout);
            return 0;
        }
        if (arg == "--chrome-trace" && i + 1 < argc) {
            chromeTrace = argv[++i];
        } else if (arg == "--instances" && i + 1 < argc) {
            instances = argv[++i];
        } else if (arg == "--quiet") {
            quiet = true;
        } else if (!arg.empty() && arg[0] != '-' && experiment.empty()) {
            experiment = arg;
        } else {
            std::fprintf(stderr, "waitscope-export: error: unexpected argument '%s'\n%s",
                         arg.c_str(), kUsage);
            return 2;
        }
    }
    if (experiment.empty() || chromeTrace.empty()) {
        std::fputs(kUsage, stderr);
        return 2;
    }
    return exportChromeTrace(chromeTrace, instances, experiment, quiet);
}
