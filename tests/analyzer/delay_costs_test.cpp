// Diff tests of the root-cause pass: tiny traces with wait states whose delay costs and
// classification are worked out by hand in each test's comment.
#include "tiny_trace.h"
#include "waitscope/analysis/canonical_text.h"
#include "waitscope/analysis/serial_analysis.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <sstream>
#include <string>

using namespace waitscope;
using namespace waitscope::analysis;
using testing::TinyTrace;
using Op = trace::CollectiveOp;

namespace {

// "metric path rank" -> value (seconds) of every metric whose name starts with one of
// `prefixes`, from the canonical text of the in-process analysis.
std::map<std::string, double> valuesOf(const TinyTrace& trace,
                                       const std::vector<std::string>& prefixes,
                                       const ReplayOptions& options = {}) {
    auto result = analyzeInProcess(trace.defs, trace.streams(), options);
    REQUIRE(result.ok());
    std::map<std::string, double> values;
    std::istringstream all(canonicalText(*result, trace.defs));
    std::string line;
    while (std::getline(all, line)) {
        std::istringstream fields(line);
        std::string metric, path, rank, value;
        std::getline(fields, metric, '\t');
        std::getline(fields, path, '\t');
        std::getline(fields, rank, '\t');
        std::getline(fields, value, '\t');
        for (const std::string& prefix : prefixes) {
            if (metric.rfind(prefix, 0) == 0) {
                values[metric + " " + path + " " + rank] = std::stod(value);
            }
        }
    }
    return values;
}

// Compares with `expected` (milliseconds), every key in either map; unexpected values must be
// rounding noise (a difference of equal times in seconds is not always exactly zero).
void checkValues(const std::map<std::string, double>& actual,
                 const std::map<std::string, double>& expectedMs) {
    for (const auto& [key, ms] : expectedMs) {
        INFO(key);
        const auto it = actual.find(key);
        REQUIRE(it != actual.end());
        CHECK(it->second == Approx(ms / 1000.0).margin(1e-12));
    }
    for (const auto& [key, value] : actual) {
        INFO("unexpected " << key << " = " << value);
        CHECK((expectedMs.count(key) == 1 || std::fabs(value) < 1e-12));
    }
}

} // namespace

// A chain: rank 0 is late for rank 1, which is therefore late for rank 2, which is therefore
// late for rank 3. Each rank computes ("work") from 0, receives from its left neighbour, then
// works 10 ms more and sends to its right neighbour (times in ms):
//
//   rank 0  work 0-40 | Send 40-41
//   rank 1  work 0-10 | Recv 10-42 (message at 41)  | work 42-52 | Send 52-53
//   rank 2  work 0-20 | Recv 20-54 (message at 53)  | work 54-64 | Send 64-65
//   rank 3  work 0-30 | Recv 30-66 (message at 65)
//
// Late Sender waits: rank 1 40-10 = 30, rank 2 52-20 = 32, rank 3 64-30 = 34 (96 in all).
// Backward, each delayer compares its interval since the last synchronization with the
// waiter's, without its own waiting:
//  - rank 2 for rank 3: work 30 vs 30, MPI_Recv 34-32 = 2 vs 0: delay {MPI_Recv 2}, own
//    waiting 32; s = min(34 / (2+32), 1) = 1: short-term 2 on rank 2's MPI_Recv; its wait
//    state takes on cost s*32 = 32; indirect share of rank 3's wait s*32 = 32 (direct 2);
//    rank 2's wait propagates with 32.
//  - rank 1 for rank 2: delay {MPI_Recv 32-30 = 2}, waiting 30, s = 32/32 = 1: short-term 2;
//    long-term (cost 32)/(2+30) = 1 times 2 = 2 on MPI_Recv; its wait state takes on cost
//    (1+1)*30 = 60; indirect 30 of rank 2's wait (direct 2); rank 1's wait propagates with 30.
//  - rank 0 for rank 1: delay {work 40-10 = 30}, no waiting, s = 1: short-term 30 on work,
//    long-term 60/30 = 2 times 30 = 60 on work; rank 1's wait is all direct.
// Short-term 34 + long-term 62 = 96, all of the waiting.
TEST_CASE("a chain of late senders: short- and long-term delay, propagating and indirect waits",
          "[root-cause][late-sender]") {
    TinyTrace t(4);
    t.rank(0).enter(0, "main").enter(0, "work").leave(40, "work").send(40, 41, 1, 5);
    t.rank(0).leave(100, "main");
    t.rank(1).enter(0, "main").enter(0, "work").leave(10, "work").recv(10, 41, 42, 0, 5);
    t.rank(1).enter(42, "work").leave(52, "work").send(52, 53, 2, 5).leave(100, "main");
    t.rank(2).enter(0, "main").enter(0, "work").leave(20, "work").recv(20, 53, 54, 1, 5);
    t.rank(2).enter(54, "work").leave(64, "work").send(64, 65, 3, 5).leave(100, "main");
    t.rank(3).enter(0, "main").enter(0, "work").leave(30, "work").recv(30, 65, 66, 2, 5);
    t.rank(3).leave(100, "main");
    const auto values = valuesOf(t, {"delay_latesender", "mpi_wait_"});
    checkValues(values, {
                            {"delay_latesender main/work 0", 30},
                            {"delay_latesender main/MPI_Recv 1", 2},
                            {"delay_latesender main/MPI_Recv 2", 2},
                            {"delay_latesender_aggregate main/work 0", 90},
                            {"delay_latesender_aggregate main/MPI_Recv 1", 4},
                            {"delay_latesender_aggregate main/MPI_Recv 2", 2},
                            {"delay_latesender_longterm main/work 0", 60},
                            {"delay_latesender_longterm main/MPI_Recv 1", 2},
                            {"mpi_wait_propagating main/MPI_Recv 1", 30},
                            {"mpi_wait_propagating main/MPI_Recv 2", 32},
                            {"mpi_wait_propagating_ls main/MPI_Recv 1", 30},
                            {"mpi_wait_propagating_ls main/MPI_Recv 2", 32},
                            {"mpi_wait_terminal main/MPI_Recv 3", 34},
                            {"mpi_wait_terminal_ls main/MPI_Recv 3", 34},
                            {"mpi_wait_direct main/MPI_Recv 1", 30},
                            {"mpi_wait_direct main/MPI_Recv 2", 2},
                            {"mpi_wait_direct main/MPI_Recv 3", 2},
                            {"mpi_wait_direct_latesender main/MPI_Recv 1", 30},
                            {"mpi_wait_direct_latesender main/MPI_Recv 2", 2},
                            {"mpi_wait_direct_latesender main/MPI_Recv 3", 2},
                            {"mpi_wait_indirect main/MPI_Recv 2", 30},
                            {"mpi_wait_indirect main/MPI_Recv 3", 32},
                            {"mpi_wait_indirect_latesender main/MPI_Recv 2", 30},
                            {"mpi_wait_indirect_latesender main/MPI_Recv 3", 32},
                        });
    // All of the waiting is accounted for by delay costs.
    auto result = analyzeInProcess(t.defs, t.streams());
    REQUIRE(result.ok());
    double delay = 0.0, waiting = 0.0;
    for (NodeId n = 0; n < result->tree().size(); ++n) {
        for (uint32_t r = 0; r < 4; ++r) {
            delay += result->value(Metric::Delay, n, r);
            waiting += result->value(Metric::MpiLateSender, n, r);
        }
    }
    CHECK(delay == Approx(waiting).margin(1e-12));
    CHECK(waiting == Approx(0.096).margin(1e-12));
}

TEST_CASE("a late sender at a blocking probe: its delay is the sender's excess work, its wait "
          "the probe's",
          "[root-cause][late-sender][probe]") {
    // rank 0 works 0-40 and sends at 40; rank 1 works 0-10, waits in MPI_Probe 10-41 and receives
    // the message that is there (MPI_Recv 42-43). The Late Sender (30) is the probe's; its cause
    // is rank 0's work beyond rank 1's since the start (40 - 10), and the wait goes no further.
    TinyTrace t(2);
    t.rank(0).enter(0, "main").enter(0, "work").leave(40, "work").send(40, 41, 1, 5);
    t.rank(0).leave(100, "main");
    t.rank(1).enter(0, "main").enter(0, "work").leave(10, "work");
    t.rank(1).enter(10, "MPI_Probe").leave(41, "MPI_Probe").recv(42, 42, 43, 0, 5);
    t.rank(1).leave(100, "main");
    checkValues(valuesOf(t, {"delay_latesender", "mpi_wait_"}),
                {
                    {"delay_latesender main/work 0", 30},
                    {"delay_latesender_aggregate main/work 0", 30},
                    {"mpi_wait_terminal main/MPI_Probe 1", 30},
                    {"mpi_wait_terminal_ls main/MPI_Probe 1", 30},
                    {"mpi_wait_direct main/MPI_Probe 1", 30},
                    {"mpi_wait_direct_latesender main/MPI_Probe 1", 30},
                });
}

TEST_CASE("a late sender at a blocking probe with a late receiver after it: the root causes see "
          "the late sender",
          "[root-cause][late-sender][late-receiver][probe]") {
    // rank 0 works 0-50 and sends a large message 50-70 (rendezvous); rank 1 works 0-10, waits
    // in MPI_Probe 10-51, sizes its buffer and receives 60-70, so the send waits 10 for it. The
    // message has both wait states; the root-cause passes take the probe's Late Sender only (one
    // wait state per message, no stall): its cause is rank 0's excess work (50 - 10); the Late
    // Receiver (direct and terminal) has no delay costs of its own.
    TinyTrace t(2);
    t.rank(0).enter(0, "main").enter(0, "work").leave(50, "work").send(50, 70, 1, 5, 100000);
    t.rank(0).leave(100, "main");
    t.rank(1).enter(0, "main").enter(0, "work").leave(10, "work");
    t.rank(1).enter(10, "MPI_Probe").leave(51, "MPI_Probe").recv(60, 70, 70, 0, 5, 100000);
    t.rank(1).leave(100, "main");
    checkValues(valuesOf(t, {"delay_late", "mpi_wait_"}),
                {
                    {"delay_latesender main/work 0", 40},
                    {"delay_latesender_aggregate main/work 0", 40},
                    {"mpi_wait_terminal main/MPI_Probe 1", 40},
                    {"mpi_wait_terminal_ls main/MPI_Probe 1", 40},
                    {"mpi_wait_direct main/MPI_Probe 1", 40},
                    {"mpi_wait_direct_latesender main/MPI_Probe 1", 40},
                    {"mpi_wait_terminal main/MPI_Send 0", 10},
                    {"mpi_wait_terminal_lr main/MPI_Send 0", 10},
                    {"mpi_wait_direct main/MPI_Send 0", 10},
                    {"mpi_wait_direct_latereceiver main/MPI_Send 0", 10},
                });
}

// A chain of Late Receivers: rank 2 computes, so rank 1 waits in MPI_Ssend, so rank 0 waits
// in its MPI_Ssend to rank 1 (times in ms; the message records sit at the call's start):
//
//   rank 0  work 0-5  | Ssend 5-44 to 1                    waits 42-5 = 37
//   rank 1  work 0-10 | Ssend 10-42 to 2 | Recv 42-44      waits 40-10 = 30
//   rank 2  work 0-40 | Recv 40-42
//
// Backward, each receiver (the delayer) compares its interval with the sender's:
//  - rank 1 for rank 0: work 10 and MPI_Ssend 32-30 = 2 (own wait removed) vs work 5: delay
//    {work 5, MPI_Ssend 2}, own waiting 30, s = min(37 / (7+30), 1) = 1: short-term 5 and 2
//    on rank 1; its wait state takes on cost 30 and propagates with 30; indirect share of
//    rank 0's wait 30, direct 7.
//  - rank 2 for rank 1: work 40 vs 10: delay 30, s = 1: short-term 30, long-term
//    (cost 30)/30 * 30 = 30 on rank 2's work. Rank 1's wait is direct.
// Short-term 37 + long-term 30 = 67, all of the waiting.
TEST_CASE("a chain of late receivers: short- and long-term delay, propagating and indirect",
          "[root-cause][late-receiver]") {
    TinyTrace t(3);
    t.rank(0).enter(0, "main").enter(0, "work").leave(5, "work");
    t.rank(0).send(5, 44, 1, 7, 8, 0, "MPI_Ssend").leave(100, "main");
    t.rank(1).enter(0, "main").enter(0, "work").leave(10, "work");
    t.rank(1).send(10, 42, 2, 7, 8, 0, "MPI_Ssend").recv(42, 43, 44, 0, 7).leave(100, "main");
    t.rank(2).enter(0, "main").enter(0, "work").leave(40, "work").recv(40, 41, 42, 1, 7);
    t.rank(2).leave(100, "main");
    checkValues(valuesOf(t, {"delay_latereceiver", "mpi_wait_"}),
                {
                    {"delay_latereceiver main/work 1", 5},
                    {"delay_latereceiver main/MPI_Ssend 1", 2},
                    {"delay_latereceiver main/work 2", 30},
                    {"delay_latereceiver_longterm main/work 2", 30},
                    {"delay_latereceiver_aggregate main/work 1", 5},
                    {"delay_latereceiver_aggregate main/MPI_Ssend 1", 2},
                    {"delay_latereceiver_aggregate main/work 2", 60},
                    {"mpi_wait_propagating main/MPI_Ssend 1", 30},
                    {"mpi_wait_propagating_lr main/MPI_Ssend 1", 30},
                    {"mpi_wait_terminal main/MPI_Ssend 0", 37},
                    {"mpi_wait_terminal_lr main/MPI_Ssend 0", 37},
                    {"mpi_wait_direct main/MPI_Ssend 0", 7},
                    {"mpi_wait_direct main/MPI_Ssend 1", 30},
                    {"mpi_wait_direct_latereceiver main/MPI_Ssend 0", 7},
                    {"mpi_wait_direct_latereceiver main/MPI_Ssend 1", 30},
                    {"mpi_wait_indirect main/MPI_Ssend 0", 30},
                    {"mpi_wait_indirect_latereceiver main/MPI_Ssend 0", 30},
                });
}

// A Late Sender that makes the receiver late for a barrier (times in ms; MPI_Init 0-1 on all
// ranks opens the first synchronization interval):
//
//   rank 0  work 1-40 | Send 40-41 to 1 | Barrier 41-60          waits 52-41 = 11
//   rank 1  work 1-10 | Recv 10-42 (41) | work 42-52 | Barrier 52-60   (the last to enter)
//   rank 2  work 1-20 | Barrier 20-60                             waits 52-20 = 32
//
// At the barrier, rank 1 (the latecomer) compares with each waiter over the interval since
// it last synchronized with that waiter:
//  - rank 0, since the send/receive: rank 1 has work 10 and MPI_Recv 32-(32-1) = 1 (only the
//    completion part of the opening call counts), rank 0 nothing: delay 11, s = 11/11 = 1.
//  - rank 2, since MPI_Init: rank 1 has work 9+10 = 19 and MPI_Recv 32-30 = 2 (its own wait
//    removed), rank 2 has work 19: delay {MPI_Recv 2}, own waiting 30, s = 32/(2+30) = 1.
//    Short-term barrier delay: work 10, MPI_Recv 1+2 = 3 on rank 1. Rank 1's Late Sender
//    wait inside the interval takes on barrier cost 1*30 = 30.
// Backward at the Late Sender, rank 0 has work 39 against rank 1's 9: delay 30, s = 1,
// short-term Late Sender delay 30 and long-term barrier delay 30/30 * 30 = 30 on its work.
// Barrier delay 13 + 30 = 43 = the barrier waiting; the Late Sender wait is terminal: only
// point-to-point delay marks a wait state as propagating (as in Scalasca).
TEST_CASE("a late sender propagates into barrier waiting: long-term barrier delay",
          "[root-cause][barrier]") {
    TinyTrace t(3);
    for (uint32_t r = 0; r < 3; ++r) {
        t.rank(r).enter(0, "main").collective(0, 1, "MPI_Init", Op::CreateHandle);
    }
    t.rank(0).enter(1, "work").leave(40, "work").send(40, 41, 1, 3);
    t.rank(0).collective(41, 60, "MPI_Barrier", Op::Barrier).leave(100, "main");
    t.rank(1).enter(1, "work").leave(10, "work").recv(10, 41, 42, 0, 3);
    t.rank(1).enter(42, "work").leave(52, "work");
    t.rank(1).collective(52, 60, "MPI_Barrier", Op::Barrier).leave(100, "main");
    t.rank(2).enter(1, "work").leave(20, "work");
    t.rank(2).collective(20, 60, "MPI_Barrier", Op::Barrier).leave(100, "main");
    checkValues(valuesOf(t, {"delay_barrier", "delay_latesender", "mpi_wait_propagating"}),
                {
                    {"delay_barrier main/work 1", 10},
                    {"delay_barrier main/MPI_Recv 1", 3},
                    {"delay_barrier_longterm main/work 0", 30},
                    {"delay_barrier_aggregate main/work 0", 30},
                    {"delay_barrier_aggregate main/work 1", 10},
                    {"delay_barrier_aggregate main/MPI_Recv 1", 3},
                    {"delay_latesender main/work 0", 30},
                    {"delay_latesender_aggregate main/work 0", 30},
                });
}

// Wait at Barrier: the last to arrive (rank 2, work 0-40) delays rank 0 (work 0-10) by 30 and
// rank 1 (work 0-20) by 20; each share is the excess work times min(wait / excess, 1) = 1.
TEST_CASE("wait at barrier: the latecomer's excess work carries the waiting",
          "[root-cause][barrier]") {
    TinyTrace t(3);
    for (uint32_t r = 0; r < 3; ++r) {
        const uint64_t work = 10 * (r + 1) + (r == 2 ? 10 : 0);
        t.rank(r).enter(0, "main").enter(0, "work").leave(work, "work");
        t.rank(r).collective(work, 41, "MPI_Barrier", Op::Barrier).leave(50, "main");
    }
    checkValues(valuesOf(t, {"delay_barrier"}), {
                                                    {"delay_barrier main/work 2", 50},
                                                    {"delay_barrier_aggregate main/work 2", 50},
                                                });
}

TEST_CASE("without root causes the replay leaves the root-cause metrics out and the rest alike",
          "[root-cause]") {
    TinyTrace t(2);
    t.rank(0).enter(0, "main").enter(0, "work").leave(40, "work").send(40, 41, 1, 5);
    t.rank(0).leave(100, "main");
    t.rank(1).enter(0, "main").recv(10, 41, 42, 0, 5).leave(100, "main");
    ReplayOptions off;
    off.rootCause = false;
    CHECK(valuesOf(t, {"delay", "mpi_wait_", "waitstates"}, off).empty());
    CHECK_FALSE(valuesOf(t, {"delay"}).empty());
    const auto without = valuesOf(t, {"mpi_latesender", "time", "comp", "visits"}, off);
    CHECK(without == valuesOf(t, {"mpi_latesender", "time", "comp", "visits"}));
}

TEST_CASE("a late receiver's completion is no delay of the next interval (Scalasca: none)",
          "[root-cause][late-receiver]") {
    // Rank 0's MPI_Ssend 10-50 waits 30 for rank 1's MPI_Recv 40-42 and returns 8 after it.
    // Then rank 0 works 50-60 and receives in MPI_Recv 60-70, for which rank 1's MPI_Ssend
    // 45-70 waited 15. Scalasca 2.6 sets a Late Receiver's completion time to at most 0
    // (the send's exit minus the receive's when the send left first, else 0), so the interval
    // after the first synchronization holds none of rank 0's MPI_Ssend: its 10 of work alone
    // delays rank 1. We charged the 8 after the receive to the MPI_Ssend as well.
    TinyTrace t(2);
    t.rank(0).enter(0, "main").send(10, 50, 1, 7, 100000, 0, "MPI_Ssend");
    t.rank(0).enter(50, "work").leave(60, "work").recv(60, 69, 70, 1, 8, 100000);
    t.rank(0).leave(100, "main");
    t.rank(1).enter(0, "main").recv(40, 41, 42, 0, 7, 100000);
    t.rank(1).send(45, 70, 0, 8, 100000, 0, "MPI_Ssend").leave(100, "main");
    const auto values = valuesOf(t, {"delay_latereceiver"});
    CHECK(values.count("delay_latereceiver main/MPI_Ssend 0") == 0);
    CHECK(values.count("delay_latereceiver main/work 0") == 1);
}

TEST_CASE("a late receiver at a nonblocking send synchronizes at the completing MPI_Wait "
          "(Scalasca: the receiver's work is the delay)",
          "[root-cause][late-receiver]") {
    // Rank 0: MPI_Isend 10-11 of a large message, MPI_Wait 12-50, which waits 28 for rank 1's
    // MPI_Recv entered at 40 after 40 of work. Scalasca 2.6 synchronizes the two at the
    // MPI_Wait (the send's completion) and the receive: rank 1's 40 of work against none on
    // rank 0 is the delay, scaled by 28/40. We had no synchronization point there: no delay.
    TinyTrace t = testing::lateReceiverAtIsendWait(100);
    checkValues(valuesOf(t, {"delay_latereceiver", "mpi_latereceiver"}),
                {{"delay_latereceiver main/work 1", 28},
                 {"delay_latereceiver_aggregate main/work 1", 28},
                 {"mpi_latereceiver main/MPI_Wait 0", 28}});
}

TEST_CASE("a late receiver's receiver synchronizes at the MPI_Irecv that posted the receive "
          "(Scalasca: work after it is no delay)",
          "[root-cause][late-receiver]") {
    // Rank 0: work0 0-10, MPI_Send 10-50, waiting 20 for rank 1's MPI_Irecv 30-31; rank 1
    // works 0-30, posts, works 31-45 (work2) and completes in MPI_Wait 45-52. Scalasca 2.6 ends
    // the receiver's interval at the MPI_Irecv: 30 of work against rank 0's none, scaled by
    // 20/30. We ended it at the MPI_Wait: work 30, MPI_Irecv 1 and work2 14 shared the 20.
    TinyTrace t(2);
    t.rank(0).enter(0, "main").enter(0, "work0").leave(10, "work0");
    t.rank(0).send(10, 50, 1, 7, 100000).leave(100, "main");
    t.rank(1).enter(0, "main").enter(0, "work").leave(30, "work");
    t.rank(1).enter(30, "MPI_Irecv").irecvRequestRecord(30, 1).leave(31, "MPI_Irecv");
    t.rank(1).enter(31, "work2").leave(45, "work2");
    t.rank(1).enter(45, "MPI_Wait").irecvRecord(52, 0, 7, 1, 100000).leave(52, "MPI_Wait");
    t.rank(1).leave(100, "main");
    checkValues(valuesOf(t, {"delay_latereceiver", "mpi_latereceiver"}),
                {{"delay_latereceiver main/work 1", 20},
                 {"delay_latereceiver_aggregate main/work 1", 20},
                 {"mpi_latereceiver main/MPI_Send 0", 20}});
}
