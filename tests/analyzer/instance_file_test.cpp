// The indexed instances file reads back what was written, in time order, answers window
// queries and its index as a scan of all instances would, and refuses damaged files naming them.
#include "reference_traces.h"
#include "waitscope/analysis/instance_file.h"
#include "waitscope/analysis/serial_analysis.h"
#include "waitscope/analysis/wait_instances.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>

using namespace waitscope::analysis;
using waitscope::testing::kReferenceTraces;
using waitscope::testing::referenceDirectory;

namespace {

std::string tempFile(const std::string& name) {
    return (std::filesystem::temp_directory_path() / ("waitscope_instance_file_" + name)).string();
}

bool sameInstance(const PatternInstance& a, const PatternInstance& b) {
    return a.metric == b.metric && a.node == b.node && a.rank == b.rank && a.enter == b.enter &&
           a.exit == b.exit && a.severity == b.severity;
}

// Instances over several blocks: rank r waits at regular starts, with one long wait early.
std::vector<PatternInstance> manyInstances() {
    std::vector<PatternInstance> instances;
    const uint32_t count = 3 * InstanceFile::kBlockRecords + 17;
    for (uint32_t k = 0; k < count; ++k) {
        const double enter = 1.0 + 0.001 * static_cast<double>(count - k); // written backwards
        instances.push_back({k % 3 == 0 ? Metric::MpiLateSender : Metric::MpiLateReceiver, k % 5,
                             k % 4, enter, enter + 0.0005,
                             0.0001 + 1e-7 * static_cast<double>(k % 101)});
    }
    instances.push_back({Metric::MpiBarrierWait, 7, 2, 0.5, 100.0, 99.0}); // waits over all
    return instances;
}

} // namespace

TEST_CASE("an instances file reads back every instance in time order", "[instance-file]") {
    const std::vector<PatternInstance> instances = manyInstances();
    const std::string file = tempFile("roundtrip.bin");
    REQUIRE(writeInstanceFile(instances, file).ok());
    auto opened = InstanceFile::open(file);
    REQUIRE(opened.ok());
    REQUIRE(opened->size() == instances.size());
    std::vector<PatternInstance> all;
    REQUIRE(opened->read(0, opened->size(), all).ok());
    std::filesystem::remove(file);
    // Sorted by waiting start, each written instance exactly once.
    for (size_t i = 1; i < all.size(); ++i) {
        CHECK(waitingInterval(all[i - 1]).first <= waitingInterval(all[i]).first);
    }
    for (const PatternInstance& written : instances) {
        CHECK(std::count_if(all.begin(), all.end(), [&](const PatternInstance& read) {
                  return sameInstance(read, written);
              }) == 1);
    }
    // The long wait starts first.
    CHECK(all.front().metric == Metric::MpiBarrierWait);
    // The same index in memory as on disk.
    const InstanceFile memory = InstanceFile::fromInstances(instances);
    REQUIRE(memory.blocks().size() == 4);
    CHECK(memory.blocks().size() == opened->blocks().size());
    auto last = memory.at(memory.size() - 1);
    REQUIRE(last.ok());
    CHECK(sameInstance(*last, all.back()));
    CHECK(!memory.at(memory.size()).ok());
}

TEST_CASE("an instances file's window query and index agree with a scan", "[instance-file]") {
    const InstanceFile file = InstanceFile::fromInstances(manyInstances());
    std::vector<PatternInstance> all;
    REQUIRE(file.read(0, file.size(), all).ok());
    for (const auto& [from, to] : std::vector<std::pair<double, double>>{
             {0.0, 0.4}, {1.0005, 1.002}, {3.0, 4.0}, {101.0, 102.0}, {0.0, 200.0}}) {
        INFO(from << " to " << to);
        std::vector<std::pair<uint64_t, PatternInstance>> found;
        REQUIRE(file.window(from, to, found).ok());
        std::vector<uint64_t> expected;
        for (uint64_t k = 0; k < all.size(); ++k) {
            const auto [start, end] = waitingInterval(all[k]);
            if (start <= to && end >= from) {
                expected.push_back(k);
            }
        }
        REQUIRE(found.size() == expected.size());
        for (size_t n = 0; n < found.size(); ++n) {
            CHECK(found[n].first == expected[n]);
            CHECK(sameInstance(found[n].second, all[expected[n]]));
        }
        auto startsBy = file.startsBy(to);
        REQUIRE(startsBy.ok());
        CHECK(*startsBy == static_cast<uint64_t>(std::count_if(
                               all.begin(), all.end(), [to = to](const PatternInstance& i) {
                                   return waitingInterval(i).first <= to;
                               })));
    }
    // A window over the long wait alone still finds it (its block ends late).
    std::vector<std::pair<uint64_t, PatternInstance>> late;
    REQUIRE(file.window(50.0, 60.0, late).ok());
    REQUIRE(late.size() == 1);
    CHECK(late.front().second.metric == Metric::MpiBarrierWait);
    // Per (pattern, call node): the count and the most severe, the earliest of equals.
    std::map<std::pair<Metric, NodeId>, std::pair<uint64_t, uint64_t>> scanned;
    for (uint64_t k = 0; k < all.size(); ++k) {
        auto [it, added] = scanned.try_emplace({all[k].metric, all[k].node}, 0, k);
        ++it->second.first;
        if (all[k].severity > all[it->second.second].severity) {
            it->second.second = k;
        }
    }
    REQUIRE(file.cells().size() == scanned.size());
    for (const InstanceFile::Cell& cell : file.cells()) {
        const auto& [count, worst] = scanned.at({cell.metric, cell.node});
        CHECK(cell.count == count);
        CHECK(cell.worst == worst);
    }
    // Per block and pattern.
    for (size_t b = 0; b < file.blocks().size(); ++b) {
        uint32_t lateSenders = 0;
        for (size_t k = b * InstanceFile::kBlockRecords;
             k < std::min(all.size(), (b + 1) * InstanceFile::kBlockRecords); ++k) {
            lateSenders += all[k].metric == Metric::MpiLateSender ? 1 : 0;
        }
        CHECK(file.blockCount(b, Metric::MpiLateSender) == lateSenders);
    }
}

TEST_CASE("an instances file holds the analyzer's instances of every reference trace",
          "[instance-file]") {
    for (const std::string& name : kReferenceTraces) {
        INFO(name);
        auto result = analyzeArchiveInProcess(referenceDirectory(name) + "/trace");
        REQUIRE(result.ok());
        const std::string file = tempFile(name + ".bin");
        REQUIRE(writeInstanceFile(result->instances(), file).ok());
        auto opened = InstanceFile::open(file);
        std::filesystem::remove(file);
        REQUIRE(opened.ok());
        CHECK(opened->size() == result->instances().size());
        uint64_t counted = 0;
        for (const InstanceFile::Cell& cell : opened->cells()) {
            counted += cell.count;
        }
        CHECK(counted == result->instances().size());
    }
}

TEST_CASE("a damaged instances file is refused naming the file", "[instance-file]") {
    const std::string file = tempFile("damaged.bin");
    REQUIRE(writeInstanceFile(manyInstances(), file).ok());
    const auto size = std::filesystem::file_size(file);
    const auto rewrite = [&](const std::function<void(std::string&)>& damage) {
        std::ifstream in(file, std::ios::binary);
        std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        damage(bytes);
        const std::string damaged = tempFile("damaged_copy.bin");
        std::ofstream(damaged, std::ios::binary) << bytes;
        auto opened = InstanceFile::open(damaged);
        std::string message;
        if (!opened.ok()) {
            message = opened.error().message();
        } else {
            std::vector<PatternInstance> all;
            const auto read = opened->read(0, opened->size(), all);
            message = read.ok() ? "" : read.error().message();
        }
        std::filesystem::remove(damaged);
        return message;
    };
    const std::string copy = tempFile("damaged_copy.bin");
    CHECK(rewrite([](std::string& b) { b.resize(b.size() - 1); }) ==
          copy + ": truncated or damaged (" + std::to_string(size - 1) +
              " bytes, its header says " + std::to_string(size) + ")");
    CHECK(rewrite([](std::string& b) { b[0] = 'X'; }) == copy + ": not a waitscope instances file");
    CHECK(rewrite([](std::string& b) { b.resize(10); }) ==
          copy + ": not a waitscope instances file");
    // A count too large for the file (a division guards the offsets' products).
    CHECK(rewrite([](std::string& b) { b[23] = 0x7f; }) ==
          copy + ": damaged header (sections do not add up to the file)");
    // A record's pattern out of range: found when that record is read.
    CHECK(rewrite([](std::string& b) { b.replace(64 + 5 * 40 + 32, 4, "\x7f\x7f\x7f\x7f"); }) ==
          copy + ": record 5: damaged (pattern 2139062143)");
    std::filesystem::remove(file);
    CHECK(InstanceFile::open(file).error().message() == file + ": cannot open");
}
