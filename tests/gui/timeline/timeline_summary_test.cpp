// The timeline's overview: every bin's time per kind (exclusive: the innermost visit's), visits
// begun and waiting time equal a brute-force count over the visits and instances, at every
// level; the metrics band's shares and the cache round-trip.
#include "timeline_summary.h"
#include "waitscope/analysis/wait_instances.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>

using namespace waitscope;
using namespace waitscope::timeline;

namespace {

constexpr size_t kKinds = static_cast<size_t>(RegionKind::Count_);

// Random nested visits of `depths` depths over [0, 1000]; regions 0..7, one per kind.
Row randomRow(std::mt19937& random, uint32_t rank) {
    Row row{rank, 0, "rank", "", std::vector<std::vector<Visit>>(4)};
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::function<void(size_t, double, double)> fill = [&](size_t depth, double start, double end) {
        row.depths[depth].push_back({start, end, static_cast<uint32_t>(unit(random) * kKinds)});
        if (depth + 1 >= row.depths.size()) {
            return;
        }
        const int children = static_cast<int>(unit(random) * 30);
        double at = start;
        for (int c = 0; c < children && at < end; ++c) {
            const double gap = (end - start) * unit(random) / 15 + 1e-6;
            const double length = (end - start) * std::pow(unit(random), 4) / 3 + 1e-6;
            if (at + gap + length >= end) {
                break;
            }
            fill(depth + 1, at + gap, at + gap + length);
            at += gap + length;
        }
    };
    fill(0, 3.0 * rank, 1000.0 - rank);
    return row;
}

double overlap(double a, double b, double from, double to) {
    return std::max(0.0, std::min(b, to) - std::max(a, from));
}

struct Brute {
    std::vector<double> kinds; // row x bin x kind
    std::vector<double> waiting;
    std::vector<uint32_t> visits;
};

Brute bruteForce(const Timeline& t, uint32_t bins) {
    const double width = (t.end() - t.begin()) / bins;
    const size_t rows = t.rows().size();
    Brute brute{std::vector<double>(rows * bins * kKinds), std::vector<double>(rows * bins),
                std::vector<uint32_t>(rows * bins)};
    for (size_t r = 0; r < rows; ++r) {
        const Row& row = t.rows()[r];
        for (size_t d = 0; d < row.depths.size(); ++d) {
            for (const Visit& v : row.depths[d]) {
                const auto first = static_cast<uint32_t>(
                    std::min<double>(bins - 1, (v.start - t.begin()) / width));
                ++brute.visits[r * bins + first];
                const size_t kind = static_cast<size_t>(t.regionKind(v.region));
                for (uint32_t b = 0; b < bins; ++b) {
                    const double from = t.begin() + b * width;
                    double own = overlap(v.start, v.end, from, from + width);
                    if (d + 1 < row.depths.size()) {
                        for (const Visit& c : row.depths[d + 1]) {
                            if (c.start >= v.start && c.end <= v.end) {
                                own -= overlap(c.start, c.end, from, from + width);
                            }
                        }
                    }
                    brute.kinds[(r * bins + b) * kKinds + kind] += own;
                }
            }
        }
    }
    std::vector<analysis::PatternInstance> instances;
    REQUIRE(t.instances().read(0, t.instances().size(), instances).ok());
    for (const analysis::PatternInstance& i : instances) {
        const uint32_t r = t.rowOfRank(i.rank);
        const auto [from, to] = analysis::waitingInterval(i);
        for (uint32_t b = 0; b < bins; ++b) {
            const double start = t.begin() + b * width;
            brute.waiting[r * bins + b] += overlap(from, to, start, start + width);
        }
    }
    return brute;
}

Timeline randomTimeline(std::mt19937& random) {
    Timeline t;
    for (size_t k = 0; k < kKinds; ++k) {
        t.addRegion("region " + std::to_string(k), static_cast<RegionKind>(k));
    }
    for (uint32_t rank = 0; rank < 3; ++rank) {
        t.addRow(randomRow(random, rank));
    }
    t.setRange(0.0, 1000.0);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::vector<analysis::PatternInstance> instances;
    for (int k = 0; k < 40; ++k) {
        const double enter = unit(random) * 990.0;
        const double length = unit(random) * 10.0;
        instances.push_back({analysis::Metric::MpiLateSender, 0, static_cast<uint32_t>(k % 3),
                             enter, enter + length, length * unit(random)});
    }
    t.setInstances(instances);
    return t;
}

} // namespace

TEST_CASE("every summary bin equals a brute-force count of the visits and instances at every "
          "level",
          "[timeline]") {
    std::mt19937 random(25);
    const Timeline t = randomTimeline(random);
    constexpr uint32_t kBins = 64;
    const TimelineSummary summary = TimelineSummary::build(t, kBins);
    const Brute brute = bruteForce(t, kBins);
    REQUIRE(summary.levels() == 7); // 64, 32, ..., 1
    uint64_t visits = 0;
    for (const Row& row : t.rows()) {
        for (const auto& depth : row.depths) {
            visits += depth.size();
        }
    }
    REQUIRE(visits > 300);
    for (size_t level = 0; level < summary.levels(); ++level) {
        const uint32_t bins = summary.binsAt(level);
        const uint32_t span = kBins / bins;
        const double tolerance = 1e-5 * summary.binWidth(level);
        uint64_t counted = 0;
        for (uint32_t r = 0; r < t.rows().size(); ++r) {
            for (uint32_t b = 0; b < bins; ++b) {
                const Bin& bin = summary.bin(level, r, b);
                INFO("level " << level << " row " << r << " bin " << b);
                uint32_t expectedVisits = 0;
                double expectedWaiting = 0.0;
                std::array<double, kKinds> expectedKinds{};
                for (uint32_t fine = b * span; fine < (b + 1) * span; ++fine) {
                    expectedVisits += brute.visits[r * kBins + fine];
                    expectedWaiting += brute.waiting[r * kBins + fine];
                    for (size_t k = 0; k < kKinds; ++k) {
                        expectedKinds[k] += brute.kinds[(r * kBins + fine) * kKinds + k];
                    }
                }
                CHECK(bin.visits == expectedVisits);
                CHECK(std::abs(bin.waiting - expectedWaiting) <= tolerance);
                for (size_t k = 0; k < kKinds; ++k) {
                    CHECK(std::abs(bin.kinds[k] - expectedKinds[k]) <= tolerance);
                }
                CHECK(bin.covered() <= summary.binWidth(level) + tolerance);
                counted += bin.visits;
            }
        }
        CHECK(counted == visits);
    }
    // The band: min, mean and max of the MPI share over the rows.
    const std::vector<uint32_t> rows{0, 1, 2};
    const std::vector<ShareRange> mpi = summary.mpiShare(3, rows);
    REQUIRE(mpi.size() == 8);
    for (uint32_t b = 0; b < 8; ++b) {
        double low = 1.0, high = 0.0, sum = 0.0;
        for (const uint32_t r : rows) {
            const double share = summary.bin(3, r, b).mpi() / summary.binWidth(3);
            low = std::min(low, share);
            high = std::max(high, share);
            sum += share;
        }
        CHECK(mpi[b].min == Approx(low).margin(1e-6));
        CHECK(mpi[b].max == Approx(high).margin(1e-6));
        CHECK(mpi[b].mean == Approx(sum / 3).margin(1e-6));
        CHECK(mpi[b].min <= mpi[b].mean);
        CHECK(mpi[b].mean <= mpi[b].max);
    }
    // levelFor: the coarsest level with bins no wider than asked.
    CHECK(summary.levelFor(1000.0) == 6);
    CHECK(summary.levelFor(1000.0 / 64) == 0);
    CHECK(summary.levelFor(1000.0 / 10) == 2); // 62.5 s bins; 125 s are too wide
}

TEST_CASE("the summary cache reads back what was written, and refuses another trace's",
          "[timeline]") {
    std::mt19937 random(7);
    const Timeline t = randomTimeline(random);
    const TimelineSummary summary = TimelineSummary::build(t, 32);
    const std::string file =
        (std::filesystem::temp_directory_path() / "waitscope_timeline_summary.bin").string();
    REQUIRE(summary.save(file, "trace A").ok());
    auto read = TimelineSummary::load(file, "trace A");
    REQUIRE(read.ok());
    REQUIRE(read->levels() == summary.levels());
    for (size_t level = 0; level < summary.levels(); ++level) {
        for (uint32_t r = 0; r < summary.rows(); ++r) {
            for (uint32_t b = 0; b < summary.binsAt(level); ++b) {
                CHECK(read->bin(level, r, b).visits == summary.bin(level, r, b).visits);
                CHECK(read->bin(level, r, b).kinds == summary.bin(level, r, b).kinds);
            }
        }
    }
    auto other = TimelineSummary::load(file, "trace B");
    REQUIRE(!other.ok());
    CHECK(other.error().message() == file + ": summarizes another version of the trace");
    std::filesystem::resize_file(file, 60);
    auto damaged = TimelineSummary::load(file, "trace A");
    REQUIRE(!damaged.ok());
    CHECK(damaged.error().message() == file + ": not a timeline summary (damaged)");
    std::filesystem::remove(file);
}

TEST_CASE("a bin's MPI time leaves out computation, measurement and OpenMP/threads calls",
          "[timeline][summary]") {
    Bin bin;
    bin.kinds[static_cast<size_t>(RegionKind::Computation)] = 8.0f;
    bin.kinds[static_cast<size_t>(RegionKind::Measurement)] = 0.5f;
    bin.kinds[static_cast<size_t>(RegionKind::Threads)] = 4.0f;
    bin.kinds[static_cast<size_t>(RegionKind::PointToPoint)] = 2.0f;
    bin.kinds[static_cast<size_t>(RegionKind::Management)] = 0.25f;
    CHECK(bin.mpi() == Approx(2.25));
    CHECK(bin.covered() == Approx(14.75));
    CHECK(bin.dominant() == RegionKind::Computation);
}
