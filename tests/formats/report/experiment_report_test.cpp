// locateExperimentReport: which report of an experiment directory opens, and its errors.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <waitscope/report/experiment_report.h>

using namespace waitscope::report;
namespace fs = std::filesystem;

namespace {

// A fresh, empty directory below the test's binary directory.
fs::path freshDirectory(const std::string& name) {
    fs::path dir = fs::path(WAITSCOPE_TEST_TMP_DIR) / "experiments" / name;
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

void touch(const fs::path& file) {
    std::ofstream(file) << "x";
}

} // namespace

TEST_CASE("an experiment directory opens its most complete report", "[report][experiment]") {
    fs::path dir = freshDirectory("order");
    touch(dir / "profile.cubex");
    CHECK(*locateExperimentReport(dir.string()) == (dir / "profile.cubex").string());
    touch(dir / "summary.cubex");
    CHECK(*locateExperimentReport(dir.string()) == (dir / "summary.cubex").string());
    touch(dir / "scout.cubex");
    CHECK(*locateExperimentReport(dir.string()) == (dir / "scout.cubex").string());
    touch(dir / "trace.cubex");
    CHECK(*locateExperimentReport(dir.string()) == (dir / "trace.cubex").string());
    touch(dir / "report.cubex");
    CHECK(*locateExperimentReport(dir.string()) == (dir / "report.cubex").string());
}

TEST_CASE("scoring prefers the runtime profile", "[report][experiment]") {
    fs::path dir = freshDirectory("profile");
    touch(dir / "report.cubex");
    CHECK(*locateExperimentReport(dir.string(), ReportPreference::Profile) ==
          (dir / "report.cubex").string());
    touch(dir / "profile.cubex");
    CHECK(*locateExperimentReport(dir.string(), ReportPreference::Profile) ==
          (dir / "profile.cubex").string());
    CHECK(*locateExperimentReport(dir.string()) == (dir / "report.cubex").string());
}

TEST_CASE("a report file opens as itself", "[report][experiment]") {
    fs::path dir = freshDirectory("file");
    touch(dir / "mine.cubex");
    CHECK(*locateExperimentReport((dir / "mine.cubex").string()) == (dir / "mine.cubex").string());
}

TEST_CASE("the Scalasca reference experiments open their combined report", "[report][experiment]") {
    const std::string dir = std::string(WAITSCOPE_REFERENCE_DIR) + "/late_sender";
    CHECK(*locateExperimentReport(dir) == dir + "/trace.cubex");
}

TEST_CASE("a missing experiment says to run the analysis first", "[report][experiment]") {
    auto missing = locateExperimentReport("no_such_experiment_dir");
    REQUIRE_FALSE(missing);
    CHECK(missing.error().message() ==
          "no_such_experiment_dir: no such experiment directory or report (run `waitscope "
          "analyze` first; it writes waitscope_<program>_<ranks>)");
}

TEST_CASE("a directory without a report lists what was looked for", "[report][experiment]") {
    fs::path dir = freshDirectory("empty");
    auto empty = locateExperimentReport(dir.string());
    REQUIRE_FALSE(empty);
    CHECK(empty.error().message() ==
          dir.string() +
              ": no report in this directory (looked for report.cubex, trace.cubex, "
              "scout.cubex, summary.cubex, profile.cubex); run `waitscope analyze` first");
    touch(dir / "traces.otf2");
    auto traced = locateExperimentReport(dir.string());
    REQUIRE_FALSE(traced);
    CHECK(traced.error().message() ==
          dir.string() +
              ": no report in this directory (looked for report.cubex, trace.cubex, "
              "scout.cubex, summary.cubex, profile.cubex); analyze its traces with `waitscope "
              "analyze -a " +
              dir.string() + "`");
}
