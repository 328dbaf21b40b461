// The time between MPI calls of ranks traced without user regions: with samples it is the sampled
// functions' (entered where the time a sample stands for begins), without them the program's;
// drawn as computation, in the overview too, and the analyzer's caches and the browser exports
// hold the same visits.
#include "archive_builder.h"
#include "chrome_trace.h"
#include "perfetto_trace.h"
#include "timeline_collector.h"
#include "timeline_data.h"
#include "timeline_store.h"
#include "timeline_summary.h"
#include "trace_walk.h"
#include "waitscope/analysis/instance_file.h"
#include "waitscope/analysis/serial_analysis.h"
#include "waitscope/analysis/wait_instances.h"
#include "waitscope/trace/otf2_archive.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
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

// The definitions of the sampled trace (2 ranks, milliseconds), its regions' ids SampledRegion's.
testing::ArchiveBuilder sampledArchive() {
    using trace::Paradigm;
    using trace::RegionRole;
    testing::ArchiveBuilder archive(2, 1000, 90);
    trace::Definitions& d = archive.definitions();
    d.strings = {"", "/bin/sampled"};
    d.regions.push_back(
        {"sampled", "/bin/sampled", "", 0, 0, RegionRole::Artificial, Paradigm::MeasurementSystem});
    for (const char* name : {"main", "compute", "kernel", "exchange"}) {
        archive.region(name, RegionRole::Function, Paradigm::Sampling);
    }
    archive.region("MPI_Init", RegionRole::Function, Paradigm::Mpi);
    archive.region("MPI_Send", RegionRole::PointToPoint, Paradigm::Mpi);
    archive.region("MPI_Recv", RegionRole::PointToPoint, Paradigm::Mpi);
    archive.region("MPI_Finalize", RegionRole::Function, Paradigm::Mpi);
    d.callingContexts = {{kMain, trace::kUndefined},
                         {kCompute, kAtMain},
                         {kKernel, kAtCompute},
                         {kExchange, kAtMain}};
    archive.commSelf();
    return archive;
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
    testing::ArchiveBuilder archive = sampledArchive();
    archive.open(dir.string());
    archive.events(0, writeSampledRank);
    archive.events(1, writeUnsampledRank);
    const Status written = archive.finish();
    INFO((written ? std::string() : written.error().message()));
    REQUIRE(written.ok());
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

namespace {

// A visit as (rank, thread, depth, region, start ns, end ns).
using Stretch = std::tuple<uint32_t, uint32_t, size_t, uint32_t, int64_t, int64_t>;

// The timeline's visits of every row, in nanoseconds as the exports write them.
std::vector<Stretch> timelineStretches(const Timeline& timeline) {
    std::vector<Stretch> out;
    for (const Row& row : timeline.rows()) {
        for (size_t depth = 0; depth < row.depths.size(); ++depth) {
            for (const Visit& v : row.depths[depth]) {
                out.emplace_back(row.rank, row.thread, depth, v.region, std::llround(v.start * 1e9),
                                 std::llround(v.end * 1e9));
            }
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

// What the exports' walk hands its sinks: visits with the depth their nesting gives.
class RecordingSink : public exporter::TraceSink {
public:
    std::vector<Stretch> stretches;
    uint64_t sendEnds = 0;
    uint64_t receiveEnds = 0;

    void process(uint32_t, const std::string&) override {}
    void thread(uint32_t, uint32_t, const std::string&) override {}
    void enter(uint32_t rank, uint32_t tid, uint32_t region, int64_t time) override {
        m_open[{rank, tid}].emplace_back(region, time);
    }
    void leave(uint32_t rank, uint32_t tid, uint32_t region, int64_t enter, int64_t time) override {
        std::vector<std::pair<uint32_t, int64_t>>& open = m_open[{rank, tid}];
        REQUIRE(!open.empty());
        CHECK(open.back() == std::make_pair(region, enter));
        open.pop_back();
        stretches.emplace_back(rank, tid, open.size(), region, enter, time);
    }
    void messageEnd(bool sendEnd, uint32_t, uint32_t, int64_t, uint64_t) override {
        ++(sendEnd ? sendEnds : receiveEnds);
    }
    void waitState(const analysis::PatternInstance&, uint32_t, int64_t, int64_t) override {}

private:
    std::map<std::pair<uint32_t, uint32_t>, std::vector<std::pair<uint32_t, int64_t>>> m_open;
};

// The digits of `text` from `at` as nanoseconds of a number of microseconds with three places
// ("20000.000" is 20000000).
int64_t jsonNanoseconds(const std::string& text, size_t at) {
    int64_t whole = 0;
    for (; std::isdigit(static_cast<unsigned char>(text[at])) != 0; ++at) {
        whole = whole * 10 + (text[at] - '0');
    }
    REQUIRE(text.compare(at, 1, ".") == 0);
    return whole * 1000 + std::stoll(text.substr(at + 1, 3));
}

// The complete events of a Chrome trace file that are no wait states, as (rank, thread, region
// name, start ns, end ns), sorted: the writer puts one event per line.
using NamedStretch = std::tuple<uint32_t, uint32_t, std::string, int64_t, int64_t>;
std::vector<NamedStretch> chromeStretches(const fs::path& file) {
    std::vector<NamedStretch> out;
    std::ifstream in(file);
    for (std::string line; std::getline(in, line);) {
        if (line.find("\"ph\":\"X\"") == std::string::npos ||
            line.find("\"cat\":\"wait state\"") != std::string::npos) {
            continue;
        }
        const size_t name = line.find("\"name\":\"") + 8;
        const size_t pid = line.find("\"pid\":") + 6;
        const size_t tid = line.find("\"tid\":") + 6;
        const int64_t start = jsonNanoseconds(line, line.find("\"ts\":") + 5);
        out.emplace_back(std::stoul(line.substr(pid)), std::stoul(line.substr(tid)),
                         line.substr(name, line.find('"', name) - name), start,
                         start + jsonNanoseconds(line, line.find("\"dur\":") + 6));
    }
    std::sort(out.begin(), out.end());
    return out;
}

// A protobuf message's fields: (number, varint value or length-delimited bytes).
std::vector<std::pair<uint32_t, std::string>> protoFields(const std::string& data) {
    std::vector<std::pair<uint32_t, std::string>> out;
    size_t at = 0;
    const auto varint = [&] {
        uint64_t value = 0;
        for (int shift = 0;; shift += 7) {
            REQUIRE(at < data.size());
            const auto byte = static_cast<unsigned char>(data[at++]);
            value |= uint64_t{byte & 0x7Fu} << shift;
            if (byte < 0x80) {
                return value;
            }
        }
    };
    while (at < data.size()) {
        const uint64_t key = varint();
        const auto number = static_cast<uint32_t>(key >> 3);
        if ((key & 7) == 0) {
            out.emplace_back(number, std::to_string(varint()));
        } else if ((key & 7) == 1) {
            out.emplace_back(number, data.substr(at, 8));
            at += 8;
        } else {
            REQUIRE((key & 7) == 2);
            const uint64_t length = varint();
            out.emplace_back(number, data.substr(at, length));
            at += length;
        }
    }
    return out;
}

// The slices of a Perfetto trace file on the region tracks (no wait states), as (track, region
// name, start ns, end ns), sorted; a slice's end closes the last one begun on its track.
using TrackStretch = std::tuple<uint64_t, std::string, int64_t, int64_t>;
std::vector<TrackStretch> perfettoStretches(const fs::path& file) {
    std::vector<TrackStretch> out;
    std::map<uint64_t, std::vector<std::pair<std::string, int64_t>>> open;
    for (const auto& [number, packet] : protoFields(bytesOf(file))) {
        REQUIRE(number == 1);
        int64_t time = 0;
        std::string event;
        for (const auto& [field, value] : protoFields(packet)) {
            if (field == 8) {
                time = std::stoll(value);
            } else if (field == 11) {
                event = value;
            }
        }
        uint64_t type = 0;
        uint64_t track = 0;
        std::string name;
        std::string category;
        for (const auto& [field, value] : protoFields(event)) {
            type = field == 9 ? std::stoull(value) : type;
            track = field == 11 ? std::stoull(value) : track;
            name = field == 23 ? value : name;
            category = field == 22 ? value : category;
        }
        if (type == 1 && category != "wait state") {
            open[track].emplace_back(name, time);
        } else if (type == 2 && !open[track].empty()) {
            const auto [begun, start] = open[track].back();
            open[track].pop_back();
            out.emplace_back(track, begun, start, time);
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace

TEST_CASE("the browser exports show the timeline's visits of a sampled trace", "[timeline]") {
    const fs::path dir = writeSampledTrace("timeline_samples_export");
    auto timeline = Timeline::load(dir.string());
    REQUIRE(timeline.ok());
    const std::vector<Stretch> expected = timelineStretches(*timeline);
    // The program on both ranks and rank 0's sampled functions between its MPI calls.
    REQUIRE(expected.size() == 13);

    // The walk both exports write: the same visits at the same depths and times.
    auto input = exporter::readExportInput(dir.string(), "", false);
    REQUIRE(input.ok());
    RecordingSink sink;
    auto counts = exporter::walkTrace(*input, sink);
    REQUIRE(counts.ok());
    std::sort(sink.stretches.begin(), sink.stretches.end());
    CHECK(sink.stretches == expected);
    CHECK(counts->slices == expected.size());
    CHECK(counts->events == timeline->events());
    CHECK(counts->flows == 1);
    CHECK(sink.sendEnds == 1);
    CHECK(sink.receiveEnds == 1);

    // The files: a Chrome complete event, and a Perfetto slice on the location's track, per
    // visit (Perfetto's tracks are (rank + 1) << 32 | (thread + 1)).
    std::vector<NamedStretch> named;
    std::vector<TrackStretch> tracked;
    for (const auto& [rank, thread, depth, region, start, end] : expected) {
        named.emplace_back(rank, thread, timeline->regionName(region), start, end);
        tracked.emplace_back((uint64_t{rank} + 1) << 32 | (thread + 1),
                             timeline->regionName(region), start, end);
    }
    std::sort(named.begin(), named.end());
    std::sort(tracked.begin(), tracked.end());
    REQUIRE(exporter::writeChromeTrace(dir.string(), "", (dir / "trace.json").string()).ok());
    CHECK(chromeStretches(dir / "trace.json") == named);
    REQUIRE(exporter::writePerfettoTrace(dir.string(), "", (dir / "trace.pftrace").string()).ok());
    CHECK(perfettoStretches(dir / "trace.pftrace") == tracked);
    fs::remove_all(dir);
}
