// Locating an experiment's report and measurement record, and writing the summary files.
#include "waitscope/summary/experiment_summary.h"

#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <waitscope/report/cubex_reader.h>
#include <waitscope/report/experiment_report.h>

namespace waitscope::summary {

namespace fs = std::filesystem;

namespace {

/// When a file was last written, as "YYYY-MM-DD HH:MM UTC"; empty when unknown.
std::string modificationDate(const fs::path& file) {
    struct stat info {};
    if (stat(file.c_str(), &info) != 0) {
        return "";
    }
    std::tm utc{};
    gmtime_r(&info.st_mtime, &utc);
    char buffer[32];
    std::strftime(buffer, sizeof buffer, "%Y-%m-%d %H:%M UTC", &utc);
    return buffer;
}

/// The report of `path`: the file itself, or an experiment directory's most complete report
/// (report::locateExperimentReport, the rule of every tool); its report.cubex when it has none,
/// for the message.
fs::path reportOf(const std::string& path) {
    if (auto located = report::locateExperimentReport(path))
        return *located;
    std::error_code ec;
    return fs::is_directory(path, ec) ? fs::path(path) / "report.cubex" : fs::path(path);
}

} // namespace

Result<Summary> summarizeExperiment(const std::string& path) {
    std::error_code ec;
    const fs::path reportPath = reportOf(path);
    const fs::path directory =
        reportPath.parent_path().empty() ? fs::path(".") : reportPath.parent_path();
    if (!fs::exists(reportPath, ec)) {
        // Only suggest what can work: analyzing again needs the experiment's traces.
        const bool traced = fs::exists(directory / "traces.otf2", ec);
        return Error(
            reportPath.string() + ": no report (" +
            (traced ? "analyze the traces with `waitscope analyze -a " + directory.string() + "`)"
                    : std::string("measure and analyze a run with `waitscope analyze "
                                  "mpirun -np N <program>` first)")));
    }
    auto report = report::readCubex(reportPath.string());
    if (!report) {
        return report.error();
    }
    std::optional<MeasurementRecord> record;
    if (auto r = MeasurementRecord::read((directory / "waitscope.measurement").string())) {
        record = std::move(*r);
    } else if (auto copied = MeasurementRecord::fromReport(*report); !copied.empty()) {
        // A report moved away from its experiment still carries the measurement's record.
        record = std::move(copied);
    }
    SummaryOptions options;
    if (std::ifstream command(directory / kCommandFile); command) {
        std::getline(command, options.command);
    }
    auto summary = summarize(*report, record ? &*record : nullptr, options);
    if (!summary) {
        return summary.error().withContext(reportPath.string());
    }
    summary->source = reportPath.string();
    // The run ended when the measurement wrote its record; a lone report has only its own date.
    const fs::path recordFile = directory / "waitscope.measurement";
    summary->date = modificationDate(fs::exists(recordFile, ec) ? recordFile : reportPath);
    return summary;
}

Status writeSummaryFiles(const Summary& summary, const std::string& directory) {
    const std::pair<const char*, std::string> files[] = {
        {"summary.txt", renderText(summary)},
        {"summary.html", renderHtml(summary)},
    };
    for (const auto& [name, text] : files) {
        const fs::path file = fs::path(directory) / name;
        std::ofstream out(file, std::ios::binary);
        out << text;
        if (!out) {
            return Error(file.string() + ": cannot write");
        }
    }
    return {};
}

} // namespace waitscope::summary
