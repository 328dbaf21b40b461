// MeasurementRecord: the key=value self-measurement file (waitscope.measurement) of an experiment.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <waitscope/base/result.h>
#include <waitscope/report/report.h>

namespace waitscope::summary {

/// The measurement's record of its own cost, as written by libwaitscope at MPI_Finalize.
class MeasurementRecord {
public:
    /// Reads `path`. Fails if the file cannot be opened; lines without '=' and comments are
    /// skipped.
    static Result<MeasurementRecord> read(const std::string& path);
    /// Parses the text of a record.
    static MeasurementRecord parse(std::string_view text);
    /// The record the analyzer copied into the report's attributes
    /// (`waitscope::measurement::<key>`); empty when there are none.
    static MeasurementRecord fromReport(const report::Report& report);
    /// Whether the record holds no values.
    bool empty() const { return m_values.empty(); }

    /// The value of `key`, or an empty string.
    std::string text(const std::string& key) const;
    /// The numeric value of `key`, or `fallback` when absent or not a number.
    double number(const std::string& key, double fallback = 0.0) const;
    /// The sum of `rank.<r>.<key>` over all ranks.
    double sumOverRanks(const std::string& key) const;
    /// The maximum of `rank.<r>.<key>` over all ranks (0 when absent).
    double maxOverRanks(const std::string& key) const;
    /// Number of ranks the record covers (its `ranks` key).
    int ranks() const { return static_cast<int>(number("ranks")); }

private:
    std::map<std::string, std::string> m_values;
};

} // namespace waitscope::summary
