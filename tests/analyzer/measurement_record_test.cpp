// The self-measurement file is optional, read in order, and refused when malformed.
#include "waitscope/analysis/measurement_record.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

using namespace waitscope::analysis;
namespace fs = std::filesystem;

TEST_CASE("the self-measurement becomes prefixed attributes", "[measurement-record]") {
    const fs::path dir = fs::temp_directory_path() / "waitscope_measurement_record_test";
    fs::create_directories(dir);
    std::ofstream(dir / kMeasurementRecordFile)
        << "# comment\nversion=1\nrank.0.flush_seconds=0.25\n\nrank.1.flushes=3\n";
    auto entries = readMeasurementRecord(dir.string());
    REQUIRE(entries.ok());
    REQUIRE(entries->size() == 3);
    CHECK((*entries)[0] ==
          std::make_pair(std::string("waitscope::measurement::version"), std::string("1")));
    CHECK((*entries)[1].first == "waitscope::measurement::rank.0.flush_seconds");
    CHECK((*entries)[1].second == "0.25");
    std::ofstream(dir / kMeasurementRecordFile) << "version=1\nno equals sign\n";
    auto bad = readMeasurementRecord(dir.string());
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().message() ==
          (dir / kMeasurementRecordFile).string() + ": line 2: expected key=value");
    fs::remove_all(dir);
    auto absent = readMeasurementRecord(dir.string());
    REQUIRE(absent.ok());
    CHECK(absent->empty());
}
