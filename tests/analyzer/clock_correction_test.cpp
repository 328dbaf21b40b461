// Clock correction: hand-computed corrected timestamps on tiny traces, and a real trace with
// clock offsets injected into some ranks analyzing like the trace without them.
#include "tiny_trace.h"
#include "waitscope/analysis/canonical_text.h"
#include "waitscope/analysis/clock_correction.h"
#include "waitscope/analysis/in_process_transport.h"
#include "waitscope/analysis/serial_analysis.h"
#include "waitscope/trace/otf2_archive.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <map>
#include <thread>

using namespace waitscope;
using namespace waitscope::analysis;
using testing::TinyTrace;

namespace {

// Replay options that correct the timestamps first.
ReplayOptions withCorrection(ClockCorrectionOptions correction) {
    ReplayOptions options;
    options.correction = correction;
    return options;
}

struct Corrected {
    std::vector<trace::EventStream> streams;
    std::vector<Diagnostics> counters;
    std::vector<std::string> errors;
};

// Corrects copies of the trace's streams, every rank a thread of the in-process transport.
// The tiny traces tick in milliseconds: a minimum latency of 1 ms is one tick. With
// `estimate`, the latencies are estimated from the trace, at most `minLatency`.
Corrected correct(const TinyTrace& t, double minLatency = 0.001, bool estimate = false) {
    Corrected out{t.streams(), {}, {}};
    const auto ranks = static_cast<uint32_t>(out.streams.size());
    out.counters.resize(ranks);
    out.errors.resize(ranks);
    InProcessWorld world(t.defs, ranks);
    std::vector<std::thread> threads;
    for (uint32_t r = 0; r < ranks; ++r) {
        threads.emplace_back([&, r] {
            ClockCorrectionOptions options;
            options.minLatency = minLatency;
            options.estimateLatency = estimate;
            auto counters = correctClocks(t.defs, &out.streams[r], world.endpoint(r), options);
            if (counters) {
                out.counters[r] = *counters;
            } else {
                out.errors[r] = counters.error().message();
            }
            world.finish(r);
        });
    }
    for (std::thread& thread : threads) {
        thread.join();
    }
    return out;
}

std::vector<uint64_t> timesOf(const trace::EventStream& stream) {
    std::vector<uint64_t> times;
    for (size_t i = 0; i < stream.size(); ++i) {
        times.push_back(stream.time(i));
    }
    return times;
}

} // namespace

TEST_CASE("clock correction: a receive before its send jumps to send + latency, later events "
          "keep their spacing, earlier ones are amortized",
          "[clock-correction]") {
    TinyTrace t(2);
    t.rank(0).enter(0, "main").send(50, 52, 1, 7).leave(100, "main");
    // The receive record at 40 lies before the send at 50: rank 1's clock is behind.
    t.rank(1)
        .enter(0, "main")
        .enter(10, "work")
        .leave(20, "work")
        .recv(30, 40, 42, 0, 7)
        .enter(45, "work")
        .leave(60, "work")
        .leave(100, "main");
    const Corrected c = correct(t);
    CHECK(c.errors == std::vector<std::string>{"", ""});
    // The sender is not touched.
    CHECK(timesOf(c.streams[0]) == std::vector<uint64_t>{0, 50, 50, 52, 100});
    // Jump of 11 at the receive (40 -> 50 + 1). Later events move by 11. Before it, the jump is
    // amortized from the first event (the interval 40 - 11 / 0.01 starts before it): slope
    // 11 / 40, so 10 -> 10 + 2.75, 20 -> 20 + 5.5, 30 -> 30 + 8.25 (whole ticks, rounded down).
    CHECK(timesOf(c.streams[1]) == std::vector<uint64_t>{0, 12, 25, 38, 51, 53, 56, 71, 111});
    CHECK(c.counters[0].empty());
    CHECK(c.counters[1] ==
          Diagnostics{{experiment::Diagnostic::ClockCorrectedP2p, 1},
                      {experiment::Diagnostic::ClockCorrectionMaxShiftNs, 11000000}});
}

TEST_CASE("clock correction: backward amortization stretches local intervals by at most the "
          "maximum slope",
          "[clock-correction]") {
    TinyTrace t(2);
    t.rank(0).enter(0, "main").send(2010, 2012, 1, 7).leave(3000, "main");
    t.rank(1)
        .enter(0, "main")
        .enter(1005, "work")
        .leave(1905, "work")
        .recv(1950, 2000, 2001, 0, 7)
        .leave(3000, "main");
    const Corrected c = correct(t);
    // Jump 11 at 2000: the ramp starts at 2000 - 11 / 0.01 = 900 and rises by 0.01 per tick:
    // 1005 -> +1.05, 1905 -> +10.05, 1950 -> +10.5; the first event stays.
    CHECK(timesOf(c.streams[1]) == std::vector<uint64_t>{0, 1006, 1915, 1960, 2011, 2012, 3011});
}

TEST_CASE("clock correction: amortization does not carry a send past its receive",
          "[clock-correction]") {
    TinyTrace t(3);
    t.rank(0).enter(0, "main").send(50, 52, 1, 7).leave(100, "main");
    // Rank 1 sends to rank 2 (received at 33, so that send may move to 32 at most), then
    // receives from rank 0 with its clock behind.
    t.rank(1)
        .enter(0, "main")
        .enter(29, "MPI_Send")
        .sendRecord(30, 2, 9)
        .leave(31, "MPI_Send")
        .recv(35, 40, 42, 0, 7)
        .leave(100, "main");
    t.rank(2).enter(0, "main").recv(20, 33, 34, 1, 9).leave(100, "main");
    const Corrected c = correct(t);
    CHECK(c.errors == std::vector<std::string>{"", "", ""});
    // Jump 11 at 40. A ramp from the first event (slope 11/40) would move the send at 30 by
    // 8.25, past its limit 32 (headroom 2): the ramp runs from the send instead, rising from 2
    // with slope (11 - 2) / (40 - 30) = 0.9 (31 -> +2.9, 35 -> +6.5), and the send's 2 are
    // amortized before it with slope 2 / 30 (29 -> +1.93).
    CHECK(timesOf(c.streams[1]) == std::vector<uint64_t>{0, 30, 32, 33, 41, 51, 53, 111});
    CHECK(timesOf(c.streams[2]) == std::vector<uint64_t>{0, 20, 33, 34, 100});
}

TEST_CASE("clock correction: a barrier is not left before the last member entered it",
          "[clock-correction]") {
    TinyTrace t(3);
    using Op = trace::CollectiveOp;
    t.rank(0).enter(0, "main").collective(10, 20, "MPI_Barrier", Op::Barrier).leave(50, "main");
    t.rank(1).enter(0, "main").collective(12, 20, "MPI_Barrier", Op::Barrier).leave(50, "main");
    // Rank 2 leaves at 8, before rank 1 entered at 12.
    t.rank(2).enter(0, "main").collective(5, 8, "MPI_Barrier", Op::Barrier).leave(50, "main");
    const Corrected c = correct(t);
    // Exit jumps to 12 + 1 = 13 (by 5); its enter may move up to 20 - 1 = 19, and the ramp
    // from the first event (slope 5/8) moves it by 3.125.
    CHECK(timesOf(c.streams[2]) == std::vector<uint64_t>{0, 8, 8, 13, 13, 55});
    CHECK(timesOf(c.streams[0]) == std::vector<uint64_t>{0, 10, 10, 20, 20, 50});
    CHECK(c.counters[2].value(experiment::Diagnostic::ClockCorrectedCollective) == 1);
}

TEST_CASE("clock correction: an inconsistent trace is left alone and refused by the replay, "
          "without hanging",
          "[clock-correction]") {
    TinyTrace t(2);
    t.rank(0).enter(0, "main").send(50, 52, 1, 7).leave(100, "main");
    t.rank(1).enter(0, "main").leave(100, "main");
    const Corrected c = correct(t);
    CHECK(c.errors == std::vector<std::string>{"", ""});
    CHECK(c.counters[0] == Diagnostics{{experiment::Diagnostic::ClockCorrectionSkipped, 1}});
    CHECK(c.counters[1] == Diagnostics{{experiment::Diagnostic::ClockCorrectionSkipped, 1}});
    CHECK(timesOf(c.streams[0]) == timesOf(t.streams()[0]));
    auto result = analyzeInProcess(t.defs, t.streams(), withCorrection({}));
    REQUIRE_FALSE(result);
    CHECK(result.error().message() == "rank 1: receives 0 messages from rank 0 but rank 0 sends 1");
}

TEST_CASE("clock violations: counted per rank as each collective defines them",
          "[clock-correction]") {
    using Op = trace::CollectiveOp;
    TinyTrace t(3);
    // Broadcast of 8 bytes from rank 0 entered at 10: rank 1 leaving at 15 before rank 2
    // entered (30) is fine, rank 2 leaving at 8 before the root entered is a violation.
    t.rank(0)
        .enter(0, "main")
        .collective(10, 11, "MPI_Bcast", Op::Bcast, 0, 0, 24, 8)
        .leave(50, "main");
    t.rank(1)
        .enter(0, "main")
        .collective(12, 15, "MPI_Bcast", Op::Bcast, 0, 0, 0, 8)
        .leave(50, "main");
    t.rank(2)
        .enter(0, "main")
        .collective(5, 8, "MPI_Bcast", Op::Bcast, 0, 0, 0, 8)
        .leave(50, "main");
    auto result = analyzeInProcess(t.defs, t.streams());
    REQUIRE(result);
    CHECK_FALSE(
        result->diagnostics()[0].counted(experiment::Diagnostic::ClockViolationsCollective));
    CHECK_FALSE(
        result->diagnostics()[1].counted(experiment::Diagnostic::ClockViolationsCollective));
    CHECK(result->diagnostics()[2].value(experiment::Diagnostic::ClockViolationsCollective) == 1);
    auto corrected = analyzeInProcess(t.defs, t.streams(), withCorrection({0.001, 0.01}));
    REQUIRE(corrected);
    CHECK(corrected->diagnostic(experiment::Diagnostic::ClockViolationsCollective) == 0);
    CHECK(corrected->diagnostic(experiment::Diagnostic::ClockCorrectedCollective) == 1);
}

TEST_CASE("clock violations: a broadcast of 0 bytes defines no clock condition, a barrier does",
          "[clock-correction]") {
    using Op = trace::CollectiveOp;
    TinyTrace t(3);
    // The same timing as above, but nothing is broadcast: rank 2 may leave before the root
    // entered. The barrier after it, left by rank 2 at 22 before rank 0 entered (25), is a
    // violation.
    t.rank(0)
        .enter(0, "main")
        .collective(10, 11, "MPI_Bcast", Op::Bcast, 0, 0, 0, 0)
        .collective(25, 26, "MPI_Barrier", Op::Barrier, 0)
        .leave(50, "main");
    t.rank(1)
        .enter(0, "main")
        .collective(12, 15, "MPI_Bcast", Op::Bcast, 0, 0, 0, 0)
        .collective(20, 27, "MPI_Barrier", Op::Barrier, 0)
        .leave(50, "main");
    t.rank(2)
        .enter(0, "main")
        .collective(5, 8, "MPI_Bcast", Op::Bcast, 0, 0, 0, 0)
        .collective(21, 22, "MPI_Barrier", Op::Barrier, 0)
        .leave(50, "main");
    auto result = analyzeInProcess(t.defs, t.streams());
    REQUIRE(result);
    CHECK(result->diagnostic(experiment::Diagnostic::ClockViolationsCollective) == 1);
    CHECK(result->diagnostics()[2].value(experiment::Diagnostic::ClockViolationsCollective) == 1);
    // The correction moves only the barrier's exit on rank 2, not the broadcast's.
    auto corrected = analyzeInProcess(t.defs, t.streams(), withCorrection({0.001, 0.01}));
    REQUIRE(corrected);
    CHECK(corrected->diagnostic(experiment::Diagnostic::ClockViolationsCollective) == 0);
    CHECK(corrected->diagnostic(experiment::Diagnostic::ClockCorrectedCollective) == 1);
}

TEST_CASE("clock correction: the corrected trace has no violations, its late sender follows "
          "from the corrected times",
          "[clock-correction]") {
    TinyTrace t(2);
    // Rank 1's receive record (32) lies before the send (50).
    t.rank(0).enter(0, "main").send(50, 52, 1, 7).leave(100, "main");
    t.rank(1).enter(0, "main").recv(10, 32, 34, 0, 7).leave(80, "main");
    auto raw = analyzeInProcess(t.defs, t.streams());
    REQUIRE(raw);
    CHECK(raw->diagnostic(experiment::Diagnostic::ClockViolationsP2p) == 1);
    auto result = analyzeInProcess(t.defs, t.streams(), withCorrection({0.001, 0.01}));
    REQUIRE(result);
    CHECK(result->diagnostic(experiment::Diagnostic::ClockViolationsP2p) == 0);
    CHECK(result->diagnostic(experiment::Diagnostic::ClockCorrectedP2p) == 1);
    // Receive 10..34 with its record at 32: jump 19 to 51. Ramp from 0 with slope 19/32 moves
    // the enter at 10 by 5.9 to 15; the call ends at 53. Late sender: 50 - 15 = 35 ms (a jump
    // this large against 32 ms of history stretches them by 59 %, more than a real trace's).
    CHECK(result->total(Metric::MpiLateSender) == Approx(0.035));
    CHECK(result->total(Metric::MpiLateSender) >= 0.0);
}

TEST_CASE("clock correction: a trace that keeps the clock condition with sub-microsecond "
          "latencies is left unchanged and keeps its late sender",
          "[clock-correction]") {
    using Op = trace::CollectiveOp;
    TinyTrace t(2);
    t.defs.clock = trace::ClockProperties{1000000000, 0, 0}; // nanoseconds
    // The message takes 200 ns (send 1000, receive record 1200), after rank 1 waited from
    // 100: a late sender of 900 ns. The barrier's exits follow its last enter by 150 and 200 ns.
    t.rank(0)
        .enter(0, "main")
        .send(1000, 1010, 1, 7)
        .collective(2000, 2300, "MPI_Barrier", Op::Barrier)
        .leave(3000, "main");
    t.rank(1)
        .enter(0, "main")
        .recv(100, 1200, 1210, 0, 7)
        .collective(2100, 2250, "MPI_Barrier", Op::Barrier)
        .leave(3000, "main");
    const Corrected estimated = correct(t, 1e-6, true);
    CHECK(estimated.errors == std::vector<std::string>{"", ""});
    CHECK_FALSE(estimated.counters[0].counted(experiment::Diagnostic::ClockCorrectedP2p));
    CHECK_FALSE(estimated.counters[1].counted(experiment::Diagnostic::ClockCorrectedP2p));
    CHECK_FALSE(estimated.counters[0].counted(experiment::Diagnostic::ClockCorrectedCollective));
    CHECK_FALSE(estimated.counters[1].counted(experiment::Diagnostic::ClockCorrectedCollective));
    CHECK(estimated.counters[1].value(experiment::Diagnostic::ClockCorrectionMinLatencyNs) == 150);
    CHECK(timesOf(estimated.streams[0]) == timesOf(t.streams()[0]));
    CHECK(timesOf(estimated.streams[1]) == timesOf(t.streams()[1]));
    // A fixed latency of 1 us would move the receive and both barrier exits.
    const Corrected fixed = correct(t, 1e-6, false);
    CHECK(fixed.counters[1].value(experiment::Diagnostic::ClockCorrectedP2p) == 1);
    auto raw = analyzeInProcess(t.defs, t.streams());
    auto result = analyzeInProcess(t.defs, t.streams(), withCorrection({}));
    REQUIRE(raw);
    REQUIRE(result);
    CHECK(result->diagnostic(experiment::Diagnostic::ClockCorrectedP2p) == 0);
    CHECK(result->diagnostic(experiment::Diagnostic::ClockCorrectedCollective) == 0);
    CHECK(raw->total(Metric::MpiLateSender) == Approx(900e-9));
    CHECK(result->total(Metric::MpiLateSender) == Approx(900e-9));
    CHECK(result->total(Metric::MpiLateReceiver) == 0.0);
}

TEST_CASE("clock correction: estimated latencies still correct a real violation",
          "[clock-correction]") {
    TinyTrace t(2);
    t.defs.clock = trace::ClockProperties{1000000000, 0, 0}; // nanoseconds
    // The first message takes 300 ns; the second is received (1500) before it was sent (2000):
    // it moves to 2000 + 300.
    t.rank(0).enter(0, "main").send(100, 110, 1, 7).send(2000, 2010, 1, 7).leave(3000, "main");
    t.rank(1)
        .enter(0, "main")
        .recv(50, 400, 410, 0, 7)
        .recv(1400, 1500, 1510, 0, 7)
        .leave(3000, "main");
    const Corrected c = correct(t, 1e-6, true);
    CHECK(c.counters[1].value(experiment::Diagnostic::ClockCorrectedP2p) == 1);
    CHECK(c.counters[1].value(experiment::Diagnostic::ClockCorrectionMinLatencyNs) == 300);
    // Receive record 1500 -> 2300 (jump 800), its leave after it keeps its 10 ns.
    CHECK(timesOf(c.streams[1])[5] == 2300);
    CHECK(timesOf(c.streams[1])[6] == 2310);
}

namespace {

// The wait-state metrics whose totals are compared (and the time in MPI).
struct Compared {
    Metric metric;
    const char* name;
};
const Compared kCompared[] = {
    {Metric::MpiLateSender, "mpi_latesender"},
    {Metric::MpiLateReceiver, "mpi_latereceiver"},
    {Metric::MpiBarrierWait, "mpi_barrier_wait"},
    {Metric::MpiWaitNxn, "mpi_wait_nxn"},
    {Metric::MpiLateBroadcast, "mpi_latebroadcast"},
    {Metric::MpiEarlyReduce, "mpi_earlyreduce"},
    {Metric::MpiBarrierCompletion, "mpi_barrier_completion"},
    {Metric::MpiNxnCompletion, "mpi_nxn_completion"},
    {Metric::Mpi, "mpi"},
};
using WaitTotals = std::map<Metric, double>;

WaitTotals totalsOf(const AnalysisResult& r) {
    WaitTotals totals;
    for (const Compared& c : kCompared) {
        totals[c.metric] = r.total(c.metric);
    }
    return totals;
}

// A reference trace (4 ranks, nanosecond ticks) read into memory.
struct ReferenceTrace {
    trace::Definitions defs;
    std::vector<trace::EventStream> streams;
};

ReferenceTrace readReference(const std::string& name) {
    ReferenceTrace out;
    auto anchor = trace::findAnchorFile(std::string(WAITSCOPE_REFERENCE_DIR "/") + name + "/trace");
    REQUIRE(anchor);
    auto defs = trace::readDefinitions(*anchor);
    REQUIRE(defs);
    out.defs = std::move(*defs);
    for (uint32_t r = 0; r < out.defs.rankCount(); ++r) {
        auto events = trace::readRankEvents(*anchor, out.defs, r);
        REQUIRE(events);
        out.streams.push_back(std::move(*events));
    }
    return out;
}

// The streams with rank r's clock running offsetUs[r] microseconds ahead.
std::vector<trace::EventStream> withOffsets(const ReferenceTrace& t,
                                            const std::vector<int64_t>& offsetUs) {
    std::vector<trace::EventStream> skewed = t.streams;
    const auto ticksPerUs = static_cast<int64_t>(t.defs.clock.ticksPerSecond / 1000000);
    for (size_t r = 0; r < skewed.size() && r < offsetUs.size(); ++r) {
        for (size_t i = 0; i < skewed[r].size(); ++i) {
            skewed[r].setTime(i, skewed[r].time(i) + offsetUs[r] * ticksPerUs);
        }
    }
    return skewed;
}

struct Comparison {
    WaitTotals clean, skewed, corrected;
    uint64_t violations = 0; ///< found in the skewed trace
    uint64_t remaining = 0;  ///< left after the correction
    uint64_t correctedEvents = 0;
};

Comparison compare(const std::string& name, const std::vector<int64_t>& offsetUs) {
    const ReferenceTrace t = readReference(name);
    const auto skewed = withOffsets(t, offsetUs);
    auto clean = analyzeInProcess(t.defs, t.streams);
    auto broken = analyzeInProcess(t.defs, skewed);
    auto corrected = analyzeInProcess(t.defs, skewed, withCorrection({}));
    REQUIRE(clean);
    REQUIRE(broken);
    REQUIRE(corrected);
    CHECK(clean->diagnostic(experiment::Diagnostic::ClockViolationsP2p) +
              clean->diagnostic(experiment::Diagnostic::ClockViolationsCollective) ==
          0);
    Comparison c{totalsOf(*clean), totalsOf(*broken), totalsOf(*corrected)};
    c.violations = broken->diagnostic(experiment::Diagnostic::ClockViolationsP2p) +
                   broken->diagnostic(experiment::Diagnostic::ClockViolationsCollective);
    c.remaining = corrected->diagnostic(experiment::Diagnostic::ClockViolationsP2p) +
                  corrected->diagnostic(experiment::Diagnostic::ClockViolationsCollective);
    c.correctedEvents = corrected->diagnostic(experiment::Diagnostic::ClockCorrectedP2p) +
                        corrected->diagnostic(experiment::Diagnostic::ClockCorrectedCollective);
    std::printf("%s, offsets (us)", name.c_str());
    for (const int64_t o : offsetUs) {
        std::printf(" %lld", static_cast<long long>(o));
    }
    std::printf(": violations %llu, corrected events %llu, left %llu\n",
                static_cast<unsigned long long>(c.violations),
                static_cast<unsigned long long>(c.correctedEvents),
                static_cast<unsigned long long>(c.remaining));
    std::printf("  %-24s %12s %12s %12s\n", "total [s]", "clean", "skewed", "corrected");
    for (const Compared& m : kCompared) {
        if (c.clean[m.metric] != 0.0 || c.corrected[m.metric] != 0.0) {
            std::printf("  %-24s %12.6f %12.6f %12.6f\n", m.name, c.clean[m.metric],
                        c.skewed[m.metric], c.corrected[m.metric]);
        }
    }
    return c;
}

// Within 5 % of the clean value.
bool withinFivePercent(double got, double want) {
    return std::abs(got - want) <= 0.05 * std::abs(want);
}

} // namespace

TEST_CASE("clock correction: offsets of 150 ms and 80 ms in real traces are detected and the "
          "corrected wait states come within 5 % of those without them",
          "[clock-correction][reference]") {
    const std::pair<const char*, Metric> traces[] = {
        {"late_sender", Metric::MpiLateSender},
        {"nb_late_sender", Metric::MpiLateSender},
        {"late_receiver", Metric::MpiLateReceiver},
        {"late_broadcast", Metric::MpiLateBroadcast},
    };
    for (const auto& [name, metric] : traces) {
        INFO(name);
        // Rank 1's clock 150 ms behind, rank 3's 80 ms ahead: the skewed waits are 12-37 % off.
        const Comparison c = compare(name, {0, -150000, 0, 80000});
        CHECK(c.violations > 0);
        CHECK(c.correctedEvents > 0);
        CHECK(c.remaining == 0);
        const double clean = c.clean.at(metric);
        CHECK(clean > 1.0); // 5 or 10 injected waits of 200 ms or more
        CHECK_FALSE(withinFivePercent(c.skewed.at(metric), clean));
        CHECK(withinFivePercent(c.corrected.at(metric), clean));
    }
    // Swapped signs: rank 1 ahead, rank 3 behind.
    const Comparison c = compare("late_sender", {0, 150000, 0, -80000});
    CHECK(c.remaining == 0);
    CHECK_FALSE(
        withinFivePercent(c.skewed.at(Metric::MpiLateSender), c.clean.at(Metric::MpiLateSender)));
    CHECK(withinFivePercent(c.corrected.at(Metric::MpiLateSender),
                            c.clean.at(Metric::MpiLateSender)));
}

TEST_CASE("clock correction: millisecond offsets in the reference traces are detected and the "
          "corrected waits stay within 5 % of the clean ones",
          "[clock-correction][reference]") {
    const std::pair<const char*, Metric> traces[] = {
        {"late_sender", Metric::MpiLateSender},     {"wait_at_barrier", Metric::MpiBarrierWait},
        {"wait_nxn", Metric::MpiWaitNxn},           {"late_broadcast", Metric::MpiLateBroadcast},
        {"early_reduce", Metric::MpiEarlyReduce},   {"nb_late_sender", Metric::MpiLateSender},
        {"late_receiver", Metric::MpiLateReceiver},
    };
    for (const auto& [name, metric] : traces) {
        INFO(name);
        // Rank 1's clock 1.5 ms behind, rank 3's 0.8 ms ahead.
        const Comparison c = compare(name, {0, -1500, 0, 800});
        CHECK(c.violations > 0);
        CHECK(c.remaining == 0);
        CHECK(c.clean.at(metric) > 0.5);
        CHECK(withinFivePercent(c.corrected.at(metric), c.clean.at(metric)));
        CHECK(withinFivePercent(c.corrected.at(Metric::Mpi), c.clean.at(Metric::Mpi)));
    }
}
