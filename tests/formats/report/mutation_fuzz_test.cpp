// A mutation loop over the seed corpus: damaged archives must give errors, never crashes,
// hangs or reads out of bounds (run this under the asan preset to see the latter).
#include "test_support.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <random>
#include <waitscope/report/cubex_reader.h>
#include <waitscope/report/cubex_writer.h>

using namespace waitscope::report;
using namespace waitscope::report::test;

namespace {

// Touches every value the GUI or the tool could ask for.
void exercise(const Report& report) {
    for (MetricId m = 0; m < report.metrics().size(); ++m) {
        (void)report.total(m);
        (void)report.total(m, MetricMode::Exclusive);
        (void)report.callNodeValues(m, CallTreeMode::Inclusive);
        (void)report.callNodeValues(m, CallTreeMode::Exclusive, MetricMode::Exclusive);
        for (CallNodeId c = 0; c < report.callNodes().size() && c < 64; ++c)
            for (SystemNodeId s = 0; s < report.systemNodes().size() && s < 16; ++s)
                (void)report.value(m, c, s, CallTreeMode::Exclusive, SystemMode::Inclusive);
    }
    (void)writeCubexToMemory(report);
}

std::string mutate(std::string bytes, std::mt19937_64& rng) {
    std::uniform_int_distribution<int> kind(0, 5);
    int rounds = 1 + static_cast<int>(rng() % 4);
    for (int i = 0; i < rounds && !bytes.empty(); ++i) {
        std::size_t pos = rng() % bytes.size();
        switch (kind(rng)) {
        case 0: // flip a bit
            bytes[pos] = static_cast<char>(bytes[pos] ^ (1 << (rng() % 8)));
            break;
        case 1: // random byte
            bytes[pos] = static_cast<char>(rng());
            break;
        case 2: // truncate
            bytes.resize(pos);
            break;
        case 3: // interesting values over 4 bytes (sizes, counts, ids)
            for (std::size_t k = 0; k < 4 && pos + k < bytes.size(); ++k)
                bytes[pos + k] =
                    static_cast<char>((rng() % 3 == 0) ? 0xff : (rng() % 2 ? 0 : 0x7f));
            break;
        case 4: // change a digit (ids, sizes in headers and XML)
            for (std::size_t k = pos; k < bytes.size() && k < pos + 64; ++k)
                if (bytes[k] >= '0' && bytes[k] <= '9') {
                    bytes[k] = static_cast<char>('0' + rng() % 10);
                    break;
                }
            break;
        default: // delete a range
            bytes.erase(pos, rng() % 32);
            break;
        }
    }
    return bytes;
}

} // namespace

TEST_CASE("mutated archives never crash the reader", "[report][fuzz]") {
    std::vector<std::string> seeds;
    for (const auto& entry : std::filesystem::directory_iterator(WAITSCOPE_REPORT_CORPUS_DIR))
        seeds.push_back(readFile(entry.path().string()));
    auto sample = writeCubexToMemory(makeSampleReport());
    REQUIRE(sample);
    seeds.push_back(*sample);
    REQUIRE(seeds.size() >= 2);
    std::mt19937_64 rng(20261122);
    int opened = 0, failed = 0;
    const int iterations = 4000;
    for (int i = 0; i < iterations; ++i) {
        std::string input = mutate(seeds[static_cast<std::size_t>(i) % seeds.size()], rng);
        auto report = readCubexFromMemory(input, "mutant.cubex");
        if (report) {
            ++opened;
            exercise(*report);
        } else {
            ++failed;
            CHECK(report.error().message().rfind("mutant.cubex", 0) == 0);
        }
    }
    // Both outcomes occur: mutations hit data (opens, values may differ) and structure.
    CHECK(opened > 0);
    CHECK(failed > 0);
}

TEST_CASE("the corpus opens", "[report][fuzz]") {
    for (const auto& entry : std::filesystem::directory_iterator(WAITSCOPE_REPORT_CORPUS_DIR)) {
        INFO(entry.path().string());
        auto report = readCubex(entry.path().string());
        REQUIRE(report);
        exercise(*report);
    }
}
