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

int runAlgebraCommand(const std::string& command, const std::vector<std::string>& inputs,
                      const std::string& output) {
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
