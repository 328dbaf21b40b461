// The wait-state instances file adds up to the report: per pattern, rank and call path the
// instances' severities sum to the metric's value, and the file reads back what was written.
#include "reference_traces.h"
#include "waitscope/analysis/serial_analysis.h"
#include "waitscope/analysis/wait_instances.h"

#include <array>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <tuple>
#include <vector>

using namespace waitscope::analysis;
using waitscope::testing::kReferenceTraces;
using waitscope::testing::referenceDirectory;

namespace {

using Key = std::tuple<Metric, uint32_t, NodeId>; // pattern, rank, call node

} // namespace

TEST_CASE("wait-state instances add up to the report's pattern values per rank and call path",
          "[wait-instances]") {
    for (const std::string& name : kReferenceTraces) {
        INFO(name);
        auto result = analyzeArchiveInProcess(referenceDirectory(name) + "/trace");
        REQUIRE(result.ok());
        const std::string file =
            (std::filesystem::temp_directory_path() / ("waitscope_instances_" + name + ".txt"))
                .string();
        REQUIRE(writeWaitInstances(*result, file).ok());
        auto read = readWaitInstances(file);
        std::filesystem::remove(file);
        REQUIRE(read.ok());
        REQUIRE(read->size() == result->instances().size());
        std::map<Key, std::pair<double, size_t>> sums;
        for (const PatternInstance& i : *read) {
            CHECK(i.enter <= i.exit);
            CHECK(i.severity > 0.0);
            CHECK(i.severity <= i.exit - i.enter + 1e-9);
            auto& [sum, count] = sums[{i.metric, i.rank, i.node}];
            sum += i.severity;
            ++count;
        }
        size_t patterns = 0;
        for (size_t m = 0; m < kMetricCount; ++m) {
            const auto metric = static_cast<Metric>(m);
            if (!metricInfo(metric).isPattern) {
                continue;
            }
            for (uint32_t rank = 0; rank < result->ranks(); ++rank) {
                for (NodeId node = 0; node < result->tree().size(); ++node) {
                    const double value = result->value(metric, node, rank);
                    const auto it = sums.find({metric, rank, node});
                    const double sum = it == sums.end() ? 0.0 : it->second.first;
                    const size_t count = it == sums.end() ? 0 : it->second.second;
                    INFO(metricInfo(metric).uniqueName << " rank " << rank << " node " << node);
                    // Each instance is written to the nanosecond.
                    CHECK(std::abs(sum - value) <= 1e-9 * static_cast<double>(count) + 1e-12);
                    patterns += count > 0 ? 1 : 0;
                }
            }
        }
        CHECK(patterns == sums.size()); // every instance is of a pattern metric
        CHECK(!sums.empty());
    }
}

TEST_CASE("the waiting part of a call is its start, or its end for completion patterns",
          "[wait-instances]") {
    const PatternInstance lateSender{Metric::MpiLateSender, 1, 0, 2.0, 5.0, 1.5};
    CHECK(waitingInterval(lateSender) == std::pair{2.0, 3.5});
    const PatternInstance completion{Metric::MpiBarrierCompletion, 1, 0, 2.0, 5.0, 0.5};
    CHECK(waitingInterval(completion) == std::pair{4.5, 5.0});
    const PatternInstance tooLong{Metric::MpiWaitNxn, 1, 0, 2.0, 5.0, 7.0};
    CHECK(waitingInterval(tooLong) == std::pair{2.0, 5.0});
}

TEST_CASE("a damaged instances file is refused naming its line", "[wait-instances]") {
    const std::string file =
        (std::filesystem::temp_directory_path() / "waitscope_instances_bad.txt").string();
    {
        FILE* out = std::fopen(file.c_str(), "w");
        REQUIRE(out != nullptr);
        std::fputs("# header\nmpi_latesender 0 1 0.5 1.0 0.25\nno_such_pattern 0 1 0 1 1\n", out);
        std::fclose(out);
    }
    auto read = readWaitInstances(file);
    std::filesystem::remove(file);
    REQUIRE(!read.ok());
    CHECK(read.error().message() ==
          file + ": line 3: not 'pattern rank cnode enter exit severity'");
}

TEST_CASE("an instance's line is what printf's \"%u %u %.9f %.9f %.9f\" writes",
          "[wait-instances]") {
    // Halfway cases of the ninth decimal, long integer parts, negative zero, the limits.
    const std::vector<double> values = {0.0,
                                        -0.0,
                                        1.0000000005,
                                        0.0000000015,
                                        2.5e-10,
                                        123456.123456789,
                                        1.7976931348623157e308,
                                        4.9e-324,
                                        -3.25,
                                        1e21 + 0.5,
                                        0.1 + 0.2};
    const std::string file =
        (std::filesystem::temp_directory_path() / "waitscope_instances_lines.txt").string();
    auto writer = WaitInstancesWriter::create(file);
    REQUIRE(writer.ok());
    std::string expected = "# waitscope wait-state instances 1\n"
                           "# pattern rank cnode enter exit severity (seconds)\n";
    for (size_t k = 0; k < values.size(); ++k) {
        const PatternInstance i{Metric::MpiLateSender,
                                static_cast<uint32_t>(k * 1000003u),
                                static_cast<NodeId>(4294967295u - k),
                                values[k],
                                values[(k + 1) % values.size()],
                                values[(k + 2) % values.size()]};
        writer->add(i);
        std::array<char, 1100> line{};
        std::snprintf(line.data(), line.size(), "mpi_latesender %u %u %.9f %.9f %.9f\n", i.rank,
                      i.node, i.enter, i.exit, i.severity);
        expected += line.data();
    }
    REQUIRE(writer->finish().ok());
    std::ifstream in(file, std::ios::binary);
    const std::string written((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
    std::filesystem::remove(file);
    CHECK(written == expected);
}
