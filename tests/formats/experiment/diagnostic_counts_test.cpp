// Diagnostic counters: indexed by the registry, a counter the analysis touched is reported even
// at zero, and they are listed in the order of their names (the order of report attributes).
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>
#include <waitscope/experiment/diagnostic_counts.h>

using namespace waitscope::experiment;

namespace {

// "name=count" of every counted diagnostic, as forEachCounted lists them.
std::vector<std::string> listed(const DiagnosticCounts& counts) {
    std::vector<std::string> out;
    counts.forEachCounted([&out](Diagnostic diagnostic, std::uint64_t count) {
        out.push_back(std::string(diagnosticName(diagnostic)) + "=" + std::to_string(count));
    });
    return out;
}

} // namespace

TEST_CASE("diagnostic counters list what was counted, zeros too, in the order of the names",
          "[diagnostics]") {
    DiagnosticCounts counts;
    CHECK(counts.empty());
    ++counts[Diagnostic::UnmatchedLeave];
    counts[Diagnostic::RegionsLeftOpen] += 0;
    counts[Diagnostic::ClockViolationsP2p] = 3;
    ++counts[Diagnostic::UnmatchedLeave];
    CHECK(counts.size() == 3);
    CHECK(counts.value(Diagnostic::UnmatchedLeave) == 2);
    CHECK(counts.counted(Diagnostic::RegionsLeftOpen));
    CHECK_FALSE(counts.counted(Diagnostic::MismatchedLeave));
    CHECK(counts.value(Diagnostic::MismatchedLeave) == 0);
    CHECK(listed(counts) == std::vector<std::string>{"clock_violations_p2p=3",
                                                     "regions_left_open=0", "unmatched_leave=2"});
    CHECK(counts == DiagnosticCounts{{Diagnostic::ClockViolationsP2p, 3},
                                     {Diagnostic::RegionsLeftOpen, 0},
                                     {Diagnostic::UnmatchedLeave, 2}});
    // A counter touched at zero is not the same as one never touched.
    CHECK_FALSE(counts == DiagnosticCounts{{Diagnostic::ClockViolationsP2p, 3},
                                           {Diagnostic::UnmatchedLeave, 2}});
}

TEST_CASE("every diagnostic is listed once, whatever the order of the registry", "[diagnostics]") {
    DiagnosticCounts all;
    for (const DiagnosticDefinition& d : diagnosticDefinitions()) {
        all[d.id] = static_cast<std::uint64_t>(d.id);
    }
    const std::vector<std::string> names = listed(all);
    REQUIRE(names.size() == kDiagnosticCount);
    CHECK(std::is_sorted(names.begin(), names.end()));
}

TEST_CASE("adding diagnostic counters adds what the other counted", "[diagnostics]") {
    DiagnosticCounts rank{{Diagnostic::ThreadMpiEvents, 4}};
    rank.add(
        DiagnosticCounts{{Diagnostic::ThreadMpiEvents, 1}, {Diagnostic::ClockCorrectedP2p, 0}});
    CHECK(rank ==
          DiagnosticCounts{{Diagnostic::ThreadMpiEvents, 5}, {Diagnostic::ClockCorrectedP2p, 0}});
}
