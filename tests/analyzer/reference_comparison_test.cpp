// The analysis of the Score-P reference traces agrees with Scalasca 2.6's report, metric by
// metric, call path by call path, rank by rank (1 % or 1 ms for times, counts exactly).
#include "json_value.h"
#include "waitscope/analysis/serial_analysis.h"
#include "waitscope/trace/otf2_archive.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>

using namespace waitscope;
using namespace waitscope::analysis;

namespace {

const std::vector<std::string> kReferences = {"early_reduce", "late_broadcast", "late_receiver",
                                              "late_sender",  "nb_late_sender", "wait_at_barrier",
                                              "wait_nxn"};

std::string referenceDir(const std::string& name) {
    return std::string(WAITSCOPE_REFERENCE_DIR) + "/" + name;
}

testing::JsonValue loadJson(const std::string& file) {
    std::ifstream in(file);
    std::stringstream buffer;
    buffer << in.rdbuf();
    const std::string text = buffer.str();
    return testing::JsonParser(text).parse();
}

bool agrees(const MetricInfo& info, double ours, double theirs) {
    if (info.unit != MetricUnit::Seconds) {
        return ours == theirs;
    }
    return std::fabs(ours - theirs) <= std::max(0.01 * std::fabs(theirs), 1e-3);
}

// Largest relative deviation per metric over all references (printed at the end).
std::map<std::string, double>& deviations() {
    static std::map<std::string, double> table;
    return table;
}

} // namespace

TEST_CASE("every reference trace reproduces Scalasca's metrics per call path and rank",
          "[reference]") {
    for (const std::string& name : kReferences) {
        auto result = analyzeArchiveInProcess(referenceDir(name) + "/trace");
        REQUIRE(result.ok());
        auto defs = trace::readDefinitions(referenceDir(name) + "/trace/traces.otf2");
        REQUIRE(defs.ok());
        std::map<std::string, NodeId> nodes;
        for (NodeId n = 0; n < result->tree().size(); ++n) {
            nodes[result->tree().path(n, *defs)] = n;
        }
        const testing::JsonValue reference = loadJson(referenceDir(name) + "/scalasca.json");
        for (size_t m = 0; m < kMetricCount; ++m) {
            const MetricInfo& info = metricInfo(static_cast<Metric>(m));
            const std::string metricName(info.uniqueName);
            const auto found = reference.object.find(metricName);
            REQUIRE(found != reference.object.end());
            const auto& perPathRank = found->second.at("per_path_rank").object;
            for (const auto& [path, ranks] : perPathRank) {
                const auto node = nodes.find(path);
                for (const auto& [rankText, theirs] : ranks.object) {
                    const uint32_t rank = static_cast<uint32_t>(std::stoul(rankText));
                    const double ours = node == nodes.end() ? 0.0
                                                            : result->value(static_cast<Metric>(m),
                                                                            node->second, rank);
                    INFO(name << " " << metricName << " " << path << " rank " << rank << ": ours "
                              << ours << " scalasca " << theirs.number);
                    CHECK(agrees(info, ours, theirs.number));
                    if (theirs.number != 0.0 || ours != 0.0) {
                        const double rel = std::fabs(ours - theirs.number) /
                                           std::max(std::fabs(theirs.number), 1e-300);
                        double& worst = deviations()[metricName];
                        if (theirs.number == 0.0 && ours != 0.0) {
                            std::cout << "nonzero where scalasca has zero: " << name << " "
                                      << metricName << " " << path << " rank " << rank << " ours "
                                      << ours << "\n";
                        }
                        if (std::fabs(ours - theirs.number) > 1e-12) {
                            worst = std::max(worst, std::min(rel, 1e9));
                        }
                    }
                }
            }
            // Nothing on call paths Scalasca does not know.
            for (const auto& [path, node] : nodes) {
                if (perPathRank.count(path) == 0) {
                    INFO(name << " " << metricName << " extra path " << path);
                    CHECK(result->value(static_cast<Metric>(m), node) == 0.0);
                }
            }
        }
        CHECK(result->diagnostic("clock_violations_p2p") == 0);
    }
    std::cout << "largest relative deviation from Scalasca per metric (7 references):\n";
    for (const auto& [metric, worst] : deviations()) {
        std::cout << "  " << std::left << std::setw(24) << metric << " " << worst << "\n";
    }
}
