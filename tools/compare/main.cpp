// waitscope-compare: entry point of `waitscope compare`: what got better, what got worse, and
// whether it exceeds the run-to-run noise.
#include "report_algebra_command.h"

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>
#include <waitscope/compare/run_comparison.h>
#include <waitscope/compare/scaling_study.h>
#include <waitscope/report/cubex_reader.h>

namespace {

constexpr const char* kUsage =
    "usage: waitscope-compare --before DIR... --after DIR... [options]\n"
    "       waitscope-compare --scaling DIR...   one run per rank count: efficiency per call\n"
    "                                            path, wait states that grow with the ranks\n"
    "  DIR: an experiment directory or a .cubex report, one per run; repeat runs on each\n"
    "  side to know their noise (2 or more per side; 5 give a useful test)\n"
    "options: --html FILE   also write the comparison as an HTML page\n"
    "         --level P     significance level of Welch's t-test (default 0.05)\n"
    "         -n N          at most N significant changes (default 20)\n";

int fail(const std::string& message) {
    std::cerr << "waitscope-compare: error: " << message << '\n';
    return 1;
}

} // namespace

int main(int argc, char** argv) {
    using namespace waitscope;
    std::vector<std::string> before;
    std::vector<std::string> after;
    std::vector<std::string> scaling;
    std::vector<std::string>* side = nullptr;
    std::string html;
    double level = 0.05;
    std::size_t limit = 20;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--before") {
            side = &before;
        } else if (arg == "--after") {
            side = &after;
        } else if (arg == "--scaling") {
            side = &scaling;
        } else if (arg == "--html" && i + 1 < argc) {
            html = argv[++i];
        } else if (arg == "--level" && i + 1 < argc) {
            char* end = nullptr;
            level = std::strtod(argv[++i], &end);
            if (!end || *end || !(level > 0 && level < 1))
                return fail(std::string("--level needs a number between 0 and 1, not ") + argv[i]);
        } else if (arg == "-n" && i + 1 < argc) {
            char* end = nullptr;
            limit = std::strtoul(argv[++i], &end, 10);
            if (!end || *end)
                return fail(std::string("bad number for -n: ") + argv[i]);
        } else if (arg == "-h" || arg == "--help") {
            std::cout << kUsage;
            return 0;
        } else if (arg.size() > 1 && arg[0] == '-') {
            std::cerr << kUsage;
            return fail("unknown option " + arg);
        } else if (side) {
            side->push_back(arg);
        } else {
            std::cerr << kUsage;
            return fail("say which side " + arg + " is on: --before or --after");
        }
    }
    if (!scaling.empty() && (!before.empty() || !after.empty()))
        return fail("--scaling compares rank counts; use it without --before and --after");
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
    if (before.empty() || after.empty()) {
        std::cerr << kUsage;
        return fail("give the runs before (--before DIR...) and after (--after DIR...)");
    }
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
