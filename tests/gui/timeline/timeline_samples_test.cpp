// The time between MPI calls of ranks traced without user regions: with samples it is the sampled
// functions' (entered where the time a sample stands for begins), without them the program's;
// drawn as computation, in the overview too, and the analyzer's caches hold the same visits.
#include "timeline_collector.h"
#include "timeline_data.h"
#include "timeline_store.h"
#include "timeline_summary.h"
#include "waitscope/analysis/instance_file.h"
#include "waitscope/analysis/serial_analysis.h"
#include "waitscope/analysis/wait_instances.h"
#include "waitscope/trace/otf2_archive.h"
#include "waitscope/trace/otf2_writer.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <tuple>
#include <vector>

using namespace waitscope;
using namespace waitscope::timeline;
namespace fs = std::filesystem;
using Approx = Catch::Detail::Approx;

namespace {

// Regions and calling contexts of the sampled trace.
enum SampledRegion : uint32_t {
    kProgram,
    kMain,
    kCompute,
    kKernel,
    kExchange,
    kInit,
    kSend,
    kRecv,
    kFinalize
};
enum SampledContext : uint32_t { kAtMain, kAtCompute, kAtKernel, kAtExchange };
constexpr uint32_t kProgramName = 1;

trace::Definitions sampledDefinitions(const std::vector<uint64_t>& events) {
    using trace::Paradigm;
    using trace::RegionRole;
    trace::Definitions d;
    d.strings = {"", "/bin/sampled"};
    d.clock = {1000, 0, 90}; // milliseconds
    d.systemTreeNodes = {{"machine", "machine", trace::kUndefined}, {"node 0", "node", 0}};
    d.locationGroups = {{"MPI Rank 0", true, 1}, {"MPI Rank 1", true, 1}};
    d.locations = {{0, "Master thread", 0, events[0], trace::LocationType::CpuThread},
                   {1, "Master thread", 1, events[1], trace::LocationType::CpuThread}};
    d.regions = {
        {"sampled", "/bin/sampled", "", 0, 0, RegionRole::Artificial, Paradigm::MeasurementSystem},
        {"main", "main", "", 0, 0, RegionRole::Function, Paradigm::Sampling},
        {"compute", "compute", "", 0, 0, RegionRole::Function, Paradigm::Sampling},
        {"kernel", "kernel", "", 0, 0, RegionRole::Function, Paradigm::Sampling},
        {"exchange", "exchange", "", 0, 0, RegionRole::Function, Paradigm::Sampling},
        {"MPI_Init", "MPI_Init", "", 0, 0, RegionRole::Function, Paradigm::Mpi},
        {"MPI_Send", "MPI_Send", "", 0, 0, RegionRole::PointToPoint, Paradigm::Mpi},
        {"MPI_Recv", "MPI_Recv", "", 0, 0, RegionRole::PointToPoint, Paradigm::Mpi},
        {"MPI_Finalize", "MPI_Finalize", "", 0, 0, RegionRole::Function, Paradigm::Mpi}};
    d.callingContexts = {{kMain, trace::kUndefined},
                         {kCompute, kAtMain},
                         {kKernel, kAtCompute},
                         {kExchange, kAtMain}};
    d.groups = {{"", trace::GroupKind::Locations, Paradigm::Mpi, {0, 1}},
                {"", trace::GroupKind::CommGroup, Paradigm::Mpi, {0, 1}},
                {"", trace::GroupKind::CommSelf, Paradigm::Mpi, {}}};
    d.communicators.resize(2);
    d.communicators[0].name = "MPI_COMM_WORLD";
    d.communicators[0].group = 1;
    d.communicators[1].name = "MPI_COMM_SELF";
    d.communicators[1].group = 2;
    return d;
}

// Rank 0 as the measurement writes a preloaded program with sampling on (no user regions):
// samples recorded at the next MPI call, each standing for the time since the event before it;
// the call path of each MPI call before its Enter; the open path left before ProgramEnd.
void writeSampledRank(trace::Otf2EventWriter& w) {
    w.programBegin(0, kProgramName);
    w.enter(10, kInit);
    w.leave(20, kInit);
    w.callingContextSample(30, kAtCompute); // compute over 20..30
    w.callingContextSample(40, kAtKernel);  // kernel over 30..40
    w.callingContextEnter(45, kAtExchange); // MPI_Send called from exchange
    w.enter(45, kSend);
    w.mpiSend(46, 1, 0, 7, 64);
    w.leave(50, kSend);
    w.callingContextSample(60, kAtCompute); // compute over 50..60
    w.callingContextEnter(70, kAtMain);
    w.enter(70, kFinalize);
    w.leave(80, kFinalize);
    w.callingContextLeave(85, kAtMain);
    w.programEnd(90);
}

// Rank 1 without samples: MPI calls only.
void writeUnsampledRank(trace::Otf2EventWriter& w) {
    w.programBegin(0, kProgramName);
    w.enter(10, kInit);
    w.leave(20, kInit);
    w.enter(40, kRecv);
    w.mpiRecv(55, 0, 0, 7, 64);
    w.leave(55, kRecv);
    w.enter(70, kFinalize);
    w.leave(80, kFinalize);
    w.programEnd(90);
}

fs::path writeSampledTrace(const std::string& name) {
    fs::path dir = fs::path(WAITSCOPE_TEST_TMP_DIR) / name;
    fs::remove_all(dir);
    trace::Otf2Writer writer;
    REQUIRE(writer.open(dir.string()));
    std::vector<uint64_t> events;
    for (const uint64_t location : {uint64_t{0}, uint64_t{1}}) {
        trace::Otf2EventWriter w = writer.openEvents(location);
        REQUIRE(w.valid());
        location == 0 ? writeSampledRank(w) : writeUnsampledRank(w);
        events.push_back(w.eventCount());
        REQUIRE(writer.closeEvents(w) == OTF2_SUCCESS);
    }
    REQUIRE(writer.writeLocalDefinitions({{0, {}}, {1, {}}}));
    REQUIRE(writer.writeGlobalDefinitions(sampledDefinitions(events)));
    REQUIRE(writer.close());
    return dir;
}

// A row's visits per depth as (region name, start ms, end ms).
using Named = std::tuple<std::string, double, double>;
std::vector<std::vector<Named>> named(const Timeline& timeline, uint32_t row) {
    std::vector<std::vector<Named>> out;
    for (const std::vector<Visit>& depth : timeline.rows()[row].depths) {
        std::vector<Named>& at = out.emplace_back();
        for (const Visit& v : depth) {
            at.emplace_back(timeline.regionName(v.region), v.start * 1000.0, v.end * 1000.0);
        }
    }
    return out;
}

std::string bytesOf(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

} // namespace

TEST_CASE("between MPI calls a rank shows its sampled functions, else its program", "[timeline]") {
    const fs::path dir = writeSampledTrace("timeline_samples");
    auto timeline = Timeline::load(dir.string());
    REQUIRE(timeline.ok());
    REQUIRE(timeline->rows().size() == 2);
    // Each sample's path opens where the time it stands for begins (the event before it) and
    // stays open until a record names another path; the MPI call nests below its call path.
    using V = std::vector<Named>;
    CHECK(named(*timeline, 0) == std::vector<V>{V{{"sampled", 0, 90}},
                                                V{{"MPI_Init", 10, 20}, {"main", 20, 85}},
                                                V{{"compute", 20, 45},
                                                  {"exchange", 45, 50},
                                                  {"compute", 50, 70},
                                                  {"MPI_Finalize", 70, 80}},
                                                V{{"kernel", 30, 45}, {"MPI_Send", 45, 50}}});
    // Without samples the program encloses the MPI calls.
    CHECK(named(*timeline, 1) ==
          std::vector<V>{V{{"sampled", 0, 90}},
                         V{{"MPI_Init", 10, 20}, {"MPI_Recv", 40, 55}, {"MPI_Finalize", 70, 80}}});
    for (const uint32_t region : {0u, 1u, 2u, 3u}) {
        CHECK(timeline->regionKind(region) == RegionKind::Computation);
    }

    // The overview counts the innermost visit: no time of the run is left out, the gaps between
    // MPI calls are computation. Rank 0: 10 + 10 + 15 + 20 + 5 + 5 ms outside MPI; rank 1: 55.
    const TimelineSummary summary = TimelineSummary::build(*timeline, 16);
    const size_t coarsest = summary.levels() - 1;
    const Bin& rank0 = summary.bin(coarsest, 0, 0);
    const Bin& rank1 = summary.bin(coarsest, 1, 0);
    const auto computation = static_cast<size_t>(RegionKind::Computation);
    CHECK(rank0.kinds[computation] == Approx(0.065));
    CHECK(rank0.covered() == Approx(0.090));
    CHECK(rank1.kinds[computation] == Approx(0.055));
    CHECK(rank1.kinds[static_cast<size_t>(RegionKind::PointToPoint)] == Approx(0.015));
    CHECK(rank1.covered() == Approx(0.090));
    // Every finest bin of both rows is covered whole (16 bins of 5.625 ms).
    for (uint32_t row = 0; row < 2; ++row) {
        for (uint32_t b = 0; b < summary.binsAt(0); ++b) {
            INFO("row " << row << " bin " << b);
            CHECK(summary.bin(0, row, b).covered() == Approx(summary.binWidth(0)));
        }
    }
    // Zoomed out to one block per row at each depth, the program's block spans the run.
    const std::vector<Block> outer = timeline->visible(1, 0, 0.0, 0.090, 0.001);
    REQUIRE(outer.size() == 1);
    CHECK(outer[0].start == 0.0);
    CHECK(outer[0].end == Approx(0.090));
    fs::remove_all(dir);
}

TEST_CASE("the analyzer's caches of a sampled trace are the ones built from it", "[timeline]") {
    for (const uint64_t window : {uint64_t{0}, uint64_t{3}}) {
        INFO("window " << window);
        const fs::path dir = writeSampledTrace("timeline_samples_" + std::to_string(window));
        auto archive = trace::readArchiveDefinitions(dir.string());
        REQUIRE(archive.ok());
        TimelineCollector collector;
        analysis::ReplayOptions options;
        options.windowEvents = window;
        options.observer = &collector;
        auto result = analysis::analyzeArchiveInProcess(dir.string(), options);
        REQUIRE(result.ok());
        REQUIRE(collector.complete());
        REQUIRE(analysis::writeWaitInstances(*result, (dir / analysis::kWaitInstancesFile).string())
                    .ok());
        REQUIRE(analysis::writeInstanceFile(result->instances(),
                                            (dir / analysis::kInstanceFile).string())
                    .ok());
        REQUIRE(collector.write(archive->anchor, archive->definitions, result->instances()).ok());
        const std::string events = bytesOf(dir / TimelineStore::kCacheFile);
        const std::string summary = bytesOf(dir / TimelineSummary::kCacheFile);
        REQUIRE(!events.empty());
        fs::remove(dir / TimelineStore::kCacheFile);
        fs::remove(dir / TimelineSummary::kCacheFile);
        auto built = TimelineStore::open(dir.string());
        REQUIRE(built.ok());
        CHECK(!(*built)->fromCache());
        CHECK(bytesOf(dir / TimelineStore::kCacheFile) == events);
        CHECK(bytesOf(dir / TimelineSummary::kCacheFile) == summary);
        // The cache holds the sampled visits: rank 0 has four depths, kernel at the deepest.
        auto row = (*built)->row(0);
        REQUIRE(row.ok());
        REQUIRE(row->depths.size() == 4);
        REQUIRE(row->depths[3].size() == 2);
        CHECK((*built)->skeleton().regionName(row->depths[3][0].region) == "kernel");
        fs::remove_all(dir);
    }
}
