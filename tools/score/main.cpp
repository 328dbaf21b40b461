// waitscope-score: estimates a run's trace size from its profile and writes a suggested filter.
#include "filter_suggestion.h"
#include "trace_size_estimate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <waitscope/cli/command_line.h>
#include <waitscope/cli/guarded_main.h>
#include <waitscope/report/cubex_reader.h>
#include <waitscope/report/experiment_report.h>

namespace {

using namespace waitscope;
namespace fs = std::filesystem;

/// True for an argument that names a profile to score (an experiment directory or a .cubex
/// file), not a filter file to write.
bool namesProfile(const std::string& arg) {
    std::error_code ec;
    return fs::is_directory(arg, ec) ||
           (arg.size() > 6 && arg.compare(arg.size() - 6, 6, ".cubex") == 0);
}

/// The buffer size that holds `bytes` without a flush, rounded up to whole MiB (at least 1M),
/// in WAITSCOPE_TOTAL_MEMORY's syntax.
std::string bufferSetting(double bytes) {
    const double mib = 1024.0 * 1024.0;
    // A tenth more than the estimate: the definitions and the records of the measurement itself.
    const double needed = std::max(1.0, std::ceil(bytes * 1.1 / mib));
    char text[32];
    std::snprintf(text, sizeof text, "%.0fM", needed);
    return text;
}

std::string humanBytes(double bytes) {
    char buffer[64];
    if (bytes >= 1024.0 * 1024.0 * 1024.0) {
        std::snprintf(buffer, sizeof buffer, "%.2f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
    } else if (bytes >= 1024.0 * 1024.0) {
        std::snprintf(buffer, sizeof buffer, "%.2f MiB", bytes / (1024.0 * 1024.0));
    } else if (bytes >= 1024.0) {
        std::snprintf(buffer, sizeof buffer, "%.1f KiB", bytes / 1024.0);
    } else {
        std::snprintf(buffer, sizeof buffer, "%.0f B", bytes);
    }
    return buffer;
}

} // namespace

// The command itself; main() only guards it.
static int runCommand(int argc, char** argv) {
    std::string path;
    std::string filterFile = "waitscope.filter";
    bool writeFilter = false;
    std::string format;
    size_t listed = 15;
    cli::CommandLine commandLine("score");
    commandLine.usage("[options] <profile.cubex | experiment dir>")
        .description("Estimates the size of a trace of the run from its profile (visits per call "
                     "path x bytes per event), the buffer each rank needs, and lists the regions "
                     "that dominate it.")
        // Score-P's scorep-score writes a filter only when asked with -g; the file name is
        // optional (the next argument, unless it is an option or the profile).
        .optionalValue(
            "-g", "FILE",
            "write a suggested filter file (default name: waitscope.filter); an existing file "
            "is not overwritten",
            [](const std::string& next) { return !namesProfile(next); },
            [&](std::optional<std::string> file) {
                writeFilter = true;
                if (file)
                    filterFile = *file;
            })
        .option("--format", "NAME",
                "trace format to estimate: waitscope or scorep (default: the format of the tool "
                "that wrote the profile)",
                format)
        .count("-r", "N", "list N regions (default 15; 0 lists none)", listed, 0, 999999999)
        .positional("PROFILE", "a profile.cubex or an experiment directory", path);
    if (auto exit = commandLine.parse(argc, argv))
        return *exit;
    // A runtime profile when there is one, else a trace analysis report (it has visits).
    auto located = report::locateExperimentReport(path, report::ReportPreference::Profile);
    if (!located) {
        std::fprintf(stderr, "waitscope score: error: %s\n", located.error().message().c_str());
        return 1;
    }
    path = *located;
    auto profile = report::readCubex(path);
    if (!profile) {
        std::fprintf(stderr, "waitscope score: error: %s\n", profile.error().message().c_str());
        return 1;
    }
    const analysis::EventSizes* sizes = &analysis::sizesFor(*profile);
    if (format == "scorep") {
        sizes = &analysis::kScorePSizes;
    } else if (format == "waitscope") {
        sizes = &analysis::kWaitscopeSizes;
    } else if (!format.empty()) {
        std::fprintf(stderr,
                     "waitscope score: error: trace format '%s' is unknown (waitscope, scorep)\n",
                     format.c_str());
        return 2;
    }
    auto estimate = analysis::estimateTraceSize(*profile, *sizes);
    if (!estimate) {
        std::fprintf(stderr, "waitscope score: error: %s: %s\n", path.c_str(),
                     estimate.error().message().c_str());
        return 1;
    }
    double maxRank = 0.0;
    for (double b : estimate->bytesPerRank) {
        maxRank = std::max(maxRank, b);
    }
    std::printf("Estimated trace size (%s format) for %s\n", sizes->format, path.c_str());
    std::printf("  total:            %s (%.0f bytes): events %s, definitions %s\n",
                humanBytes(estimate->totalBytes).c_str(), estimate->totalBytes,
                humanBytes(estimate->eventBytes).c_str(),
                humanBytes(estimate->definitionBytes).c_str());
    std::printf("  per rank:         %s at most, %zu ranks, %.0f events in total\n",
                humanBytes(maxRank).c_str(), estimate->bytesPerRank.size(), estimate->events);
    std::printf("\n  %-11s %-40s %14s %12s %14s\n", "kind", "region", "visits", "bytes",
                "time/visit");
    for (size_t i = 0; i < estimate->regions.size() && i < listed; ++i) {
        const analysis::RegionEstimate& r = estimate->regions[i];
        std::printf("  %-11s %-40s %14llu %12.0f %11.3f us\n", r.kind.c_str(), r.name.c_str(),
                    static_cast<unsigned long long>(r.visits), r.bytes, r.timePerVisit() * 1e6);
    }
    // The buffer that holds the largest rank's events, so the run is never flushed midway (as
    // scorep-score's SCOREP_TOTAL_MEMORY estimate).
    std::printf("\n  buffer:           WAITSCOPE_TOTAL_MEMORY=%s holds each rank's events without "
                "a flush (default 16M)\n",
                bufferSetting(maxRank).c_str());
    const auto filtered = analysis::regionsToFilter(*estimate);
    if (!writeFilter) {
        if (!filtered.empty())
            std::printf("\n%zu region%s could be filtered: `waitscope score -g` writes the "
                        "suggested filter\n",
                        filtered.size(), filtered.size() == 1 ? "" : "s");
        return 0;
    }
    std::error_code ec;
    if (fs::exists(filterFile, ec)) {
        std::fprintf(
            stderr,
            "waitscope score: %s exists and is kept; remove it or name another file with -g "
            "FILE to get the suggested filter\n",
            filterFile.c_str());
        return 0;
    }
    std::ofstream out(filterFile);
    out << analysis::filterFileText(*estimate, filtered);
    if (!out) {
        std::fprintf(stderr, "waitscope score: error: %s: cannot write\n", filterFile.c_str());
        return 1;
    }
    std::printf("\nsuggested filter (%zu region%s excluded) written to %s\n", filtered.size(),
                filtered.size() == 1 ? "" : "s", filterFile.c_str());
    return 0;
}

int main(int argc, char** argv) {
    return waitscope::cli::guardedMain("waitscope score", [&] { return runCommand(argc, argv); });
}
