// Root causes on tiny traces: computational imbalance and the critical path, with values
// worked out by hand from the timelines drawn in each test (times in milliseconds).
#include "tiny_trace.h"
#include "waitscope/analysis/serial_analysis.h"

#include <catch2/catch.hpp>

using namespace waitscope;
using namespace waitscope::analysis;
using testing::TinyTrace;
using Op = trace::CollectiveOp;

namespace {

// The in-process analysis of a tiny trace. `a(metric, path, rank)` is the value of `metric` on
// the call path `path` (e.g. "main/work") for `rank`; -1 when the path does not exist.
struct Analyzed {
    const trace::Definitions& defs;
    Result<AnalysisResult> result;

    double operator()(Metric metric, const std::string& path, uint32_t rank) const {
        for (NodeId n = 0; n < result->tree().size(); ++n) {
            if (result->tree().path(n, defs) == path) {
                return result->value(metric, n, rank);
            }
        }
        return -1.0;
    }
    double total(Metric metric) const { return result->total(metric); }
};

Analyzed analyze(TinyTrace& t) {
    Analyzed a{t.defs, analyzeInProcess(t.defs, t.streams())};
    REQUIRE(a.result.ok());
    return a;
}

// Rank 0 of the critical-path Late Sender cases: works 5..60, then sends to rank 1 (60..61).
void workThenSend(TinyTrace& t) {
    t.rank(0)
        .enter(0, "main")
        .enter(5, "work")
        .leave(60, "work")
        .send(60, 61, 1, 7)
        .leave(70, "main");
}

// One rank of the collective critical-path cases: main 0..60 around MPI_Init init..worked,
// work worked..collective, the collective collective..45 and MPI_Finalize finalize..finalized.
struct CollectiveRank {
    uint64_t init, worked, collective, finalize, finalized;
};

// Every rank of `ranks` as CollectiveRank says, the collective `name` sending and receiving
// `bytes`.
void workThenCollective(TinyTrace& t, const std::vector<CollectiveRank>& ranks,
                        const std::string& name, Op op, uint64_t bytes = 8) {
    for (uint32_t r = 0; r < ranks.size(); ++r) {
        const CollectiveRank& k = ranks[r];
        t.rank(r)
            .enter(0, "main")
            .collective(k.init, k.worked, "MPI_Init", Op::CreateHandle)
            .enter(k.worked, "work")
            .leave(k.collective, "work")
            .collective(k.collective, 45, name, op, 0, trace::kUndefined, bytes, bytes)
            .collective(k.finalize, k.finalized, "MPI_Finalize", Op::DestroyHandle)
            .leave(60, "main");
    }
}

} // namespace

TEST_CASE("imbalance: work only rank 0 does is Single participant there and Singularity "
          "on the others",
          "[root-cause][imbalance]") {
    // rank 0: main |write_output 10..40| Allreduce 40..41 | main
    // rank 1/2: main | Allreduce 10..41 (waiting for rank 0)            | main
    TinyTrace t(3);
    t.rank(0)
        .enter(0, "main")
        .enter(10, "write_output")
        .leave(40, "write_output")
        .collective(40, 41, "MPI_Allreduce", Op::Allreduce)
        .leave(50, "main");
    for (uint32_t r = 1; r < 3; ++r) {
        t.rank(r)
            .enter(0, "main")
            .collective(10, 41, "MPI_Allreduce", Op::Allreduce)
            .leave(50, "main");
    }
    const Analyzed a = analyze(t);
    // Mean over all 3 ranks: 10 ms; rank 0 is 20 ms above it, ranks 1 and 2 10 ms below.
    CHECK(a(Metric::ImbalanceAbove, "main/write_output", 0) == Approx(0.020));
    CHECK(a(Metric::ImbalanceAboveSingle, "main/write_output", 0) == Approx(0.020));
    CHECK(a(Metric::Imbalance, "main/write_output", 0) == Approx(0.020));
    for (uint32_t r = 1; r < 3; ++r) {
        CHECK(a(Metric::ImbalanceBelow, "main/write_output", r) == Approx(0.010));
        CHECK(a(Metric::ImbalanceBelowBypass, "main/write_output", r) == Approx(0.010));
        CHECK(a(Metric::ImbalanceBelowSingularity, "main/write_output", r) == Approx(0.010));
        CHECK(a(Metric::ImbalanceAbove, "main/write_output", r) == 0.0);
    }
    // Equal computation in main on all ranks: no imbalance; MPI time is not computation.
    for (uint32_t r = 0; r < 3; ++r) {
        CHECK(a(Metric::Imbalance, "main", r) == Approx(0.0).margin(1e-12));
        CHECK(a(Metric::Imbalance, "main/MPI_Allreduce", r) == 0.0);
    }
    CHECK(a.total(Metric::Imbalance) == Approx(0.040));
}

TEST_CASE("imbalance: uneven work all ranks do is overload and underload, not participation",
          "[root-cause][imbalance]") {
    TinyTrace t(2);
    t.rank(0).enter(0, "main").enter(0, "work").leave(30, "work").leave(40, "main");
    t.rank(1).enter(0, "main").enter(0, "work").leave(10, "work").leave(40, "main");
    const Analyzed a = analyze(t);
    CHECK(a(Metric::ImbalanceAbove, "main/work", 0) == Approx(0.010));
    CHECK(a(Metric::ImbalanceBelow, "main/work", 1) == Approx(0.010));
    CHECK(a(Metric::ImbalanceAboveSingle, "main/work", 0) == 0.0);
    CHECK(a(Metric::ImbalanceBelowBypass, "main/work", 1) == 0.0);
}

TEST_CASE("critical path: a Late Sender moves the path to the sender at its send",
          "[root-cause][critical-path]") {
    // rank 0: main | work 5..60              | Send 60..61 |         main .. 70
    // rank 1: main | Recv 10..62 (waits until 60) | post 62..90 | main .. 100
    // Backwards from rank 1's end (100): main 90..100, post, the Recv from the send's enter
    // (60..62), then rank 0 from 60: work 5..60, main 0..5. Rank 0's send and rank 1's
    // waiting are not on the path; the path is as long as the run.
    TinyTrace t(2);
    workThenSend(t);
    t.rank(1)
        .enter(0, "main")
        .recv(10, 61, 62, 0, 7)
        .enter(62, "post")
        .leave(90, "post")
        .leave(100, "main");
    const Analyzed a = analyze(t);
    CHECK(a(Metric::CriticalPath, "main", 1) == Approx(0.010));
    CHECK(a(Metric::CriticalPath, "main/post", 1) == Approx(0.028));
    CHECK(a(Metric::CriticalPath, "main/MPI_Recv", 1) == Approx(0.002));
    CHECK(a(Metric::CriticalPath, "main/MPI_Send", 0) == 0.0);
    CHECK(a(Metric::CriticalPath, "main/work", 0) == Approx(0.055));
    CHECK(a(Metric::CriticalPath, "main", 0) == Approx(0.005));
    CHECK(a.total(Metric::CriticalPath) == Approx(0.100));
}

TEST_CASE("critical path: an MPI call without a message after a wait counts only its own time",
          "[root-cause][critical-path]") {
    // As above, but rank 1 calls MPI_Recv again without a message (MPI_PROC_NULL) 62..64:
    // the same call path as the waiting receive, once inside the communicating call and once
    // in the time after it, before the next operation. Only the 2 ms of the second call and
    // the receive from the send's enter (60..62) are on the path, not the receive's waiting.
    // rank 0: main | work 5..60              | Send 60..61 |                      main .. 70
    // rank 1: main | Recv 10..62 (waits until 60) | Recv 62..64 | post 64..90 | main .. 100
    TinyTrace t(2);
    workThenSend(t);
    t.rank(1)
        .enter(0, "main")
        .recv(10, 61, 62, 0, 7)
        .enter(62, "MPI_Recv")
        .leave(64, "MPI_Recv")
        .enter(64, "post")
        .leave(90, "post")
        .leave(100, "main");
    const Analyzed a = analyze(t);
    CHECK(a(Metric::CriticalPath, "main", 1) == Approx(0.010));
    CHECK(a(Metric::CriticalPath, "main/post", 1) == Approx(0.026));
    CHECK(a(Metric::CriticalPath, "main/MPI_Recv", 1) == Approx(0.004));
    CHECK(a(Metric::CriticalPath, "main/work", 0) == Approx(0.055));
    CHECK(a(Metric::CriticalPath, "main", 0) == Approx(0.005));
    CHECK(a.total(Metric::CriticalPath) == Approx(0.100));
}

TEST_CASE("critical path: at an n-to-n call it moves to the last member to enter, and runs "
          "from MPI_Init to the last MPI_Finalize",
          "[root-cause][critical-path]") {
    // rank 0: main | Init 1..10 | work 10..20 | Allreduce 20..45 | main | Finalize 53..55
    // rank 1: main | Init 2..10 | work 10..40 | Allreduce 40..45 | main | Finalize 52..56
    // rank 2: main | Init 3..11 | work 11..30 | Allreduce 30..45 | main | Finalize 51..55
    // The path ends where rank 0 enters MPI_Finalize last (53): main 45..53 and the Allreduce
    // after the last member entered (40..45) on rank 0, then rank 1 (entered last) from 40:
    // work 10..40 and MPI_Init 2..10. Before MPI_Init nothing is on the path.
    TinyTrace t(3);
    workThenCollective(t, {{1, 10, 20, 53, 55}, {2, 10, 40, 52, 56}, {3, 11, 30, 51, 55}},
                       "MPI_Allreduce", Op::Allreduce);
    const Analyzed a = analyze(t);
    CHECK(a(Metric::CriticalPath, "main", 0) == Approx(0.008));
    CHECK(a(Metric::CriticalPath, "main/MPI_Allreduce", 0) == Approx(0.005));
    CHECK(a(Metric::CriticalPath, "main/work", 1) == Approx(0.030));
    CHECK(a(Metric::CriticalPath, "main/MPI_Init", 1) == Approx(0.008));
    CHECK(a(Metric::CriticalPath, "main", 1) == 0.0);
    CHECK(a(Metric::CriticalPath, "main/MPI_Finalize", 0) == 0.0);
    CHECK(a.total(Metric::CriticalPath) == Approx(0.051));
    // work lasts 30 ms on the path but 19.67 ms on average: the excess is rank 1's.
    CHECK(a(Metric::CriticalPathImbalance, "main/work", 1) == Approx(0.030 - 0.059 / 3));
    CHECK(a(Metric::CriticalPathImbalance, "main/MPI_Init", 1) == 0.0);
}

TEST_CASE("critical path: a scan keeps it on its rank (Scalasca: no synchronization of the path)",
          "[root-cause][critical-path]") {
    // rank 0: main | Init 1..10 | work 10..20 | Scan 20..45 | main | Finalize 53..55
    // rank 1: main | Init 2..10 | work 10..40 | Scan 40..45 | main | Finalize 52..56
    // The path ends on rank 0 (enters MPI_Finalize last) and stays there through the scan,
    // as Scalasca 2.6 follows it: the whole MPI_Scan and rank 0's work are on it, none of rank
    // 1's work (an MPI_Allreduce of the same shape would hand the path to rank 1 at 40).
    TinyTrace t(2);
    workThenCollective(t, {{1, 10, 20, 53, 55}, {2, 10, 40, 52, 56}}, "MPI_Scan", Op::Scan, 8);
    const Analyzed a = analyze(t);
    CHECK(a(Metric::CriticalPath, "main", 0) == Approx(0.008));
    CHECK(a(Metric::CriticalPath, "main/MPI_Scan", 0) == Approx(0.025));
    CHECK(a(Metric::CriticalPath, "main/work", 0) == Approx(0.010));
    CHECK(a(Metric::CriticalPath, "main/work", 1) == 0.0);
    CHECK(a(Metric::CriticalPath, "main/MPI_Scan", 1) == 0.0);
}

TEST_CASE("performance impact: waiting in a scan is activity, as in Scalasca (no synchronization "
          "point)",
          "[root-cause][critical-path]") {
    // rank 0: main | Init 1..10 | work 10..40 | Scan 40..45 | main | Finalize 53..55
    // rank 1: main | Init 2..10 | work 10..20 | Scan 20..45 | main | Finalize 52..56
    // Rank 1 waits 20 ms in the scan for rank 0 (Early Scan), but Scalasca 2.6 keeps that time
    // in the rank's activities: the path has 5 ms of MPI_Scan (on rank 0), so 20 ms of rank 1's
    // 25 ms there are off the path.
    TinyTrace t(2);
    workThenCollective(t, {{1, 10, 40, 53, 55}, {2, 10, 20, 52, 56}}, "MPI_Scan", Op::Scan, 8);
    const Analyzed a = analyze(t);
    CHECK(a(Metric::MpiEarlyScan, "main/MPI_Scan", 1) == Approx(0.020));
    CHECK(a(Metric::CriticalPath, "main/MPI_Scan", 0) == Approx(0.005));
    CHECK(a(Metric::CriticalPathActivities, "main/MPI_Scan", 1) == Approx(0.005));
    CHECK(a(Metric::NonCriticalPathActivities, "main/MPI_Scan", 1) == Approx(0.020));
}

TEST_CASE("critical path: a late root of a broadcast takes the path from a waiting receiver",
          "[root-cause][critical-path]") {
    // rank 0 (root): main | work 0..30 | Bcast 30..31 | main .. 40
    // rank 1:        main | Bcast 5..32 | main .. 50 (the end of the run)
    TinyTrace t(2);
    t.rank(0)
        .enter(0, "main")
        .enter(0, "work")
        .leave(30, "work")
        .collective(30, 31, "MPI_Bcast", Op::Bcast, 0, 0)
        .leave(40, "main");
    t.rank(1).enter(0, "main").collective(5, 32, "MPI_Bcast", Op::Bcast, 0, 0).leave(50, "main");
    const Analyzed a = analyze(t);
    CHECK(a(Metric::CriticalPath, "main", 1) == Approx(0.018));
    CHECK(a(Metric::CriticalPath, "main/MPI_Bcast", 1) == Approx(0.002));
    CHECK(a(Metric::CriticalPath, "main/MPI_Bcast", 0) == 0.0);
    CHECK(a(Metric::CriticalPath, "main/work", 0) == Approx(0.030));
    CHECK(a.total(Metric::CriticalPath) == Approx(0.050));
}

TEST_CASE("performance impact: imbalance between ranks doing different work is inter-partition",
          "[root-cause][performance-impact]") {
    // Two partitions (MPMD style): rank 0 only runs A, rank 1 only runs B.
    // rank 0: A 0..30  | Allreduce 30..31 | A 31..41 | Allreduce 41..62 (waits) | main .. 70
    // rank 1: B 0..10  | Allreduce 10..31 (waits) | B 31..61 | Allreduce 61..62 | main .. 70
    // Critical path (70 ms): main 62..70 and the Allreduce 61..62 on rank 0, B 31..61 on
    // rank 1, the Allreduce 30..31 on rank 1, A 0..30 on rank 0.
    // Each rank waits 20 ms; its only shortfall against the path is the other partition's
    // work (30 ms of it), so all 20 ms go there: 20 ms imbalance impact on A (rank 0) and on B
    // (rank 1), all of it inter-partition, since the waiting rank never runs that work.
    TinyTrace t(2);
    t.rank(0)
        .enter(0, "main")
        .enter(0, "A")
        .leave(30, "A")
        .collective(30, 31, "MPI_Allreduce", Op::Allreduce)
        .enter(31, "A")
        .leave(41, "A")
        .collective(41, 62, "MPI_Allreduce", Op::Allreduce)
        .leave(70, "main");
    t.rank(1)
        .enter(0, "main")
        .enter(0, "B")
        .leave(10, "B")
        .collective(10, 31, "MPI_Allreduce", Op::Allreduce)
        .enter(31, "B")
        .leave(61, "B")
        .collective(61, 62, "MPI_Allreduce", Op::Allreduce)
        .leave(70, "main");
    const Analyzed a = analyze(t);
    CHECK(a.total(Metric::CriticalPath) == Approx(0.070));
    CHECK(a(Metric::CriticalPath, "main/A", 0) == Approx(0.030));
    CHECK(a(Metric::CriticalPath, "main/B", 1) == Approx(0.030));
    for (const auto& [path, rank] : {std::pair{"main/A", 0u}, std::pair{"main/B", 1u}}) {
        CHECK(a(Metric::CriticalPathActivities, path, rank) == Approx(0.030));
        CHECK(a(Metric::NonCriticalPathActivities, path, rank) == Approx(0.010));
        CHECK(a(Metric::CriticalImbalanceImpact, path, rank) == Approx(0.020));
        CHECK(a(Metric::InterPartitionImbalance, path, rank) == Approx(0.020));
        CHECK(a(Metric::IntraPartitionImbalance, path, rank) == Approx(0.0).margin(1e-9));
        CHECK(a(Metric::PerformanceImpactCriticalPath, path, rank) == Approx(0.050));
        CHECK(a(Metric::PerformanceImpact, path, rank) == Approx(0.060));
    }
    // The Allreduce is on the path for 1 ms per rank and its own time (without waiting) is
    // 2 ms per rank: activity impact 2 ms per rank, no imbalance impact.
    CHECK(a(Metric::CriticalPathActivities, "main/MPI_Allreduce", 0) == Approx(0.002));
    CHECK(a(Metric::CriticalImbalanceImpact, "main/MPI_Allreduce", 0) == 0.0);
    // Everything is accounted for: all ranks' time = impact (waiting mapped onto A and B).
    CHECK(a.total(Metric::PerformanceImpact) == Approx(a.total(Metric::Time)));
}

TEST_CASE("performance impact: imbalance among ranks doing the same work is intra-partition",
          "[root-cause][performance-impact]") {
    // rank 0: work 0..30 | Barrier 30..31 | main .. 40
    // rank 1: work 0..10 | Barrier 10..31 (waits 20) | tail 31..45 | main .. 50 (the end)
    // Path (50 ms): rank 1 main 45..50, tail, Barrier 30..31, then rank 0's work 0..30.
    // Rank 1 waits 20 ms and falls short of the path only on work (20 of 30 ms), which it runs
    // too: 20 ms of intra-partition imbalance impact on rank 0's work. Rank 0 waits nowhere
    // but lacks the path's 10 ms beyond its own 40: that goes to tail, its only shortfall.
    TinyTrace t(2);
    t.rank(0)
        .enter(0, "main")
        .enter(0, "work")
        .leave(30, "work")
        .collective(30, 31, "MPI_Barrier", Op::Barrier)
        .leave(40, "main");
    t.rank(1)
        .enter(0, "main")
        .enter(0, "work")
        .leave(10, "work")
        .collective(10, 31, "MPI_Barrier", Op::Barrier)
        .enter(31, "tail")
        .leave(45, "tail")
        .leave(50, "main");
    const Analyzed a = analyze(t);
    CHECK(a.total(Metric::CriticalPath) == Approx(0.050));
    CHECK(a(Metric::CriticalPath, "main/work", 0) == Approx(0.030));
    CHECK(a(Metric::CriticalImbalanceImpact, "main/work", 0) == Approx(0.020));
    CHECK(a(Metric::IntraPartitionImbalance, "main/work", 0) == Approx(0.020));
    CHECK(a(Metric::InterPartitionImbalance, "main/work", 0) == 0.0);
    CHECK(a(Metric::CriticalImbalanceImpact, "main/tail", 1) == Approx(0.010));
    CHECK(a(Metric::CriticalPathActivities, "main/work", 1) == Approx(0.010));
    CHECK(a(Metric::CriticalPathImbalance, "main/work", 0) == Approx(0.010));
}

TEST_CASE("critical path: a blocking send waiting for a late receiver moves the path to the "
          "receiver",
          "[root-cause][critical-path]") {
    // rank 0: main | Send 10..52 (waits until rank 1 receives at 50) | post 52..60 | main .. 100
    // rank 1: main | work 0..50 | Recv 50..52 | main .. 80
    // Backwards from rank 0's end: main 60..100, post, the Send from the receive's enter
    // (50..52), then rank 1's work 0..50.
    TinyTrace t(2);
    t.rank(0)
        .enter(0, "main")
        .send(10, 52, 1, 7)
        .enter(52, "post")
        .leave(60, "post")
        .leave(100, "main");
    t.rank(1)
        .enter(0, "main")
        .enter(0, "work")
        .leave(50, "work")
        .recv(50, 51, 52, 0, 7)
        .leave(80, "main");
    const Analyzed a = analyze(t);
    CHECK(a(Metric::MpiLateReceiver, "main/MPI_Send", 0) == Approx(0.040));
    CHECK(a(Metric::CriticalPath, "main", 0) == Approx(0.040));
    CHECK(a(Metric::CriticalPath, "main/post", 0) == Approx(0.008));
    CHECK(a(Metric::CriticalPath, "main/MPI_Send", 0) == Approx(0.002));
    CHECK(a(Metric::CriticalPath, "main/work", 1) == Approx(0.050));
    CHECK(a(Metric::CriticalPath, "main/MPI_Recv", 1) == 0.0);
    CHECK(a.total(Metric::CriticalPath) == Approx(0.100));
}

// The critical path follows the wait states of the replays, where Scalasca 2.6 has its
// synchronization points (docs/fidelity.md, "Differential oracle findings").

TEST_CASE("critical path: a Late Receiver at a nonblocking send's MPI_Wait moves the path to the "
          "receiver (Scalasca: the receiver's work)",
          "[root-cause][critical-path]") {
    // rank 0: main | Isend 10..11 | main | Wait 12..50 (waits for the receive at 40) | main .. 100
    // rank 1: main | work 0..40 | Recv 40..50 | main .. 90
    // Backwards from rank 0's end: main 50..100, the Wait from the receive's enter (40..50),
    // then rank 1's work 0..40. We kept the path on rank 0 (its Wait's 38, Isend, main 0..12).
    TinyTrace t = testing::lateReceiverAtIsendWait(90);
    const Analyzed a = analyze(t);
    CHECK(a(Metric::MpiLateReceiver, "main/MPI_Wait", 0) == Approx(0.028));
    CHECK(a(Metric::CriticalPath, "main", 0) == Approx(0.050));
    CHECK(a(Metric::CriticalPath, "main/MPI_Wait", 0) == Approx(0.010));
    CHECK(a(Metric::CriticalPath, "main/MPI_Isend", 0) == 0.0);
    CHECK(a(Metric::CriticalPath, "main/work", 1) == Approx(0.040));
    CHECK(a.total(Metric::CriticalPath) == Approx(0.100));
}

TEST_CASE("critical path: from a Late Receiver it lands at the MPI_Irecv that posted the receive "
          "(Scalasca: not at its MPI_Wait)",
          "[root-cause][critical-path]") {
    // rank 0: main | Send 10..50 (waits for the receive posted at 30) | main .. 100
    // rank 1: main | work 0..30 | Irecv 30..31 | work2 31..45 | Wait 45..52 | main .. 90
    // Backwards from rank 0's end: main 50..100, the Send 30..50, then rank 1 before its
    // MPI_Irecv: work 0..30. We landed at the MPI_Wait and had work2 (14) and the MPI_Irecv on it.
    TinyTrace t(2);
    t.rank(0).enter(0, "main").send(10, 50, 1, 7, 100000).leave(100, "main");
    t.rank(1).enter(0, "main").enter(0, "work").leave(30, "work");
    t.rank(1).enter(30, "MPI_Irecv").irecvRequestRecord(30, 1).leave(31, "MPI_Irecv");
    t.rank(1).enter(31, "work2").leave(45, "work2");
    t.rank(1).enter(45, "MPI_Wait").irecvRecord(52, 0, 7, 1, 100000).leave(52, "MPI_Wait");
    t.rank(1).leave(90, "main");
    const Analyzed a = analyze(t);
    CHECK(a(Metric::MpiLateReceiver, "main/MPI_Send", 0) == Approx(0.020));
    CHECK(a(Metric::CriticalPath, "main/MPI_Send", 0) == Approx(0.020));
    CHECK(a(Metric::CriticalPath, "main/work", 1) == Approx(0.030));
    CHECK(a(Metric::CriticalPath, "main/work2", 1) == 0.0);
    CHECK(a(Metric::CriticalPath, "main/MPI_Irecv", 1) == 0.0);
    CHECK(a.total(Metric::CriticalPath) == Approx(0.100));
}

TEST_CASE("critical path: no Late Receiver at MPI_Sendrecv keeps the path (Scalasca: it stays)",
          "[root-cause][critical-path]") {
    // rank 0: main | work0 0..10 | Sendrecv 10..50 (its send received at 40) | main .. 100
    // rank 1: main | work 0..40 | Recv 40..50 | main .. 90
    // Scalasca finds no Late Receiver at MPI_Sendrecv: the path stays on rank 0 (all 40 of the
    // MPI_Sendrecv). We moved it to rank 1's work at 40.
    TinyTrace t(2);
    t.rank(0).enter(0, "main").enter(0, "work0").leave(10, "work0");
    t.rank(0).enter(10, "MPI_Sendrecv").sendRecord(10, 1, 7, 100000).leave(50, "MPI_Sendrecv");
    t.rank(0).leave(100, "main");
    t.rank(1).enter(0, "main").enter(0, "work").leave(40, "work");
    t.rank(1).recv(40, 45, 50, 0, 7, 100000).leave(90, "main");
    const Analyzed a = analyze(t);
    CHECK(a(Metric::CriticalPath, "main/MPI_Sendrecv", 0) == Approx(0.040));
    CHECK(a(Metric::CriticalPath, "main/work0", 0) == Approx(0.010));
    CHECK(a(Metric::CriticalPath, "main/work", 1) == 0.0);
    CHECK(a.total(Metric::CriticalPath) == Approx(0.100));
}

TEST_CASE("critical path: no Late Sender at MPI_Test keeps the path (Scalasca: it stays)",
          "[root-cause][critical-path]") {
    // rank 0: main | work 0..50 | Send 50..51 | main .. 90
    // rank 1: main | Irecv 2..3 | work 3..48 | Test 48..51 (completes the message sent at 50)
    //         | main .. 100
    // A test call never waits (no Late Sender), so the path stays on rank 1 to its start. We
    // moved it to rank 0's send at 50 (its 50 of work).
    TinyTrace t(2);
    t.rank(0).enter(0, "main").enter(0, "work").leave(50, "work").send(50, 51, 1, 7);
    t.rank(0).leave(90, "main");
    t.rank(1).enter(0, "main").enter(2, "MPI_Irecv").irecvRequestRecord(2, 1);
    t.rank(1).leave(3, "MPI_Irecv").enter(3, "work").leave(48, "work");
    t.rank(1).enter(48, "MPI_Test").irecvRecord(51, 0, 7, 1).leave(51, "MPI_Test");
    t.rank(1).leave(100, "main");
    const Analyzed a = analyze(t);
    CHECK(a(Metric::CriticalPath, "main/work", 0) == 0.0);
    CHECK(a(Metric::CriticalPath, "main/work", 1) == Approx(0.045));
    CHECK(a(Metric::CriticalPath, "main/MPI_Test", 1) == Approx(0.003));
    CHECK(a.total(Metric::CriticalPath) == Approx(0.100));
}

TEST_CASE("critical-path imbalance of a caller includes its callees (Scalasca: inclusive)",
          "[root-cause][critical-path]") {
    // rank 0: main | work 0..60 | Barrier 60..61 | main .. 100
    // rank 1: main | work 0..20 | Barrier 20..61 (waits 40) | main .. 99
    // The path stays on rank 0: main 39, MPI_Barrier 1, work 60. Scalasca's report derives
    // the imbalance of a call path from inclusive values: for main, the path's 100 against the
    // mean of (time - waiting) over main's subtree, (100 + 59) / 2 = 79.5, i.e. 20.5 % of the
    // path there, times rank 0's 39 of main: 7.995. Exclusive values gave 39 against
    // (39 + 38) / 2: 0.5. On a leaf both are alike (work: 60 against 40, 20).
    TinyTrace t(2);
    t.rank(0).enter(0, "main").enter(0, "work").leave(60, "work");
    t.rank(0).collective(60, 61, "MPI_Barrier", Op::Barrier).leave(100, "main");
    t.rank(1).enter(0, "main").enter(0, "work").leave(20, "work");
    t.rank(1).collective(20, 61, "MPI_Barrier", Op::Barrier).leave(99, "main");
    const Analyzed a = analyze(t);
    CHECK(a(Metric::CriticalPath, "main", 0) == Approx(0.039));
    CHECK(a(Metric::CriticalPathImbalance, "main", 0) == Approx(0.007995));
    CHECK(a(Metric::CriticalPathImbalance, "main/work", 0) == Approx(0.020));
    CHECK(a(Metric::CriticalPathImbalance, "main/MPI_Barrier", 0) == 0.0);
}

TEST_CASE("a broadcast that moves no data synchronizes no one, as in Scalasca 2.6",
          "[root-cause][delay]") {
    // rank 0 (root): main | work 0..30 | Bcast 30..31 | main .. 40
    // rank 1:        main | Bcast 5..32 | main .. 50
    // With 8 bytes, rank 1 waits 25 ms for the late root (Late Broadcast) and rank 0's work is
    // its short-term 1-to-n delay. With a count of 0 (Sent 0, Received 0, as Debian's hpcc
    // broadcasts on rank 0 35 times) Scalasca 2.6 skips the operation before looking for a wait
    // state or a synchronization point (MpiCommunicationHandler: "no payload"): no Late
    // Broadcast, no delay, and the critical path stays on rank 1. Before this rule we found
    // 25 ms of Late Broadcast and 25 ms of delay_12n on main/work.
    const auto build = [](TinyTrace& t, uint64_t bytes) {
        t.rank(0)
            .enter(0, "main")
            .enter(0, "work")
            .leave(30, "work")
            .collective(30, 31, "MPI_Bcast", Op::Bcast, 0, 0, bytes, bytes)
            .leave(40, "main");
        t.rank(1)
            .enter(0, "main")
            .collective(5, 32, "MPI_Bcast", Op::Bcast, 0, 0, 0, bytes)
            .leave(50, "main");
    };
    TinyTrace moving(2);
    build(moving, 8);
    const Analyzed withData = analyze(moving);
    CHECK(withData(Metric::MpiLateBroadcast, "main/MPI_Bcast", 1) == Approx(0.025));
    CHECK(withData(Metric::Delay12n, "main/work", 0) == Approx(0.025));
    CHECK(withData(Metric::CriticalPath, "main/work", 0) == Approx(0.030));

    TinyTrace empty(2);
    build(empty, 0);
    const Analyzed without = analyze(empty);
    CHECK(without(Metric::MpiLateBroadcast, "main/MPI_Bcast", 1) == 0.0);
    CHECK(without.total(Metric::Delay12n) == 0.0);
    CHECK(without.total(Metric::MpiLateBroadcast) == 0.0);
    CHECK(without(Metric::CriticalPath, "main/work", 0) == 0.0);
    CHECK(without(Metric::CriticalPath, "main/MPI_Bcast", 1) == Approx(0.027));
}
