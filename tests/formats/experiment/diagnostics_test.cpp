// The diagnostics registry names each diagnostic once, describes it, and the attribute keys
// keep the format reports have always carried.
#include <catch2/catch.hpp>
#include <set>
#include <waitscope/experiment/attribute_keys.h>
#include <waitscope/experiment/diagnostics.h>

using namespace waitscope::experiment;

TEST_CASE("every diagnostic has a unique name, a severity and a description", "[diagnostics]") {
    REQUIRE(diagnosticDefinitions().size() == kDiagnosticCount);
    std::set<std::string_view> names;
    for (size_t i = 0; i < kDiagnosticCount; ++i) {
        const DiagnosticDefinition& d = diagnosticDefinitions()[i];
        INFO(d.name);
        CHECK(static_cast<size_t>(d.id) == i);
        CHECK(names.insert(d.name).second);
        CHECK(!d.name.empty());
        // Names are attribute key parts: lowercase words joined by underscores.
        CHECK(d.name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") ==
              std::string_view::npos);
        CHECK(!d.description.empty());
        CHECK(!severityName(d.severity).empty());
        CHECK(findDiagnostic(d.name) == d.id);
        CHECK(diagnosticName(d.id) == d.name);
    }
    CHECK(!findDiagnostic("no_such_diagnostic"));
}

TEST_CASE("diagnostics and measurement entries keep their attribute keys", "[diagnostics]") {
    CHECK(diagnosticAttribute(diagnosticName(Diagnostic::ClockViolationsP2p)) ==
          "waitscope::diagnostic::clock_violations_p2p");
    CHECK(diagnosticRankAttribute("regions_left_open", 3) ==
          "waitscope::diagnostic::regions_left_open::rank3");
    CHECK(measurementAttribute("ranks") == "waitscope::measurement::ranks");
    CHECK(measurementRankAttribute(12, kContextRecordsKey) ==
          "waitscope::measurement::rank.12.context_records");
    CHECK(std::string(kMeasurementRecoveryPrefix) + "1" == "waitscope::measurement::recovery.1");
}

TEST_CASE("only the clock correction's counters say the clocks were corrected", "[diagnostics]") {
    size_t corrections = 0;
    for (const DiagnosticDefinition& d : diagnosticDefinitions()) {
        INFO(d.name);
        const bool named = d.name.rfind("clock_correct", 0) == 0;
        CHECK(isClockCorrection(d.id) == named);
        corrections += named ? 1 : 0;
        // Only a maximum combines over ranks by maximum.
        CHECK(combinesByMaximum(d.id) == (d.name.find("_max_") != std::string_view::npos));
    }
    CHECK(corrections == 5);
}
