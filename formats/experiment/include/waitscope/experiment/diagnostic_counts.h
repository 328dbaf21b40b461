// The counters of the diagnostics registry for one rank: one slot per Diagnostic and whether it
// was counted at all (a counter the analysis touched is reported even at 0). Names are looked up
// only where the counters leave the program: report attributes, canonical text, messages.
#pragma once

#include "waitscope/experiment/diagnostics.h"

#include <algorithm>
#include <array>
#include <bitset>
#include <cstdint>
#include <initializer_list>
#include <utility>

namespace waitscope::experiment {

namespace detail {
/// Every diagnostic in the order of its name: the order reports and text list them in.
constexpr std::array<Diagnostic, kDiagnosticCount> diagnosticsByName() {
    std::array<Diagnostic, kDiagnosticCount> order{};
    for (std::size_t i = 0; i < kDiagnosticCount; ++i) {
        order[i] = static_cast<Diagnostic>(i);
    }
    std::sort(order.begin(), order.end(),
              [](Diagnostic a, Diagnostic b) { return diagnosticName(a) < diagnosticName(b); });
    return order;
}
inline constexpr std::array<Diagnostic, kDiagnosticCount> kDiagnosticsByName = diagnosticsByName();
} // namespace detail

/// Counters of the diagnostics registry, indexed by Diagnostic.
class DiagnosticCounts {
public:
    DiagnosticCounts() = default;
    /// Counted diagnostics and their values (tests, fixed expectations).
    DiagnosticCounts(std::initializer_list<std::pair<Diagnostic, std::uint64_t>> counts) {
        for (const auto& [diagnostic, count] : counts) {
            (*this)[diagnostic] = count;
        }
    }

    /// The counter of `diagnostic`, counted from now on (it starts at 0).
    std::uint64_t& operator[](Diagnostic diagnostic) {
        m_counted.set(index(diagnostic));
        return m_values[index(diagnostic)];
    }
    /// The counter of `diagnostic`; 0 when it was not counted.
    std::uint64_t value(Diagnostic diagnostic) const { return m_values[index(diagnostic)]; }
    /// Whether `diagnostic` was counted (even at 0).
    bool counted(Diagnostic diagnostic) const { return m_counted.test(index(diagnostic)); }
    /// Whether nothing was counted.
    bool empty() const { return m_counted.none(); }
    /// Number of diagnostics counted.
    std::size_t size() const { return m_counted.count(); }

    /// Adds every counter `other` counted to this one's.
    void add(const DiagnosticCounts& other) {
        for (std::size_t i = 0; i < kDiagnosticCount; ++i) {
            if (other.m_counted.test(i)) {
                (*this)[static_cast<Diagnostic>(i)] += other.m_values[i];
            }
        }
    }

    /// Calls `visit(diagnostic, count)` for every counted diagnostic, in the order of the names.
    template <class Visit> void forEachCounted(Visit visit) const {
        for (const Diagnostic diagnostic : detail::kDiagnosticsByName) {
            if (counted(diagnostic)) {
                visit(diagnostic, value(diagnostic));
            }
        }
    }

    bool operator==(const DiagnosticCounts&) const = default;

private:
    static constexpr std::size_t index(Diagnostic diagnostic) {
        return static_cast<std::size_t>(diagnostic);
    }

    std::array<std::uint64_t, kDiagnosticCount> m_values{};
    std::bitset<kDiagnosticCount> m_counted;
};

} // namespace waitscope::experiment
