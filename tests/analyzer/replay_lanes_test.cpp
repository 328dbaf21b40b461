// Delay costs with MPI from several threads of a rank (replay lanes): each thread is a timeline
// of its own in the root-cause pass, its costs on its own location, on a generated archive whose
// values are worked out by hand (times in milliseconds).
#include "lanes_trace.h"
#include "waitscope/analysis/serial_analysis.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

using namespace waitscope;
using namespace waitscope::analysis;
using Approx = Catch::Detail::Approx;

namespace {

using testing::lanesDefinitions;
using testing::lanesThreadId;
using testing::writeLanesTrace;

// `metric` on call path `path` of rank `rank`'s location `k` (0: the main one); -1 when the
// path or the location does not exist.
double valueOf(const AnalysisResult& result, const trace::Definitions& defs, Metric metric,
               const std::string& path, uint32_t rank, uint32_t k) {
    for (NodeId n = 0; n < result.tree().size(); ++n) {
        if (result.tree().path(n, defs) != path) {
            continue;
        }
        if (k == 0) {
            return result.value(metric, n, rank);
        }
        for (const ThreadValues& thread : result.threads()) {
            if (thread.rank == rank && thread.location == lanesThreadId(rank, k)) {
                return thread.severities.get(metric, n);
            }
        }
    }
    return -1.0;
}

// The sum of `metric` over every call path and location of rank `rank`.
double rankTotal(const AnalysisResult& result, Metric metric, uint32_t rank) {
    double sum = 0.0;
    for (NodeId n = 0; n < result.tree().size(); ++n) {
        sum += result.value(metric, n, rank);
        for (const ThreadValues& thread : result.threads()) {
            if (thread.rank == rank) {
                sum += thread.severities.get(metric, n);
            }
        }
    }
    return sum;
}

} // namespace

TEST_CASE("each thread that calls MPI is a timeline of its own in the delay costs", "[lanes]") {
    const std::string dir =
        (std::filesystem::temp_directory_path() / "waitscope_replay_lanes_test").string();
    REQUIRE(writeLanesTrace(dir));
    const trace::Definitions defs = lanesDefinitions();
    auto analyzed = analyzeArchiveInProcess(dir + "/traces.otf2");
    REQUIRE(analyzed.ok());
    const AnalysisResult& result = *analyzed;
    const auto at = [&](Metric metric, const std::string& path, uint32_t rank, uint32_t k) {
        return valueOf(result, defs, metric, path, rank, k);
    };
    // The wait states, each on its own thread.
    CHECK(at(Metric::MpiLateSender, "main/worker/MPI_Recv", 1, 1) == Approx(0.005));
    CHECK(at(Metric::MpiLateSender, "main/worker/MPI_Recv", 1, 2) == Approx(0.030));
    CHECK(at(Metric::MpiBarrierWait, "main/MPI_Barrier", 1, 0) == Approx(0.010));
    // Their delays: on the sending thread's own excess work, nowhere else.
    CHECK(at(Metric::DelayLateSender, "main/worker/work", 0, 1) == Approx(0.005));
    CHECK(at(Metric::DelayLateSender, "main/worker/late_work", 0, 2) == Approx(0.030));
    CHECK(at(Metric::DelayBarrier, "main", 0, 0) == Approx(0.010));
    CHECK(rankTotal(result, Metric::DelayLateSender, 0) == Approx(0.035));
    CHECK(rankTotal(result, Metric::DelayBarrier, 0) == Approx(0.010));
    CHECK(rankTotal(result, Metric::DelayLateSender, 1) == 0.0);
    CHECK(rankTotal(result, Metric::DelayBarrier, 1) == 0.0);
    // Nothing waited before the receivers' waits: direct and terminal, on the thread.
    CHECK(at(Metric::MpiWaitDirectLateSender, "main/worker/MPI_Recv", 1, 1) == Approx(0.005));
    CHECK(at(Metric::MpiWaitTerminalLs, "main/worker/MPI_Recv", 1, 2) == Approx(0.030));
    CHECK(rankTotal(result, Metric::MpiWaitIndirectLateSender, 1) == 0.0);
    CHECK(rankTotal(result, Metric::MpiWaitPropagatingLs, 1) == 0.0);
    // Thread 1's Late Receiver: the receiving thread's delay, on its work.
    CHECK(at(Metric::MpiLateReceiver, "main/worker/MPI_Ssend", 0, 1) == Approx(0.013));
    CHECK(at(Metric::MpiWaitDirectLateReceiver, "main/worker/MPI_Ssend", 0, 1) == Approx(0.013));
    CHECK(rankTotal(result, Metric::DelayLateReceiver, 1) == Approx(0.013));
    CHECK(rankTotal(result, Metric::DelayLateReceiver, 0) == 0.0);
    CHECK(at(Metric::DelayLateReceiver, "main/worker/work", 1, 1) == Approx(0.013));
    CHECK(at(Metric::DelayLateReceiver, "main/worker/work", 1, 2) == 0.0);
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
}
