// Instances spilled to scratch files as the passes find them and merged at the end give
// instances.txt and instances.bin byte for byte as the instances held in memory do, also when
// the buffers are tiny (many runs, merged in several passes) and over windows.
#include "generated_trace.h"
#include "reference_traces.h"
#include "waitscope/analysis/analysis_result.h"
#include "waitscope/analysis/instance_file.h"
#include "waitscope/analysis/instance_spill.h"
#include "waitscope/analysis/serial_analysis.h"
#include "waitscope/analysis/wait_instances.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

using namespace waitscope::analysis;
using waitscope::testing::kReferenceTraces;
using waitscope::testing::referenceDirectory;

namespace {

std::string bytesOf(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
}

struct Written {
    std::string text;
    std::string indexed;
    size_t runs = 0;
};

// The instance files of `trace` analyzed in process with `options` into `dir`: held in memory
// when `buffer` is 0, else spilled with buffers of `buffer` records, merged two runs at a time.
Written instanceFiles(const std::string& trace, ReplayOptions options, uint32_t buffer,
                      const std::filesystem::path& dir) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    std::unique_ptr<InstanceSpill> spill;
    if (buffer > 0) {
        spill = std::make_unique<InstanceSpill>(dir.string(), 0, buffer, 2);
        options.instanceSpill = spill.get();
    }
    auto result = analyzeArchiveInProcess(trace, options);
    REQUIRE(result.ok());
    const std::filesystem::path text = dir / "instances.txt";
    const std::filesystem::path indexed = dir / "instances.bin";
    Written written;
    written.runs = result->spilledRuns().size();
    if (spill) {
        CHECK(result->instances().empty()); // none held in memory
        REQUIRE(spill->writeFiles(*result, text.string(), indexed.string()).ok());
        InstanceSpill::removeFiles(dir.string(), 1);
    } else {
        REQUIRE(writeWaitInstances(*result, text.string()).ok());
        REQUIRE(writeInstanceFile(result->instances(), indexed.string()).ok());
    }
    written.text = bytesOf(text);
    written.indexed = bytesOf(indexed);
    std::filesystem::remove_all(dir);
    return written;
}

} // namespace

TEST_CASE("spilled instances merge into the files of the instances held in memory",
          "[instance-spill]") {
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / "waitscope_instance_spill";
    for (const std::string& name : kReferenceTraces) {
        INFO(name);
        const std::string trace = referenceDirectory(name) + "/trace";
        for (const bool rootCause : {true, false}) {
            ReplayOptions options;
            options.rootCause = rootCause;
            const Written memory = instanceFiles(trace, options, 0, dir);
            for (const uint32_t buffer : {1u, 3u, 1000u}) {
                INFO("buffer " << buffer << ", root causes " << rootCause);
                const Written spilled = instanceFiles(trace, options, buffer, dir);
                CHECK(spilled.text == memory.text);
                CHECK(spilled.indexed == memory.indexed);
            }
        }
    }
}

TEST_CASE("instances spilled in many runs merge in several passes as held in memory",
          "[instance-spill]") {
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / "waitscope_instance_spill_many";
    const std::filesystem::path trace =
        std::filesystem::temp_directory_path() / "waitscope_instance_spill_trace";
    waitscope::testing::GeneratedTraceOptions generated;
    generated.ranks = 4;
    generated.eventsPerRank = 24000;
    generated.barrierEvery = 4;
    REQUIRE(waitscope::testing::writeGeneratedTrace(trace.string(), generated).ok());
    ReplayOptions options;
    options.rootCause = false;
    const Written memory = instanceFiles(trace.string(), options, 0, dir);
    // Over several blocks of instances.bin.
    REQUIRE(memory.indexed.size() > 2 * InstanceFile::kBlockRecords * 40);
    const Written spilled = instanceFiles(trace.string(), options, 97, dir);
    CHECK(spilled.runs > 64); // runs of 97 merged 2 at a time: more than six passes
    CHECK(spilled.text == memory.text);
    CHECK(spilled.indexed == memory.indexed);
    // Read in windows, the backward replay's instances listed after the forward ones.
    options.windowEvents = 13;
    const Written windowed = instanceFiles(trace.string(), options, 97, dir);
    CHECK(windowed.text == memory.text);
    CHECK(windowed.indexed == memory.indexed);
    std::filesystem::remove_all(trace);
}

TEST_CASE("a spill that cannot write its scratch files fails naming the file", "[instance-spill]") {
    const std::string missing = (std::filesystem::temp_directory_path() /
                                 "waitscope_instance_spill_missing" / "no_such_dir")
                                    .string();
    InstanceSpill spill(missing, 3, 2);
    InstanceSpill::Buffer buffer(spill, 0);
    RankResult result;
    buffer.add({Metric::MpiLateSender, 0, 0, 1.0, 2.0, 0.5});
    buffer.add({Metric::MpiLateSender, 0, 0, 3.0, 4.0, 0.5}); // full: written
    const waitscope::Status finished = buffer.finish(result);
    REQUIRE(!finished.ok());
    CHECK(finished.error().message().rfind(
              InstanceSpill::pathOf(missing, 3, false) + ": cannot write (", 0) == 0);
}

TEST_CASE("spilled instances equal in every key keep the order found, segment by segment",
          "[instance-spill]") {
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / "waitscope_instance_spill_ties";
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    RankResult found;
    found.rank = 0;
    const NodeId main = found.tree.child(kNoNode, 7);
    const NodeId recv = found.tree.child(main, 9);
    // Late Senders in one MPI_Waitall: the same pattern, rank and enter (and waiting start),
    // told apart only by the order found; the second segment's come after all of the first's.
    std::vector<std::pair<PatternInstance, uint32_t>> added;
    for (uint32_t k = 0; k < 9; ++k) {
        added.push_back({{Metric::MpiLateSender, k % 2 == 0 ? recv : main, 0, 1.0,
                          2.0 + 0.125 * static_cast<double>(k), 0.25},
                         k % 3 == 1 ? 1u : 0u});
    }
    RankResult held = found;
    for (const uint32_t segment : {0u, 1u}) {
        for (const auto& [instance, in] : added) {
            if (in == segment) {
                held.instances.push_back(instance);
            }
        }
    }
    InstanceSpill spill(dir.string(), 0, 2, 2);
    InstanceSpill::Buffer buffer(spill, 0);
    for (const auto& [instance, segment] : added) {
        buffer.add(instance, segment);
    }
    REQUIRE(buffer.finish(found).ok());
    REQUIRE(found.spilledRuns.size() == 5); // runs of 2: merged in three passes
    CallTree tree;
    unifyCallTree(tree, found.tree);
    AnalysisResult spilled(tree, 1);
    const waitscope::Status merged = spilled.addRank(std::move(found));
    REQUIRE(merged.ok());
    REQUIRE(
        spill.writeFiles(spilled, (dir / "spilled.txt").string(), (dir / "spilled.bin").string())
            .ok());
    std::vector<RankResult> ranks;
    ranks.push_back(std::move(held));
    const AnalysisResult memory = AnalysisResult::merge(std::move(ranks));
    REQUIRE(writeWaitInstances(memory, (dir / "memory.txt").string()).ok());
    REQUIRE(writeInstanceFile(memory.instances(), (dir / "memory.bin").string()).ok());
    CHECK(bytesOf(dir / "spilled.txt") == bytesOf(dir / "memory.txt"));
    CHECK(bytesOf(dir / "spilled.bin") == bytesOf(dir / "memory.bin"));
    InstanceSpill::removeFiles(dir.string(), 1);
    CHECK(std::distance(std::filesystem::directory_iterator(dir),
                        std::filesystem::directory_iterator()) == 4); // no scratch file left
    std::filesystem::remove_all(dir);
}
