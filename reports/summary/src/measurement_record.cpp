// Reading the measurement's key=value self-measurement record.
#include "waitscope/summary/measurement_record.h"

#include "waitscope/experiment/attribute_keys.h"

#include <algorithm>
#include <cstdlib>
#include <utility>

namespace waitscope::summary {

Result<MeasurementRecord> MeasurementRecord::read(const std::string& path) {
    auto entries = experiment::readMeasurementRecord(path);
    if (!entries) {
        return entries.error();
    }
    return fromEntries(*entries);
}

MeasurementRecord MeasurementRecord::parse(std::string_view text) {
    return fromEntries(experiment::parseMeasurementRecord(text));
}

MeasurementRecord MeasurementRecord::fromEntries(const experiment::MeasurementEntries& entries) {
    // A damaged line costs only its own value: the summary shows what the rest says.
    MeasurementRecord record;
    for (const auto& [key, value] : entries.entries) {
        record.m_values[key] = value;
    }
    return record;
}

MeasurementRecord MeasurementRecord::fromReport(const report::Report& report) {
    const std::string_view prefix = experiment::kMeasurementPrefix;
    MeasurementRecord record;
    for (const auto& [key, value] : report.attributes()) {
        if (key.rfind(prefix, 0) == 0) {
            record.m_values[key.substr(prefix.size())] = value;
        }
    }
    return record;
}

std::string MeasurementRecord::text(const std::string& key) const {
    const auto it = m_values.find(key);
    return it == m_values.end() ? std::string() : it->second;
}

double MeasurementRecord::number(const std::string& key, double fallback) const {
    const auto it = m_values.find(key);
    if (it == m_values.end() || it->second.empty()) {
        return fallback;
    }
    char* end = nullptr;
    const double v = std::strtod(it->second.c_str(), &end);
    return end == it->second.c_str() ? fallback : v;
}

double MeasurementRecord::sumOverRanks(const std::string& key) const {
    double sum = 0.0;
    for (int r = 0; r < ranks(); ++r) {
        sum += number("rank." + std::to_string(r) + "." + key);
    }
    return sum;
}

double MeasurementRecord::sumOverRanks(experiment::RankField field) const {
    return sumOverRanks(experiment::rankFieldName(field));
}

double MeasurementRecord::maxOverRanks(const std::string& key) const {
    double best = 0.0;
    for (int r = 0; r < ranks(); ++r) {
        best = std::max(best, number("rank." + std::to_string(r) + "." + key));
    }
    return best;
}

std::vector<UnrecordedCall> MeasurementRecord::unrecordedCalls() const {
    const std::string prefix = experiment::kUnrecordedPrefix;
    const std::string suffix = experiment::kUnrecordedRanksSuffix;
    std::vector<UnrecordedCall> calls;
    for (const auto& [key, value] : m_values) {
        if (key.rfind(prefix, 0) != 0 || key.ends_with(suffix)) {
            continue;
        }
        UnrecordedCall call;
        call.function = key.substr(prefix.size());
        call.calls = static_cast<std::uint64_t>(number(key));
        call.ranks = static_cast<std::uint64_t>(number(key + suffix));
        if (call.calls > 0) {
            calls.push_back(std::move(call));
        }
    }
    std::stable_sort(calls.begin(), calls.end(),
                     [](const auto& a, const auto& b) { return a.calls > b.calls; });
    return calls;
}

} // namespace waitscope::summary
