// Lookups in the diagnostics registry.
#include <waitscope/experiment/diagnostics.h>

namespace waitscope::experiment {
namespace {

constexpr bool indexedById() {
    for (std::size_t i = 0; i < kDiagnosticCount; ++i) {
        if (static_cast<std::size_t>(kDiagnosticDefinitions[i].id) != i) {
            return false;
        }
    }
    return true;
}
static_assert(indexedById());

} // namespace

std::optional<Diagnostic> findDiagnostic(std::string_view name) noexcept {
    for (const DiagnosticDefinition& d : kDiagnosticDefinitions) {
        if (d.name == name) {
            return d.id;
        }
    }
    return std::nullopt;
}

bool isClockCorrection(Diagnostic diagnostic) noexcept {
    switch (diagnostic) {
    case Diagnostic::ClockCorrectedCollective:
    case Diagnostic::ClockCorrectedP2p:
    case Diagnostic::ClockCorrectionMaxShiftNs:
    case Diagnostic::ClockCorrectionMinLatencyNs:
    case Diagnostic::ClockCorrectionSkipped:
        return true;
    default:
        return false;
    }
}

bool combinesByMaximum(Diagnostic diagnostic) noexcept {
    return diagnostic == Diagnostic::ClockCorrectionMaxShiftNs;
}

std::string_view severityName(Severity severity) noexcept {
    switch (severity) {
    case Severity::Info:
        return "info";
    case Severity::Warning:
        return "warning";
    case Severity::DataLoss:
        return "data loss";
    }
    return "";
}

} // namespace waitscope::experiment
