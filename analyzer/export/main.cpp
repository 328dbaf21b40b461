// waitscope-export: entry point of `waitscope export`: a report's call tree and metrics for
// Python (Hatchet and Thicket).
#include "hatchet_literal.h"
#include "report_algebra_command.h"

#include <fstream>
#include <iostream>
#include <string>
#include <waitscope/report/cubex_reader.h>

namespace {

constexpr const char* kUsage =
    "usage: waitscope-export --hatchet OUT.json [--per-rank] DIR|REPORT.cubex\n"
    "  writes the call tree with every metric (exclusive, and inclusive as \"NAME (inc)\",\n"
    "  summed over ranks) as a Hatchet literal: in Python,\n"
    "  hatchet.GraphFrame.from_literal(json.load(open(\"OUT.json\")))\n"
    "options: --per-rank   also one column per metric and rank, \"NAME [rank R]\"\n";

int fail(const std::string& message) {
    std::cerr << "waitscope-export: error: " << message << '\n';
    return 1;
}

} // namespace

int main(int argc, char** argv) {
    std::string output;
    std::string input;
    waitscope::exporter::HatchetOptions options;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--hatchet" && i + 1 < argc) {
            output = argv[++i];
        } else if (arg == "--per-rank") {
            options.perRank = true;
        } else if (arg == "-h" || arg == "--help") {
            std::cout << kUsage;
            return 0;
        } else if (arg.size() > 1 && arg[0] == '-') {
            std::cerr << kUsage;
            return fail("unknown option " + arg);
        } else if (input.empty()) {
            input = arg;
        } else {
            std::cerr << kUsage;
            return fail("one report or experiment at a time, not also " + arg);
        }
    }
    if (output.empty() || input.empty()) {
        std::cerr << kUsage;
        return fail("give the output (--hatchet OUT.json) and the experiment or report");
    }
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
    std::cout << "wrote " << output << " (" << report->callNodes().size()
              << " call paths); in Python: hatchet.GraphFrame.from_literal(json.load(open(\""
              << output << "\")))\n";
    return 0;
}
