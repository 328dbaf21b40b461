// `waitscope report diff|mean|merge`: reads the inputs, combines them, writes the result.
#include "report_algebra_command.h"

#include <filesystem>
#include <iostream>
#include <memory>
#include <waitscope/report/cubex_reader.h>
#include <waitscope/report/cubex_writer.h>
#include <waitscope/report/report_algebra.h>

namespace waitscope::report {
namespace {

int fail(const std::string& message) {
    std::cerr << "waitscope-report: error: " << message << '\n';
    return 1;
}

constexpr const char* kAlgebraUsage =
    "usage: waitscope-report diff A B -o OUT.cubex       A − B per metric, call path, rank\n"
    "       waitscope-report mean R1 R2 ... -o OUT.cubex  mean of the reports\n"
    "       waitscope-report merge R1 R2 ... -o OUT.cubex metrics of all reports in one\n"
    "A, B, R: .cubex reports or experiment directories.\n";

} // namespace

bool isAlgebraCommand(const std::string& command) {
    return command == "diff" || command == "mean" || command == "merge";
}

std::string reportFileOf(const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_directory(path, ec))
        return path;
    const fs::path report = fs::path(path) / "report.cubex";
    const fs::path profile = fs::path(path) / "profile.cubex";
    return (!fs::exists(report, ec) && fs::exists(profile, ec) ? profile : report).string();
}

int runAlgebraCommand(const std::string& command, const std::vector<std::string>& args) {
    std::string output;
    std::vector<std::string> inputs;
    for (std::size_t i = 0; i < args.size(); ++i) {
        if ((args[i] == "-o" || args[i] == "--output") && i + 1 < args.size()) {
            output = args[++i];
        } else if (args[i] == "-h" || args[i] == "--help") {
            std::cout << kAlgebraUsage;
            return 0;
        } else if (args[i].size() > 1 && args[i][0] == '-') {
            std::cerr << kAlgebraUsage;
            return fail("unknown option " + args[i]);
        } else {
            inputs.push_back(args[i]);
        }
    }
    if (output.empty()) {
        std::cerr << kAlgebraUsage;
        return fail(command + " needs the output file: -o OUT.cubex");
    }
    if (command == "diff" ? inputs.size() != 2 : inputs.empty()) {
        std::cerr << kAlgebraUsage;
        return fail(command == "diff" ? "diff takes two reports, A and B (computes A − B)"
                                      : command + " needs at least one report");
    }
    std::vector<std::unique_ptr<Report>> reports;
    std::vector<const Report*> pointers;
    for (const std::string& input : inputs) {
        auto report = readCubex(reportFileOf(input));
        if (!report)
            return fail(report.error().message());
        reports.push_back(std::make_unique<Report>(std::move(*report)));
        pointers.push_back(reports.back().get());
    }
    Result<AlgebraResult> result = command == "diff"   ? diffReports(*pointers[0], *pointers[1])
                                   : command == "mean" ? meanReports(pointers)
                                                       : mergeReports(pointers);
    if (!result)
        return fail(result.error().message());
    std::string operands;
    for (const std::string& input : inputs)
        operands += (operands.empty() ? "" : command == "diff" ? " - " : ", ") + input;
    result->report.setAttribute("waitscope::operation", command + ": " + operands);
    for (const std::string& note : result->notes)
        std::cerr << "waitscope-report: note: " << note << '\n';
    if (Status s = writeCubex(result->report, output); !s)
        return fail(s.error().message());
    std::cout << "wrote " << output << " (" << command << " of " << inputs.size()
              << " reports: " << result->report.metrics().size() << " metrics, "
              << result->report.callNodes().size() << " call paths, "
              << result->report.locations().size() << " locations)\n";
    return 0;
}

} // namespace waitscope::report
