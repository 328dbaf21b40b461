// waitscope-export: writes an experiment in formats other tools open: Hatchet's literal (the
// call tree and metrics for Python) and the Trace Event format (the trace for Perfetto UI).
#include "chrome_trace.h"
#include "hatchet_literal.h"
#include "report_algebra_command.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <waitscope/report/cubex_reader.h>

namespace {

const char* const kUsage =
    "usage: waitscope export --hatchet OUT.json [--per-rank] DIR|REPORT.cubex\n"
    "       waitscope export --chrome-trace OUT.json [--instances FILE] [--quiet] DIR\n"
    "  --hatchet OUT.json       the call tree with every metric (exclusive, and inclusive as\n"
    "                           \"NAME (inc)\", summed over ranks) as a Hatchet literal: in\n"
    "                           Python, hatchet.GraphFrame.from_literal(json.load(open(OUT)))\n"
    "  --per-rank               also one column per metric and rank, \"NAME [rank R]\"\n"
    "  --chrome-trace OUT.json  the trace in the Trace Event format (Perfetto UI,\n"
    "                           chrome://tracing): one process per rank, a slice per region\n"
    "                           visit, an arrow per message, wait states on their own track\n"
    "  --instances FILE         the wait-state instances to draw (default: instances.txt of\n"
    "                           the experiment, written by waitscope replay, when present)\n"
    "  --quiet                  no summary on stderr\n";

int fail(const std::string& message) {
    std::fprintf(stderr, "waitscope-export: error: %s\n", message.c_str());
    return 1;
}

int exportHatchet(const std::string& output, const std::string& input,
                  const waitscope::exporter::HatchetOptions& options) {
    auto report = waitscope::report::readCubex(waitscope::report::reportFileOf(input));
    if (!report)
        return fail(report.error().message());
    std::ofstream file(output);
    if (!file)
        return fail(output + ": cannot write");
    if (auto s = waitscope::exporter::writeHatchetLiteral(*report, file, options); !s)
        return fail(s.error().message());
    file.close();
    if (!file)
        return fail(output + ": cannot write");
    std::printf("wrote %s (%zu call paths); in Python: "
                "hatchet.GraphFrame.from_literal(json.load(open(\"%s\")))\n",
                output.c_str(), report->callNodes().size(), output.c_str());
    return 0;
}

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
    if (!counts)
        return fail(counts.error().message());
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
    std::string hatchet, chromeTrace, instances, input;
    waitscope::exporter::HatchetOptions hatchetOptions;
    bool quiet = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "-h" || arg == "--help") {
            std::fputs(kUsage, stdout);
            return 0;
        }
        if (arg == "--hatchet" && i + 1 < argc) {
            hatchet = argv[++i];
        } else if (arg == "--per-rank") {
            hatchetOptions.perRank = true;
        } else if (arg == "--chrome-trace" && i + 1 < argc) {
            chromeTrace = argv[++i];
        } else if (arg == "--instances" && i + 1 < argc) {
            instances = argv[++i];
        } else if (arg == "--quiet") {
            quiet = true;
        } else if (!arg.empty() && arg[0] != '-' && input.empty()) {
            input = arg;
        } else {
            std::fputs(kUsage, stderr);
            return fail(arg.empty() || arg[0] == '-'
                            ? "unknown option " + arg
                            : "one report or experiment at a time, not also " + arg);
        }
    }
    if (input.empty() || hatchet.empty() == chromeTrace.empty()) {
        std::fputs(kUsage, stderr);
        return fail("give one output (--hatchet OUT.json or --chrome-trace OUT.json) and the "
                    "experiment or report");
    }
    if (!hatchet.empty())
        return exportHatchet(hatchet, input, hatchetOptions);
    return exportChromeTrace(chromeTrace, instances, input, quiet);
}
