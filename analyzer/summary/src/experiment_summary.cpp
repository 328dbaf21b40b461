// Locating an experiment's report and measurement record, and writing the summary files.
#include "waitscope/summary/experiment_summary.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <waitscope/report/cubex_reader.h>

namespace waitscope::summary {

namespace fs = std::filesystem;

Result<Summary> summarizeExperiment(const std::string& path) {
    std::error_code ec;
    const bool isDirectory = fs::is_directory(path, ec);
    const fs::path reportPath = isDirectory ? fs::path(path) / "report.cubex" : fs::path(path);
    const fs::path directory =
        reportPath.parent_path().empty() ? fs::path(".") : reportPath.parent_path();
    if (!fs::exists(reportPath, ec)) {
        return Error(reportPath.string() + ": no report (run `waitscope analyze` first, or " +
                     "analyze the traces again with `waitscope analyze -a`)");
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
