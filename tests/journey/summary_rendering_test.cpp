// Unit tests of the summary on built reports: long call paths in text and HTML (rendered at
// 1280 px in headless Chromium), the header and verdicts, and the rules the advice follows.
#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <waitscope/summary/experiment_summary.h>
#include <waitscope/summary/summary.h>

using namespace waitscope;
namespace fs = std::filesystem;

namespace {

/// Names as long as C++ templates make them, for call paths far wider than a line.
std::string levelName(int level) {
    return "numerics::solvers::KrylovSubspaceIteration<double, 3>::stage_" + std::to_string(level) +
           "(std::vector<double> const&)";
}

struct LongPathReport {
    report::Report report;
    std::string waitallPath; ///< the full path of the Late Sender
};

/// Two ranks; the call paths run through libc's start, main, 8 long-named levels, then
/// exchange_halo/MPI_Waitall (Late Sender 1.5 s on rank 1) and MPI_Barrier (a 0.06 s wait,
/// 0.4 % of the run). Computation is sampled in __vdso_clock_gettime below compute_kernel
/// (11 s of 13.81 s). The delay costs are largest in MPI_Init, then on the program's root
/// (outside main), then in the clock call.
LongPathReport longPathReport() {
    LongPathReport out;
    report::Report& r = out.report;
    const auto time = *r.addMetric("time");
    const auto visits = *r.addMetric("visits");
    const auto execution = *r.addMetric("execution", time);
    const auto comp = *r.addMetric("comp", execution);
    const auto mpi = *r.addMetric("mpi", execution);
    const auto communication = *r.addMetric("mpi_communication", mpi);
    const auto p2p = *r.addMetric("mpi_point2point", communication);
    const auto lateSender = *r.addMetric("mpi_latesender", p2p);
    const auto synchronization = *r.addMetric("mpi_synchronization", mpi);
    const auto barrierWait = *r.addMetric("mpi_barrier_wait", synchronization);
    const auto initExit = *r.addMetric("mpi_init_exit", mpi);
    const auto delay = *r.addMetric("delay_latesender");
    const auto region = [&r](const std::string& name, const std::string& paradigm) {
        return *r.addRegion({.name = name, .paradigm = paradigm});
    };
    const auto app = *r.addCallNode(region("app", "user"), std::nullopt);
    const auto start = *r.addCallNode(region("__libc_start_main@@GLIBC_2.34", "sampling"), app);
    const auto main = *r.addCallNode(region("main", "sampling"), start);
    auto level = main;
    for (int i = 1; i <= 8; ++i) {
        level = *r.addCallNode(region(levelName(i), "sampling"), level);
    }
    const auto halo = *r.addCallNode(region("exchange_halo", "sampling"), level);
    const auto waitall = *r.addCallNode(region("MPI_Waitall", "mpi"), halo);
    const auto barrier = *r.addCallNode(region("MPI_Barrier", "mpi"), level);
    const auto init = *r.addCallNode(region("MPI_Init", "mpi"), main);
    const auto kernel = *r.addCallNode(region("compute_kernel", "sampling"), main);
    const auto clock = *r.addCallNode(region("__vdso_clock_gettime", "sampling"), kernel);
    out.waitallPath = r.callPath(waitall);
    const auto node = *r.addNode(*r.addMachine("cluster"), "node0");
    std::vector<report::LocationId> loc;
    for (int rank = 0; rank < 2; ++rank) {
        const auto process = *r.addProcess(node, "MPI Rank " + std::to_string(rank), rank);
        loc.push_back(r.systemNodes()[*r.addThread(process, "Master thread", 0)].location);
    }
    const auto set = [&r](report::MetricId m, report::CallNodeId c, report::LocationId l,
                          double v) { REQUIRE(r.setSeverity(m, c, l, v).ok()); };
    const double compute[2] = {6.0, 5.0};
    const double waitallTime[2] = {0.5, 2.0};
    const double barrierTime[2] = {0.05, 0.06};
    for (int rank = 0; rank < 2; ++rank) {
        set(time, clock, loc[rank], compute[rank]);
        set(comp, clock, loc[rank], compute[rank]);
        set(time, waitall, loc[rank], waitallTime[rank]);
        set(time, barrier, loc[rank], barrierTime[rank]);
        set(time, init, loc[rank], 0.1);
        set(initExit, init, loc[rank], 0.1);
        set(visits, waitall, loc[rank], 100);
        set(visits, barrier, loc[rank], 10);
    }
    // Each metric of the time split holds its whole time (a built report sums no metric
    // children).
    for (int rank = 0; rank < 2; ++rank) {
        set(mpi, waitall, loc[rank], waitallTime[rank]);
        set(mpi, barrier, loc[rank], barrierTime[rank]);
        set(mpi, init, loc[rank], 0.1);
        set(p2p, waitall, loc[rank], waitallTime[rank]);
        set(synchronization, barrier, loc[rank], barrierTime[rank]);
    }
    set(lateSender, waitall, loc[1], 1.5);
    set(barrierWait, barrier, loc[1], 0.06);
    set(delay, init, loc[0], 5.0);
    set(delay, app, loc[1], 4.0); // time outside main, on the program's root
    set(delay, clock, loc[0], 1.0);
    return out;
}

summary::Summary summaryOf(const report::Report& r) {
    const auto record = summary::MeasurementRecord::parse(
        "ranks=2\nprogram=/bin/app\nrank.0.init_hook_seconds=0.05\n"
        "rank.1.init_hook_seconds=0.05\n");
    auto s = summary::summarize(r, &record);
    REQUIRE(s.ok());
    return *s;
}

std::vector<std::string> linesOf(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        lines.push_back(line);
    }
    return lines;
}

/// Characters (UTF-8 code points) of a line.
size_t characters(const std::string& line) {
    size_t n = 0;
    for (const char c : line) {
        n += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
    }
    return n;
}

std::string allAdvice(const summary::Summary& s) {
    std::string text;
    for (const summary::Advice& a : s.advice) {
        text += a.text + "\n";
    }
    return text;
}

std::string runCommand(const std::string& command) {
    std::string output;
    FILE* pipe = popen((command + " 2>/dev/null").c_str(), "r");
    REQUIRE(pipe != nullptr);
    std::array<char, 4096> buffer{};
    size_t n = 0;
    while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) {
        output.append(buffer.data(), n);
    }
    pclose(pipe);
    return output;
}

} // namespace

TEST_CASE("a long call path is shown as its call and nearest known caller, the full path "
          "beside it") {
    const LongPathReport built = longPathReport();
    const summary::Summary s = summaryOf(built.report);
    REQUIRE_FALSE(s.findings.empty());
    const summary::Finding& top = s.findings.front();
    CHECK(top.metric == "mpi_latesender");
    CHECK(top.callPath == built.waitallPath);
    CHECK(top.shortPath == "\u2026/exchange_halo/MPI_Waitall");
    REQUIRE(s.findings.size() == 2);
    CHECK(s.findings[1].metric == "mpi_barrier_wait");
    // MPI_Barrier is called by the last long-named level directly.
    CHECK(s.findings[1].shortPath == "\u2026/" + levelName(8) + "/MPI_Barrier");
    // Paths of one or two calls stay as they are; libc frames are skipped to the program.
    report::Report small;
    const auto root =
        *small.addCallNode(*small.addRegion({.name = "app", .paradigm = "user"}), std::nullopt);
    const auto libc = *small.addCallNode(
        *small.addRegion({.name = "[unknown]@libc.so.6", .paradigm = "sampling"}), root);
    const auto unknown = *small.addCallNode(
        *small.addRegion({.name = "[unknown]@app", .paradigm = "sampling"}), libc);
    const auto send =
        *small.addCallNode(*small.addRegion({.name = "MPI_Send", .paradigm = "mpi"}), unknown);
    CHECK(summary::shortCallPath(small, libc) == "app/[unknown]@libc.so.6");
    // Short enough to read whole, it stays whole.
    CHECK(summary::shortCallPath(small, send) == "app/[unknown]@libc.so.6/[unknown]@app/MPI_Send");
    auto inner = send;
    for (int i = 0; i < 4; ++i) {
        inner = *small.addCallNode(
            *small.addRegion({.name = "__libc_internal_" + std::to_string(i), .paradigm = "s"}),
            inner);
    }
    const auto recv =
        *small.addCallNode(*small.addRegion({.name = "MPI_Recv", .paradigm = "mpi"}), inner);
    CHECK(summary::shortCallPath(small, recv) == "\u2026/MPI_Send/\u2026/MPI_Recv");
}

TEST_CASE("the text summary keeps long call paths within 100 columns and every advice bullet "
          "on a line of its own") {
    const summary::Summary s = summaryOf(longPathReport().report);
    const std::string text = summary::renderText(s);
    INFO(text);
    size_t bullets = 0;
    size_t evidence = 0;
    for (const std::string& line : linesOf(text)) {
        INFO(line);
        CHECK(characters(line) <= 100);
        bullets += line.rfind("  - ", 0) == 0 ? 1 : 0;
        evidence += line.rfind("    evidence: ", 0) == 0 ? 1 : 0;
        // A bullet never runs on after the evidence of the one before.
        CHECK((line.find("evidence:") == std::string::npos ||
               line.find(" - ", line.find("evidence:")) == std::string::npos));
    }
    CHECK(bullets == s.advice.size());
    CHECK(evidence == s.advice.size());
    CHECK(text.find("    call path: \u2026/exchange_halo/MPI_Waitall\n") != std::string::npos);
    // The full path is there, broken after a '/', nothing of it lost.
    const size_t full = text.find("    full path: app/__libc_start_main@@GLIBC_2.34/main/");
    REQUIRE(full != std::string::npos);
    std::string joined;
    for (size_t at = full + 15; text.compare(at, 4, "    ") != 0 || text[at + 4] == ' ';) {
        const size_t end = text.find('\n', at);
        std::string line = text.substr(at, end - at);
        line.erase(0, line.find_first_not_of(' '));
        joined += line;
        at = end + 1;
    }
    std::string expected = s.findings.front().callPath;
    // A break falls after a '/' or at a blank inside a name (which the joining drops).
    expected.erase(std::remove(expected.begin(), expected.end(), ' '), expected.end());
    joined.erase(std::remove(joined.begin(), joined.end(), ' '), joined.end());
    CHECK(joined == expected);
    CHECK(text.find('`') == std::string::npos);
}

TEST_CASE("advice stays quiet on small waits, names no MPI_Init or runtime frame as a cause, and "
          "says what a dominant computation does") {
    const summary::Summary s = summaryOf(longPathReport().report);
    const std::string advice = allAdvice(s);
    INFO(advice);
    // The 0.4 % barrier wait is a finding, but gets no advice.
    CHECK(advice.find("MPI_Barrier") == std::string::npos);
    // The root cause is the computation in compute_kernel, not the larger delays in MPI_Init
    // and outside main, and never the vDSO or libc frame the samples landed in.
    const summary::Finding& top = s.findings.front();
    REQUIRE_FALSE(top.causes.empty());
    CHECK(top.causes.front().shortPath == "\u2026/main/compute_kernel");
    CHECK(advice.find("MPI_Init") == std::string::npos);
    CHECK(advice.find("__vdso") == std::string::npos);
    CHECK(advice.find("__libc") == std::string::npos);
    CHECK(advice.find("The root-cause analysis points at rank 0 in `\u2026/main/compute_kernel`") !=
          std::string::npos);
    // Computation is 11 of 13.81 s: its hot spot comes first, named by its user function.
    REQUIRE_FALSE(s.advice.empty());
    CHECK(s.advice.front().text ==
          "Computation takes 79.7 % of the time; most of it is in `\u2026/main/compute_kernel` "
          "100.0 % of it. Faster code there shortens the run more than any change to the MPI "
          "communication.");
    CHECK(advice.find("Ranks 1 waits") == std::string::npos);
    CHECK(advice.find("Rank 1 waits in `\u2026/exchange_halo/MPI_Waitall` for messages") !=
          std::string::npos);
}

TEST_CASE("the summary header tells date, hosts, ranks x threads, wall time and what bounds "
          "the run") {
    summary::Summary s = summaryOf(longPathReport().report);
    s.date = "2026-11-25 04:01 UTC";
    CHECK(s.hosts == std::vector<std::string>{"node0"});
    CHECK(s.threadsPerRank == 1);
    CHECK(s.bound == "compute-bound: computation 79.7 %, waiting in MPI (wait states) 11.3 %, MPI "
                     "transfers and synchronization 7.6 %, MPI_Init and MPI_Finalize 1.4 % of the "
                     "time");
    const std::string text = summary::renderText(s);
    INFO(text);
    CHECK(text.find("\ndate:        2026-11-25 04:01 UTC\n"
                    "host:        node0 (1 node)\n"
                    "ranks:       2 ranks \u00d7 1 thread\n"
                    "wall time:   7.16 s (longest rank); 13.81 s summed over ranks\n"
                    "verdict:     compute-bound: computation 79.7 %, waiting in MPI (wait states) "
                    "11.3 %, MPI") != std::string::npos);
    CHECK(text.find("measurement: summed over 2 ranks: in MPI_Init 0.100 s") != std::string::npos);
    const std::string html = summary::renderHtml(s);
    CHECK(html.find("<tr><th>date</th><td>2026-11-25 04:01 UTC</td></tr>") != std::string::npos);
    CHECK(html.find("<tr><th>ranks</th><td>2 ranks &times; 1 thread</td></tr>") !=
          std::string::npos);
    CHECK(html.find("<tr><th>verdict</th><td class=\"verdict\">compute-bound:") !=
          std::string::npos);
}

TEST_CASE("a run that is mostly MPI_Init and MPI_Finalize is not called undisturbed") {
    report::Report r;
    const auto time = *r.addMetric("time");
    const auto execution = *r.addMetric("execution", time);
    const auto comp = *r.addMetric("comp", execution);
    const auto mpi = *r.addMetric("mpi", execution);
    const auto initExit = *r.addMetric("mpi_init_exit", mpi);
    const auto root =
        *r.addCallNode(*r.addRegion({.name = "app", .paradigm = "user"}), std::nullopt);
    const auto init = *r.addCallNode(*r.addRegion({.name = "MPI_Init", .paradigm = "mpi"}), root);
    const auto process = *r.addProcess(*r.addNode(*r.addMachine("m"), "n"), "MPI Rank 0", 0);
    const auto loc = r.systemNodes()[*r.addThread(process, "Master thread", 0)].location;
    REQUIRE(r.setSeverity(time, root, loc, 0.14).ok());
    REQUIRE(r.setSeverity(comp, root, loc, 0.14).ok());
    REQUIRE(r.setSeverity(time, init, loc, 0.86).ok());
    REQUIRE(r.setSeverity(initExit, init, loc, 0.86).ok());
    const auto record = summary::MeasurementRecord::parse(
        "ranks=1\nprogram=/bin/app\nrank.0.init_hook_seconds=0.6\n"
        "rank.0.init_measurement_seconds=0.05\nrank.0.finalize_write_seconds=0.2\n");
    auto s = summary::summarize(r, &record);
    REQUIRE(s.ok());
    CHECK(s->cost.startupDominated);
    CHECK_FALSE(s->cost.disturbed);
    CHECK(s->cost.verdict.find("did not noticeably disturb") == std::string::npos);
    CHECK(s->cost.verdict.rfind("MPI_Init and MPI_Finalize take 86.0 % of the run, the "
                                "measurement's setup (0.05 s) and trace writing (0.20 s) "
                                "included",
                                0) == 0);
    CHECK(s->bound == "start-up-bound: MPI_Init and MPI_Finalize 86.0 %, computation 14.0 % of the "
                      "time");
    CHECK(summary::renderHtml(*s).find("<tr><th>effect</th><td class=\"warn\">") !=
          std::string::npos);
}

TEST_CASE("the whole-process dilation adds the hooks' estimated cost, setup, flushes and "
          "writing at MPI_Finalize, and says where each comes from") {
    report::Report r;
    const auto time = *r.addMetric("time");
    const auto execution = *r.addMetric("execution", time);
    const auto comp = *r.addMetric("comp", execution);
    const auto root =
        *r.addCallNode(*r.addRegion({.name = "app", .paradigm = "user"}), std::nullopt);
    const auto process = *r.addProcess(*r.addNode(*r.addMachine("m"), "n"), "MPI Rank 0", 0);
    const auto loc = r.systemNodes()[*r.addThread(process, "Master thread", 0)].location;
    REQUIRE(r.setSeverity(time, root, loc, 10.0).ok());
    REQUIRE(r.setSeverity(comp, root, loc, 10.0).ok());
    // Hooks: 1e7 events x 10 ns + 5e6 unwound calls x 20 ns + 2e4 samples x 5 us = 0.3 s; setup
    // 0.2 s; writing 0.5 s: (10 + 0.5) / (10 - 0.3 - 0.2) = 1.105.
    const auto record = summary::MeasurementRecord::parse(
        "ranks=1\nprogram=/bin/app\nrank.0.init_measurement_seconds=0.2\n"
        "rank.0.finalize_write_seconds=0.5\nrank.0.events=10000000\n"
        "rank.0.unwound_calls=5000000\nrank.0.samples=20000\n");
    auto s = summary::summarize(r, &record);
    REQUIRE(s.ok());
    CHECK(s->cost.hookEstimate == Approx(0.3));
    CHECK(s->cost.wholeDilation == Approx(10.5 / 9.5));
    CHECK(s->cost.dilation ==
          "about 1.11x the uninstrumented run for the whole job: 10.500 s = 9.500 s of the "
          "program's own time + 0.300 s estimated in the measurement's hooks (10000000 events x "
          "10 ns, 5000000 unwound calls x 20 ns, 20000 samples x 5 us) + 0.200 s of its setup in "
          "MPI_Init + 0.000 s of buffer flushes + 0.500 s at MPI_Finalize (0.500 s of it writing "
          "the trace), summed over ranks; MPI_Init's and MPI_Finalize's own time and process "
          "exit are the program's");
    CHECK(summary::renderText(*s).find("dilation:    about 1.11x the uninstrumented run") !=
          std::string::npos);
    CHECK(summary::renderHtml(*s).find("<tr><th>dilation</th><td>about 1.11x") !=
          std::string::npos);
}

TEST_CASE("the whole-process dilation's parts add up to the run and the job exactly, the "
          "write counted once inside the time after MPI_Finalize's barrier") {
    report::Report r;
    const auto time = *r.addMetric("time");
    const auto execution = *r.addMetric("execution", time);
    const auto comp = *r.addMetric("comp", execution);
    const auto root =
        *r.addCallNode(*r.addRegion({.name = "app", .paradigm = "user"}), std::nullopt);
    const auto process0 = *r.addProcess(*r.addNode(*r.addMachine("m"), "n"), "MPI Rank 0", 0);
    const auto process1 = *r.addProcess(*r.addNode(*r.addMachine("m2"), "n2"), "MPI Rank 1", 1);
    const auto loc0 = r.systemNodes()[*r.addThread(process0, "Master thread", 0)].location;
    const auto loc1 = r.systemNodes()[*r.addThread(process1, "Master thread", 0)].location;
    REQUIRE(r.setSeverity(time, root, loc0, 4.0).ok());
    REQUIRE(r.setSeverity(time, root, loc1, 4.0).ok());
    REQUIRE(r.setSeverity(comp, root, loc0, 4.0).ok());
    REQUIRE(r.setSeverity(comp, root, loc1, 4.0).ok());
    // Two ranks: setup 0.125 + 0.25, flushes 0.0625, after the barrier 0.5 + 0.25 of which the
    // write 0.375 + 0.125; hooks 2^20 events x 10 ns + 2^18 unwound calls x 20 ns + 64 samples x
    // 5 us + 128 signals inside MPI x 2 us.
    const auto record = summary::MeasurementRecord::parse(
        "ranks=2\nprogram=/bin/app\n"
        "rank.0.init_measurement_seconds=0.125\nrank.1.init_measurement_seconds=0.25\n"
        "rank.1.flush_seconds=0.0625\nrank.1.flushes=1\n"
        "rank.0.finalize_measurement_seconds=0.5\nrank.1.finalize_measurement_seconds=0.25\n"
        "rank.0.finalize_write_seconds=0.375\nrank.1.finalize_write_seconds=0.125\n"
        "rank.0.events=524288\nrank.1.events=524288\nrank.0.unwound_calls=262144\n"
        "rank.1.samples=64\nrank.0.samples_in_mpi=100\nrank.1.samples_in_mpi=28\n");
    auto s = summary::summarize(r, &record);
    REQUIRE(s.ok());
    const summary::MeasurementCost& c = s->cost;
    const double hooks = 1048576 * 10e-9 + 262144 * 20e-9 + 64 * 5e-6 + 128 * 2e-6;
    CHECK(c.hookEstimate == Approx(hooks).epsilon(1e-12));
    CHECK(c.initMeasurement == 0.375);
    CHECK(c.flushSeconds == 0.0625);
    CHECK(c.atFinalize == 0.75);   // not 0.75 + the write again
    CHECK(c.finalizeWrite == 0.5); // a part of it
    CHECK(c.samplesInMpi == 128);
    // The run's 8 s: the program's own time plus everything the measurement did meanwhile.
    CHECK(c.ownTime + c.hookEstimate + c.initMeasurement + c.flushSeconds == Approx(8.0));
    CHECK(c.ownTime == Approx(8.0 - hooks - 0.375 - 0.0625));
    CHECK(c.wholeTime == 8.75);
    CHECK(c.wholeDilation == Approx(8.75 / (8.0 - hooks - 0.4375)));
    CHECK(c.dilation.rfind("about 1.16x the uninstrumented run for the whole job: 8.750 s = "
                           "7.546 s of the program's own time + 0.016 s estimated",
                           0) == 0);
    CHECK(c.dilation.find("128 timer signals inside MPI x 2 us") != std::string::npos);
    CHECK(c.dilation.find("+ 0.750 s at MPI_Finalize (0.500 s of it writing the trace)") !=
          std::string::npos);
}

TEST_CASE("MPI calls the measurement did not record are named in the summary, most frequent "
          "first, in the record or in the report's attributes") {
    report::Report r;
    const auto time = *r.addMetric("time");
    const auto root =
        *r.addCallNode(*r.addRegion({.name = "app", .paradigm = "user"}), std::nullopt);
    const auto process = *r.addProcess(*r.addNode(*r.addMachine("m"), "n"), "MPI Rank 0", 0);
    const auto loc = r.systemNodes()[*r.addThread(process, "Master thread", 0)].location;
    REQUIRE(r.setSeverity(time, root, loc, 1.0).ok());
    const auto record = summary::MeasurementRecord::parse(
        "ranks=4\nprogram=/bin/app\nunrecorded.MPI_Type_dup=3\nunrecorded.MPI_Type_dup.ranks=1\n"
        "unrecorded.MPI_Win_allocate_shared=12\nunrecorded.MPI_Win_allocate_shared.ranks=4\n");
    auto s = summary::summarize(r, &record);
    REQUIRE(s.ok());
    REQUIRE(s->unrecorded.size() == 2);
    CHECK(s->unrecorded[0].function == "MPI_Win_allocate_shared");
    CHECK(s->unrecorded[0].calls == 12);
    CHECK(s->unrecorded[0].ranks == 4);
    const std::string note = "MPI calls not recorded (their time counts as the calling code's): "
                             "MPI_Win_allocate_shared \u00d7 12 on 4 ranks, MPI_Type_dup \u00d7 3 "
                             "on 1 rank";
    CHECK(std::find(s->notes.begin(), s->notes.end(), note) != s->notes.end());
    const std::string text = summary::renderText(*s);
    CHECK(text.find("MPI calls not recorded") != std::string::npos);
    CHECK(text.find("MPI_Win_allocate_shared") != std::string::npos);

    // Without the record, the analyzer's copy in the report's attributes says the same.
    r.setAttribute("waitscope::measurement::unrecorded.MPI_Put", "7");
    r.setAttribute("waitscope::measurement::unrecorded.MPI_Put.ranks", "2");
    auto fromReport = summary::summarize(r, nullptr);
    REQUIRE(fromReport.ok());
    REQUIRE(fromReport->unrecorded.size() == 1);
    CHECK(fromReport->unrecorded[0].function == "MPI_Put");
    CHECK(fromReport->unrecorded[0].calls == 7);

    // Beyond the most frequent ones, the rest is counted.
    std::vector<summary::UnrecordedCall> many;
    many.reserve(10);
    for (int i = 0; i < 10; ++i)
        many.push_back({"MPI_F" + std::to_string(i), static_cast<std::uint64_t>(20 - i), 1});
    const std::string long_ = summary::unrecordedCallsNote(many, 8);
    CHECK(long_.find("MPI_F7 \u00d7 13 on 1 rank and 2 more functions") != std::string::npos);
    CHECK(summary::unrecordedCallsNote({}).empty());
}

TEST_CASE("a runtime profile's summary says wait states were not looked for, not that there "
          "are none") {
    report::Report r;
    const auto time = *r.addMetric("time");
    const auto root =
        *r.addCallNode(*r.addRegion({.name = "app", .paradigm = "user"}), std::nullopt);
    const auto recv = *r.addCallNode(
        *r.addRegion({.name = "MPI_Recv", .paradigm = "mpi", .role = "point2point"}), root);
    const auto process = *r.addProcess(*r.addNode(*r.addMachine("m"), "n"), "MPI Rank 0", 0);
    const auto loc = r.systemNodes()[*r.addThread(process, "Master thread", 0)].location;
    REQUIRE(r.setSeverity(time, root, loc, 1.0).ok());
    REQUIRE(r.setSeverity(time, recv, loc, 3.0).ok());
    auto s = summary::summarize(r, nullptr);
    REQUIRE(s.ok());
    CHECK_FALSE(s->waitStatesAvailable);
    const std::string text = summary::renderText(*s);
    INFO(text);
    CHECK(text.find("no wait state costs") == std::string::npos);
    CHECK(text.find("  not available: a runtime profile has no wait-state metrics") !=
          std::string::npos);
    CHECK(s->bound == "MPI-bound: MPI 75.0 %, computation 25.0 % of the time");
    const std::string html = summary::renderHtml(*s);
    CHECK(html.find("No wait state costs") == std::string::npos);
    CHECK(html.find("<p>Not available: a runtime profile has no wait-state metrics") !=
          std::string::npos);
}

TEST_CASE("the HTML summary quotes code as <code>, never as backticks, and opens the full call "
          "path below its short form") {
    const summary::Summary s = summaryOf(longPathReport().report);
    const std::string html = summary::renderHtml(s);
    CHECK(html.find('`') == std::string::npos);
    CHECK(html.find("<code>\u2026/<wbr>main/<wbr>compute_kernel</code>") != std::string::npos);
    CHECK(html.find("<details><summary><code title=\"app/__libc_start_main@@GLIBC_2.34/main/") !=
          std::string::npos);
    CHECK(html.find("\">\u2026/exchange_halo/MPI_Waitall</code></summary><code class=\"path\">") !=
          std::string::npos);
}

TEST_CASE("the HTML summary of long call paths fits a 1280 px window in Chromium") {
    const std::string chromium = WAITSCOPE_TEST_CHROMIUM;
    if (chromium.empty() || chromium.find("NOTFOUND") != std::string::npos) {
        WARN("chromium not installed: the HTML page was not rendered");
        return;
    }
    const summary::Summary s = summaryOf(longPathReport().report);
    std::string html = summary::renderHtml(s);
    // The page's widest extent, written into the DOM for --dump-dom to show.
    const std::string probe =
        "<script>window.addEventListener('load',()=>{document.body.setAttribute('data-width',"
        "String(Math.max(document.documentElement.scrollWidth,document.body.scrollWidth)));});"
        "</script>\n</body>";
    html.replace(html.rfind("</body>"), 7, probe);
    const fs::path dir = fs::path(WAITSCOPE_TEST_WORKDIR) / "summary_1280";
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::ofstream(dir / "summary.html") << html;
    const std::string flags = " --headless --no-sandbox --disable-gpu --no-first-run "
                              "--disable-background-networking --disable-component-update "
                              "--disable-sync --user-data-dir=" +
                              (dir / "profile").string() + " --window-size=1280,2000 ";
    const std::string dom =
        runCommand(chromium + flags + "--dump-dom file://" + (dir / "summary.html").string());
    const size_t at = dom.find("data-width=\"");
    REQUIRE(at != std::string::npos);
    const int width = std::stoi(dom.substr(at + 12));
    INFO("the page is " << width << " px wide");
    CHECK(width <= 1280);
    CHECK(width > 600);
    // A screenshot to look at: tests/journey/work/summary_1280/summary.png in the build tree.
    runCommand(chromium + flags + "--screenshot=" + (dir / "summary.png").string() + " file://" +
               (dir / "summary.html").string());
    CHECK(fs::exists(dir / "summary.png"));
}

TEST_CASE("findings in a stripped program tell how to get the function names") {
    report::Report r;
    const auto time = *r.addMetric("time");
    const auto lateSender = *r.addMetric("mpi_latesender", time);
    const auto root =
        *r.addCallNode(*r.addRegion({.name = "app", .paradigm = "user"}), std::nullopt);
    const auto unknown =
        *r.addCallNode(*r.addRegion({.name = "[unknown]@app", .paradigm = "sampling"}), root);
    const auto recv =
        *r.addCallNode(*r.addRegion({.name = "MPI_Recv", .paradigm = "mpi"}), unknown);
    const auto process = *r.addProcess(*r.addNode(*r.addMachine("m"), "n"), "MPI Rank 0", 0);
    const auto loc = r.systemNodes()[*r.addThread(process, "Master thread", 0)].location;
    REQUIRE(r.setSeverity(time, recv, loc, 1.0).ok());
    REQUIRE(r.setSeverity(lateSender, recv, loc, 0.5).ok());
    auto s = summary::summarize(r, nullptr);
    REQUIRE(s.ok());
    const auto has = [&s](const std::string& text) {
        return std::any_of(s->notes.begin(), s->notes.end(), [&text](const std::string& note) {
            return note.find(text) != std::string::npos;
        });
    };
    CHECK(has("the call paths pass through functions without symbols ([unknown]@app): the "
              "program or library is stripped"));
    CHECK_FALSE(std::any_of(s->notes.begin(), s->notes.end(), [](const std::string& note) {
        return note.find("without symbols") != std::string::npos &&
               note.find("MPI_Recv") != std::string::npos;
    }));
    auto named = summary::summarize(longPathReport().report, nullptr);
    REQUIRE(named.ok());
    for (const std::string& note : named->notes) {
        CHECK(note.find("without symbols") == std::string::npos);
    }
}

TEST_CASE("an experiment without a report is told only the command that can make one") {
    const fs::path dir = fs::path(WAITSCOPE_TEST_WORKDIR) / "no_report";
    fs::remove_all(dir);
    fs::create_directories(dir / "traced");
    fs::create_directories(dir / "empty");
    std::ofstream(dir / "traced/traces.otf2") << "";
    auto traced = summary::summarizeExperiment((dir / "traced").string());
    REQUIRE_FALSE(traced.ok());
    CHECK(traced.error().message() == (dir / "traced/report.cubex").string() +
                                          ": no report (analyze the traces with `waitscope "
                                          "analyze -a " +
                                          (dir / "traced").string() + "`)");
    auto empty = summary::summarizeExperiment((dir / "empty").string());
    REQUIRE_FALSE(empty.ok());
    CHECK(empty.error().message().find("-a") == std::string::npos);
    CHECK(empty.error().message().find("measure and analyze a run with `waitscope analyze mpirun "
                                       "-np N <program>` first") != std::string::npos);
}

TEST_CASE("the summary says when one rank or a few do the file I/O while the others wait at "
          "collective I/O") {
    using waitscope::summary::fileIoNote;
    using waitscope::summary::RankValue;
    // Rank 0 writes 1.2 GB, 63 ranks wait 0.5 s each.
    std::vector<RankValue> written = {{0, 1.2e9}}, read, wait;
    for (int r = 1; r < 64; ++r) {
        wait.push_back({r, 0.5});
    }
    CHECK(fileIoNote(written, read, wait, 64) ==
          "file I/O: rank 0 writes 1.2 GB alone while 63 ranks wait at collective I/O (31.5 s in "
          "all)");
    // Two of eight ranks read; the waits of the readers themselves are not counted.
    CHECK(fileIoNote({}, {{3, 4e6}, {5, 4e6}, {1, 1e3}}, {{3, 1.0}, {0, 0.25}, {2, 0.25}}, 8) ==
          "file I/O: ranks 3,5 read 8.0 MB of 8.0 MB while 2 ranks wait at collective I/O (0.5 s "
          "in all)");
    // Every rank writes its share (late_collective_write): no note, whoever waits.
    CHECK(fileIoNote({{0, 4096}, {1, 4096}, {2, 4096}, {3, 4096}}, {}, {{0, 2.0}, {1, 2.0}}, 4)
              .empty());
    // One rank writes, nobody waits: no note.
    CHECK(fileIoNote({{0, 1e6}}, {}, {}, 4).empty());
    // No I/O at all.
    CHECK(fileIoNote({}, {}, {{1, 1.0}}, 4).empty());
}
