// The critical-path file adds up to the report: per rank the stretches' lengths sum to the
// rank's critical_path values, the stretches join into one chain through the ranks, and the
// file reads back what was written.
#include "reference_traces.h"
#include "waitscope/analysis/critical_path_file.h"
#include "waitscope/analysis/serial_analysis.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <vector>

using namespace waitscope::analysis;

using waitscope::testing::kReferenceTraces;
using waitscope::testing::referenceDirectory;

TEST_CASE("critical-path stretches add up to the report's critical path per rank and join "
          "into one chain",
          "[critical-path-file]") {
    size_t handOvers = 0;
    for (const std::string& name : kReferenceTraces) {
        INFO(name);
        auto result = analyzeArchiveInProcess(referenceDirectory(name) + "/trace");
        REQUIRE(result.ok());
        const std::string file =
            (std::filesystem::temp_directory_path() / ("waitscope_path_" + name + ".txt")).string();
        REQUIRE(writeCriticalPath(*result, file).ok());
        auto read = readCriticalPath(file);
        std::filesystem::remove(file);
        REQUIRE(read.ok());
        REQUIRE(read->size() == result->criticalPath().size());
        REQUIRE(!read->empty());
        handOvers += read->size() - 1;
        std::vector<double> lengths(result->ranks(), 0.0);
        for (const PathSegment& s : *read) {
            REQUIRE(s.rank < result->ranks());
            CHECK(s.start <= s.end);
            CHECK((s.from == kNoNode || s.from < result->tree().size()));
            CHECK((s.to == kNoNode || s.to < result->tree().size()));
            lengths[s.rank] += s.end - s.start;
        }
        double total = 0.0;
        for (uint32_t rank = 0; rank < result->ranks(); ++rank) {
            double value = 0.0;
            for (NodeId node = 0; node < result->tree().size(); ++node) {
                value += result->value(Metric::CriticalPath, node, rank);
            }
            INFO("rank " << rank);
            CHECK(std::abs(lengths[rank] - value) <= 1e-6);
            total += value;
        }
        CHECK(total > 0.0);
        // One chain in time order: each stretch starts where the previous one ended, the
        // first at the start of the run and the last at its end.
        CHECK(read->front().from == kNoNode);
        CHECK(read->back().to == kNoNode);
        for (size_t k = 1; k < read->size(); ++k) {
            INFO("stretch " << k);
            CHECK(std::abs((*read)[k].start - (*read)[k - 1].end) <= 1e-6);
            CHECK((*read)[k - 1].to != kNoNode);
            CHECK((*read)[k].from != kNoNode);
        }
    }
    CHECK(handOvers >= 10); // the wait states hand the path from rank to rank
}

TEST_CASE("a malformed critical-path line names the file and line", "[critical-path-file]") {
    const std::string file =
        (std::filesystem::temp_directory_path() / "waitscope_path_bad.txt").string();
    {
        std::FILE* out = std::fopen(file.c_str(), "w");
        REQUIRE(out != nullptr);
        std::fputs("# waitscope critical path 1\n0 0.5 1.0 - 3\n1 1.0 x 3 -\n", out);
        std::fclose(out);
    }
    auto read = readCriticalPath(file);
    std::filesystem::remove(file);
    REQUIRE_FALSE(read.ok());
    CHECK(read.error().message() ==
          file + ": line 3: not 'rank start end from-cnode to-cnode [location]'");
}

TEST_CASE("stretches on further threads keep their location; version 1 files read as on main "
          "locations",
          "[critical-path-file]") {
    const std::string file =
        (std::filesystem::temp_directory_path() / "waitscope_path_threads.txt").string();
    {
        std::FILE* out = std::fopen(file.c_str(), "w");
        REQUIRE(out != nullptr);
        std::fputs("# waitscope critical path 2\n"
                   "1 0.0 0.5 - 4 -\n"
                   "1 0.5 0.75 - - 4294967297\n"
                   "1 0.75 1.0 2 - -\n",
                   out);
        std::fclose(out);
    }
    auto read = readCriticalPath(file);
    REQUIRE(read.ok());
    REQUIRE(read->size() == 3);
    CHECK((*read)[0].location == PathSegment::kMainLocation);
    CHECK((*read)[1].location == ((uint64_t{1} << 32) | 1));
    CHECK((*read)[1].start == 0.5);
    CHECK((*read)[2].location == PathSegment::kMainLocation);
    CHECK((*read)[2].from == 2);
    {
        std::FILE* out = std::fopen(file.c_str(), "w");
        REQUIRE(out != nullptr);
        std::fputs("# waitscope critical path 1\n0 0.5 1.0 - 3\n", out);
        std::fclose(out);
    }
    read = readCriticalPath(file);
    REQUIRE(read.ok());
    REQUIRE(read->size() == 1);
    CHECK((*read)[0].location == PathSegment::kMainLocation);
    CHECK((*read)[0].to == 3);
    {
        std::FILE* out = std::fopen(file.c_str(), "w");
        REQUIRE(out != nullptr);
        std::fputs("# waitscope critical path 2\n0 0.5 1.0 - 3 thread\n", out);
        std::fclose(out);
    }
    read = readCriticalPath(file);
    std::filesystem::remove(file);
    REQUIRE_FALSE(read.ok());
    CHECK(read.error().message() ==
          file + ": line 2: not 'rank start end from-cnode to-cnode [location]'");
}
