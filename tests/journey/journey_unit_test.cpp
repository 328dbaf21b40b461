// Unit tests of the journey commands' parts: launcher parsing, ELF inspection, the summary of
// reference reports, and the trace-size estimate against Score-P's real traces.
#include "elf_needed.h"
#include "filter_suggestion.h"
#include "launch_command.h"
#include "trace_size_estimate.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <waitscope/report/cubex_reader.h>
#include <waitscope/summary/experiment_summary.h>
#include <waitscope/summary/measurement_record.h>
#include <waitscope/summary/summary.h>

using namespace waitscope;
namespace fs = std::filesystem;

namespace {

const std::string kReference = WAITSCOPE_TEST_REFERENCE;

std::vector<std::int64_t> ranksOf(const std::vector<summary::RankValue>& values) {
    std::vector<std::int64_t> out;
    for (const auto& v : values) {
        out.push_back(v.rank);
    }
    std::sort(out.begin(), out.end());
    return out;
}

summary::Summary summaryOf(const std::string& example) {
    auto result = summary::summarizeExperiment(kReference + "/" + example + "/trace.cubex");
    REQUIRE(result.ok());
    return *result;
}

} // namespace

TEST_CASE("an mpirun command line yields ranks, launcher options and program") {
    auto c = analysis::parseLaunchCommand({"mpirun", "--oversubscribe", "-np", "4", "--mca", "btl",
                                           "self,vader", "-x", "A=1", "./app", "-np", "9", "arg"});
    REQUIRE(c.ok());
    CHECK(c->ranks == 4);
    CHECK(c->program == "./app");
    CHECK(c->programArguments == std::vector<std::string>{"-np", "9", "arg"});
    CHECK(c->launcherOptions ==
          std::vector<std::string>{"--oversubscribe", "--mca", "btl", "self,vader", "-x", "A=1"});
    CHECK(c->commandLine({"-x", "B=2"}, "./other", {}) ==
          std::vector<std::string>{"mpirun", "-x", "B=2", "-np", "4", "--oversubscribe", "--mca",
                                   "btl", "self,vader", "-x", "A=1", "./other"});
}

TEST_CASE("mpiexec -n and srun --ntasks, -n N and -nN give the rank count") {
    CHECK(analysis::parseLaunchCommand({"/usr/bin/mpiexec", "-n", "2", "app"})->ranks == 2);
    CHECK(analysis::parseLaunchCommand({"srun", "--ntasks=8", "-p", "debug", "app"})->ranks == 8);
    CHECK(analysis::parseLaunchCommand({"srun", "-N", "2", "-n", "16", "app"})->ranks == 16);
    CHECK(analysis::parseLaunchCommand({"srun", "-n4", "app"})->ranks == 4);
    auto s = analysis::parseLaunchCommand({"srun", "--ntasks", "3", "app"});
    REQUIRE(s.ok());
    CHECK(s->kind == analysis::LauncherKind::Slurm);
    CHECK(s->exportOptions({{"A", "1"}, {"B", "2"}}) ==
          std::vector<std::string>{"--export=ALL,A=1,B=2"});
}

TEST_CASE("launcher command lines that cannot be used are refused with a clear message") {
    auto unknown = analysis::parseLaunchCommand({"aprun", "-n", "4", "./app"});
    REQUIRE_FALSE(unknown.ok());
    CHECK(unknown.error().message() ==
          "launcher 'aprun' is not supported (use mpirun, mpiexec or srun, followed by the "
          "program)");
    auto badCount = analysis::parseLaunchCommand({"mpirun", "-np", "four", "./app"});
    REQUIRE_FALSE(badCount.ok());
    CHECK(badCount.error().message() ==
          "mpirun: rank count 'four' of -np is not a positive number");
    auto noProgram = analysis::parseLaunchCommand({"mpirun", "-np", "2"});
    REQUIRE_FALSE(noProgram.ok());
    CHECK(noProgram.error().message() == "mpirun: no program to run after the launcher options");
    CHECK_FALSE(analysis::parseLaunchCommand({}).ok());
}

TEST_CASE("the ELF reader finds the libraries a binary needs") {
    auto self = analysis::neededLibraries("/proc/self/exe");
    REQUIRE(self.ok());
    CHECK(std::find_if(self->begin(), self->end(), [](const std::string& s) {
              return s.find("libc.so") != std::string::npos;
          }) != self->end());
    auto library = analysis::neededLibraries(WAITSCOPE_TEST_LIBRARY);
    REQUIRE(library.ok());
    CHECK(std::find_if(library->begin(), library->end(), [](const std::string& s) {
              return s.find("libmpi") != std::string::npos;
          }) != library->end());
    auto text = analysis::neededLibraries(kReference + "/README.md");
    REQUIRE_FALSE(text.ok());
    CHECK(text.error().message() == kReference + "/README.md: not a 64-bit ELF executable");
    CHECK(analysis::findInPath("sh").has_value());
    CHECK_FALSE(analysis::findInPath("no-such-program-waitscope").has_value());
}

TEST_CASE("the measurement record sums and maximizes per-rank values") {
    const auto record = summary::MeasurementRecord::parse(
        "# comment\nversion=1\nprogram=/x/app\nranks=2\nrank.0.flushes=1\nrank.1.flushes=3\n"
        "rank.0.flush_seconds=0.5\nbroken line\n");
    CHECK(record.ranks() == 2);
    CHECK(record.text("program") == "/x/app");
    CHECK(record.sumOverRanks("flushes") == 4.0);
    CHECK(record.maxOverRanks("flushes") == 3.0);
    CHECK(record.sumOverRanks("flush_seconds") == 0.5);
    CHECK(record.number("missing", 7.0) == 7.0);
}

TEST_CASE("the summary of Scalasca's late_sender report names the Late Sender first, with its "
          "cause") {
    const auto s = summaryOf("late_sender");
    CHECK(s.ranks == 4);
    REQUIRE_FALSE(s.findings.empty());
    const auto& top = s.findings.front();
    CHECK(top.metric == "mpi_latesender");
    CHECK(top.callPath == "late_sender/main/MPI_Recv");
    CHECK(ranksOf(top.ranks) == std::vector<std::int64_t>{1, 3});
    CHECK(top.seconds == Approx(2.0259).epsilon(0.001));
    CHECK(top.share == Approx(2.0259 / 5.6100).epsilon(0.001));
    REQUIRE_FALSE(top.causes.empty());
    CHECK(top.causes.front().metric == "delay_latesender");
    CHECK(ranksOf(top.causes.front().ranks) == std::vector<std::int64_t>{0, 2});
    CHECK(s.split.total == Approx(5.6100).epsilon(0.001));
    CHECK(s.split.computation == Approx(2.0511).epsilon(0.001));
    CHECK(s.split.mpi == Approx(3.5590).epsilon(0.001));
    CHECK(s.rootCauseAvailable);
    const std::string text = summary::renderText(s);
    CHECK(text.find(" 1. Late Sender (mpi_latesender)") != std::string::npos);
    CHECK(text.find("caused by: ranks 0 (") != std::string::npos);
}

TEST_CASE("each reference report's summary ranks its injected wait state first") {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"late_receiver", "mpi_latereceiver"}, {"wait_at_barrier", "mpi_barrier_wait"},
        {"wait_nxn", "mpi_wait_nxn"},          {"late_broadcast", "mpi_latebroadcast"},
        {"early_reduce", "mpi_earlyreduce"},   {"nb_late_sender", "mpi_latesender"},
    };
    for (const auto& [example, metric] : cases) {
        INFO(example);
        const auto s = summaryOf(example);
        REQUIRE_FALSE(s.findings.empty());
        CHECK(s.findings.front().metric == metric);
        CHECK_FALSE(s.advice.empty());
    }
}

TEST_CASE("the HTML summary is one page with inline SVG charts and no external resources") {
    const auto s = summaryOf("wait_nxn");
    const std::string html = summary::renderHtml(s);
    CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
    CHECK(html.find("<h2>Where the time went</h2>") != std::string::npos);
    CHECK(html.find("<h2>Top findings</h2>") != std::string::npos);
    CHECK(html.find("<h2>Waiting time per rank</h2>") != std::string::npos);
    CHECK(html.find("<h2>Advice</h2>") != std::string::npos);
    CHECK(html.find("aria-label=\"time split\"") != std::string::npos);
    CHECK(html.find("aria-label=\"waiting time per rank\"") != std::string::npos);
    CHECK(html.find("src=") == std::string::npos);
    CHECK(html.find("href=") == std::string::npos);
    CHECK(html.find("Wait at N x N") != std::string::npos);
}

TEST_CASE("a summary without waitscope.measurement says the measurement cost is unknown") {
    const auto s = summaryOf("late_sender");
    CHECK_FALSE(s.cost.known);
    CHECK(s.cost.verdict.find("unknown") != std::string::npos);
    auto missing = summary::summarizeExperiment(kReference + "/no_such_experiment");
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.error().message().find(kReference + "/no_such_experiment: no report") == 0);
}

TEST_CASE("the summary of a Scalasca experiment directory reads its combined trace.cubex") {
    auto s = summary::summarizeExperiment(kReference + "/late_sender");
    INFO((s ? std::string() : s.error().message()));
    REQUIRE(s.ok());
    CHECK(s->source == kReference + "/late_sender/trace.cubex");
}

TEST_CASE("the trace-size estimate of every Score-P profile is within 20 % of the real trace") {
    for (const auto& entry : fs::directory_iterator(kReference)) {
        if (!fs::exists(entry.path() / "profile.cubex")) {
            continue;
        }
        INFO(entry.path().filename().string());
        auto profile = report::readCubex((entry.path() / "profile.cubex").string());
        REQUIRE(profile.ok());
        const analysis::EventSizes& sizes = analysis::sizesFor(*profile);
        CHECK(std::string(sizes.format) == "scorep");
        auto estimate = analysis::estimateTraceSize(*profile, sizes);
        REQUIRE(estimate.ok());
        double real = 0.0;
        for (const auto& file : fs::recursive_directory_iterator(entry.path() / "trace")) {
            if (file.is_regular_file()) {
                real += static_cast<double>(file.file_size());
            }
        }
        CHECK(estimate->totalBytes == Approx(real).epsilon(0.20));
        // Tighter than the requirement, to notice when the model drifts.
        CHECK(estimate->totalBytes == Approx(real).epsilon(0.05));
        CHECK(estimate->bytesPerRank.size() == 4);
    }
}

TEST_CASE("score lists a function once, without its symbol version, and neither the program "
          "itself nor sampled functions") {
    report::Report profile;
    const report::MetricId visits =
        *profile.addMetric("visits", std::nullopt, report::DataType::Uint64);
    const report::RegionId program =
        *profile.addRegion({.name = "hpcc", .paradigm = "measurement"});
    const report::RegionId libc = *profile.addRegion(
        {.name = "memcpy@@GLIBC_2.14", .file = "/usr/lib/libc.so.6", .paradigm = "user"});
    const report::RegionId again =
        *profile.addRegion({.name = "memcpy", .file = "/usr/lib/libc.so.6", .paradigm = "user"});
    const report::RegionId send = *profile.addRegion(
        {.name = "MPI_Send", .file = "MPI", .paradigm = "mpi", .role = "point2point"});
    const report::CallNodeId root = *profile.addCallNode(program, std::nullopt);
    const report::CallNodeId first = *profile.addCallNode(libc, root);
    const report::CallNodeId sendNode = *profile.addCallNode(send, first);
    const report::CallNodeId second = *profile.addCallNode(again, root);
    const report::RegionId sampled = *profile.addRegion(
        {.name = "__vdso_clock_gettime", .file = "[vdso]", .paradigm = "sampling"});
    const report::CallNodeId sampledNode = *profile.addCallNode(sampled, root);
    const report::SystemNodeId machine = *profile.addMachine("m");
    const report::SystemNodeId rank = *profile.addProcess(machine, "MPI Rank 0", 0);
    const report::LocationId loc = profile.systemNodes()[*profile.addThread(rank, "t", 0)].location;
    REQUIRE(profile.setSeverity(visits, root, loc, 1).ok());
    REQUIRE(profile.setSeverity(visits, first, loc, 10).ok());
    REQUIRE(profile.setSeverity(visits, second, loc, 5).ok());
    REQUIRE(profile.setSeverity(visits, sendNode, loc, 3).ok());
    REQUIRE(profile.setSeverity(visits, sampledNode, loc, 7).ok());
    auto estimate = analysis::estimateTraceSize(profile, analysis::kWaitscopeSizes);
    REQUIRE(estimate.ok());
    std::map<std::string, std::pair<std::string, std::uint64_t>> listed;
    for (const auto& r : estimate->regions) {
        INFO(r.name);
        CHECK(listed.count(r.name) == 0);
        listed[r.name] = {r.kind, r.visits};
    }
    CHECK(listed.size() == 2);
    CHECK(listed["memcpy"] == std::make_pair(std::string("USR"), std::uint64_t{15}));
    CHECK(listed["MPI_Send"] == std::make_pair(std::string("MPI"), std::uint64_t{3}));
    CHECK(listed.count("hpcc") == 0);
    CHECK(listed.count("__vdso_clock_gettime") == 0); // sampled: no visits of its own to filter
}

TEST_CASE("the suggested filter excludes only short, frequent user regions, in Score-P syntax") {
    analysis::TraceSizeEstimate estimate;
    estimate.eventBytes = 1e6;
    estimate.totalBytes = 1.1e6;
    estimate.regions = {
        {"tiny_helper", "", "USR", true, 40000, 10000, 6.6e5, 0.04},
        {"add(double, double)", "_Z3adddd", "COM", true, 40000, 10000, 6.6e5, 0.04},
        {"MPI_Send", "", "MPI", false, 40000, 10000, 3e5, 0.0004},
        {"solve", "", "USR", true, 4, 1, 100, 8.0},
        {"rare_short", "", "USR", true, 8, 2, 200, 1e-6},
    };
    const auto chosen = analysis::regionsToFilter(estimate);
    REQUIRE(chosen.size() == 2);
    CHECK(chosen.front()->name == "tiny_helper");
    const std::string text = analysis::filterFileText(estimate, chosen);
    CHECK(text.find("SCOREP_REGION_NAMES_BEGIN\n") != std::string::npos);
    CHECK(text.find("  EXCLUDE tiny_helper\n") != std::string::npos);
    // A name with blanks would split into two patterns: the mangled name stands for it.
    CHECK(text.find("  EXCLUDE MANGLED _Z3adddd\n") != std::string::npos);
    CHECK(text.find("SCOREP_REGION_NAMES_END\n") != std::string::npos);
    CHECK(text.find("MPI_Send") == std::string::npos);
}

TEST_CASE("clock condition violations are told with their count, share and ranks; only a "
          "significant share calls waiting times unreliable and suggests --time-correct") {
    auto report = report::readCubex(kReference + "/late_sender/trace.cubex");
    REQUIRE(report);
    auto clean = summary::summarize(*report, nullptr);
    REQUIRE(clean);
    CHECK(summary::clockViolationNote(*clean).empty());
    // late_sender: 10 sends, 10 receives and 8 barrier calls.
    CHECK(clean->clock.mpiCalls == Approx(28));
    report->setAttribute("waitscope::diagnostic::clock_violations_p2p", "5");
    report->setAttribute("waitscope::diagnostic::clock_violations_p2p::rank1", "5");
    report->setAttribute("waitscope::diagnostic::clock_violations_collective", "2");
    report->setAttribute("waitscope::diagnostic::clock_violations_collective::rank3", "2");
    auto violated = summary::summarize(*report, nullptr);
    REQUIRE(violated);
    violated->source = "/data/exp/report.cubex";
    CHECK(violated->clock.significant);
    CHECK(summary::clockViolationNote(*violated) ==
          "the timestamps violate the clock condition 7 times in 28 MPI communication calls "
          "(25.00 %): on ranks 1 and 3, 5 receives ended before their send began and 2 "
          "collectives were left before a member entered; the ranks' clocks disagree, so the "
          "waiting times are unreliable: analyze again with `waitscope analyze --time-correct -a "
          "/data/exp`");
    CHECK(summary::renderText(*violated).find("--time-correct -a /data/exp") != std::string::npos);
    // The same count among many calls is a handful: said, but not called unreliable.
    violated->clock.mpiCalls = 38017;
    violated->clock.significant = false;
    const std::string few = summary::clockViolationNote(*violated);
    CHECK(few.find("7 times in 38017 MPI communication calls (0.02 %)") != std::string::npos);
    CHECK(few.find("too few to change the waiting times noticeably") != std::string::npos);
    CHECK(few.find("unreliable") == std::string::npos);
    CHECK(few.find("--time-correct") == std::string::npos);
    violated->clock.mpiCalls = 1e6;
    CHECK(summary::clockViolationNote(*violated).find("in 1000000 MPI communication calls (under "
                                                      "0.01 %)") != std::string::npos);
    violated->clock.mpiCalls = 38017;
    // Only the kinds that occur are told.
    violated->clock.collective = 0;
    CHECK(summary::clockViolationNote(*violated).find(
              ": on ranks 1 and 3, 5 receives ended before their send began; too few") !=
          std::string::npos);
    report->setAttribute("waitscope::diagnostic::clock_corrected_p2p", "5");
    auto corrected = summary::summarize(*report, nullptr);
    REQUIRE(corrected);
    CHECK(summary::clockViolationNote(*corrected).empty());
}

TEST_CASE("the measurement record is read back from a report's attributes") {
    report::Report r;
    r.setAttribute("creator", "waitscope-replay");
    r.setAttribute("waitscope::measurement::ranks", "2");
    r.setAttribute("waitscope::measurement::rank.1.flushes", "5");
    const auto record = summary::MeasurementRecord::fromReport(r);
    CHECK_FALSE(record.empty());
    CHECK(record.ranks() == 2);
    CHECK(record.sumOverRanks("flushes") == 5.0);
    CHECK(record.text("creator").empty());
    CHECK(summary::MeasurementRecord::fromReport(report::Report()).empty());
}

namespace {

/// A 4-rank report in which rank 0 computes alone in `app` while ranks 1-3 wait in
/// app/MPI_Allreduce (the rank-0 serialization the examples inject).
report::Report rankZeroSerialReport(double scale = 1.0) {
    report::Report r;
    const auto time = *r.addMetric("time");
    const auto execution = *r.addMetric("execution", time);
    const auto comp = *r.addMetric("comp", execution);
    const auto mpi = *r.addMetric("mpi", execution);
    const auto communication = *r.addMetric("mpi_communication", mpi);
    const auto collective = *r.addMetric("mpi_collective", communication);
    const auto nxn = *r.addMetric("mpi_wait_nxn", collective);
    const auto app = *r.addRegion({.name = "app", .paradigm = "user"});
    const auto allreduce = *r.addRegion({.name = "MPI_Allreduce", .paradigm = "mpi"});
    const auto root = *r.addCallNode(app, std::nullopt);
    const auto call = *r.addCallNode(allreduce, root);
    const auto machine = *r.addMachine("machine");
    const auto node = *r.addNode(machine, "node0");
    std::vector<report::LocationId> locations;
    for (int rank = 0; rank < 4; ++rank) {
        const auto process = *r.addProcess(node, "MPI Rank " + std::to_string(rank), rank);
        locations.push_back(r.systemNodes()[*r.addThread(process, "Master thread", 0)].location);
    }
    for (int rank = 0; rank < 4; ++rank) {
        const double work = scale * (rank == 0 ? 4.0 : 1.0);
        const double wait = scale * (rank == 0 ? 0.0 : 3.0);
        REQUIRE(r.setSeverity(comp, root, locations[rank], work).ok());
        REQUIRE(r.setSeverity(nxn, call, locations[rank], wait).ok());
        REQUIRE(r.setSeverity(time, root, locations[rank], work).ok());
        REQUIRE(r.setSeverity(time, call, locations[rank], wait + scale * 0.1).ok());
    }
    return r;
}

} // namespace

TEST_CASE("rank 0 computing alone while the others wait in MPI_Allreduce is named as the fix") {
    const report::Report r = rankZeroSerialReport();
    const auto record = summary::MeasurementRecord::parse("ranks=4\nprogram=/bin/app\n");
    auto s = summary::summarize(r, &record);
    REQUIRE(s.ok());
    CHECK(s->ranks == 4);
    CHECK(s->nodes == 1);
    CHECK(s->wallSeconds == Approx(4.1));
    REQUIRE(s->findings.size() == 1);
    CHECK(s->findings[0].callPath == "app/MPI_Allreduce");
    CHECK(ranksOf(s->findings[0].ranks) == std::vector<std::int64_t>{1, 2, 3});
    CHECK(s->findings[0].seconds == Approx(9.0));
    REQUIRE(s->advice.size() == 2);
    CHECK(s->advice[0].text ==
          "Rank 0 alone spends 97.6 % of the run computing in `app` while ranks 1, 2 and 3 wait "
          "in `MPI_Allreduce` (Wait at N x N, 54.9 % of the total time). This serial work is the "
          "thing to fix: share it among the ranks, or overlap it with the others' work.");
    CHECK(s->advice[0].evidence ==
          "comp at `app`: 4.00 s on the busiest rank vs 1.00 s on average on the others; "
          "mpi_wait_nxn at `app/MPI_Allreduce`: 9.00 s in total");
    CHECK(s->waitingPerRank.size() == 4);
    CHECK(s->waitingPerRank[0].seconds == 0.0);
    CHECK(s->waitingPerRank[3].seconds == Approx(3.0));
}

TEST_CASE("with root-cause metrics, rank 0's serial function is named with its time, the ranks "
          "waiting for it and its share of the critical path") {
    // The report of rankZeroSerialReport(), plus app/write_output visited by rank 0 alone
    // (3.0 s, all on the critical path) and the imbalance and critical-path metrics.
    report::Report r = rankZeroSerialReport();
    const auto time = *r.findMetric("time");
    const auto comp = *r.findMetric("comp");
    const auto visits = *r.addMetric("visits");
    const auto imbalance = *r.addMetric("imbalance");
    const auto above = *r.addMetric("imbalance_above", imbalance);
    const auto single = *r.addMetric("imbalance_above_single", above);
    const auto critical = *r.addMetric("critical_path");
    const auto write = *r.addRegion({.name = "write_output", .paradigm = "user"});
    const auto app = r.rootCallNodes().front();
    const auto serial = *r.addCallNode(write, app);
    const std::vector<report::LocationId> locations = {0, 1, 2, 3}; // added in rank order
    REQUIRE(r.locations().size() == 4);
    for (int rank = 0; rank < 4; ++rank) {
        REQUIRE(r.setSeverity(visits, app, locations[rank], 1).ok());
    }
    REQUIRE(r.setSeverity(visits, serial, locations[0], 5).ok());
    REQUIRE(r.setSeverity(time, serial, locations[0], 3.0).ok());
    REQUIRE(r.setSeverity(comp, serial, locations[0], 3.0).ok());
    REQUIRE(r.setSeverity(single, serial, locations[0], 2.25).ok());
    REQUIRE(r.setSeverity(critical, serial, locations[0], 3.0).ok());
    const auto record = summary::MeasurementRecord::parse("ranks=4\nprogram=/bin/app\n");
    auto s = summary::summarize(r, &record);
    REQUIRE(s.ok());
    REQUIRE(!s->advice.empty());
    CHECK(s->advice[0].text ==
          "Rank 0 alone spends 3.00 s in `write_output` while ranks 1, 2 and 3 wait for it in "
          "`MPI_Allreduce` (Wait at N x N, 46.4 % of the total time). This serial work is the "
          "thing to fix: 3.00 s of it lies on the critical path, so the run waits for it; shared "
          "among all 4 ranks it would take 0.75 s per rank.");
    CHECK(s->advice[0].evidence ==
          "imbalance_above_single at `app/write_output`: 2.25 s on rank 0; critical_path there: "
          "3.00 s; mpi_wait_nxn at `app/MPI_Allreduce`: 9.00 s in total");

    // Without the critical path the sentence leaves it out; work every rank does is not serial.
    REQUIRE(r.setSeverity(critical, serial, locations[0], 0.0).ok());
    s = summary::summarize(r, &record);
    REQUIRE(s.ok());
    CHECK(s->advice[0].text.find("critical path") == std::string::npos);
    CHECK(s->advice[0].text.find("Rank 0 alone spends 3.00 s in `write_output`") == 0);
    for (int rank = 1; rank < 4; ++rank) {
        REQUIRE(r.setSeverity(visits, serial, locations[rank], 5).ok());
    }
    s = summary::summarize(r, &record);
    REQUIRE(s.ok());
    CHECK(s->advice[0].text.find("`write_output`") == std::string::npos);
}

TEST_CASE("a hybrid rank's wall time is its longest thread's, and its threads' time is told") {
    report::Report r;
    const auto time = *r.addMetric("time");
    const auto app = *r.addRegion({.name = "app", .paradigm = "user"});
    const auto worker = *r.addRegion({.name = "worker_fn", .paradigm = "user"});
    const auto root = *r.addCallNode(app, std::nullopt);
    const auto work = *r.addCallNode(worker, std::nullopt);
    const auto node = *r.addNode(*r.addMachine("machine"), "node0");
    std::vector<report::LocationId> locations;
    for (int rank = 0; rank < 2; ++rank) {
        const auto process = *r.addProcess(node, "MPI Rank " + std::to_string(rank), rank);
        locations.push_back(r.systemNodes()[*r.addThread(process, "Master thread", 0)].location);
        if (rank == 0) {
            for (int k = 1; k <= 2; ++k) {
                locations.push_back(
                    r.systemNodes()[*r.addThread(process, "thread " + std::to_string(k), k)]
                        .location);
            }
        }
    }
    // Rank 0: main thread 2 s, two sampled threads 1.5 s each; rank 1: 1.8 s.
    REQUIRE(r.setSeverity(time, root, locations[0], 2.0).ok());
    REQUIRE(r.setSeverity(time, work, locations[1], 1.5).ok());
    REQUIRE(r.setSeverity(time, work, locations[2], 1.5).ok());
    REQUIRE(r.setSeverity(time, root, locations[3], 1.8).ok());
    auto s = summary::summarize(r, nullptr);
    REQUIRE(s.ok());
    CHECK(s->ranks == 2);
    CHECK(s->wallSeconds == Approx(2.0));
    CHECK(s->threads == 2);
    CHECK(s->threadSeconds == Approx(3.0));
    CHECK(summary::renderText(*s).find(
              "\nthreads:     2 beside the ranks' main threads, 3.00 s of the summed time\n") !=
          std::string::npos);
    CHECK(summary::renderHtml(*s).find("<tr><th>threads</th><td>2 beside") != std::string::npos);
    // Without threads there is no such line.
    auto single = summary::summarize(rankZeroSerialReport(), nullptr);
    REQUIRE(single.ok());
    CHECK(single->threads == 0);
    CHECK(summary::renderText(*single).find("threads:") == std::string::npos);
}

TEST_CASE("serial work too small to share is not told as taking 0.00 s per rank") {
    // rankZeroSerialReport() at a thousandth of its times, with rank 0's write_output (3 ms).
    report::Report r = rankZeroSerialReport(0.001);
    const auto time = *r.findMetric("time");
    const auto visits = *r.addMetric("visits");
    const auto imbalance = *r.addMetric("imbalance");
    const auto single =
        *r.addMetric("imbalance_above_single", *r.addMetric("imbalance_above", imbalance));
    const auto write = *r.addRegion({.name = "write_output", .paradigm = "user"});
    const auto app = r.rootCallNodes().front();
    const auto serial = *r.addCallNode(write, app);
    for (report::LocationId rank = 0; rank < 4; ++rank) {
        REQUIRE(r.setSeverity(visits, app, rank, 1).ok());
    }
    REQUIRE(r.setSeverity(visits, serial, 0, 5).ok());
    REQUIRE(r.setSeverity(time, serial, 0, 0.003).ok());
    REQUIRE(r.setSeverity(single, serial, 0, 0.00225).ok());
    auto s = summary::summarize(r, nullptr);
    REQUIRE(s.ok());
    REQUIRE_FALSE(s->advice.empty());
    CHECK(s->advice[0].text.rfind("Rank 0 alone spends 3.00 ms in `write_output`", 0) == 0);
    CHECK(s->advice[0].text.find("per rank") == std::string::npos);
    CHECK(s->advice[0].text.find("0.00 s per rank") == std::string::npos);
}
