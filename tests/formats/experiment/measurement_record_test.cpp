// waitscope.measurement: what the measurement writes, the one reader reads back; damaged lines
// are listed with their numbers for the caller to judge.
#include "waitscope/experiment/measurement_record.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <unistd.h>

using namespace waitscope::experiment;
namespace fs = std::filesystem;

namespace {

fs::path scratchFile(const std::string& name) {
    const fs::path dir =
        fs::temp_directory_path() / ("waitscope_experiment_test_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    return dir / name;
}

std::string readText(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

} // namespace

TEST_CASE("the per-rank fields have distinct names, seconds first", "[measurement-record]") {
    std::set<std::string> names;
    for (int f = 0; f < kRankFieldCount; ++f) {
        const std::string name = rankFieldName(static_cast<RankField>(f));
        CHECK(!name.empty());
        CHECK(name.find('=') == std::string::npos);
        names.insert(name);
        CHECK(isSecondsField(static_cast<RankField>(f)) ==
              (name.size() > 8 && name.substr(name.size() - 8) == "_seconds"));
    }
    CHECK(names.size() == static_cast<size_t>(kRankFieldCount));
    CHECK(std::string(rankFieldName(RankField::FlushSeconds)) == "flush_seconds");
    CHECK(std::string(rankFieldName(RankField::UnsampledThreads)) == "unsampled_threads");
}

TEST_CASE("a written measurement record reads back whole", "[measurement-record]") {
    const fs::path file = scratchFile(kMeasurementRecordFile);
    MeasurementHeader header;
    header.program = "/home/user/app";
    header.ranks = 2;
    header.clock = "monotonic";
    header.ticksPerSecond = 1000000000;
    header.bufferBytes = 64u << 20;
    std::vector<double> values(2 * kRankFieldCount);
    for (int r = 0; r < 2; ++r)
        for (int f = 0; f < kRankFieldCount; ++f)
            values[(static_cast<size_t>(r) * static_cast<size_t>(kRankFieldCount)) +
                   static_cast<size_t>(f)] = r * 1000 + f + 0.25;
    REQUIRE(writeMeasurementRecord(file.c_str(), header, values.data()));

    const std::string text = readText(file);
    CHECK(text.rfind("# Waitscope self-measurement: key=value; rank.<r>.<key> per rank\n"
                     "version=1\nprogram=/home/user/app\nranks=2\nclock=monotonic\n"
                     "ticks_per_second=1000000000\nbuffer_bytes=67108864\n"
                     "rank.0.wrap_before_init_seconds=0.250000000\n",
                     0) == 0);
    CHECK(text.find("rank.1.flushes=1008\n") != std::string::npos); // counts without decimals
    CHECK(text.find("rank.1.finalize_write_cpu_seconds=1006.250000000\n") != std::string::npos);

    auto record = readMeasurementRecord(file.string());
    REQUIRE(record.ok());
    CHECK(record->badLines.empty());
    REQUIRE(record->entries.size() == 6 + 2 * static_cast<size_t>(kRankFieldCount));
    CHECK(record->entries[0] == std::make_pair(std::string("version"), std::string("1")));
    std::map<std::string, std::string> byKey(record->entries.begin(), record->entries.end());
    CHECK(byKey["program"] == "/home/user/app");
    CHECK(byKey["ranks"] == "2");
    CHECK(byKey["ticks_per_second"] == "1000000000");
    for (int r = 0; r < 2; ++r)
        for (int f = 0; f < kRankFieldCount; ++f) {
            const RankField field = static_cast<RankField>(f);
            const std::string key = "rank." + std::to_string(r) + "." + rankFieldName(field);
            REQUIRE(byKey.count(key) == 1);
            const double written =
                values[(static_cast<size_t>(r) * static_cast<size_t>(kRankFieldCount)) +
                       static_cast<size_t>(f)];
            // Seconds keep nine decimals; counts are whole numbers.
            CHECK(std::stod(byKey[key]) ==
                  Approx(isSecondsField(field) ? written : std::round(written)));
        }
    fs::remove_all(file.parent_path());
}

TEST_CASE("the MPI functions only counted are appended with their calls and ranks, the ones "
          "never called left out",
          "[measurement-record]") {
    const fs::path file = scratchFile("unrecorded.measurement");
    MeasurementHeader header;
    header.ranks = 1;
    std::vector<double> values(kRankFieldCount);
    REQUIRE(writeMeasurementRecord(file.c_str(), header, values.data()));
    const char* const names[] = {"MPI_Put", "MPI_Type_dup", "MPI_Win_fence"};
    const std::uint64_t calls[] = {12, 0, 3};
    const std::uint64_t ranks[] = {4, 0, 1};
    REQUIRE(appendUnrecordedCalls(file.c_str(), names, calls, ranks, 3));
    auto record = readMeasurementRecord(file.string());
    REQUIRE(record.ok());
    CHECK(record->badLines.empty());
    std::map<std::string, std::string> byKey(record->entries.begin(), record->entries.end());
    CHECK(byKey["unrecorded.MPI_Put"] == "12");
    CHECK(byKey["unrecorded.MPI_Put.ranks"] == "4");
    CHECK(byKey["unrecorded.MPI_Win_fence"] == "3");
    CHECK(byKey["unrecorded.MPI_Win_fence.ranks"] == "1");
    CHECK(byKey.count("unrecorded.MPI_Type_dup") == 0);
    CHECK(byKey["ranks"] == "1");
    fs::remove_all(file.parent_path());
}

TEST_CASE("damaged lines of a measurement record are reported with their line numbers",
          "[measurement-record]") {
    const auto record = parseMeasurementRecord(
        "# comment\nversion=1\nno equals sign\n\n=no key\nranks=4\nlast=line without newline");
    CHECK(record.badLines == std::vector<std::size_t>{3, 5});
    REQUIRE(record.entries.size() == 3);
    CHECK(record.entries[0] == std::make_pair(std::string("version"), std::string("1")));
    CHECK(record.entries[1] == std::make_pair(std::string("ranks"), std::string("4")));
    CHECK(record.entries[2] ==
          std::make_pair(std::string("last"), std::string("line without newline")));
    CHECK(badLineError("/exp/waitscope.measurement", 3).message() ==
          "/exp/waitscope.measurement: line 3: expected key=value");
}

TEST_CASE("values may hold '=' and keys keep the order and repeats of the file",
          "[measurement-record]") {
    const auto record = parseMeasurementRecord("recovery.1=rank 1: a=b\nranks=2\nranks=3\n");
    CHECK(record.badLines.empty());
    REQUIRE(record.entries.size() == 3);
    CHECK(record.entries[0].second == "rank 1: a=b");
    CHECK(record.entries[2] == std::make_pair(std::string("ranks"), std::string("3")));
}

TEST_CASE("a measurement record that cannot be opened fails naming it", "[measurement-record]") {
    const fs::path file = scratchFile("absent.measurement");
    fs::remove(file);
    auto record = readMeasurementRecord(file.string());
    REQUIRE_FALSE(record.ok());
    CHECK(record.error().message() == file.string() + ": cannot read");
    fs::remove_all(file.parent_path());
}

TEST_CASE("recovery entries extend a failed run's record, or start one", "[measurement-record]") {
    const fs::path file = scratchFile("recovered.measurement");
    fs::remove(file);
    RecoveryEntries recovery;
    recovery.program = "/bin/app";
    recovery.ranks = 2;
    recovery.ticksPerSecond = 1000;
    recovery.keptEvents = {12, 7};
    recovery.notes = {"rank 1 died (SIGSEGV) after 7 events"};
    REQUIRE(appendRecoveryEntries(file.string(), recovery).ok());
    CHECK(readText(file) == "# Waitscope self-measurement: key=value (recovered after a failed "
                            "run)\nversion=1\nprogram=/bin/app\nranks=2\nticks_per_second=1000\n"
                            "recovered=true\nrecovered.rank.0.events=12\n"
                            "recovered.rank.1.events=7\n"
                            "recovery.1=rank 1 died (SIGSEGV) after 7 events\n");
    // A record the run wrote keeps its lines; the recovery's follow them.
    { std::ofstream(file) << "version=1\nranks=2\n"; }
    REQUIRE(appendRecoveryEntries(file.string(), recovery).ok());
    auto record = readMeasurementRecord(file.string());
    REQUIRE(record.ok());
    CHECK(record->badLines.empty());
    REQUIRE(record->entries.size() == 6);
    CHECK(record->entries[1] == std::make_pair(std::string("ranks"), std::string("2")));
    CHECK(record->entries[2] == std::make_pair(std::string("recovered"), std::string("true")));
    CHECK(record->entries[5].second == "rank 1 died (SIGSEGV) after 7 events");
    fs::remove_all(file.parent_path());
}
