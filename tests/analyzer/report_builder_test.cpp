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
#include <set>
#include <sstream>
#include <waitscope/experiment/attribute_keys.h>
#include <waitscope/experiment/diagnostics.h>
#include <waitscope/report/cubex_reader.h>
#include <waitscope/report/cubex_writer.h>

using namespace waitscope;
using namespace waitscope::analysis;

namespace {

using testing::loadJson;

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
            // The OpenMP, POSIX threads and one-sided metrics only in reports of traces with their
            // regions or windows.
            const metrics::Block block = metricBlock(static_cast<Metric>(m));
            if (block == metrics::Block::OpenMp || block == metrics::Block::Pthread ||
                block == metrics::Block::Rma) {
                CHECK_FALSE(metric.has_value());
                continue;
            }
            if (!metric.has_value()) {
                // Only the MPI file counts are left out, of a run without file I/O.
                CHECK(metricBlock(static_cast<Metric>(m)) == metrics::Block::MpiFileIo);
                continue;
            }
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

TEST_CASE("a rank's threads become locations after its main thread", "[report][threads]") {
    trace::Definitions defs;
    defs.regions = {trace::Region{"main"}, trace::Region{"worker_fn"}};
    std::vector<RankResult> ranks(2);
    for (uint32_t r = 0; r < 2; ++r) {
        ranks[r].rank = r;
        ranks[r].severities.add(Metric::Time, ranks[r].tree.child(kNoNode, 0), 1.0);
        ranks[r].severities.add(Metric::Visits, 0, 1);
    }
    // Rank 0 has two threads, rank 1 none; the threads' paths join the rank's call tree.
    for (uint32_t k = 1; k <= 2; ++k) {
        ThreadResult thread;
        thread.location = (uint64_t{k} << 32);
        thread.name = "thread " + std::to_string(k);
        const NodeId worker = ranks[0].tree.child(kNoNode, 1);
        thread.severities.add(Metric::Time, worker, 0.25 * k);
        thread.severities.add(Metric::Visits, worker, 1);
        ranks[0].threads.push_back(std::move(thread));
    }
    const AnalysisResult merged = AnalysisResult::merge(std::move(ranks));
    REQUIRE(merged.threads().size() == 2);
    auto built = buildReport(merged, defs);
    REQUIRE(built.ok());
    const report::Report& out = *built;
    REQUIRE(out.locations().size() == 4);
    const auto& rank0 = out.systemNodes()[*out.findProcess(0)].children;
    const auto& rank1 = out.systemNodes()[*out.findProcess(1)].children;
    REQUIRE(rank0.size() == 3);
    REQUIRE(rank1.size() == 1);
    CHECK(out.systemNodes()[rank0[0]].name == "Master thread");
    CHECK(out.systemNodes()[rank0[1]].name == "thread 1");
    CHECK(out.systemNodes()[rank0[1]].rank == 1);
    CHECK(out.systemNodes()[rank0[2]].name == "thread 2");
    CHECK(out.systemNodes()[rank0[2]].type == "thread");
    const auto time = *out.findMetric("time");
    const auto worker = *out.findCallPath("worker_fn");
    const auto exclusive = report::CallTreeMode::Exclusive;
    const auto inclusive = report::SystemMode::Inclusive;
    CHECK(*out.value(time, worker, rank0[0], exclusive, inclusive) == 0.0);
    CHECK(*out.value(time, worker, rank0[1], exclusive, inclusive) == 0.25);
    CHECK(*out.value(time, worker, rank0[2], exclusive, inclusive) == 0.5);
    CHECK(*out.value(time, *out.findCallPath("main"), rank0[0], exclusive, inclusive) == 1.0);
    CHECK(*out.value(time, worker, *out.findProcess(0), exclusive, inclusive) == 0.75);
    CHECK(*out.value(*out.findMetric("visits"), worker, rank0[2], exclusive, inclusive) == 1.0);
    // The derived values of the main locations do not count the threads.
    CHECK(merged.total(Metric::Time) == 2.0);
}

TEST_CASE("the report nests its metrics as Scalasca's does and names its documentation mirrors",
          "[report]") {
    const std::string dir = std::string(WAITSCOPE_REFERENCE_DIR) + "/late_sender";
    auto defs = trace::readDefinitions(dir + "/trace/traces.otf2");
    REQUIRE(defs.ok());
    auto result = analyzeArchiveInProcess(dir + "/trace");
    REQUIRE(result.ok());
    auto ours = buildReport(*result, *defs, {});
    REQUIRE(ours.ok());
    auto scalasca = report::readCubex(dir + "/trace.cubex");
    REQUIRE(scalasca.ok());
    auto parentName = [](const report::Report& r, report::MetricId m) {
        const auto& parent = r.metrics()[m].parent;
        return parent ? r.metrics()[*parent].uniqueName : std::string("(root)");
    };
    int compared = 0;
    for (report::MetricId m = 0; m < ours->metrics().size(); ++m) {
        const std::string& name = ours->metrics()[m].uniqueName;
        auto theirs = scalasca->findMetric(name);
        if (!theirs)
            continue; // Scalasca's trace.cubex lacks metrics without values for this trace
        INFO(name);
        CHECK(parentName(*ours, m) == parentName(*scalasca, *theirs));
        ++compared;
    }
    CHECK(compared >= 90);
    // Among the roots no two metrics share a display name (they did for the counts).
    std::set<std::string> rootNames;
    for (report::MetricId m : ours->rootMetrics())
        CHECK(rootNames.insert(ours->metrics()[m].displayName).second);
    // The metric URLs' "@mirror@" resolves: Scalasca's mirrors, in its order.
    CHECK(ours->mirrors() == scalasca->mirrors());
    CHECK(ours->metrics()[*ours->findMetric("mpi_sls_count")].url ==
          "@mirror@scalasca_patterns.html#mpi_sls_count");
}

TEST_CASE("the report carries every diagnostic under the registry's keys, per rank and in total",
          "[report][diagnostics]") {
    trace::Definitions defs;
    defs.regions = {trace::Region{"main"}};
    std::vector<RankResult> ranks(2);
    for (uint32_t r = 0; r < 2; ++r) {
        ranks[r].rank = r;
        ranks[r].severities.add(Metric::Time, ranks[r].tree.child(kNoNode, 0), 1.0);
        // Rank r counts diagnostic k as k + 1 + 10 r.
        for (const experiment::DiagnosticDefinition& d : experiment::diagnosticDefinitions()) {
            ranks[r].diagnostics[d.id] = static_cast<size_t>(d.id) + 1 + 10 * r;
        }
    }
    const AnalysisResult merged = AnalysisResult::merge(std::move(ranks));
    auto built = buildReport(merged, defs);
    REQUIRE(built.ok());
    for (const experiment::DiagnosticDefinition& d : experiment::diagnosticDefinitions()) {
        INFO(d.name);
        const uint64_t first = static_cast<size_t>(d.id) + 1;
        CHECK(built->attribute(experiment::diagnosticRankAttribute(d.name, 0)) ==
              std::to_string(first));
        CHECK(built->attribute(experiment::diagnosticRankAttribute(d.name, 1)) ==
              std::to_string(first + 10));
        const uint64_t total =
            experiment::combinesByMaximum(d.id) ? first + 10 : first + first + 10;
        CHECK(built->attribute(experiment::diagnosticAttribute(d.name)) == std::to_string(total));
    }
}
