// waitscope-replay: analyzes an OTF2 trace for MPI wait states and writes the report files.
#include "waitscope/analysis/canonical_text.h"
#include "waitscope/analysis/parallel_analysis.h"
#include "waitscope/analysis/report_builder.h"
#include "waitscope/analysis/serial_analysis.h"
#include "waitscope/analysis/trace_stat.h"
#include "waitscope/trace/otf2_archive.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mpi.h>
#include <string>
#include <waitscope/report/cubex_writer.h>

namespace {

using namespace waitscope;
using Clock = std::chrono::steady_clock;

struct Options {
    std::string path;
    std::string outputDir;
    std::string dumpText;
    bool serial = false;
    bool quiet = false;
};

const char* const kUsage =
    "usage: mpirun -np N waitscope-replay [options] <experiment dir or traces.otf2>\n"
    "       waitscope-replay --serial [options] <experiment dir or traces.otf2>\n"
    "options:\n"
    "  --serial           analyze every rank in this process (small traces)\n"
    "  --output-dir DIR   where report.cubex and trace.stat go (default: the experiment "
    "directory)\n"
    "  --dump-text FILE   also write every value as canonical text (for comparisons)\n"
    "  --quiet            no progress on stderr\n";

bool parse(int argc, char** argv, Options& options) {
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--serial") {
            options.serial = true;
        } else if (arg == "--quiet") {
            options.quiet = true;
        } else if ((arg == "--output-dir" || arg == "--dump-text") && i + 1 < argc) {
            (arg == "--output-dir" ? options.outputDir : options.dumpText) = argv[++i];
        } else if (!arg.empty() && arg[0] != '-' && options.path.empty()) {
            options.path = arg;
        } else {
            return false;
        }
    }
    return !options.path.empty();
}

double secondsSince(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// Writes report.cubex, trace.stat (and the optional text dump); returns false after printing an
// error.
bool writeOutputs(const Options& options, const std::string& anchor,
                  const analysis::AnalysisResult& result, const trace::Definitions& definitions) {
    namespace fs = std::filesystem;
    const fs::path dir =
        options.outputDir.empty() ? fs::path(anchor).parent_path() : fs::path(options.outputDir);
    auto report = analysis::buildReport(result, definitions);
    if (!report) {
        std::fprintf(stderr, "error: %s\n", report.error().message().c_str());
        return false;
    }
    const fs::path reportFile = dir / "report.cubex";
    if (Status status = report::writeCubex(*report, reportFile.string()); !status) {
        std::fprintf(stderr, "error: %s\n", status.error().message().c_str());
        return false;
    }
    const fs::path statFile = dir / "trace.stat";
    std::ofstream stat(statFile);
    stat << analysis::traceStatText(analysis::patternStatistics(result));
    if (!stat) {
        std::fprintf(stderr, "error: %s: cannot write\n", statFile.string().c_str());
        return false;
    }
    if (!options.dumpText.empty()) {
        std::ofstream dump(options.dumpText);
        dump << analysis::canonicalText(result, definitions);
        if (!dump) {
            std::fprintf(stderr, "error: %s: cannot write\n", options.dumpText.c_str());
            return false;
        }
    }
    for (uint32_t rank = 0; rank < result.diagnostics().size(); ++rank) {
        for (const auto& [name, count] : result.diagnostics()[rank]) {
            std::fprintf(stderr, "warning: rank %u: %s: %llu\n", rank, name.c_str(),
                         static_cast<unsigned long long>(count));
        }
    }
    return true;
}

analysis::ProgressCallback progressPrinter(bool enabled) {
    if (!enabled) {
        return {};
    }
    return [last = std::string(), lastPercent = -1](std::string_view phase, int percent) mutable {
        if (phase != last || percent >= lastPercent + 25 ||
            (percent == 100 && lastPercent != 100)) {
            std::fprintf(stderr, "waitscope-replay: %.*s %d%%\n", static_cast<int>(phase.size()),
                         phase.data(), percent);
            last = std::string(phase);
            lastPercent = percent;
        }
    };
}

int runSerial(const Options& options) {
    const auto start = Clock::now();
    auto anchor = trace::findAnchorFile(options.path);
    if (!anchor) {
        std::fprintf(stderr, "error: %s\n", anchor.error().message().c_str());
        return 1;
    }
    auto definitions = trace::readDefinitions(*anchor);
    if (!definitions) {
        std::fprintf(stderr, "error: %s\n", definitions.error().message().c_str());
        return 1;
    }
    auto result = analysis::analyzeArchiveInProcess(*anchor);
    if (!result) {
        std::fprintf(stderr, "error: %s\n", result.error().message().c_str());
        return 1;
    }
    const double analysisTime = secondsSince(start);
    const auto writeStart = Clock::now();
    if (!writeOutputs(options, *anchor, *result, *definitions)) {
        return 1;
    }
    if (!options.quiet) {
        std::fprintf(stderr, "waitscope-replay: read+replay %.3f s, writing %.3f s\n", analysisTime,
                     secondsSince(writeStart));
    }
    return 0;
}

int runParallel(const Options& options) {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const auto start = Clock::now();
    auto analysis =
        analysis::analyzeWithMpi(options.path, progressPrinter(rank == 0 && !options.quiet));
    if (!analysis) {
        std::fprintf(stderr, "error: %s\n", analysis.error().message().c_str());
        return 1;
    }
    const double analysisTime = secondsSince(start);
    if (rank != 0) {
        return 0;
    }
    const auto writeStart = Clock::now();
    auto anchor = trace::findAnchorFile(options.path);
    if (!anchor || !writeOutputs(options, *anchor, *analysis->result, analysis->definitions)) {
        return 1;
    }
    if (!options.quiet) {
        std::fprintf(stderr, "waitscope-replay: read+replay+merge %.3f s, writing %.3f s\n",
                     analysisTime, secondsSince(writeStart));
    }
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    Options options;
    if (!parse(argc, argv, options)) {
        std::fputs(kUsage, stderr);
        return 2;
    }
    if (options.serial) {
        return runSerial(options);
    }
    MPI_Init(&argc, &argv);
    const int status = runParallel(options);
    // Every rank reports its own failure; the job fails if any rank did.
    int worst = 0;
    MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return worst;
}
