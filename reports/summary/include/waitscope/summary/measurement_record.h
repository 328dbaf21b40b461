// MeasurementRecord: the key=value self-measurement file (waitscope.measurement) of an experiment.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>
#include <waitscope/base/result.h>
#include <waitscope/experiment/measurement_record.h>
#include <waitscope/report/report.h>

namespace waitscope::summary {

/// An MPI function the program called that the measurement counted but did not record.
struct UnrecordedCall {
    std::string function;
    std::uint64_t calls = 0; ///< summed over ranks
    std::uint64_t ranks = 0; ///< ranks that called it
};

/// The measurement's record of its own cost, as written by libwaitscope at MPI_Finalize.
class MeasurementRecord {
public:
    /// Reads `path` (experiment::readMeasurementRecord). Fails if the file cannot be opened;
    /// damaged lines are skipped, so the summary shows what the rest of the record says.
    static Result<MeasurementRecord> read(const std::string& path);
    /// Parses the text of a record, skipping damaged lines.
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
    /// The sum of a per-rank field the measurement writes over all ranks.
    double sumOverRanks(experiment::RankField field) const;
    /// The maximum of `rank.<r>.<key>` over all ranks (0 when absent).
    double maxOverRanks(const std::string& key) const;
    /// The MPI functions counted but not recorded (`unrecorded.<function>`), most calls first.
    std::vector<UnrecordedCall> unrecordedCalls() const;
    /// Number of ranks the record covers (its `ranks` key).
    int ranks() const { return static_cast<int>(number("ranks")); }

private:
    /// The entries of a read record; a key written twice keeps its last value.
    static MeasurementRecord fromEntries(const experiment::MeasurementEntries& entries);

    std::map<std::string, std::string> m_values;
};

} // namespace waitscope::summary
