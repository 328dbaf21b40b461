// The metric registry is the one source of the metric tree: share/metrics documents exactly
// its metrics with the same display names, parents and units, and the summary's findings and
// the runtime profile name only metrics it defines, with matching units.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <waitscope/metrics/metric_registry.h>
#include <waitscope/summary/summary.h>

using namespace waitscope::metrics;
namespace fs = std::filesystem;

namespace {

/// The "key: value" lines between the two "---" lines of a documentation file.
std::map<std::string, std::string> headerOf(const fs::path& file) {
    std::ifstream in(file);
    std::map<std::string, std::string> header;
    std::string line;
    int dashes = 0;
    while (dashes < 2 && std::getline(in, line)) {
        if (line == "---") {
            ++dashes;
            continue;
        }
        const size_t colon = line.find(':');
        if (dashes == 1 && colon != std::string::npos) {
            const size_t value = line.find_first_not_of(' ', colon + 1);
            header[line.substr(0, colon)] = value == std::string::npos ? "" : line.substr(value);
        }
    }
    return header;
}

std::string parentName(const MetricDefinition& d) {
    return d.parent == MetricId::None ? "" : std::string(metricDefinition(d.parent).uniqueName);
}

} // namespace

TEST_CASE("every metric has a documentation file that agrees with it", "[metrics]") {
    for (const MetricDefinition& d : metricDefinitions()) {
        INFO(d.uniqueName);
        const fs::path file = fs::path(WAITSCOPE_METRIC_DOCS_DIR) / std::string(d.documentation);
        REQUIRE(fs::exists(file));
        const auto header = headerOf(file);
        CHECK(header.at("name") == d.uniqueName);
        CHECK(header.at("display") == d.displayName);
        CHECK(header.at("parent") == parentName(d));
        CHECK(header.at("unit") == unitName(d.unit));
        CHECK(header.at("type") == (d.unit == Unit::Seconds ? "DOUBLE" : "INT64"));
        CHECK(!d.description.empty());
    }
}

TEST_CASE("every documentation file documents a metric of the registry", "[metrics]") {
    size_t files = 0;
    for (const auto& entry : fs::directory_iterator(WAITSCOPE_METRIC_DOCS_DIR)) {
        if (entry.path().extension() != ".md") {
            continue;
        }
        ++files;
        const std::string stem = entry.path().stem().string();
        INFO(entry.path().filename().string());
        const auto id = findMetric(stem);
        REQUIRE(id);
        CHECK(metricDefinition(*id).documentation == entry.path().filename().string());
    }
    CHECK(files == kMetricCount);
}

TEST_CASE("the registry's names are unique and its tree is ordered parents first", "[metrics]") {
    std::set<std::string_view> names;
    for (size_t i = 0; i < kMetricCount; ++i) {
        const MetricDefinition& d = kMetricDefinitions[i];
        INFO(d.uniqueName);
        CHECK(static_cast<size_t>(d.id) == i);
        CHECK(names.insert(d.uniqueName).second);
        if (d.parent != MetricId::None) {
            CHECK(static_cast<size_t>(d.parent) < i);
            // Parents and children measure the same thing.
            CHECK(metricDefinition(d.parent).unit == d.unit);
        }
    }
    CHECK(findMetric("mpi_latesender") == MetricId::MpiLateSender);
    CHECK(!findMetric("no_such_metric"));
    CHECK(metricDefinition(MetricId::MpiLateSender).documentation == "mpi_latesender.md");
}

TEST_CASE("a block a report may leave out is a whole subtree of analyzed metrics, so the tree "
          "without it is still whole",
          "[metrics]") {
    std::map<Block, size_t> sizes;
    std::map<Block, std::pair<size_t, size_t>> spans; // first and last index
    for (size_t i = 0; i < kMetricCount; ++i) {
        const MetricDefinition& d = kMetricDefinitions[i];
        INFO(d.uniqueName);
        const Block block = metricBlock(d.id);
        ++sizes[block];
        if (block == Block::Always) {
            // A metric every report carries never hangs below one that may be left out (the
            // documented-only metrics are in no report of ours).
            CHECK((d.parent == MetricId::None || metricBlock(d.parent) == Block::Always ||
                   i >= kAnalyzedMetricCount));
            continue;
        }
        CHECK(i < kAnalyzedMetricCount);
        spans.try_emplace(block, i, i).first->second.second = i;
    }
    // Blocks are contiguous runs of the list, so reports keep the registry's order.
    for (const auto& [block, span] : spans) {
        CHECK(span.second - span.first + 1 == sizes[block]);
    }
    CHECK(sizes[Block::OpenMp] == 22);
    CHECK(sizes[Block::MpiFileIo] == 10);
    CHECK(sizes[Block::Rma] == 26);
    CHECK(metricBlock(MetricId::MpiRmaWaitAtFence) == Block::Rma);
    CHECK(metricBlock(MetricId::MpiRmaSyncWaitForProgress) == Block::Rma);
    CHECK(metricBlock(MetricId::OmpTime) == Block::OpenMp);
    CHECK(metricBlock(MetricId::MpiFileCwops) == Block::MpiFileIo);
    CHECK(metricBlock(MetricId::MpiLateSender) == Block::Always);
    CHECK(sizes.size() == kBlockCount);
}

TEST_CASE("the summary's findings are wait states with their delay costs", "[metrics]") {
    const auto patterns = waitscope::summary::findingPatterns();
    REQUIRE(!patterns.empty());
    std::set<MetricId> seen;
    for (const waitscope::summary::FindingPattern& p : patterns) {
        const MetricDefinition& wait = metricDefinition(p.metric);
        INFO(wait.uniqueName);
        CHECK(seen.insert(p.metric).second);
        CHECK(static_cast<size_t>(p.metric) < kAnalyzedMetricCount);
        CHECK(wait.kind == Kind::WaitState);
        CHECK(wait.unit == Unit::Seconds);
        // Both delay costs or none; short- and long-term below one aggregate delay metric.
        CHECK((p.delayShort == MetricId::None) == (p.delayLong == MetricId::None));
        if (p.delayShort != MetricId::None) {
            const MetricDefinition& shortTerm = metricDefinition(p.delayShort);
            const MetricDefinition& longTerm = metricDefinition(p.delayLong);
            CHECK(shortTerm.kind == Kind::RootCause);
            CHECK(longTerm.kind == Kind::RootCause);
            CHECK(shortTerm.unit == Unit::Seconds);
            CHECK(shortTerm.parent == longTerm.parent);
            CHECK(static_cast<size_t>(p.delayLong) < kAnalyzedMetricCount);
        }
    }
}

TEST_CASE("the runtime profile's metrics agree with the tree where they share a name",
          "[metrics]") {
    std::set<std::string_view> names;
    size_t shared = 0;
    for (size_t i = 0; i < kProfileMetricCount; ++i) {
        const ProfileMetricDefinition& p = kProfileMetricDefinitions[i];
        INFO(p.uniqueName);
        CHECK(static_cast<size_t>(p.id) == i);
        CHECK(names.insert(p.uniqueName).second);
        CHECK(!p.displayName.empty());
        CHECK(!p.description.empty());
        CHECK((p.unit == Unit::Seconds) == (p.valueType != ValueType::Uint64));
        if (const auto tree = findMetric(p.uniqueName)) {
            ++shared;
            CHECK(metricDefinition(*tree).unit == p.unit);
        }
    }
    // Only the extremes of a visit's time are the profile's own.
    CHECK(shared == kProfileMetricCount - 2);
}
