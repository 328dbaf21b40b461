// Reading the measurement's key=value self-measurement record.
#include "waitscope/summary/measurement_record.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace waitscope::summary {

Result<MeasurementRecord> MeasurementRecord::read(const std::string& path) {
    std::ifstream in(path);
    if (!in) {
        return Error(path + ": cannot open the measurement record");
    }
    std::ostringstream text;
    text << in.rdbuf();
    return parse(text.str());
}

MeasurementRecord MeasurementRecord::parse(std::string_view text) {
    MeasurementRecord record;
    size_t start = 0;
    while (start < text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string_view::npos) {
            end = text.size();
        }
        const std::string_view line = text.substr(start, end - start);
        start = end + 1;
        if (line.empty() || line[0] == '#') {
            continue;
        }
        const size_t eq = line.find('=');
        if (eq == std::string_view::npos) {
            continue;
        }
        record.m_values[std::string(line.substr(0, eq))] = std::string(line.substr(eq + 1));
    }
    return record;
}

MeasurementRecord MeasurementRecord::fromReport(const report::Report& report) {
    const std::string prefix = "waitscope::measurement::";
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

double MeasurementRecord::maxOverRanks(const std::string& key) const {
    double best = 0.0;
    for (int r = 0; r < ranks(); ++r) {
        best = std::max(best, number("rank." + std::to_string(r) + "." + key));
    }
    return best;
}

} // namespace waitscope::summary
