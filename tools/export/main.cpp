// waitscope-export: writes an experiment in formats other tools open: Hatchet's literal (the
// call tree and metrics for Python) and the Trace Event format (the trace for Perfetto UI).
#include "chrome_trace.h"
#include "hatchet_literal.h"
#include "perfetto_trace.h"
#include "report_algebra_command.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <waitscope/cli/command_line.h>
#include <waitscope/cli/guarded_main.h>
#include <waitscope/report/cubex_reader.h>

namespace {

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

int exportTrace(const std::string& output, std::string instances, const std::string& experiment,
                bool perfetto, bool timeCorrect, bool quiet) {
    namespace fs = std::filesystem;
    if (instances.empty()) {
        const fs::path dir = fs::is_directory(experiment) ? fs::path(experiment)
                                                          : fs::path(experiment).parent_path();
        // The indexed file, read a block at a time; the text file of an older experiment.
        for (const char* name : {"instances.bin", "instances.txt"}) {
            if (fs::exists(dir / name)) {
                instances = (dir / name).string();
                break;
            }
        }
    }
    const auto start = std::chrono::steady_clock::now();
    auto counts =
        perfetto
            ? waitscope::exporter::writePerfettoTrace(experiment, instances, output, timeCorrect)
            : waitscope::exporter::writeChromeTrace(experiment, instances, output, timeCorrect);
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

// The command itself; main() only guards it.
static int runCommand(int argc, char** argv) {
    std::string hatchet, chromeTrace, perfetto, instances, input;
    waitscope::exporter::HatchetOptions hatchetOptions;
    bool quiet = false;
    bool timeCorrect = false;
    waitscope::cli::CommandLine commandLine("export");
    commandLine.usage("--hatchet OUT.json [--per-rank] DIR|REPORT.cubex")
        .usage("--chrome-trace OUT.json [--instances FILE] [--time-correct] [--quiet] DIR")
        .usage("--perfetto OUT.pftrace [--instances FILE] [--time-correct] [--quiet] DIR")
        .option("--hatchet", "OUT.json",
                "the call tree with every metric (exclusive, and inclusive as \"NAME (inc)\", "
                "summed over ranks) as a Hatchet literal: in Python, "
                "hatchet.GraphFrame.from_literal(json.load(open(OUT)))",
                hatchet)
        .flag("--per-rank", "also one column per metric and rank, \"NAME [rank R]\"",
              hatchetOptions.perRank)
        .option("--chrome-trace", "OUT.json",
                "the trace in the Trace Event format (Perfetto UI, chrome://tracing): one process "
                "per rank, a slice per region visit, an arrow per message, wait states on their "
                "own track",
                chromeTrace)
        .option("--perfetto", "OUT.pftrace",
                "the same in Perfetto's protobuf trace format, for traces too large for JSON "
                "(Perfetto UI, trace_processor)",
                perfetto)
        .option("--instances", "FILE",
                "the wait-state instances to draw, instances.bin or instances.txt (default: "
                "instances.bin of the experiment, written by waitscope replay, else its "
                "instances.txt, when present)",
                instances)
        .flag("--time-correct",
              "correct the ranks' clocks first (the controlled logical clock, as waitscope "
              "replay --time-correct), so that no message arrow points backwards; all ranks' "
              "events are then in memory at once",
              timeCorrect)
        .flag("--quiet", "no summary on stderr", quiet)
        .positional("INPUT", "the experiment directory or report to export", input, false);
    if (auto exit = commandLine.parse(argc, argv))
        return *exit;
    const int outputs =
        (hatchet.empty() ? 0 : 1) + (chromeTrace.empty() ? 0 : 1) + (perfetto.empty() ? 0 : 1);
    if (input.empty() || outputs != 1)
        return commandLine.usageError(
            "give one output (--hatchet OUT.json, --chrome-trace OUT.json or --perfetto "
            "OUT.pftrace) and the experiment or report");
    if (!hatchet.empty())
        return exportHatchet(hatchet, input, hatchetOptions);
    if (!perfetto.empty())
        return exportTrace(perfetto, instances, input, true, timeCorrect, quiet);
    return exportTrace(chromeTrace, instances, input, false, timeCorrect, quiet);
}

int main(int argc, char** argv) {
    return waitscope::cli::guardedMain("waitscope-export", [&] { return runCommand(argc, argv); });
}
