// waitscope-score: estimates a run's trace size from its profile and writes a suggested filter.
#include "filter_suggestion.h"
#include "trace_size_estimate.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <waitscope/report/cubex_reader.h>
#include <waitscope/report/experiment_report.h>

namespace {

using namespace waitscope;
namespace fs = std::filesystem;

const char* const kUsage =
    "usage: waitscope score [options] <profile.cubex | experiment dir>\n"
    "Estimates the size of a trace of the run from its profile (visits per call path x bytes\n"
    "per event), lists the regions that dominate it, and writes a suggested filter file.\n"
    "options:\n"
    "  -g FILE         where the suggested filter goes (default: waitscope.filter); an\n"
    "                  existing file is not overwritten\n"
    "  --format NAME   trace format to estimate: waitscope or scorep (default: the format of\n"
    "                  the tool that wrote the profile)\n"
    "  -r N            list N regions (default 15)\n";

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

int main(int argc, char** argv) {
    std::string path;
    std::string filterFile = "waitscope.filter";
    std::string format;
    size_t listed = 15;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if ((arg == "-g" || arg == "--format" || arg == "-r") && i + 1 < argc) {
            const std::string value = argv[++i];
            if (arg == "-g") {
                filterFile = value;
            } else if (arg == "--format") {
                format = value;
            } else {
                listed = static_cast<size_t>(std::stoul(value));
            }
        } else if (arg == "-h" || arg == "--help") {
            std::fputs(kUsage, stdout);
            return 0;
        } else if (!arg.empty() && arg[0] != '-' && path.empty()) {
            path = arg;
        } else {
            std::fprintf(stderr, "error: unexpected argument '%s'\n%s", arg.c_str(), kUsage);
            return 2;
        }
    }
    if (path.empty()) {
        std::fputs(kUsage, stderr);
        return 2;
    }
    // A runtime profile when there is one, else a trace analysis report (it has visits).
    auto located = report::locateExperimentReport(path, report::ReportPreference::Profile);
    if (!located) {
        std::fprintf(stderr, "waitscope score: error: %s\n", located.error().message().c_str());
        return 1;
    }
    path = *located;
    auto profile = report::readCubex(path);
    if (!profile) {
        std::fprintf(stderr, "error: %s\n", profile.error().message().c_str());
        return 1;
    }
    const analysis::EventSizes* sizes = &analysis::sizesFor(*profile);
    if (format == "scorep") {
        sizes = &analysis::kScorePSizes;
    } else if (format == "waitscope") {
        sizes = &analysis::kWaitscopeSizes;
    } else if (!format.empty()) {
        std::fprintf(stderr, "error: trace format '%s' is unknown (waitscope, scorep)\n",
                     format.c_str());
        return 2;
    }
    auto estimate = analysis::estimateTraceSize(*profile, *sizes);
    if (!estimate) {
        std::fprintf(stderr, "error: %s: %s\n", path.c_str(), estimate.error().message().c_str());
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
    const auto filtered = analysis::regionsToFilter(*estimate);
    std::error_code ec;
    if (fs::exists(filterFile, ec)) {
        std::fprintf(stderr,
                     "waitscope: %s exists and is kept; remove it or name another file with -g "
                     "FILE to get the suggested filter\n",
                     filterFile.c_str());
        return 0;
    }
    std::ofstream out(filterFile);
    out << analysis::filterFileText(*estimate, filtered);
    if (!out) {
        std::fprintf(stderr, "error: %s: cannot write\n", filterFile.c_str());
        return 1;
    }
    std::printf("\nsuggested filter (%zu region%s excluded) written to %s\n", filtered.size(),
                filtered.size() == 1 ? "" : "s", filterFile.c_str());
    return 0;
}
