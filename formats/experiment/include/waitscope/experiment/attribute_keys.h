// The keys of the report attributes Waitscope writes beside the metrics: the analysis's
// diagnostics and the measurement's record (waitscope.measurement), shared by their writers
// (analyzer, runtime profile) and readers (summary, score, explorer).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace waitscope::experiment {

/// Prefix of a diagnostic's attributes: "waitscope::diagnostic::<name>" holds its count over
/// all ranks, "waitscope::diagnostic::<name>::rank<r>" rank r's (see diagnostics.h).
inline constexpr std::string_view kDiagnosticPrefix = "waitscope::diagnostic::";
/// What separates a diagnostic's name from the rank in its per-rank attribute.
inline constexpr std::string_view kDiagnosticRankSeparator = "::rank";

/// Prefix of the attributes copied from the experiment's waitscope.measurement file:
/// "waitscope::measurement::<key>" for each "key=value" line.
inline constexpr std::string_view kMeasurementPrefix = "waitscope::measurement::";
/// Prefix of the measurement's per-rank attributes, "waitscope::measurement::rank.<r>.<key>".
inline constexpr std::string_view kMeasurementRankPrefix = "waitscope::measurement::rank.";
/// Prefix of the notes `waitscope recover` adds to the record,
/// "waitscope::measurement::recovery.<n>".
inline constexpr std::string_view kMeasurementRecoveryPrefix = "waitscope::measurement::recovery.";

/// The per-rank key of the runtime profile: the calling-context records (samples, MPI call
/// paths) the rank wrote in a hybrid measurement, which a trace would hold too.
inline constexpr std::string_view kContextRecordsKey = "context_records";

/// The attribute holding diagnostic `name`'s count over all ranks.
inline std::string diagnosticAttribute(std::string_view name) {
    return std::string(kDiagnosticPrefix) + std::string(name);
}

/// The attribute holding diagnostic `name`'s count on `rank`.
inline std::string diagnosticRankAttribute(std::string_view name, std::uint32_t rank) {
    return diagnosticAttribute(name) + std::string(kDiagnosticRankSeparator) + std::to_string(rank);
}

/// The attribute holding the measurement record's `key` (a line "key=value").
inline std::string measurementAttribute(std::string_view key) {
    return std::string(kMeasurementPrefix) + std::string(key);
}

/// The attribute holding the measurement's `key` of `rank` ("rank.<r>.<key>").
inline std::string measurementRankAttribute(int rank, std::string_view key) {
    return std::string(kMeasurementRankPrefix) + std::to_string(rank) + "." + std::string(key);
}

} // namespace waitscope::experiment
