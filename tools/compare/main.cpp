// waitscope-compare: entry point of `waitscope compare`: what got better, what got worse, and
// whether it exceeds the run-to-run noise.
#include "report_algebra_command.h"

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <string>
#include <vector>
#include <waitscope/cli/command_line.h>
#include <waitscope/cli/guarded_main.h>
#include <waitscope/compare/run_comparison.h>
#include <waitscope/compare/scaling_study.h>
#include <waitscope/report/cubex_reader.h>

namespace {

int fail(const std::string& message) {
    std::cerr << "waitscope-compare: error: " << message << '\n';
    return 1;
}

} // namespace

// The command itself; main() only guards it.
static int runCommand(int argc, char** argv) {
    using namespace waitscope;
    std::vector<std::string> before;
    std::vector<std::string> after;
    std::vector<std::string> scaling;
    std::vector<std::string>* side = nullptr;
    std::string html;
    double level = 0.05;
    std::size_t limit = 20;
    cli::CommandLine commandLine("compare");
    commandLine.usage("--before DIR... --after DIR... [options]")
        .usage("--scaling DIR...")
        .description("What got better and what got worse between runs before and after a "
                     "change, and whether it exceeds the run-to-run noise; or, with --scaling, "
                     "one run per rank count: efficiency per call path, and the wait states that "
                     "grow with the ranks.")
        .flag("--before", "the runs named next are the ones before the change",
              [&] { side = &before; })
        .flag("--after", "the runs named next are the ones after the change",
              [&] { side = &after; })
        .flag("--scaling", "the runs named next are one per rank count", [&] { side = &scaling; })
        .option("--html", "FILE", "also write the comparison as an HTML page", html)
        .number(
            "--level", "P", "significance level of Welch's t-test (default 0.05)",
            [&](double value) { level = value; }, 0.0, 1.0, true)
        .count("-n", "N", "at most N significant changes (default 20)", limit, 0,
               std::numeric_limits<std::size_t>::max())
        .positionals("DIR",
                     "an experiment directory or a .cubex report, one per run; repeat runs on "
                     "each side to know their noise (2 or more per side; 5 give a useful test)",
                     [&](const std::string& path) -> Status {
                         if (!side)
                             return Error("say which side " + path + " is on: --before or --after");
                         side->push_back(path);
                         return Status::success();
                     });
    if (auto exit = commandLine.parse(argc, argv))
        return *exit;
    if (!scaling.empty() && (!before.empty() || !after.empty()))
        return commandLine.usageError(
            "--scaling compares rank counts; use it without --before and --after");
    if (before.empty() && after.empty() && !scaling.empty()) {
        std::vector<std::unique_ptr<report::Report>> reports;
        std::vector<const report::Report*> runs;
        for (const std::string& path : scaling) {
            auto report = report::readCubex(report::reportFileOf(path));
            if (!report)
                return fail(report.error().message());
            reports.push_back(std::make_unique<report::Report>(std::move(*report)));
            runs.push_back(reports.back().get());
        }
        auto study = compare::studyScaling(runs);
        if (!study)
            return fail(study.error().message());
        compare::printScalingStudy(*study, std::cout);
        return 0;
    }
    if (before.empty() || after.empty())
        return commandLine.usageError(
            "give the runs before (--before DIR...) and after (--after DIR...)");
    std::vector<std::unique_ptr<report::Report>> reports;
    auto load = [&](const std::vector<std::string>& paths,
                    std::vector<const report::Report*>& out) -> Status {
        for (const std::string& path : paths) {
            auto report = report::readCubex(report::reportFileOf(path));
            if (!report)
                return report.error();
            reports.push_back(std::make_unique<report::Report>(std::move(*report)));
            out.push_back(reports.back().get());
        }
        return {};
    };
    std::vector<const report::Report*> beforeReports;
    std::vector<const report::Report*> afterReports;
    if (Status s = load(before, beforeReports); !s)
        return fail(s.error().message());
    if (Status s = load(after, afterReports); !s)
        return fail(s.error().message());
    auto comparison = compare::compareRuns(beforeReports, afterReports, level);
    if (!comparison)
        return fail(comparison.error().message());
    compare::printComparison(*comparison, std::cout, limit);
    if (!html.empty()) {
        std::ofstream file(html);
        compare::writeComparisonHtml(*comparison, file, limit);
        file.close();
        if (!file)
            return fail(html + ": cannot write the HTML comparison");
        std::cout << "\nwrote " << html << '\n';
    }
    return 0;
}

int main(int argc, char** argv) {
    return waitscope::cli::guardedMain("waitscope-compare", [&] { return runCommand(argc, argv); });
}
