// waitscope-report: command-line entry point of `waitscope report`.
#include "report_algebra_command.h"
#include "report_printer.h"

#include <iostream>
#include <string>
#include <vector>
#include <waitscope/cli/command_line.h>
#include <waitscope/cli/guarded_main.h>
#include <waitscope/report/cubex_reader.h>
#include <waitscope/report/experiment_report.h>

namespace {

int fail(const std::string& message) {
    std::cerr << "waitscope-report: error: " << message << '\n';
    return 1;
}

/// `waitscope report diff|mean|merge ... -o OUT.cubex`; argv[0] is the operation.
int runAlgebra(int argc, char** argv) {
    const std::string command = argv[0];
    const bool diff = command == "diff";
    std::string output;
    std::vector<std::string> inputs;
    waitscope::cli::CommandLine commandLine("report " + command);
    commandLine.usage(diff ? "A B -o OUT.cubex" : "R1 R2 ... -o OUT.cubex")
        .description(diff                ? "Writes A − B per metric, call path and rank."
                     : command == "mean" ? "Writes the mean of the reports."
                                         : "Writes the metrics of all reports in one.")
        .option("-o, --output", "OUT.cubex", "the report to write", output)
        .positionals("REPORT", ".cubex reports or experiment directories", inputs);
    if (auto exit = commandLine.parse(argc, argv))
        return *exit;
    if (output.empty())
        return commandLine.usageError(command + " needs the output file: -o OUT.cubex");
    if (diff ? inputs.size() != 2 : inputs.empty())
        return commandLine.usageError(diff ? "diff takes two reports, A and B (computes A − B)"
                                           : command + " needs at least one report");
    return waitscope::report::runAlgebraCommand(command, inputs, output);
}

} // namespace

// The command itself; main() only guards it.
static int runCommand(int argc, char** argv) {
    using namespace waitscope::report;
    if (argc > 1 && isAlgebraCommand(argv[1]))
        return runAlgebra(argc - 1, argv + 1);
    OutputFormat format = OutputFormat::Text;
    CallTreeMode mode = CallTreeMode::Exclusive;
    std::size_t count = 10;
    std::vector<std::string> args;
    waitscope::cli::CommandLine commandLine("report");
    commandLine.usage("[options] FILE.cubex")
        .usage("[options] top FILE.cubex METRIC")
        .usage("[options] ranks FILE.cubex METRIC PATH")
        .usage("[options] attributes FILE.cubex")
        .usage("diff|mean|merge ... -o OUT.cubex")
        .description("Prints a report's metric tree with totals, the top call paths of METRIC, "
                     "METRIC at call path PATH per rank, or the report's attributes; diff, mean "
                     "and merge compute with reports (waitscope report diff --help).")
        .description("FILE.cubex: a report, or an experiment directory (its most complete "
                     "report). PATH: a call path \"a/b/c\", its end \"b/c\", or a call node id.")
        .flag("--csv", "comma-separated output for scripts", [&] { format = OutputFormat::Csv; })
        .flag("--inclusive", "call-tree inclusive values for top and ranks",
              [&] { mode = CallTreeMode::Inclusive; })
        .flag("--exclusive", "call-tree exclusive values for top and ranks (the default)",
              [&] { mode = CallTreeMode::Exclusive; })
        .count("-n", "N", "number of call paths for top (default 10)", count, 1, 999999999)
        .positionals("ARGUMENTS", "", args);
    if (auto exit = commandLine.parse(argc, argv))
        return *exit;
    if (args.empty())
        return commandLine.usageError("no report given");
    std::string command = "totals";
    if (args[0] == "top" || args[0] == "ranks" || args[0] == "attributes" || args[0] == "totals") {
        command = args[0];
        args.erase(args.begin());
    }
    std::size_t needed = command == "top" ? 2 : command == "ranks" ? 3 : 1;
    if (args.size() != needed)
        return commandLine.usageError("'" + command + "' takes " +
                                      (command == "top"     ? std::string("FILE.cubex METRIC")
                                       : command == "ranks" ? std::string("FILE.cubex METRIC PATH")
                                                            : std::string("FILE.cubex")) +
                                      ", got " + std::to_string(args.size()) + " argument" +
                                      (args.size() == 1 ? "" : "s"));
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

int main(int argc, char** argv) {
    return waitscope::cli::guardedMain("waitscope-report", [&] { return runCommand(argc, argv); });
}
