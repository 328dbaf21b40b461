// waitscope-report: command-line entry point of `waitscope report`.
#include "report_algebra_command.h"
#include "report_printer.h"

#include <iostream>
#include <string>
#include <vector>
#include <waitscope/report/cubex_reader.h>
#include <waitscope/report/experiment_report.h>

namespace {

constexpr const char* kUsage =
    "usage: waitscope-report [options] FILE.cubex                  metric tree with totals\n"
    "       waitscope-report [options] top FILE.cubex METRIC        top call paths of METRIC\n"
    "       waitscope-report [options] ranks FILE.cubex METRIC PATH METRIC at call path PATH\n"
    "                                                              per rank (PATH: \"a/b/c\", its\n"
    "                                                              end \"b/c\", or a cnode id)\n"
    "       waitscope-report [options] attributes FILE.cubex        report attributes\n"
    "options: --csv            comma-separated output for scripts\n"
    "         --inclusive      call-tree inclusive values (default: exclusive) for top/ranks\n"
    "         -n N             number of call paths for top (default 10)\n"
    "       waitscope-report diff|mean|merge ... -o OUT.cubex      report algebra (diff -h)\n";

int fail(const std::string& message) {
    std::cerr << "waitscope-report: error: " << message << '\n';
    return 1;
}

} // namespace

int main(int argc, char** argv) {
    using namespace waitscope::report;
    if (argc > 1 && isAlgebraCommand(argv[1]))
        return runAlgebraCommand(argv[1], std::vector<std::string>(argv + 2, argv + argc));
    OutputFormat format = OutputFormat::Text;
    CallTreeMode mode = CallTreeMode::Exclusive;
    std::size_t count = 10;
    std::vector<std::string> args;
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg == "--csv") {
            format = OutputFormat::Csv;
        } else if (arg == "--inclusive") {
            mode = CallTreeMode::Inclusive;
        } else if (arg == "--exclusive") {
            mode = CallTreeMode::Exclusive;
        } else if (arg == "-n" && i + 1 < argc) {
            // strtoul would wrap "-5" around to a huge count: accept digits only.
            std::string text = argv[++i];
            if (text.empty() || text.size() > 9 ||
                text.find_first_not_of("0123456789") != std::string::npos || std::stoul(text) == 0)
                return fail("-n takes a count from 1 to 999999999, not '" + text + "'");
            count = std::stoul(text);
        } else if (arg == "-h" || arg == "--help") {
            std::cout << kUsage;
            return 0;
        } else if (arg.size() > 1 && arg[0] == '-') {
            std::cerr << kUsage;
            return fail("unknown option " + arg);
        } else {
            args.push_back(arg);
        }
    }
    if (args.empty()) {
        std::cerr << kUsage;
        fail("no report given");
        return 2;
    }
    std::string command = "totals";
    if (args[0] == "top" || args[0] == "ranks" || args[0] == "attributes" || args[0] == "totals") {
        command = args[0];
        args.erase(args.begin());
    }
    std::size_t needed = command == "top" ? 2 : command == "ranks" ? 3 : 1;
    if (args.size() != needed) {
        std::cerr << kUsage;
        fail("'" + command + "' takes " +
             (command == "top"     ? std::string("FILE.cubex METRIC")
              : command == "ranks" ? std::string("FILE.cubex METRIC PATH")
                                   : std::string("FILE.cubex")) +
             ", got " + std::to_string(args.size()) + " argument" + (args.size() == 1 ? "" : "s"));
        return 2;
    }
    // An experiment directory opens its most complete report, as in the explorer.
    auto located = locateExperimentReport(args[0]);
    if (!located)
        return fail(located.error().message());
    auto report = readCubex(*located);
    if (!report)
        return fail(report.error().message());
    waitscope::Status status;
    if (command == "totals")
        status = printMetricTotals(*report, std::cout, format);
    else if (command == "top")
        status = printTopCallPaths(*report, args[1], count, mode, std::cout, format);
    else if (command == "ranks")
        status = printRankDistribution(*report, args[1], args[2], mode, std::cout, format);
    else
        status = printAttributes(*report, std::cout, format);
    if (!status)
        return fail(status.error().message());
    return 0;
}
