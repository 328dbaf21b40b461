// Writes the threaded trace and checks the reports waitscope-replay makes of it.
// Driven by threads_end_to_end.cmake.
//
// usage: waitscope_threads_check write DIR [plain]
//        waitscope_threads_check check THREADED.cubex PLAIN.cubex
//        waitscope_threads_check check-missing THREADED.cubex   (rank 1's thread unreadable)
// Prints each failed expectation and exits 1 when any failed.
#include "threaded_trace.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <waitscope/report/cubex_reader.h>

namespace {

using waitscope::report::CallTreeMode;
using waitscope::report::LocationId;
using waitscope::report::Report;
using waitscope::report::SystemKind;
using waitscope::report::SystemNodeId;

int g_failures = 0;

void expect(bool ok, const std::string& what) {
    if (!ok) {
        std::fprintf(stderr, "FAILED: %s\n", what.c_str());
        ++g_failures;
    }
}

std::string text(double value) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.17g", value);
    return buffer;
}

// The locations of rank `rank`'s process in order (main thread first).
std::vector<SystemNodeId> locationsOf(const Report& report, int64_t rank) {
    const auto process = report.findProcess(rank);
    return process ? report.systemNodes()[*process].children : std::vector<SystemNodeId>{};
}

// Exclusive value of `metric` on `path` at system node `location` (0 when the path is absent).
double valueAt(const Report& report, const std::string& metric, const std::string& path,
               SystemNodeId location) {
    const auto id = report.findMetric(metric);
    const auto cnode = report.findCallPath(path);
    if (!id || !cnode) {
        return 0.0;
    }
    const auto values = report.locationValues(*id, *cnode, CallTreeMode::Exclusive);
    if (!values) {
        expect(false, values.error().message());
        return 0.0;
    }
    return (*values)[report.systemNodes()[location].location];
}

// Expects `ticks` of the threaded trace's clock for `metric` on `path` at `location`.
void expectTicks(const Report& report, const std::string& metric, const std::string& path,
                 SystemNodeId location, double ticks) {
    const double expected =
        ticks / static_cast<double>(waitscope::testing::kThreadedTicksPerSecond);
    const double actual = valueAt(report, metric, path, location);
    expect(actual == expected, metric + " of " + path + " at " +
                                   report.systemNodes()[location].name + ": " + text(actual) +
                                   " instead of " + text(expected));
}

void expectVisits(const Report& report, const std::string& path, SystemNodeId location,
                  double visits) {
    const double actual = valueAt(report, "visits", path, location);
    expect(actual == visits, "visits of " + path + " at " + report.systemNodes()[location].name +
                                 ": " + text(actual) + " instead of " + text(visits));
}

// Thread `k`'s location below rank `rank` has the given name and thread number.
void expectThread(const Report& report, int64_t rank, size_t k, const std::string& name) {
    const auto locations = locationsOf(report, rank);
    if (k >= locations.size()) {
        expect(false, "rank " + std::to_string(rank) + " has no location " + std::to_string(k));
        return;
    }
    const auto& node = report.systemNodes()[locations[k]];
    expect(node.kind == SystemKind::Location && node.type == "thread" && node.name == name &&
               node.rank == static_cast<int64_t>(k),
           "rank " + std::to_string(rank) + " location " + std::to_string(k) + " is '" + node.name +
               "' (" + node.type + ", " + std::to_string(node.rank) + ")");
}

// The sampled threads of rank 0 (both readable) as the trace's header comment works them out.
void checkRankZeroThreads(const Report& report) {
    expect(locationsOf(report, 0).size() == 3, "rank 0 has 3 locations");
    expectThread(report, 0, 0, "Master thread");
    expectThread(report, 0, 1, "thread 1");
    expectThread(report, 0, 2, "thread 2");
    const auto rank0 = locationsOf(report, 0);
    if (rank0.size() != 3) {
        return;
    }
    for (const char* metric : {"time", "execution", "comp"}) {
        expectTicks(report, metric, "main/worker_fn", rank0[1], 0);
        expectTicks(report, metric, "main/worker_fn/compute", rank0[1], 20);
        expectTicks(report, metric, "main/worker_fn/compute/reduce_part", rank0[1], 16);
        expectTicks(report, metric, "main/worker_fn/reduce_part", rank0[2], 20);
        expectTicks(report, metric, "main/worker_fn/compute", rank0[2], 0);
        // The main thread has none of the threads' time.
        expectTicks(report, metric, "main/worker_fn/compute", rank0[0], 0);
    }
    expectVisits(report, "main/worker_fn", rank0[1], 1);
    expectVisits(report, "main/worker_fn/compute", rank0[1], 1);
    expectVisits(report, "main/worker_fn/compute/reduce_part", rank0[1], 1);
    expectVisits(report, "main/worker_fn", rank0[2], 1);
    expectVisits(report, "main/worker_fn/reduce_part", rank0[2], 1);
}

int check(const std::string& threadedFile, const std::string& plainFile) {
    auto threaded = waitscope::report::readCubex(threadedFile);
    auto plain = waitscope::report::readCubex(plainFile);
    if (!threaded || !plain) {
        std::fprintf(stderr, "FAILED: %s\n",
                     (threaded ? plain.error() : threaded.error()).message().c_str());
        return 1;
    }
    const Report& t = *threaded;
    checkRankZeroThreads(t);
    expect(locationsOf(t, 1).size() == 2, "rank 1 has 2 locations");
    expectThread(t, 1, 0, "Master thread");
    expectThread(t, 1, 1, "thread 1");
    const auto rank1 = locationsOf(t, 1);
    if (rank1.size() == 2) {
        for (const char* metric : {"time", "execution", "comp"}) {
            expectTicks(t, metric, "main/worker_fn", rank1[1], 2);
            expectTicks(t, metric, "main/worker_fn/compute", rank1[1], 36);
            expectTicks(t, metric, "main/worker_fn/compute/reduce_part", rank1[1], 20);
        }
        expectVisits(t, "main/worker_fn/compute", rank1[1], 2);
    }
    // The main locations' values (time, visits, wait states, ...) are those of the same trace
    // without threads, and the threads have no MPI time and no wait states.
    const std::map<std::string, bool> threadMetrics = {
        {"time", true}, {"execution", true}, {"comp", true}, {"visits", true}};
    for (const auto& metric : plain->metrics()) {
        for (size_t c = 0; c < plain->callNodes().size(); ++c) {
            const std::string path = plain->callPath(static_cast<uint32_t>(c));
            for (int64_t rank = 0; rank < 2; ++rank) {
                const double before =
                    valueAt(*plain, metric.uniqueName, path, locationsOf(*plain, rank).at(0));
                const double after =
                    valueAt(t, metric.uniqueName, path, locationsOf(t, rank).at(0));
                expect(before == after, metric.uniqueName + " of " + path + " on rank " +
                                            std::to_string(rank) + ": " + text(after) +
                                            " with threads, " + text(before) + " without");
            }
        }
    }
    for (const auto& metric : t.metrics()) {
        if (threadMetrics.count(metric.uniqueName) != 0) {
            continue;
        }
        for (size_t c = 0; c < t.callNodes().size(); ++c) {
            const std::string path = t.callPath(static_cast<uint32_t>(c));
            for (int64_t rank = 0; rank < 2; ++rank) {
                const auto locations = locationsOf(t, rank);
                for (size_t k = 1; k < locations.size(); ++k) {
                    const double v = valueAt(t, metric.uniqueName, path, locations[k]);
                    expect(v == 0.0, metric.uniqueName + " of " + path + " on rank " +
                                         std::to_string(rank) + " thread " + std::to_string(k) +
                                         ": " + text(v));
                }
            }
        }
    }
    // The wait states of the main locations are there at all (5 and 20 ticks).
    expectTicks(t, "mpi_latesender", "main/MPI_Recv", locationsOf(t, 1).at(0), 5);
    expectTicks(t, "mpi_barrier_wait", "main/MPI_Barrier", locationsOf(t, 0).at(0), 20);
    return g_failures == 0 ? 0 : 1;
}

int checkMissing(const std::string& file) {
    auto report = waitscope::report::readCubex(file);
    if (!report) {
        std::fprintf(stderr, "FAILED: %s\n", report.error().message().c_str());
        return 1;
    }
    checkRankZeroThreads(*report);
    expect(locationsOf(*report, 1).size() == 1, "rank 1 has only its main location");
    expect(report->attribute("waitscope::diagnostic::unreadable_thread_locations") == "1",
           "the unreadable thread is counted");
    return g_failures == 0 ? 0 : 1;
}

} // namespace

int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "write" && (argc == 3 || argc == 4)) {
        const bool plain = argc == 4 && std::string(argv[3]) == "plain";
        if (!waitscope::testing::writeThreadedTrace(argv[2], !plain)) {
            std::fprintf(stderr, "error: %s: cannot write the trace\n", argv[2]);
            return 1;
        }
        return 0;
    }
    if (mode == "check" && argc == 4) {
        return check(argv[2], argv[3]);
    }
    if (mode == "check-missing" && argc == 3) {
        return checkMissing(argv[2]);
    }
    std::fprintf(stderr,
                 "usage: %s write DIR [plain] | check THREADED PLAIN | check-missing "
                 "THREADED\n",
                 argv[0]);
    return 2;
}
