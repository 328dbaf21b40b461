// The timeline's data: what is visible at a zoom level counts exactly the visits a brute-force
// scan finds, and a reference trace loads with all its visits and messages.
#include "timeline_data.h"
#include "waitscope/analysis/instance_file.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>

using namespace waitscope::timeline;

namespace {

// A row of random nested visits: depth 0 covers [0, 1000]; each visit holds a random number of
// children, short and long mixed.
Row randomRow(std::mt19937& random, size_t depths) {
    Row row{0, 0, "rank 0", "", std::vector<std::vector<Visit>>(depths)};
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::function<void(size_t, double, double)> fill = [&](size_t depth, double start, double end) {
        row.depths[depth].push_back({start, end, static_cast<uint32_t>(depth)});
        if (depth + 1 >= depths) {
            return;
        }
        const int children = static_cast<int>(unit(random) * 40);
        double at = start;
        for (int c = 0; c < children && at < end; ++c) {
            const double gap = (end - start) * unit(random) * unit(random) / 20 + 1e-6;
            const double length = (end - start) * std::pow(unit(random), 6) / 4 + 1e-6;
            if (at + gap + length >= end) {
                break;
            }
            fill(depth + 1, at + gap, at + gap + length);
            at += gap + length;
        }
    };
    fill(0, 0.0, 1000.0);
    return row;
}

size_t bruteForce(const std::vector<Visit>& visits, double from, double to) {
    size_t count = 0;
    for (const Visit& v : visits) {
        count += v.end > from && v.start < to ? 1 : 0;
    }
    return count;
}

} // namespace

TEST_CASE("the visible blocks hold exactly the visits overlapping the window at any zoom",
          "[timeline]") {
    std::mt19937 random(23);
    Timeline timeline;
    for (int r = 0; r < 4; ++r) {
        timeline.addRegion("region " + std::to_string(r), RegionKind::Computation);
    }
    const uint32_t row = timeline.addRow(randomRow(random, 4));
    const Row& data = timeline.rows()[row];
    REQUIRE(data.depths[3].size() > 100);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    for (int trial = 0; trial < 300; ++trial) {
        const double width = 1000.0 * std::pow(unit(random), 3) + 1e-6;
        const double from = unit(random) * (1000.0 - width);
        const double to = from + width;
        const double pixel = width / (200 + unit(random) * 2000);
        for (size_t depth = 0; depth < data.depths.size(); ++depth) {
            const std::vector<Block> blocks = timeline.visible(row, depth, from, to, pixel);
            size_t visits = 0;
            for (size_t b = 0; b < blocks.size(); ++b) {
                visits += blocks[b].visits;
                CHECK(blocks[b].start <= blocks[b].end);
                if (b > 0) {
                    CHECK(blocks[b - 1].end <= blocks[b].start);
                }
                if (blocks[b].visits > 1) {
                    CHECK(blocks[b].end - blocks[b].start <= pixel);
                }
            }
            CHECK(visits == bruteForce(data.depths[depth], from, to));
            // Two consecutive blocks advance at least a pixel: the view draws at most about
            // two blocks per pixel column, however many visits there are.
            CHECK(blocks.size() <= 2 * static_cast<size_t>(width / pixel) + 3);
        }
    }
    // Zoomed in below the shortest visit and gap (1e-6), every visit is a block of its own.
    const std::vector<Block> single = timeline.visible(row, 3, 0.0, 1000.0, 1e-9);
    REQUIRE(single.size() == data.depths[3].size());
    for (size_t k = 0; k < single.size(); ++k) {
        CHECK(single[k].visits == 1);
        CHECK(single[k].start == data.depths[3][k].start);
    }
}

TEST_CASE("a reference trace loads with every region visit and message", "[timeline]") {
    auto timeline = Timeline::load(std::string(WAITSCOPE_REFERENCE_DIR) + "/late_sender/trace");
    REQUIRE(timeline.ok());
    REQUIRE(timeline->rows().size() == 4);
    // otf2-print lists 68 enters, 4 PROGRAM_BEGIN (the program is each row's outermost visit)
    // and 10 MPI_SEND / MPI_RECV pairs in this trace.
    size_t visits = 0;
    for (const Row& row : timeline->rows()) {
        for (const auto& depth : row.depths) {
            visits += depth.size();
            for (size_t k = 1; k < depth.size(); ++k) {
                CHECK(depth[k - 1].end <= depth[k].start);
            }
        }
    }
    CHECK(visits == 68 + 4);
    REQUIRE(timeline->messages().size() == 10);
    for (const Message& m : timeline->messages()) {
        CHECK(m.fromRow != m.toRow);
        CHECK(m.sendTime >= timeline->begin());
        CHECK(m.receiveTime <= timeline->end());
        CHECK(timeline->rows()[m.fromRow].rank % 2 == 0); // even ranks send to odd ones
        CHECK(timeline->rows()[m.toRow].rank == timeline->rows()[m.fromRow].rank + 1);
    }
    CHECK(timeline->instances().empty()); // no instances file beside the reference trace
    CHECK(timeline->regionName(timeline->rows()[0].depths[0][0].region) == "late_sender");
    CHECK(timeline->regionName(timeline->rows()[0].depths[1][0].region) == "main");
    CHECK(timeline->regionName(timeline->rows()[0].depths[2][0].region) == "MPI_Init");
}

TEST_CASE("a missing trace is refused naming the path", "[timeline]") {
    auto timeline = Timeline::load("/nonexistent/experiment");
    REQUIRE(!timeline.ok());
    CHECK(timeline.error().message().find("/nonexistent/experiment") != std::string::npos);
}

TEST_CASE("each collective operation joins its members across the rows", "[timeline]") {
    auto timeline = Timeline::load(std::string(WAITSCOPE_REFERENCE_DIR) + "/wait_nxn/trace");
    REQUIRE(timeline.ok());
    // otf2-print lists 8 MPI_COLLECTIVE_END per rank in this trace, all on MPI_COMM_WORLD.
    REQUIRE(timeline->collectives().size() == 8);
    size_t allreduces = 0;
    for (size_t k = 0; k < timeline->collectives().size(); ++k) {
        const Collective& c = timeline->collectives()[k];
        CHECK(c.rows == std::vector<uint32_t>{0, 1, 2, 3});
        CHECK(c.start <= c.lastBegin);
        CHECK(c.lastBegin <= c.end);
        if (k > 0) {
            CHECK(timeline->collectives()[k - 1].start <= c.start);
        }
        allreduces += timeline->regionName(c.region) == "MPI_Allreduce" ? 1 : 0;
    }
    CHECK(allreduces == 5); // one per iteration of wait_nxn.c
    // One machine: every rank on the same node, named.
    for (const Row& row : timeline->rows()) {
        CHECK(!row.node.empty());
        CHECK(row.node == timeline->rows()[0].node);
    }
}

TEST_CASE("the timeline reads instances.bin beside the trace, else instances.txt, and refuses a "
          "damaged instances.bin naming it",
          "[timeline]") {
    namespace fs = std::filesystem;
    const fs::path dir = fs::path(WAITSCOPE_TEST_TMP_DIR) / "timeline_instance_files";
    fs::remove_all(dir);
    fs::create_directories(dir);
    fs::copy(fs::path(WAITSCOPE_REFERENCE_DIR) / "late_sender" / "trace", dir,
             fs::copy_options::recursive);
    // The text file alone (experiments analyzed before the indexed file): two instances.
    std::ofstream(dir / "instances.txt") << "# waitscope wait-state instances 1\n"
                                         << "mpi_latesender 1 4 0.5 1.0 0.25\n"
                                         << "mpi_latesender 3 4 0.25 1.0 0.5\n";
    auto fromText = Timeline::load(dir.string());
    REQUIRE(fromText.ok());
    REQUIRE(fromText->instances().size() == 2);
    auto first = fromText->instances().at(0);
    REQUIRE(first.ok());
    CHECK(first->rank == 3); // in time order
    // The indexed file is preferred (here it holds one instance, the text file two).
    const std::string indexed = (dir / "instances.bin").string();
    REQUIRE(waitscope::analysis::writeInstanceFile(
                {{waitscope::analysis::Metric::MpiLateSender, 4, 1, 0.5, 1.0, 0.25}}, indexed)
                .ok());
    auto fromIndexed = Timeline::load(dir.string());
    REQUIRE(fromIndexed.ok());
    CHECK(fromIndexed->instances().size() == 1);
    CHECK(fromIndexed->instances().cells().size() == 1);
    // Cut short: refused naming the file, not read as fewer instances.
    fs::resize_file(indexed, fs::file_size(indexed) - 8);
    auto damaged = Timeline::load(dir.string());
    REQUIRE(!damaged.ok());
    CHECK(damaged.error().message().rfind(indexed + ": truncated or damaged", 0) == 0);
    fs::remove_all(dir);
}

TEST_CASE("OpenMP runtime and POSIX threads calls are a kind of their own, not MPI management",
          "[timeline]") {
    using waitscope::trace::Paradigm;
    using waitscope::trace::Region;
    using waitscope::trace::RegionRole;
    auto region = [](const char* name, Paradigm paradigm, RegionRole role) {
        Region r;
        r.name = name;
        r.paradigm = paradigm;
        r.role = role;
        return r;
    };
    CHECK(kindOfRegion(region("pthread_join", Paradigm::Pthread, RegionRole::Function)) ==
          RegionKind::Threads);
    CHECK(kindOfRegion(region("pthread_mutex_lock", Paradigm::Pthread, RegionRole::Function)) ==
          RegionKind::Threads);
    CHECK(kindOfRegion(region("!$omp implicit barrier", Paradigm::OpenMp,
                              RegionRole::ImplicitBarrier)) == RegionKind::Threads);
    CHECK(kindOfRegion(region("omp_set_lock", Paradigm::OpenMp, RegionRole::Function)) ==
          RegionKind::Threads);
    // The thread's start routine and the parallel region's body are computation.
    CHECK(kindOfRegion(region("worker", Paradigm::Pthread, RegionRole::Function)) ==
          RegionKind::Computation);
    CHECK(kindOfRegion(region("!$omp parallel", Paradigm::OpenMp, RegionRole::Parallel)) ==
          RegionKind::Computation);
    CHECK(kindOfRegion(region("MPI_Comm_rank", Paradigm::Mpi, RegionRole::Function)) ==
          RegionKind::Management);
    CHECK(std::string(kindName(RegionKind::Threads)) == "OpenMP/threads");
}

TEST_CASE("the visible messages equal a brute-force scan for flights of every length",
          "[timeline]") {
    // Flights from a nanosecond to most of the run, some backwards (receive before send: clock
    // violations), some of none; windows from a microsecond to the whole run.
    std::mt19937 random(23);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::vector<Message> messages;
    for (int k = 0; k < 20000; ++k) {
        const double send = 1000.0 * unit(random);
        double flight = std::pow(10.0, -9.0 + 12.0 * unit(random));
        if (k % 17 == 0) {
            flight = 0.0;
        } else if (k % 11 == 0) {
            flight = -flight;
        }
        messages.push_back({0, 1, send, send + flight, static_cast<uint64_t>(k)});
    }
    std::stable_sort(messages.begin(), messages.end(),
                     [](const Message& a, const Message& b) { return a.sendTime < b.sendTime; });
    Timeline timeline;
    timeline.setMessages(messages);
    for (int trial = 0; trial < 200; ++trial) {
        const double width = 1000.0 * std::pow(10.0, -9.0 * unit(random));
        const double from = (1000.0 - width) * unit(random);
        const double to = from + width;
        std::vector<uint64_t> expected;
        for (const Message& m : messages) {
            if (std::min(m.sendTime, m.receiveTime) <= to &&
                std::max(m.sendTime, m.receiveTime) >= from) {
                expected.push_back(m.bytes);
            }
        }
        std::vector<uint64_t> shown;
        for (const Message* m : timeline.visibleMessages(from, to)) {
            shown.push_back(m->bytes);
        }
        INFO("window " << from << " to " << to);
        CHECK(shown == expected); // the same, in send-time order
    }
}

TEST_CASE("a stretch of the critical path on a thread lies on that thread's row", "[timeline]") {
    // Rows: rank 0, its thread 1, rank 1. The path: rank 0, rank 0's thread (OTF2 location
    // 1 << 32), rank 0 again, rank 1, and a stretch on a location the rows do not have.
    Timeline t;
    t.addRow(Row{0, 0, "rank 0", "", {}});
    t.addRow(Row{0, 1, "thread 1", "", {}});
    t.addRow(Row{1, 0, "rank 1", "", {}});
    const uint64_t thread = uint64_t{1} << 32;
    using waitscope::analysis::PathSegment;
    std::vector<PathSegment> path{
        {0, 0.0, 1.0},
        {0, 1.0, 2.0, waitscope::analysis::kNoNode, waitscope::analysis::kNoNode, thread},
        {0, 2.0, 3.0},
        {1, 3.0, 4.0},
        {1, 4.0, 5.0, waitscope::analysis::kNoNode, waitscope::analysis::kNoNode, thread | 1}};
    t.setCriticalPath(path, {{thread, 1}});
    CHECK(t.rowOfPath(t.criticalPath()[0]) == 0);
    CHECK(t.rowOfPath(t.criticalPath()[1]) == 1);
    CHECK(t.rowOfPath(t.criticalPath()[2]) == 0);
    CHECK(t.rowOfPath(t.criticalPath()[3]) == 2);
    CHECK(t.rowOfPath(t.criticalPath()[4]) == 2); // unknown thread: its rank's row
}
