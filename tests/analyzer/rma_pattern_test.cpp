// Diff tests of the one-sided (RMA) patterns: tiny traces with windows, shaped as Score-P 8
// records MPI's one-sided calls, analyzed in process; the expected canonical lines.
#include "generated_trace.h"
#include "pattern_lines.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>

using namespace waitscope;
using namespace waitscope::analysis;
using testing::count;
using testing::line;
using testing::linesOf;
using testing::TinyTrace;
using Op = trace::CollectiveOp;
using trace::EventKind;

namespace {

trace::RmaRecord lockRecord(uint32_t window, uint32_t target, bool exclusive) {
    trace::RmaRecord r;
    r.window = window;
    r.remote = target;
    r.exclusive = exclusive;
    return r;
}

// A lock epoch of `rank` on target 0 as Score-P records it: MPI_Win_lock (RmaRequestLock at its
// enter), a put, MPI_Win_unlock (RmaReleaseLock at its exit).
void lockEpoch(TinyTrace& t, uint32_t rank, uint32_t window, uint64_t lockAt, uint64_t putFrom,
               uint64_t putTo, uint64_t unlockFrom, uint64_t unlockTo) {
    t.rank(rank)
        .enter(lockAt, "MPI_Win_lock")
        .rma(EventKind::RmaRequestLock, lockAt, lockRecord(window, 0, true))
        .leave(lockAt + 1, "MPI_Win_lock")
        .transfer(putFrom, putTo, window, 0, 4)
        .enter(unlockFrom, "MPI_Win_unlock")
        .rma(EventKind::RmaReleaseLock, unlockTo, lockRecord(window, 0, false))
        .leave(unlockTo, "MPI_Win_unlock");
}

} // namespace

TEST_CASE("wait at fence: a fence waits for the last member of the window's communicator, and "
          "early fence for the last put into the rank",
          "[pattern][rma]") {
    TinyTrace t(3);
    const uint32_t w = t.addWindow();
    // Rank r puts 8 bytes into rank r+1 at 10 + 10r, then enters the fence just after.
    for (uint32_t r = 0; r < 3; ++r) {
        t.rank(r).enter(0, "main");
        t.rank(r).windowCollective(2 * r, 6, "MPI_Win_create", Op::CreateHandle, w);
        t.rank(r).transfer(10 + 10 * r, 11 + 10 * r, w, (r + 1) % 3, 8);
        t.rank(r).windowCollective(12 + 10 * r, 40, "MPI_Win_fence", Op::Barrier, w);
        // A second epoch without transfers: every pair-wise synchronization unneeded.
        t.rank(r).windowCollective(50, 60, "MPI_Win_fence", Op::Barrier, w);
        t.rank(r).windowCollective(r == 2 ? 75 : 70, 80, "MPI_Win_free", Op::DestroyHandle, w);
        t.rank(r).leave(100, "main");
    }
    CHECK(linesOf(t, {"mpi_rma_wait_at_fence", "mpi_rma_early_fence", "mpi_rma_wait_at_create",
                      "mpi_rma_wait_at_free"}) ==
          line("mpi_rma_wait_at_create", "main/MPI_Win_create", 0, 4, 0) +
              line("mpi_rma_wait_at_create", "main/MPI_Win_create", 1, 4, 2) +
              line("mpi_rma_wait_at_free", "main/MPI_Win_free", 0, 75, 70) +
              line("mpi_rma_wait_at_free", "main/MPI_Win_free", 1, 75, 70) +
              line("mpi_rma_wait_at_fence", "main/MPI_Win_fence", 0, 32, 12) +
              line("mpi_rma_wait_at_fence", "main/MPI_Win_fence", 1, 32, 22) +
              line("mpi_rma_early_fence", "main/MPI_Win_fence", 0, 31, 12));
    CHECK(linesOf(t, {"mpi_rma_pairsync_count", "mpi_rma_pairsync_unneeded_count"}) ==
          count("mpi_rma_pairsync_count", "main/MPI_Win_fence", 0, 4) +
              count("mpi_rma_pairsync_count", "main/MPI_Win_fence", 1, 4) +
              count("mpi_rma_pairsync_count", "main/MPI_Win_fence", 2, 4) +
              count("mpi_rma_pairsync_unneeded_count", "main/MPI_Win_fence", 0, 2) +
              count("mpi_rma_pairsync_unneeded_count", "main/MPI_Win_fence", 1, 2) +
              count("mpi_rma_pairsync_unneeded_count", "main/MPI_Win_fence", 2, 2));
    CHECK(linesOf(t, {"comms_rma_puts", "bytes_put", "syncs_rma_active"}) ==
          count("syncs_rma_active", "main/MPI_Win_fence", 0, 2) +
              count("syncs_rma_active", "main/MPI_Win_fence", 1, 2) +
              count("syncs_rma_active", "main/MPI_Win_fence", 2, 2) +
              count("comms_rma_puts", "main/MPI_Put", 0, 1) +
              count("comms_rma_puts", "main/MPI_Put", 1, 1) +
              count("comms_rma_puts", "main/MPI_Put", 2, 1) +
              count("bytes_put", "main/MPI_Put", 0, 8) + count("bytes_put", "main/MPI_Put", 1, 8) +
              count("bytes_put", "main/MPI_Put", 2, 8));
}

TEST_CASE("late post: an access epoch waits for the target's post in MPI_Win_complete or in a "
          "blocking MPI_Win_start; early wait and late complete at the target's MPI_Win_wait",
          "[pattern][rma]") {
    TinyTrace t(3);
    const uint32_t w = t.addWindow();
    const uint32_t origins = t.addGroup({1, 2});
    const uint32_t target = t.addGroup({0});
    t.rank(0).enter(0, "main").groupSync(40, 41, "MPI_Win_post", w, origins);
    t.rank(0).groupSync(42, 70, "MPI_Win_wait", w, origins).leave(100, "main");
    // Origin 1 waits in MPI_Win_complete, origin 2 in MPI_Win_start.
    t.rank(1).enter(0, "main").groupSync(0, 1, "MPI_Win_start", w, target);
    t.rank(1).transfer(2, 3, w, 0, 4).groupSync(4, 45, "MPI_Win_complete", w, target);
    t.rank(1).leave(100, "main");
    t.rank(2).enter(0, "main").groupSync(5, 50, "MPI_Win_start", w, target);
    t.rank(2).transfer(55, 56, w, 0, 4).groupSync(60, 65, "MPI_Win_complete", w, target);
    t.rank(2).leave(100, "main");
    CHECK(linesOf(t, {"mpi_rma_sync_late_post", "mpi_rma_comm_late_post", "mpi_rma_early_wait",
                      "mpi_rma_late_complete"}) ==
          line("mpi_rma_sync_late_post", "main/MPI_Win_complete", 1, 41, 4) +
              line("mpi_rma_sync_late_post", "main/MPI_Win_start", 2, 41, 5) +
              line("mpi_rma_early_wait", "main/MPI_Win_wait", 0, 65, 42) +
              line("mpi_rma_late_complete", "main/MPI_Win_wait", 0, 65, 56));
    CHECK(linesOf(t, {"mpi_rma_pairsync_count", "mpi_rma_pairsync_unneeded_count"}) ==
          count("mpi_rma_pairsync_count", "main/MPI_Win_complete", 1, 1) +
              count("mpi_rma_pairsync_count", "main/MPI_Win_complete", 2, 1) +
              count("mpi_rma_pairsync_count", "main/MPI_Win_wait", 0, 2));
    CHECK(linesOf(t, {"syncs_rma_active"}) ==
          count("syncs_rma_active", "main/MPI_Win_complete", 1, 1) +
              count("syncs_rma_active", "main/MPI_Win_complete", 2, 1) +
              count("syncs_rma_active", "main/MPI_Win_post", 0, 1) +
              count("syncs_rma_active", "main/MPI_Win_start", 1, 1) +
              count("syncs_rma_active", "main/MPI_Win_start", 2, 1) +
              count("syncs_rma_active", "main/MPI_Win_wait", 0, 1));
}

TEST_CASE("late post in a transfer: a put that blocks until the target posts is communication",
          "[pattern][rma]") {
    TinyTrace t(2);
    const uint32_t w = t.addWindow();
    t.rank(0).enter(0, "main").groupSync(30, 31, "MPI_Win_post", w, t.addGroup({1}));
    t.rank(0).groupSync(32, 50, "MPI_Win_wait", w, 0).leave(100, "main");
    t.rank(1).enter(0, "main").groupSync(0, 1, "MPI_Win_start", w, t.addGroup({0}));
    t.rank(1).transfer(2, 35, w, 0, 4).groupSync(36, 40, "MPI_Win_complete", w, 1);
    t.rank(1).leave(100, "main");
    CHECK(linesOf(t, {"mpi_rma_sync_late_post", "mpi_rma_comm_late_post"}) ==
          line("mpi_rma_comm_late_post", "main/MPI_Put", 1, 31, 2));
}

TEST_CASE("lock contention: an exclusive lock epoch waits, wherever the library blocks, until "
          "the previous holder released the lock",
          "[pattern][rma]") {
    TinyTrace t(3);
    const uint32_t w = t.addWindow();
    t.rank(0).enter(0, "main").leave(100, "main");
    // Rank 1 holds the lock from 10 to 50; rank 2 asks at 20 and blocks in MPI_Win_unlock.
    t.rank(1).enter(0, "main");
    lockEpoch(t, 1, w, 10, 12, 13, 48, 50);
    t.rank(1).leave(100, "main");
    t.rank(2).enter(0, "main");
    lockEpoch(t, 2, w, 20, 22, 23, 24, 60);
    t.rank(2).leave(100, "main");
    CHECK(linesOf(t, {"mpi_rma_sync_lock_competition", "mpi_rma_comm_lock_competition"}) ==
          line("mpi_rma_sync_lock_competition", "main/MPI_Win_unlock", 2, 50, 24));
    CHECK(linesOf(t, {"syncs_rma_passive", "mpi_rma_sync_passive"}) ==
          line("mpi_rma_sync_passive", "main/MPI_Win_lock", 1, 11, 10) +
              line("mpi_rma_sync_passive", "main/MPI_Win_lock", 2, 21, 20) +
              line("mpi_rma_sync_passive", "main/MPI_Win_unlock", 1, 50, 48) +
              line("mpi_rma_sync_passive", "main/MPI_Win_unlock", 2, 60, 24) +
              count("syncs_rma_passive", "main/MPI_Win_lock", 1, 1) +
              count("syncs_rma_passive", "main/MPI_Win_lock", 2, 1) +
              count("syncs_rma_passive", "main/MPI_Win_unlock", 1, 1) +
              count("syncs_rma_passive", "main/MPI_Win_unlock", 2, 1));

    // The same when the library blocks in the transfer: communication.
    TinyTrace inPut(3);
    const uint32_t w2 = inPut.addWindow();
    inPut.rank(0).enter(0, "main").leave(100, "main");
    inPut.rank(1).enter(0, "main");
    lockEpoch(inPut, 1, w2, 10, 12, 13, 48, 50);
    inPut.rank(1).leave(100, "main");
    inPut.rank(2).enter(0, "main");
    lockEpoch(inPut, 2, w2, 20, 22, 55, 56, 57);
    inPut.rank(2).leave(100, "main");
    CHECK(linesOf(inPut, {"mpi_rma_sync_lock_competition", "mpi_rma_comm_lock_competition"}) ==
          line("mpi_rma_comm_lock_competition", "main/MPI_Put", 2, 50, 22));
}

TEST_CASE("shared locks do not contend with each other", "[pattern][rma]") {
    TinyTrace t(3);
    const uint32_t w = t.addWindow();
    t.rank(0).enter(0, "main").leave(100, "main");
    for (uint32_t r = 1; r < 3; ++r) {
        t.rank(r)
            .enter(0, "main")
            .enter(10 * r, "MPI_Win_lock")
            .rma(EventKind::RmaRequestLock, 10 * r, lockRecord(w, 0, false))
            .leave(10 * r + 1, "MPI_Win_lock")
            .enter(10 * r + 2, "MPI_Win_unlock")
            .rma(EventKind::RmaReleaseLock, 60, lockRecord(w, 0, false))
            .leave(60, "MPI_Win_unlock")
            .leave(100, "main");
    }
    CHECK(linesOf(t, {"mpi_rma_sync_lock_competition", "mpi_rma_comm_lock_competition"}).empty());
}

namespace {

// The value of `metric` on `rank` summed over all call paths.
double total(const AnalysisResult& result, Metric metric, uint32_t rank) {
    double sum = 0.0;
    for (NodeId n = 0; n < result.tree().size(); ++n) {
        sum += result.value(metric, n, rank);
    }
    return sum;
}

} // namespace

TEST_CASE("the generated trace's one-sided epochs, read from its archive, carry the waits they "
          "were written with",
          "[pattern][rma]") {
    const std::string dir =
        (std::filesystem::temp_directory_path() / "waitscope_rma_generated").string();
    testing::GeneratedTraceOptions options;
    options.ranks = 4;
    options.eventsPerRank = 50; // 10 iterations
    options.rma = true;
    REQUIRE(testing::writeGeneratedTrace(dir, options).ok());
    auto result = analyzeArchiveInProcess(dir);
    REQUIRE(result.ok());
    const double ns = 1e-9;
    const double iterations = 10;
    const auto near = [](double ours, double expected) {
        return std::abs(ours - expected) <= 1e-12 + 1e-9 * std::abs(expected);
    };
    for (uint32_t rank = 0; rank < 4; ++rank) {
        INFO("rank " << rank);
        // Fence arrivals 5 ticks apart; rank 0 gets rank 3's put 14 ticks into its fence.
        CHECK(near(total(*result, Metric::MpiRmaWaitAtFence, rank),
                   iterations * (15.0 - 5.0 * rank) * ns));
        CHECK(near(total(*result, Metric::MpiRmaEarlyFence, rank),
                   rank == 0 ? iterations * 14 * ns : 0.0));
        // Creation arrivals 5 ticks apart; rank 0 frees 2 ticks after the others.
        CHECK(near(total(*result, Metric::MpiRmaWaitAtCreate, rank), (15.0 - 5.0 * rank) * ns));
        CHECK(near(total(*result, Metric::MpiRmaWaitAtFree, rank), rank == 0 ? 0.0 : 2 * ns));
        // The origins wait in MPI_Win_start from 560 for the post at 601; rank 0 waits in
        // MPI_Win_wait from 602 for the last complete at 646, 34 ticks after the last put.
        CHECK(near(total(*result, Metric::MpiRmaSyncLatePost, rank),
                   rank == 0 ? 0.0 : iterations * 41 * ns));
        CHECK(near(total(*result, Metric::MpiRmaEarlyWait, rank),
                   rank == 0 ? iterations * 44 * ns : 0.0));
        CHECK(near(total(*result, Metric::MpiRmaLateComplete, rank),
                   rank == 0 ? iterations * 34 * ns : 0.0));
        // Rank 2 waits in MPI_Win_unlock from 764 until rank 1 releases at 850.
        CHECK(near(total(*result, Metric::MpiRmaSyncLockCompetition, rank),
                   rank == 2 ? iterations * 86 * ns : 0.0));
        // Puts: the fence epoch's, the PSCW epoch's (origins) and the lock epoch's (ranks 1, 2).
        const double puts = 1 + (rank > 0 ? 1 : 0) + (rank == 1 || rank == 2 ? 1 : 0);
        CHECK(total(*result, Metric::CommsRmaPuts, rank) == iterations * puts);
        CHECK(total(*result, Metric::BytesPut, rank) == iterations * puts * 64);
        // Each fence pairs with the 3 others, 1 of them neither accessed nor accessing.
        CHECK(total(*result, Metric::MpiRmaPairsyncCount, rank) ==
              iterations * (3 + (rank == 0 ? 3 : 1)));
        CHECK(total(*result, Metric::MpiRmaPairsyncUnneededCount, rank) == iterations * 1);
    }
}
