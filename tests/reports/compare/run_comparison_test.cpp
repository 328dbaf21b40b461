// Run comparison: names a change larger than the noise as significant and one within the noise
// as such, per metric and call path, in text and HTML.
#include <catch2/catch.hpp>
#include <random>
#include <sstream>
#include <waitscope/compare/run_comparison.h>

using namespace waitscope;
using namespace waitscope::report;

namespace {

/// One run of a 2-rank program: Late Sender of `late` s per rank at main/exchange/MPI_Waitall,
/// `compute` s per rank of time in main/solve, `own` s per rank in main itself.
Report makeRun(double late, double compute, double own = 0.001) {
    Report r;
    const MetricId time = *r.addMetric("time");
    const MetricId lateSender = *r.addMetric("mpi_latesender", time);
    const CallNodeId main = *r.addCallNode(*r.addRegion({.name = "main"}), std::nullopt);
    const CallNodeId exchange = *r.addCallNode(*r.addRegion({.name = "exchange"}), main);
    const CallNodeId wait =
        *r.addCallNode(*r.addRegion({.name = "MPI_Waitall", .paradigm = "mpi"}), exchange);
    const CallNodeId solve = *r.addCallNode(*r.addRegion({.name = "solve"}), main);
    const SystemNodeId machine = *r.addMachine("m");
    for (int rank = 0; rank < 2; ++rank)
        (void)r.addThread(*r.addProcess(machine, "rank", rank), "t", 0);
    for (LocationId loc = 0; loc < 2; ++loc) {
        REQUIRE(r.setSeverity(time, wait, loc, late + 0.1));
        REQUIRE(r.setSeverity(lateSender, wait, loc, late));
        REQUIRE(r.setSeverity(time, solve, loc, compute));
        REQUIRE(r.setSeverity(time, main, loc, own));
    }
    return r;
}

} // namespace

TEST_CASE("compare names changes beyond the noise and those within it") {
    std::mt19937_64 random(7);
    std::normal_distribution<double> jitter(0.0, 0.005);
    std::vector<Report> runs;
    runs.reserve(10);
    for (int i = 0; i < 5; ++i)
        runs.push_back(makeRun(0.6 + jitter(random), 2.0 + jitter(random)));
    for (int i = 0; i < 5; ++i)
        runs.push_back(makeRun(0.18 + jitter(random), 2.0 + jitter(random), 0.001001));
    std::vector<const Report*> before;
    std::vector<const Report*> after;
    for (int i = 0; i < 5; ++i) {
        before.push_back(&runs[i]);
        after.push_back(&runs[5 + i]);
    }
    auto comparison = compare::compareRuns(before, after);
    REQUIRE(comparison);
    const compare::Change* late = nullptr;
    const compare::Change* solve = nullptr;
    for (const compare::Change& c : comparison->changes) {
        if (c.metric == "mpi_latesender" && c.callPath == "main/exchange/MPI_Waitall")
            late = &c;
        if (c.metric == "time" && c.callPath == "main/solve")
            solve = &c;
    }
    REQUIRE(late);
    REQUIRE(solve);
    // Summed over 2 ranks: 1.2 s before, 0.36 s after, −0.84 s (−70 %).
    CHECK(late->significant);
    CHECK(late->change() == Approx(-0.84).margin(0.02));
    CHECK(late->percent() == Approx(-70).margin(2));
    CHECK_FALSE(solve->significant);
    CHECK(solve->test.p > 0.05);
    const std::string lateLine = compare::describeChange(*late, *comparison);
    CHECK(lateLine.rfind("Late Sender at main/exchange/MPI_Waitall: -0.8", 0) == 0);
    CHECK(lateLine.find("significant over 5 runs each") != std::string::npos);
    CHECK(compare::describeChange(*solve, *comparison).find("within noise over 5 runs each") !=
          std::string::npos);

    std::ostringstream text;
    compare::printComparison(*comparison, text);
    const std::string printed = text.str();
    const auto noiseHeading = printed.find("Largest changes within noise:");
    REQUIRE(noiseHeading != std::string::npos);
    CHECK(printed.find("Late Sender at main/exchange/MPI_Waitall") < noiseHeading);
    CHECK(printed.find("Time at main/solve") > noiseHeading);
    // main's own time grew by 2 µs in every run: significant, but under 0.1 % of the run time
    // (about 5.4 s summed over ranks), so it is counted, not listed.
    for (const compare::Change& c : comparison->changes)
        if (c.callPath == "main") {
            CHECK(c.significant);
            CHECK(c.negligible);
        }
    CHECK(comparison->negligibleSeconds == Approx(0.0054).margin(0.0002));
    CHECK(printed.find("Time at main:") == std::string::npos);
    CHECK(printed.find("(and 1 more under 0.005") != std::string::npos);

    std::ostringstream html;
    compare::writeComparisonHtml(*comparison, html);
    CHECK(html.str().find("<tr class=\"better\"><td>Late Sender</td>") != std::string::npos);
    CHECK(html.str().find("<tr class=\"noise\"><td>Time</td><td><code>main/solve</code>") !=
          std::string::npos);
}

TEST_CASE("compare with one run per side tests nothing") {
    Report a = makeRun(1.0, 2.0);
    Report b = makeRun(0.5, 2.0);
    const Report* before[] = {&a};
    const Report* after[] = {&b};
    auto comparison = compare::compareRuns(before, after);
    REQUIRE(comparison);
    for (const compare::Change& c : comparison->changes)
        CHECK_FALSE(c.significant);
    std::ostringstream text;
    compare::printComparison(*comparison, text);
    CHECK(text.str().find("nothing is tested") != std::string::npos);
    CHECK_FALSE(compare::compareRuns({}, after));
}

TEST_CASE("a deep call path is named by its first region and its last four") {
    CHECK(compare::shortCallPath("main/exchange/MPI_Waitall") == "main/exchange/MPI_Waitall");
    CHECK(compare::shortCallPath("a/b/c/d/e/f") == "a/b/c/d/e/f");
    CHECK(compare::shortCallPath("python3.11/Py_BytesMain/Py_RunMain/PyEval_EvalCode/"
                                 "_PyEval_EvalFrameDefault/PyNumber_Add/fetestexcept") ==
          "python3.11/.../PyEval_EvalCode/_PyEval_EvalFrameDefault/PyNumber_Add/fetestexcept");
    CHECK(compare::shortCallPath("") == "");
}
