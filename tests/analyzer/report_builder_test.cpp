// report.cubex written from an analysis reads back with Scalasca's values for every metric,
// call path and rank of the reference traces.
#include "json_value.h"
#include "waitscope/analysis/report_builder.h"
#include "waitscope/analysis/serial_analysis.h"
#include "waitscope/trace/otf2_archive.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <waitscope/report/cubex_reader.h>
#include <waitscope/report/cubex_writer.h>

using namespace waitscope;
using namespace waitscope::analysis;

namespace {

testing::JsonValue loadJson(const std::string& file) {
    std::ifstream in(file);
    std::stringstream buffer;
    buffer << in.rdbuf();
    const std::string text = buffer.str();
    return testing::JsonParser(text).parse();
}

} // namespace

TEST_CASE("report.cubex round-trips Scalasca's values for the reference traces", "[report]") {
    for (const std::string name : {"late_sender", "wait_nxn", "early_reduce"}) {
        const std::string dir = std::string(WAITSCOPE_REFERENCE_DIR) + "/" + name;
        auto defs = trace::readDefinitions(dir + "/trace/traces.otf2");
        REQUIRE(defs.ok());
        auto result = analyzeArchiveInProcess(dir + "/trace");
        REQUIRE(result.ok());
        auto built = buildReport(*result, *defs, {{"test", name}});
        REQUIRE(built.ok());
        const std::string file = (std::filesystem::temp_directory_path() /
                                  ("waitscope_report_builder_" + name + ".cubex"))
                                     .string();
        REQUIRE(report::writeCubex(*built, file).ok());
        auto back = report::readCubex(file);
        REQUIRE(back.ok());
        CHECK(back->attribute("test") == name);
        CHECK(back->attribute("waitscope::diagnostic::clock_violations_p2p") == std::nullopt);
        const auto main = back->findCallPath(name + "/main");
        REQUIRE(main.has_value());
        CHECK(back->regions()[back->callNodes()[*main].region].beginLine > 0);
        const testing::JsonValue reference = loadJson(dir + "/scalasca.json");
        size_t compared = 0;
        for (size_t m = 0; m < kMetricCount; ++m) {
            const MetricInfo& info = metricInfo(static_cast<Metric>(m));
            const auto metric = back->findMetric(info.uniqueName);
            REQUIRE(metric.has_value());
            for (const auto& [path, ranks] :
                 reference.at(std::string(info.uniqueName)).at("per_path_rank").object) {
                const auto cnode = back->findCallPath(path);
                for (const auto& [rankText, theirs] : ranks.object) {
                    double ours = 0.0;
                    if (cnode) {
                        const auto process = back->findProcess(std::stoll(rankText));
                        REQUIRE(process.has_value());
                        auto v =
                            back->value(*metric, *cnode, *process, report::CallTreeMode::Exclusive,
                                        report::SystemMode::Inclusive);
                        REQUIRE(v.ok());
                        ours = *v;
                    }
                    INFO(name << " " << info.uniqueName << " " << path << " rank " << rankText);
                    if (info.unit == MetricUnit::Seconds) {
                        CHECK(std::fabs(ours - theirs.number) <=
                              std::max(0.01 * std::fabs(theirs.number), 1e-3));
                    } else {
                        CHECK(ours == theirs.number);
                    }
                    ++compared;
                }
            }
        }
        CHECK(compared > 1000);
        std::filesystem::remove(file);
    }
}

TEST_CASE("the report's system tree is the trace's: machine, node, then the ranks", "[report]") {
    const std::string dir = std::string(WAITSCOPE_REFERENCE_DIR) + "/late_sender";
    auto defs = trace::readDefinitions(dir + "/trace/traces.otf2");
    REQUIRE(defs.ok());
    auto result = analyzeArchiveInProcess(dir + "/trace");
    REQUIRE(result.ok());
    auto built = buildReport(*result, *defs, {});
    REQUIRE(built.ok());
    // Score-P recorded machine "Linux" with node "vm" holding the four ranks.
    const auto& nodes = built->systemNodes();
    const auto roots = built->rootSystemNodes();
    REQUIRE(roots.size() == 1);
    CHECK(nodes[roots[0]].name == "Linux");
    CHECK(nodes[roots[0]].kind == report::SystemKind::Machine);
    REQUIRE(nodes[roots[0]].children.size() == 1);
    const report::SystemNode& node = nodes[nodes[roots[0]].children[0]];
    CHECK(node.name == "vm");
    CHECK(node.kind == report::SystemKind::Node);
    CHECK(node.children.size() == 4);

    // Without a system tree in the definitions, the ranks go below a plain machine and node.
    defs->systemTreeNodes.clear();
    for (auto& group : defs->locationGroups) {
        group.systemTreeParent = trace::kUndefined;
    }
    auto plain = buildReport(*result, *defs, {});
    REQUIRE(plain.ok());
    REQUIRE(plain->rootSystemNodes().size() == 1);
    CHECK(plain->systemNodes()[plain->rootSystemNodes()[0]].name == "machine");
}
