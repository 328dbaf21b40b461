// Parsing of the key=value self-measurement file.
#include "waitscope/analysis/measurement_record.h"

#include <filesystem>
#include <fstream>

namespace waitscope::analysis {

Result<std::vector<std::pair<std::string, std::string>>>
readMeasurementRecord(const std::string& directory) {
    const std::filesystem::path file = std::filesystem::path(directory) / kMeasurementRecordFile;
    std::vector<std::pair<std::string, std::string>> entries;
    std::error_code ec;
    if (!std::filesystem::exists(file, ec)) {
        return entries;
    }
    std::ifstream in(file);
    if (!in) {
        return Error(file.string() + ": cannot read");
    }
    std::string line;
    for (size_t number = 1; std::getline(in, line); ++number) {
        if (line.empty() || line[0] == '#') {
            continue;
        }
        const size_t equals = line.find('=');
        if (equals == std::string::npos || equals == 0) {
            return Error(file.string() + ": line " + std::to_string(number) +
                         ": expected key=value");
        }
        entries.emplace_back("waitscope::measurement::" + line.substr(0, equals),
                             line.substr(equals + 1));
    }
    return entries;
}

} // namespace waitscope::analysis
