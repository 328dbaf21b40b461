// locateExperimentReport: picks the most complete report present in an experiment directory.
#include <filesystem>
#include <waitscope/report/experiment_report.h>

namespace waitscope::report {

namespace fs = std::filesystem;

Result<std::string> locateExperimentReport(const std::string& path, ReportPreference preference) {
    std::error_code ec;
    const fs::file_status status = fs::status(path, ec);
    if (!fs::exists(status))
        return Error(path + ": no such experiment directory or report (run `waitscope analyze` "
                            "first; it writes waitscope_<program>_<ranks>)");
    if (!fs::is_directory(status))
        return path;
    std::string lookedFor;
    const auto& names =
        preference == ReportPreference::Profile ? kExperimentProfileNames : kExperimentReportNames;
    for (const char* name : names) {
        const fs::path file = fs::path(path) / name;
        if (fs::is_regular_file(file, ec))
            return file.string();
        lookedFor += lookedFor.empty() ? name : std::string(", ") + name;
    }
    std::string message = path + ": no report in this directory (looked for " + lookedFor + ")";
    if (fs::exists(fs::path(path) / "traces.otf2", ec))
        message += "; analyze its traces with `waitscope analyze -a " + path + "`";
    else
        message += "; run `waitscope analyze` first";
    return Error(message);
}

} // namespace waitscope::report
