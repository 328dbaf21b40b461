// The analyzer's use of the self-measurement file: the whole record, or an error.
#include "waitscope/analysis/measurement_record.h"

#include "waitscope/experiment/attribute_keys.h"

#include <filesystem>

namespace waitscope::analysis {

Result<std::vector<std::pair<std::string, std::string>>>
readMeasurementRecord(const std::string& directory) {
    const std::filesystem::path file = std::filesystem::path(directory) / kMeasurementRecordFile;
    std::vector<std::pair<std::string, std::string>> entries;
    std::error_code ec;
    if (!std::filesystem::exists(file, ec)) {
        return entries;
    }
    auto record = experiment::readMeasurementRecord(file.string());
    if (!record) {
        return record.error();
    }
    if (!record->badLines.empty()) {
        return experiment::badLineError(file.string(), record->badLines.front());
    }
    entries.reserve(record->entries.size());
    for (auto& [key, value] : record->entries) {
        entries.emplace_back(experiment::measurementAttribute(key), std::move(value));
    }
    return entries;
}

} // namespace waitscope::analysis
