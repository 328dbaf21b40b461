// Scalasca's long-term OpenMP barrier delay costs on a written archive: the master thread of
// rank 0 waits in MPI_Recv inside a parallel region for rank 1, which computes first; the
// worker waits at the region's barrier meanwhile. That barrier wait is a cost of the master's
// Late Sender, which the root-cause pass carries to rank 1's computation.
#include "archive_builder.h"
#include "waitscope/analysis/serial_analysis.h"

#include <catch2/catch.hpp>
#include <filesystem>

using namespace waitscope;
using namespace waitscope::analysis;
using Approx = Catch::Detail::Approx;

namespace {

enum Region : uint32_t { kMain, kCompute, kSend, kRecv, kParallel, kBarrier };
const uint64_t kWorker = testing::threadLocationId(0, 1); ///< rank 0's OpenMP worker thread

/// Ticks are milliseconds. Rank 0's master: main 0-50, a parallel region 10-42 whose master
/// receives from rank 1 in MPI_Recv 10-35 (the send begins at 35: a Late Sender of 25 ms)
/// and reaches the barrier at 35; its worker reaches the barrier at 11 and waits 24 ms.
/// Rank 1: computes 0-35, then sends.
Status writeTrace(const std::string& dir) {
    using trace::Otf2EventWriter;
    using trace::Paradigm;
    using trace::RegionRole;
    testing::ArchiveBuilder archive(2, 1000, 51);
    archive.region("main", RegionRole::Function, Paradigm::Compiler, "x.c", 1, 50);
    archive.region("compute", RegionRole::Function, Paradigm::Compiler, "x.c", 10, 20);
    archive.region("MPI_Send", RegionRole::PointToPoint, Paradigm::Mpi);
    archive.region("MPI_Recv", RegionRole::PointToPoint, Paradigm::Mpi);
    archive.region("!$omp parallel @x.c:30", RegionRole::Parallel, Paradigm::OpenMp, "x.c", 30, 40);
    archive.region("!$omp implicit barrier @x.c:40", RegionRole::ImplicitBarrier, Paradigm::OpenMp,
                   "x.c", 40, 40);
    archive.thread(0, 1, "OMP thread 1");
    archive.open(dir);
    archive.events(0, [](Otf2EventWriter& w) {
        w.enter(0, kMain);
        w.enter(10, kParallel);
        testing::receiveCall(w, kRecv, 10, 35, 1, 7);
        w.enter(35, kBarrier);
        w.leave(41, kBarrier);
        w.leave(42, kParallel);
        w.leave(50, kMain);
    });
    archive.events(1, [](Otf2EventWriter& w) {
        w.enter(0, kMain);
        w.enter(0, kCompute);
        w.leave(35, kCompute);
        testing::sendCall(w, kSend, 35, 36, 0, 7);
        w.leave(50, kMain);
    });
    archive.events(kWorker, [](Otf2EventWriter& w) {
        w.enter(10, kParallel);
        w.enter(11, kBarrier);
        w.leave(41, kBarrier);
        w.leave(42, kParallel);
    });
    return archive.finish();
}

} // namespace

TEST_CASE("an OpenMP barrier wait the master's Late Sender explains is a long-term delay cost of "
          "the late rank's computation",
          "[openmp]") {
    const std::string dir =
        (std::filesystem::temp_directory_path() / "waitscope_openmp_longterm").string();
    const Status written = writeTrace(dir);
    INFO((written ? std::string() : written.error().message()));
    REQUIRE(written.ok());
    auto analyzed = analyzeArchiveInProcess(dir + "/traces.otf2");
    std::filesystem::remove_all(dir);
    REQUIRE(analyzed.ok());
    const AnalysisResult& result = *analyzed;
    const CallTree& tree = result.tree();
    const NodeId main = tree.find(kNoNode, kMain);
    REQUIRE(main != kNoNode);
    const NodeId compute = tree.find(main, kCompute);
    const NodeId parallel = tree.find(main, kParallel);
    REQUIRE(compute != kNoNode);
    REQUIRE(parallel != kNoNode);
    const NodeId recv = tree.find(parallel, kRecv);
    const NodeId barrier = tree.find(parallel, kBarrier);
    REQUIRE(recv != kNoNode);
    REQUIRE(barrier != kNoNode);
    REQUIRE(result.threads().size() == 1);
    const SeverityRows& worker = result.threads()[0].severities;

    // The waits: 25 ms in MPI_Recv on rank 0's master, 24 ms at the barrier on its worker.
    CHECK(result.value(Metric::MpiLateSender, recv, 0) == Approx(0.025));
    CHECK(worker.get(Metric::OmpIbarrierWait, barrier) == Approx(0.024));
    // The master's interval before the barrier is all MPI waiting: no short-term cost there;
    // the worker's wait is all cost of the Late Sender (24/25 of its 25 ms).
    CHECK(result.value(Metric::DelayOmpbarrier, recv, 0) == Approx(0.0).margin(1e-12));
    // On rank 1, whose 35 ms of compute made the master wait: the Late Sender short-term, and
    // the worker's barrier wait long-term (the whole 24 ms: compute is all of the excess).
    CHECK(result.value(Metric::DelayLateSender, compute, 1) == Approx(0.025));
    CHECK(result.value(Metric::DelayOmpbarrierLongterm, compute, 1) == Approx(0.024));
    CHECK(result.value(Metric::DelayOmpbarrierLongterm, compute, 0) == 0.0);
    // The aggregates hold both kinds: on rank 1 the long-term costs alone.
    CHECK(result.value(Metric::DelayOmpbarrierAggregate, compute, 1) == Approx(0.024));
    CHECK(result.value(Metric::DelayOmp, compute, 1) == Approx(0.024));
    CHECK(worker.get(Metric::DelayOmpbarrierLongterm, barrier) == 0.0);
}
