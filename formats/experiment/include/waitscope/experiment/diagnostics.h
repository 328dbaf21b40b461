// The diagnostics registry: every anomaly of the input and every counter of a correction the
// analysis reports, one line each with its name, severity and meaning. A diagnostic is counted
// per rank and lands in the report as attributes (attribute_keys.h), never as log output.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace waitscope::experiment {

// X(id, name, severity, description)
//
// name      the counter's name in reports, canonical text and rank results
// severity  Info (what a correction did), Warning (timestamps or nesting that do not fit:
//           values near it are suspect), DataLoss (input the analysis could not use)
// clang-format off
#define WAITSCOPE_DIAGNOSTICS(X) \
    X(ClockCorrectedCollective, "clock_corrected_collective", Info, "collective exits the clock correction moved forward") \
    X(ClockCorrectedP2p, "clock_corrected_p2p", Info, "receives the clock correction moved forward behind their send") \
    X(ClockCorrectionMaxShiftNs, "clock_correction_max_shift_ns", Info, "largest forward jump of the clock correction on the rank, in nanoseconds") \
    X(ClockCorrectionMinLatencyNs, "clock_correction_min_latency_ns", Info, "smallest message latency the clock correction assumed, in nanoseconds") \
    X(ClockCorrectionSkipped, "clock_correction_skipped", Warning, "the clock correction could not run on the rank and left its timestamps as recorded") \
    X(ClockViolationsCollective, "clock_violations_collective", Warning, "collectives that end before an enter they wait for: the clocks disagree") \
    X(ClockViolationsP2p, "clock_violations_p2p", Warning, "receives that end before their send began: the clocks disagree") \
    X(CommunicationOutsideRegions, "communication_outside_regions", DataLoss, "communication events outside every region, not replayed") \
    X(MismatchedLeave, "mismatched_leave", Warning, "leaves of a region other than the innermost one entered") \
    X(RegionsLeftOpen, "regions_left_open", Warning, "regions still entered when the location's events end, closed at its last event") \
    X(ThreadMpiEvents, "thread_mpi_events", Info, "MPI events on a thread other than the rank's main thread, counted in its profile only") \
    X(UnknownCallingContext, "unknown_calling_context", DataLoss, "calling-context records naming a context the definitions lack") \
    X(UnmatchedLeave, "unmatched_leave", Warning, "leaves with no region entered") \
    X(UnreadableThreadLocations, "unreadable_thread_locations", DataLoss, "thread locations whose events could not be read, left out of the thread profiles")
// clang-format on

/// Every diagnostic.
enum class Diagnostic : std::uint8_t {
#define WAITSCOPE_DIAGNOSTIC_ID(id, ...) id,
    WAITSCOPE_DIAGNOSTICS(WAITSCOPE_DIAGNOSTIC_ID)
#undef WAITSCOPE_DIAGNOSTIC_ID
        Count_, ///< number of diagnostics, not a diagnostic
};

/// Number of diagnostics.
inline constexpr std::size_t kDiagnosticCount = static_cast<std::size_t>(Diagnostic::Count_);

/// How much a diagnostic puts the report's values in doubt.
enum class Severity : std::uint8_t { Info, Warning, DataLoss };

/// The definition of one diagnostic.
struct DiagnosticDefinition {
    Diagnostic id;
    std::string_view name;
    Severity severity;
    std::string_view description;
};

/// Every diagnostic, indexed by Diagnostic.
inline constexpr DiagnosticDefinition kDiagnosticDefinitions[] = {
#define WAITSCOPE_DIAGNOSTIC_DEFINITION(id, name, severity, description)                           \
    {Diagnostic::id, name, Severity::severity, description},
    WAITSCOPE_DIAGNOSTICS(WAITSCOPE_DIAGNOSTIC_DEFINITION)
#undef WAITSCOPE_DIAGNOSTIC_DEFINITION
};

/// Every diagnostic, indexed by Diagnostic.
constexpr std::span<const DiagnosticDefinition> diagnosticDefinitions() noexcept {
    return kDiagnosticDefinitions;
}

/// The name of `diagnostic` ("clock_violations_p2p").
constexpr std::string_view diagnosticName(Diagnostic diagnostic) noexcept {
    return kDiagnosticDefinitions[static_cast<std::size_t>(diagnostic)].name;
}

/// The diagnostic named `name`, if the registry has one (reports of other versions may carry
/// diagnostics this one does not know).
std::optional<Diagnostic> findDiagnostic(std::string_view name) noexcept;

/// True for the counters of the clock correction (the timestamps were corrected).
bool isClockCorrection(Diagnostic diagnostic) noexcept;

/// True for a maximum over events (clock_correction_max_shift_ns), which combines over ranks
/// by maximum; the others are counts and combine by sum.
bool combinesByMaximum(Diagnostic diagnostic) noexcept;

/// The severity's name: "info", "warning" or "data loss".
std::string_view severityName(Severity severity) noexcept;

} // namespace waitscope::experiment
