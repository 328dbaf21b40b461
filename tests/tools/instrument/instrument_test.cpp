// Tests of `waitscope instrument` and of user-function measurement: filters on their own, the
// wrapper's command lines, and real builds (make and CMake) run with mpirun and read back.
#include "trace_text.h"
#include "waitscope/measure/filter.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <vector>

using namespace waitscope::test;
using waitscope::measure::Filter;
namespace fs = std::filesystem;

namespace {

const std::string kWaitscope = WAITSCOPE_TEST_DRIVER;

void writeText(const std::string& path, const std::string& text) {
    std::ofstream(path) << text;
}

/// The user-region call path (names joined by '/') at every ENTER of `region` on `location`.
std::vector<std::string> pathsTo(const std::vector<TraceEvent>& events, int location,
                                 const std::string& region) {
    std::vector<std::string> stack, paths;
    for (const TraceEvent& e : events) {
        if (e.location != location)
            continue;
        if (e.name == "ENTER") {
            std::string name = e.attribute("Region");
            if (name == region) {
                std::string path;
                for (const std::string& s : stack)
                    path += s + "/";
                paths.push_back(path + name);
            }
            stack.push_back(name);
        } else if (e.name == "LEAVE" && !stack.empty()) {
            stack.pop_back();
        }
    }
    return paths;
}

std::string copyProject(const std::string& name, const std::string& into) {
    fs::path target = fs::path(into) / name;
    fs::create_directories(into);
    fs::copy(fs::path(WAITSCOPE_TEST_PROJECTS) / name, target, fs::copy_options::recursive);
    return target.string();
}

/// Builds the test project `name`.c with `waitscope instrument --nompi` in `dir` and runs it
/// there; both must succeed.
CommandResult buildAndRunWithoutMpi(const std::string& dir, const std::string& name) {
    CommandResult build =
        runCommand("cd '" + dir + "' && " + kWaitscope + " instrument --nompi gcc -O1 -g -o " +
                   name + " '" + WAITSCOPE_TEST_PROJECTS + "/" + name + ".c'");
    INFO(build.output);
    REQUIRE(build.exitCode == 0);
    CommandResult run = runCommand("cd '" + dir + "' && ./" + name);
    INFO(run.output);
    REQUIRE(run.exitCode == 0);
    return run;
}

} // namespace

TEST_CASE("filter rules apply in order, the last match deciding", "[filter]") {
    auto filter = Filter::parse("SCOREP_REGION_NAMES_BEGIN\n"
                                "  EXCLUDE *\n"
                                "  INCLUDE main solve*   # keep these\n"
                                "          exchange\n"
                                "  EXCLUDE MANGLED _ZN6detail*\n"
                                "  INCLUDE DEMANGLED detail::keep*\n"
                                "SCOREP_REGION_NAMES_END\n"
                                "SCOREP_FILE_NAMES_BEGIN\n"
                                "  EXCLUDE */third_party/*\n"
                                "SCOREP_FILE_NAMES_END\n",
                                "test.filter");
    REQUIRE(filter.ok());
    CHECK_FALSE(filter->excludes("main", "main", "/src/main.c"));
    CHECK_FALSE(filter->excludes("solve_linear", "solve_linear", "/src/s.c"));
    CHECK_FALSE(filter->excludes("exchange", "exchange", "/src/s.c"));
    CHECK(filter->excludes("helper", "helper", "/src/s.c"));
    CHECK(filter->excludes("solve_detail", "_ZN6detail5solveEv", "/src/s.c"));
    CHECK_FALSE(filter->excludes("detail::keep_me()", "_ZN6detail7keep_meEv", "/src/s.c"));
    CHECK(filter->excludes("main", "main", "/src/third_party/lib.c"));
    CHECK(filter->literalNameExclusions().empty()); // "*" is a wildcard
}

TEST_CASE("literal exclusions that a later rule revives are not applied at compile time",
          "[filter]") {
    auto filter = Filter::parse("SCOREP_REGION_NAMES_BEGIN\n EXCLUDE tiny small\n"
                                " INCLUDE sm*\nSCOREP_REGION_NAMES_END\n",
                                "f");
    REQUIRE(filter.ok());
    CHECK(filter->literalNameExclusions() == std::vector<std::string>{"tiny"});
}

TEST_CASE("filter syntax errors name the file and line", "[filter]") {
    auto check = [](const std::string& text, const std::string& message) {
        auto filter = Filter::parse(text, "my.filter");
        REQUIRE_FALSE(filter.ok());
        CHECK(filter.error().message() == message);
    };
    check("EXCLUDE foo\n", "my.filter:1: 'EXCLUDE' outside a SCOREP_REGION_NAMES or "
                           "SCOREP_FILE_NAMES block");
    check("SCOREP_REGION_NAMES_BEGIN\n foo\nSCOREP_REGION_NAMES_END\n",
          "my.filter:2: pattern 'foo' before any INCLUDE or EXCLUDE");
    check("SCOREP_REGION_NAMES_BEGIN\n EXCLUDE a\n", "my.filter:1: block is not closed");
    check("SCOREP_FILE_NAMES_BEGIN\n EXCLUDE a\nSCOREP_REGION_NAMES_END\n",
          "my.filter:3: 'SCOREP_REGION_NAMES_END' without its BEGIN");
    check("SCOREP_REGION_NAMES_BEGIN\n EXCLUDE\n INCLUDE x\nSCOREP_REGION_NAMES_END\n",
          "my.filter:3: rule without patterns");
    check("SCOREP_REGION_NAMES_BEGIN\n EXCLUDE a MANGLED b\nSCOREP_REGION_NAMES_END\n",
          "my.filter:2: MANGLED must follow INCLUDE or EXCLUDE");
    CHECK(Filter::load("/nonexistent/x.filter").error().message() ==
          "cannot read filter file '/nonexistent/x.filter'");
}

TEST_CASE("the wrapper adds compile flags, link flags, or both, by the invocation", "[wrapper]") {
    CommandResult compile =
        runCommand(kWaitscope + " instrument --dry-run mpicc -O2 -c a.c -o a.o");
    REQUIRE(compile.exitCode == 0);
    CHECK_THAT(compile.output, Catch::Contains("mpicc -O2 -c a.c -o a.o -I"));
    CHECK_THAT(compile.output, Catch::Contains("-finstrument-functions"));
    CHECK_THAT(compile.output, !Catch::Contains("-lwaitscope"));
    // System headers and our own annotation header stay uninstrumented.
    CHECK_THAT(compile.output,
               Catch::Contains("-finstrument-functions-exclude-file-list=/usr/include/,"));
    CHECK_THAT(compile.output, Catch::Contains("include/waitscope/"));

    CommandResult link = runCommand(kWaitscope + " instrument --dry-run mpicc a.o b.o -o app");
    REQUIRE(link.exitCode == 0);
    CHECK_THAT(link.output, Catch::Contains("-lwaitscope"));
    CHECK_THAT(link.output, Catch::Contains("-Wl,-rpath,"));
    CHECK_THAT(link.output, !Catch::Contains("-finstrument-functions"));

    CommandResult both = runCommand(kWaitscope + " instrument --dry-run --user g++ x.cpp -o x");
    REQUIRE(both.exitCode == 0);
    CHECK_THAT(both.output, Catch::Contains("-finstrument-functions"));
    CHECK_THAT(both.output, Catch::Contains("-DWAITSCOPE_USER"));
    CHECK_THAT(both.output, Catch::Contains("-lwaitscope"));

    CommandResult clang = runCommand(kWaitscope + " instrument --dry-run clang -c x.c");
    CHECK_THAT(clang.output, Catch::Contains("-finstrument-functions-after-inlining"));

    CommandResult plain =
        runCommand(kWaitscope + " instrument --dry-run --nocompiler mpicc -c a.c");
    CHECK_THAT(plain.output, !Catch::Contains("-finstrument-functions"));

    CommandResult version = runCommand(kWaitscope + " instrument --dry-run gcc --version");
    CHECK(version.output == "gcc --version\n");
}

TEST_CASE("the wrapper reads response files and quotes paths with spaces", "[wrapper]") {
    std::string dir = freshDirectory("instrument response file");
    writeText(dir + "/args.rsp", "-c 'my file.c' -o out.o\n");
    CommandResult r =
        runCommand("cd '" + dir + "' && " + kWaitscope + " instrument --dry-run mpicc @args.rsp");
    INFO(r.output);
    REQUIRE(r.exitCode == 0);
    CHECK_THAT(r.output, Catch::StartsWith("mpicc @args.rsp -I"));
    CHECK_THAT(r.output, Catch::Contains("-finstrument-functions"));
    CHECK_THAT(r.output, !Catch::Contains("-lwaitscope"));
    CommandResult missing =
        runCommand(kWaitscope + " instrument --dry-run mpicc @/nonexistent.rsp");
    CHECK(missing.exitCode == 2);
    CHECK_THAT(missing.output, Catch::Contains("cannot read response file '/nonexistent.rsp'"));
}

TEST_CASE("bad wrapper input is refused with a clear message", "[wrapper]") {
    CommandResult unknown = runCommand(kWaitscope + " instrument javac Main.java");
    CHECK(unknown.exitCode == 2);
    CHECK_THAT(unknown.output, Catch::Contains("unknown compiler 'javac'"));
    CommandResult none = runCommand(kWaitscope + " instrument --user");
    CHECK(none.exitCode == 2);
    CHECK_THAT(none.output, Catch::Contains("no compiler given"));
    CommandResult option = runCommand(kWaitscope + " instrument --fast mpicc -c a.c");
    CHECK(option.exitCode == 2);
    CHECK_THAT(option.output, Catch::Contains("unknown option '--fast'"));
    std::string dir = freshDirectory("instrument bad filter");
    writeText(dir + "/bad.filter", "SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE a\n  oops\n");
    CommandResult filter =
        runCommand(kWaitscope + " instrument --filter '" + dir + "/bad.filter' mpicc -c a.c");
    CHECK(filter.exitCode == 2);
    CHECK_THAT(filter.output, Catch::Contains(dir + "/bad.filter:1: block is not closed"));
    // The compiler's own failures pass through with its exit code.
    writeText(dir + "/broken.c", "int main( { return 0; }\n");
    CommandResult broken =
        runCommand("cd '" + dir + "' && " + kWaitscope + " instrument mpicc -c broken.c");
    CHECK(broken.exitCode == 1);
    CHECK_THAT(broken.output, Catch::Contains("broken.c"));
    CommandResult noInput = runCommand(kWaitscope + " instrument mpicc");
    CHECK(noInput.exitCode != 0);
    CHECK_THAT(noInput.output, Catch::Contains("no input files"));
}

TEST_CASE("a make build with CC=\"waitscope instrument mpicc\" records user call paths", "[mpi]") {
    std::string dir = freshDirectory("instrument make project with space");
    std::string project = copyProject("project_c", dir);
    CommandResult build =
        runCommand("cd '" + project + "' && make CC='" + kWaitscope + " instrument mpicc'");
    INFO(build.output);
    REQUIRE(build.exitCode == 0);
    CommandResult run =
        runCommand("cd '" + project + "' && " +
                   mpirunCommand(4, {"WAITSCOPE_EXPERIMENT_DIRECTORY=exp"}, "./halo", "", false));
    INFO(run.output);
    REQUIRE(run.exitCode == 0);
    std::vector<TraceEvent> events = readEvents(project + "/exp/traces.otf2");
    for (int rank = 0; rank < 4; ++rank) {
        INFO("rank " << rank);
        CHECK(pathsTo(events, rank, "MPI_Sendrecv") ==
              std::vector<std::string>(3, "main/exchange_halo/MPI_Sendrecv"));
        CHECK(pathsTo(events, rank, "MPI_Allreduce") ==
              std::vector<std::string>(3, "main/check_residual/MPI_Allreduce"));
        CHECK(pathsTo(events, rank, "compute_interior").size() == 3);
        CHECK(pathsTo(events, rank, "MPI_Init") == std::vector<std::string>{"main/MPI_Init"});
        CHECK(countEvents(events, "ENTER", rank) == countEvents(events, "LEAVE", rank));
    }
    // Functions carry their source file and line.
    bool located = false;
    for (const std::string& r : readDefinitions(project + "/exp/traces.otf2", "REGION"))
        if (r.find("\"exchange_halo\"") != std::string::npos)
            located =
                r.find("halo.c") != std::string::npos && r.find("Begin: 12") != std::string::npos;
    CHECK(located);
}

TEST_CASE("a CMake build through the compiler launcher records demangled C++ and annotations",
          "[mpi]") {
    std::string dir = freshDirectory("instrument cmake project");
    std::string project = copyProject("project_cxx", dir);
    std::string launcher = kWaitscope + ";instrument;--user";
    CommandResult build = runCommand("cmake -S '" + project + "' -B '" + project +
                                     "/build' -G Ninja" + " -DCMAKE_CXX_COMPILER_LAUNCHER='" +
                                     launcher + "'" + " -DCMAKE_CXX_LINKER_LAUNCHER='" + launcher +
                                     "' && " + "cmake --build '" + project + "/build'");
    INFO(build.output);
    REQUIRE(build.exitCode == 0);
    CommandResult run = runCommand(
        "cd '" + project + "' && " +
        mpirunCommand(2, {"WAITSCOPE_EXPERIMENT_DIRECTORY=exp"}, "build/halo_cxx", "", false));
    INFO(run.output);
    REQUIRE(run.exitCode == 0);
    std::vector<TraceEvent> events = readEvents(project + "/exp/traces.otf2");
    for (int rank = 0; rank < 2; ++rank) {
        INFO("rank " << rank);
        CHECK(pathsTo(events, rank, "MPI_Sendrecv") ==
              std::vector<std::string>(
                  2, "main/timestep/communicate/halo::Grid::exchange()/MPI_Sendrecv"));
        CHECK(pathsTo(events, rank, "halo::Grid::relax(int)") ==
              std::vector<std::string>(2, "main/timestep/halo::Grid::relax(int)"));
    }
}

TEST_CASE("functions a filter excludes cost no events, at run time or at compile time", "[mpi]") {
    // make splits CC at spaces, so this directory has none.
    std::string dir = freshDirectory("instrument_filters");
    writeText(dir + "/skip.filter", "SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE compute_interior\n"
                                    "SCOREP_REGION_NAMES_END\n");
    std::string runtime = copyProject("project_c", dir + "/runtime");
    std::string compiled = dir + "/compiled";
    fs::create_directories(compiled);
    compiled = copyProject("project_c", compiled);
    REQUIRE(runCommand("cd '" + runtime + "' && make CC='" + kWaitscope + " instrument mpicc'")
                .exitCode == 0);
    REQUIRE(runCommand("cd '" + compiled + "' && make CC='" + kWaitscope + " instrument --filter " +
                       dir + "/skip.filter mpicc'")
                .exitCode == 0);
    REQUIRE(runCommand("cd '" + runtime + "' && " +
                       mpirunCommand(2,
                                     {"WAITSCOPE_EXPERIMENT_DIRECTORY=exp",
                                      "WAITSCOPE_FILTER=" + dir + "/skip.filter"},
                                     "./halo", "", false))
                .exitCode == 0);
    REQUIRE(
        runCommand("cd '" + compiled + "' && " +
                   mpirunCommand(2, {"WAITSCOPE_EXPERIMENT_DIRECTORY=exp"}, "./halo", "", false))
            .exitCode == 0);
    for (const std::string& project : {runtime, compiled}) {
        INFO(project);
        std::vector<TraceEvent> events = readEvents(project + "/exp/traces.otf2");
        CHECK(countEvents(events, "ENTER", -1, "compute_interior") == 0);
        CHECK(countEvents(events, "ENTER", 0, "exchange_halo") == 3);
    }
    // At run time the hook still runs (and counts); compiled out, it never does.
    CHECK(readKeyValues(runtime + "/exp/waitscope.measurement")["rank.0.filtered_calls"] == "3");
    CHECK(readKeyValues(compiled + "/exp/waitscope.measurement")["rank.0.filtered_calls"] == "0");
}

TEST_CASE("a program without MPI (--nompi) is measured and written at exit", "[wrapper]") {
    std::string dir = freshDirectory("instrument_serial");
    const CommandResult run = buildAndRunWithoutMpi(dir, "serial");
    CHECK(run.output == "serial: 90.0\n"); // nothing of ours in the program's output
    std::string exp = dir + "/waitscope_serial_1";
    CHECK(readFile(exp + "/ranks/0.status").rfind("complete\n", 0) == 0);
    std::vector<TraceEvent> events = readEvents(exp + "/traces.otf2");
    CHECK(countEvents(events, "ENTER", 0, "main") == 1);
    CHECK(pathsTo(events, 0, "middle") == std::vector<std::string>(4, "main/middle"));
    CHECK(pathsTo(events, 0, "leaf") == std::vector<std::string>(40, "main/middle/leaf"));
    CHECK(countEvents(events, "ENTER", 0) == countEvents(events, "LEAVE", 0));
    CHECK(countEvents(events, "PROGRAM_END", 0) == 1);
}

TEST_CASE("a forked child leaves the run to its parent: one experiment, the parent's events",
          "[wrapper]") {
    // The child runs 1.1 million instrumented calls and exits normally (atexit handlers run).
    // Before, the child wrote the experiment at its exit and the parent, finding the directory
    // taken, warned and lost its own run.
    std::string dir = freshDirectory("instrument_forking");
    const CommandResult run = buildAndRunWithoutMpi(dir, "forking");
    CHECK(run.output == "child: 2250000.0\nparent: 90.0\n"); // no warning of ours
    std::string exp = dir + "/waitscope_forking_1";
    CHECK_FALSE(fs::exists(dir + "/waitscope_forking_2"));
    CHECK(readFile(exp + "/ranks/0.status").rfind("complete\n", 0) == 0);
    std::vector<TraceEvent> events = readEvents(exp + "/traces.otf2");
    CHECK(countEvents(events, "ENTER", 0, "main") == 1);
    CHECK(pathsTo(events, 0, "middle") == std::vector<std::string>(4, "main/middle"));
    CHECK(countEvents(events, "ENTER", 0, "leaf") == 40);
    CHECK(countEvents(events, "ENTER", 0) == countEvents(events, "LEAVE", 0));
}

TEST_CASE("score proposes the filter that removes tiny functions, and it removes them", "[mpi]") {
    std::string dir = freshDirectory("instrument_score_filter");
    REQUIRE(runCommand("cd '" + dir + "' && " + kWaitscope + " instrument mpicxx -O2 -o tiny '" +
                       WAITSCOPE_TEST_PROJECTS + "/tiny_functions.cpp'")
                .exitCode == 0);
    // A cheap profile first, as `waitscope analyze --profile` makes it.
    CommandResult profile =
        runCommand("cd '" + dir + "' && " +
                   mpirunCommand(2,
                                 {"WAITSCOPE_TRACING=false", "WAITSCOPE_PROFILING=true",
                                  "WAITSCOPE_EXPERIMENT_DIRECTORY=profile"},
                                 "./tiny", "10000", false));
    INFO(profile.output);
    REQUIRE(profile.exitCode == 0);
    CommandResult score =
        runCommand("cd '" + dir + "' && " + kWaitscope + " score profile -g suggested.filter");
    INFO(score.output);
    REQUIRE(score.exitCode == 0);
    std::string filter = readFile(dir + "/suggested.filter");
    INFO(filter);
    CHECK_THAT(filter, Catch::Contains("EXCLUDE tiny_scale(double)"));
    CHECK_THAT(filter, Catch::Contains("EXCLUDE MANGLED _Z8tiny_adddd"));
    CHECK_THAT(filter, !Catch::Contains("main"));
    // Applied at run time it removes every call of both: 10000 each per rank.
    CommandResult traced = runCommand("cd '" + dir + "' && " +
                                      mpirunCommand(2,
                                                    {"WAITSCOPE_FILTER=suggested.filter",
                                                     "WAITSCOPE_EXPERIMENT_DIRECTORY=traced"},
                                                    "./tiny", "10000", false));
    INFO(traced.output);
    REQUIRE(traced.exitCode == 0);
    auto measurement = readKeyValues(dir + "/traced/waitscope.measurement");
    CHECK(measurement["rank.0.filtered_calls"] == "20000");
    CHECK(std::stoi(measurement["rank.0.events"]) < 100);
    std::vector<TraceEvent> events = readEvents(dir + "/traced/traces.otf2");
    CHECK(countEvents(events, "ENTER", -1, "tiny_scale(double)") == 0);
    CHECK(countEvents(events, "ENTER", -1, "tiny_add(double, double)") == 0);
    CHECK(countEvents(events, "ENTER", 0, "main") == 1);
}

TEST_CASE("instrumented C++ and Fortran functions carry demangled names and their first and last "
          "source lines",
          "[mpi]") {
    std::string dir = freshDirectory("instrument_source_lines");
    const std::string projects = WAITSCOPE_TEST_PROJECTS;
    CommandResult build = runCommand(
        "cd '" + dir + "' && " + kWaitscope + " instrument mpicxx -g -O1 -o lines_cxx '" +
        projects + "/source_lines.cpp' && " + kWaitscope +
        " instrument mpif90 -g -O1 -o lines_f '" + projects + "/source_lines.f90'");
    INFO(build.output);
    REQUIRE(build.exitCode == 0);
    for (const char* program : {"lines_cxx", "lines_f"}) {
        CommandResult run = runCommand(
            "cd '" + dir + "' && " +
            mpirunCommand(1, {std::string("WAITSCOPE_EXPERIMENT_DIRECTORY=") + program + "_exp"},
                          std::string("./") + program, "", false));
        INFO(run.output);
        REQUIRE(run.exitCode == 0);
    }
    // The "Begin: N, End: M" of the region definition named `name` (empty when none).
    auto linesOf = [&](const std::string& exp, const std::string& name) {
        for (const std::string& r : readDefinitions(dir + "/" + exp + "/traces.otf2", "REGION"))
            if (r.find("Name: \"" + name + "\"") != std::string::npos)
                return r.substr(r.find("Begin: "));
        return std::string();
    };
    // From the signature to the closing brace or `end subroutine`, never "N-0".
    CHECK(linesOf("lines_cxx_exp", "lines::spread(double, int)") == "Begin: 7, End: 12");
    CHECK(linesOf("lines_cxx_exp", "main") == "Begin: 16, End: 23");
    CHECK(linesOf("lines_f_exp", "lines::spread") == "Begin: 6, End: 13");
    CHECK(linesOf("lines_f_exp", "MAIN__") == "Begin: 16, End: 27");
}
