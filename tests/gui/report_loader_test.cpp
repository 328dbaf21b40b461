// Tests of loadReport: files, experiment directories and invalid input.
#include "test_reports.h"

#include <catch2/catch.hpp>
#include <waitscope/gui/report_loader.h>

using namespace waitscope::gui;
using namespace waitscope::gui::test;

TEST_CASE("an experiment directory opens its combined report", "[loader]") {
    auto path = resolveReportPath(QStringLiteral(WAITSCOPE_REFERENCE_DIR "/late_sender"));
    REQUIRE(path.ok());
    CHECK(path->endsWith(QStringLiteral("late_sender/trace.cubex")));
    auto report = loadReport(QStringLiteral(WAITSCOPE_REFERENCE_DIR "/late_sender"));
    REQUIRE(report.ok());
    CHECK((*report)->callNodes().size() == 11);
}

TEST_CASE("every reference report loads", "[loader]") {
    for (const std::string& path : allReferenceReports()) {
        auto report = loadReport(QString::fromStdString(path));
        INFO(path << ": " << (report ? std::string() : report.error().message()));
        CHECK(report.ok());
    }
}

TEST_CASE("invalid input gives a message naming the problem", "[loader]") {
    auto missing = loadReport(QStringLiteral("/nonexistent/report.cubex"));
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.error().message().starts_with(
        "/nonexistent/report.cubex: no such experiment directory or report (run `waitscope "
        "analyze` first"));
    auto notReport =
        loadReport(QStringLiteral(WAITSCOPE_REFERENCE_DIR "/late_sender/late_sender.c"));
    REQUIRE_FALSE(notReport.ok());
    CHECK(notReport.error().message().find("late_sender.c") != std::string::npos);
    auto emptyDir = loadReport(QStringLiteral(WAITSCOPE_REFERENCE_DIR "/late_sender/trace"));
    REQUIRE_FALSE(emptyDir.ok());
    CHECK(emptyDir.error().message().find("no report in this directory (looked for report.cubex") !=
          std::string::npos);
}
