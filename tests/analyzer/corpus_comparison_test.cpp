// The corpus of third-party MPI codes (tests/data/reference, made by make_corpus.sh): the
// analysis of each code's trace agrees with Scalasca 2.6's report on the same trace, metric by
// metric, call path by call path, rank by rank (1 % or 1 ms for times, counts exactly), except
// for the differences its known_differences.tsv lists. The list is checked exactly: a new
// difference fails, and so does a listed one that changed or disappeared. Each listed class of
// difference is described in docs/fidelity.md ("Corpus of third-party codes").
//
// One ctest test per code runs its test case ("[corpus][<code>]"). With
// WAITSCOPE_CORPUS_UPDATE=1 a test case rewrites the code's known_differences.tsv instead.
#include "scalasca_reference.h"
#include "waitscope/analysis/serial_analysis.h"
#include "waitscope/trace/otf2_archive.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <tuple>

using namespace waitscope;
using namespace waitscope::testing;

namespace {

using DifferenceKey = std::tuple<std::string, std::string, uint32_t>;

std::string corpusDir(const std::string& code) {
    return std::string(WAITSCOPE_REFERENCE_DIR) + "/" + code;
}

std::string format(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.9g", value);
    return text;
}

std::string row(const ScalascaDifference& d) {
    return d.metric + "\t" + d.path + "\t" + std::to_string(d.rank) + "\t" + format(d.scalasca) +
           "\t" + format(d.ours);
}

const char* const kHeader = "# metric\tcall path\trank\tscalasca\tours\n";

/// The listed differences of known_differences.tsv (absent file: none); throws on a bad line.
std::map<DifferenceKey, ScalascaDifference> readKnownDifferences(const std::string& file) {
    std::map<DifferenceKey, ScalascaDifference> known;
    std::ifstream in(file);
    std::string line;
    for (size_t number = 1; std::getline(in, line); ++number) {
        if (line.empty() || line[0] == '#') {
            continue;
        }
        std::stringstream fields(line);
        ScalascaDifference d;
        std::string rank, scalasca, ours;
        if (!std::getline(fields, d.metric, '\t') || !std::getline(fields, d.path, '\t') ||
            !std::getline(fields, rank, '\t') || !std::getline(fields, scalasca, '\t') ||
            !std::getline(fields, ours, '\t')) {
            throw std::runtime_error(file + ":" + std::to_string(number) +
                                     ": expected metric, call path, rank, scalasca, ours");
        }
        d.rank = static_cast<uint32_t>(std::stoul(rank));
        d.scalasca = std::stod(scalasca);
        d.ours = std::stod(ours);
        known[{d.metric, d.path, d.rank}] = d;
    }
    return known;
}

/// The same value as written with 9 significant digits.
bool sameValue(double listed, double value) {
    return std::fabs(listed - value) <=
           1e-7 * std::max(std::fabs(listed), std::fabs(value)) + 1e-12;
}

void checkCorpusCode(const std::string& code) {
    const std::string dir = corpusDir(code);
    auto result = analysis::analyzeArchiveInProcess(dir + "/trace");
    REQUIRE(result.ok());
    auto definitions = trace::readDefinitions(dir + "/trace/traces.otf2");
    REQUIRE(definitions.ok());
    const ScalascaComparison comparison =
        compareWithScalasca(*result, *definitions, loadJson(dir + "/scalasca.json"));
    INFO(code << ": metrics missing from Scalasca's report: " << comparison.missingMetrics.size());
    CHECK(comparison.missingMetrics.empty());
    // Every metric on every call path and rank: far more than the metrics alone.
    CHECK(comparison.compared > analysis::kMetricCount * result->ranks() * 4);

    const std::string listFile = dir + "/known_differences.tsv";
    if (std::getenv("WAITSCOPE_CORPUS_UPDATE") != nullptr) {
        std::ofstream out(listFile);
        out << kHeader;
        for (const ScalascaDifference& d : comparison.differences) {
            out << row(d) << "\n";
        }
        std::cout << listFile << ": " << comparison.differences.size() << " differences\n";
        return;
    }
    auto known = readKnownDifferences(listFile);
    const size_t listed = known.size();
    std::stringstream current;
    size_t unexpected = 0;
    for (const ScalascaDifference& d : comparison.differences) {
        current << row(d) << "\n";
        const auto entry = known.find({d.metric, d.path, d.rank});
        if (entry == known.end()) {
            FAIL_CHECK(code << ": new difference: " << row(d));
            ++unexpected;
            continue;
        }
        INFO(code << ": listed " << row(entry->second) << ", now " << row(d));
        CHECK(sameValue(entry->second.scalasca, d.scalasca));
        CHECK(sameValue(entry->second.ours, d.ours));
        known.erase(entry);
    }
    for (const auto& [key, d] : known) {
        FAIL_CHECK(code << ": listed difference no longer differs: " << row(d));
    }
    std::cout << code << ": " << comparison.compared << " values compared, "
              << comparison.differences.size() << " differ (" << listed << " listed)\n";
    if (unexpected > 0 || !known.empty()) {
        std::cout << code << ": the differences now (WAITSCOPE_CORPUS_UPDATE=1 writes them to "
                  << listFile << "):\n"
                  << kHeader << current.str();
    }
}

} // namespace

TEST_CASE("OSU multi-pair latency agrees with Scalasca except for its listed differences",
          "[.][corpus][osu_multi_lat]") {
    checkCorpusCode("osu_multi_lat");
}

TEST_CASE("OSU allreduce agrees with Scalasca except for its listed differences",
          "[.][corpus][osu_allreduce]") {
    checkCorpusCode("osu_allreduce");
}

TEST_CASE("OSU nonblocking alltoall agrees with Scalasca except for its listed differences",
          "[.][corpus][osu_ialltoall]") {
    checkCorpusCode("osu_ialltoall");
}

TEST_CASE("NAS CG agrees with Scalasca except for its listed differences", "[.][corpus][npb_cg]") {
    checkCorpusCode("npb_cg");
}

TEST_CASE("NAS LU agrees with Scalasca except for its listed differences", "[.][corpus][npb_lu]") {
    checkCorpusCode("npb_lu");
}

TEST_CASE("NAS MG agrees with Scalasca except for its listed differences", "[.][corpus][npb_mg]") {
    checkCorpusCode("npb_mg");
}

TEST_CASE("NAS IS agrees with Scalasca except for its listed differences", "[.][corpus][npb_is]") {
    checkCorpusCode("npb_is");
}

TEST_CASE("HPC Challenge agrees with Scalasca except for its listed differences",
          "[.][corpus][hpcc]") {
    checkCorpusCode("hpcc");
}

TEST_CASE("miniVite agrees with Scalasca except for its listed differences",
          "[.][corpus][minivite]") {
    checkCorpusCode("minivite");
}

TEST_CASE("CoMD agrees with Scalasca except for its listed differences", "[.][corpus][comd]") {
    checkCorpusCode("comd");
}

TEST_CASE("HPCG agrees with Scalasca except for its listed differences", "[.][corpus][hpcg]") {
    checkCorpusCode("hpcg");
}

TEST_CASE("miniFE agrees with Scalasca except for its listed differences", "[.][corpus][minife]") {
    checkCorpusCode("minife");
}

TEST_CASE("mpi4py's Mandelbrot demo agrees with Scalasca except for its listed differences",
          "[.][corpus][mpi4py_mandelbrot]") {
    checkCorpusCode("mpi4py_mandelbrot");
}
