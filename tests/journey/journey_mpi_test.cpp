// End-to-end tests of `waitscope analyze`, `examine` and `score` with mpirun on the examples.
#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sched.h>
#include <sstream>
#include <string>
#include <sys/wait.h>

namespace fs = std::filesystem;

namespace {

const std::string kEnv = WAITSCOPE_TEST_ENV_PREFIX;
const std::string kDriver = WAITSCOPE_TEST_DRIVER;

// The cores this process may run on, as waitscope analyze counts them for the analysis.
int cores() {
    cpu_set_t set;
    return sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
}
const std::string kExamples = WAITSCOPE_TEST_EXAMPLES;

struct Run {
    int status = -1;
    std::string output;
};

/// Runs a shell command in `directory`, capturing stdout and stderr together.
Run run(const std::string& command, const fs::path& directory) {
    const std::string full = "cd '" + directory.string() + "' && " + command + " 2>&1";
    Run result;
    FILE* pipe = popen(full.c_str(), "r");
    REQUIRE(pipe != nullptr);
    std::array<char, 4096> buffer{};
    size_t n = 0;
    while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) {
        result.output.append(buffer.data(), n);
    }
    const int status = pclose(pipe);
    result.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return result;
}

/// A fresh, empty working directory for one test case.
fs::path workDirectory(const std::string& name) {
    fs::path dir = fs::path(WAITSCOPE_TEST_WORKDIR) / name;
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

std::string readFile(const fs::path& path) {
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

/// The text with every run of spaces and newlines replaced by one space (undoes line wrapping).
std::string collapseSpaces(const std::string& text) {
    std::string out;
    for (char c : text) {
        const bool space = c == ' ' || c == '\n';
        if (!space || out.empty() || out.back() != ' ') {
            out += space ? ' ' : c;
        }
    }
    return out;
}

std::string analyzeCommand(const std::string& options, const std::string& example) {
    return kEnv + " " + kDriver + " analyze " + options + " mpirun -np 4 " + kExamples +
           "/example_" + example;
}

/// Runs `waitscope analyze OPTIONS` on an example in `dir` and requires that it succeeds.
Run analyzed(const std::string& options, const std::string& example, const fs::path& dir) {
    Run r = run(analyzeCommand(options, example), dir);
    INFO(r.output);
    REQUIRE(r.status == 0);
    return r;
}

/// The part of the summary text from " 1." to the line before " 2." (or the next section).
std::string firstFinding(const std::string& summary) {
    const size_t start = summary.find(" 1. ");
    REQUIRE(start != std::string::npos);
    const size_t end = summary.find("\n\n", start);
    const size_t second = summary.find(" 2. ", start);
    return summary.substr(start, std::min(end, second) - start);
}

/// Checks that the trace size `waitscope score` printed ("... (N bytes)" in `scoreOutput`) is
/// within 20 % of the trace files in `experiment`.
void checkScoreEstimatesTrace(const std::string& scoreOutput, const fs::path& experiment) {
    const size_t at = scoreOutput.find("bytes)");
    REQUIRE(at != std::string::npos);
    const double estimate = std::stod(scoreOutput.substr(scoreOutput.rfind('(', at) + 1));
    double real = 0.0;
    for (const auto& file : fs::recursive_directory_iterator(experiment / "traces")) {
        real += file.is_regular_file() ? static_cast<double>(file.file_size()) : 0.0;
    }
    real += static_cast<double>(fs::file_size(experiment / "traces.def") +
                                fs::file_size(experiment / "traces.otf2"));
    CHECK(estimate == Approx(real).epsilon(0.20));
}

/// Whether xvfb-run is installed; warns that the explorer was not run on an X server if not.
bool xvfbInstalled() {
    const std::string xvfb = WAITSCOPE_TEST_XVFB_RUN;
    if (xvfb.empty() || xvfb.find("NOTFOUND") != std::string::npos) {
        WARN("xvfb-run not installed: the explorer was not run on an X server");
        return false;
    }
    return true;
}

} // namespace

TEST_CASE("analyze measures and analyzes late_sender and prints the Late Sender first") {
    const fs::path dir = workDirectory("late_sender");
    const Run r = run(analyzeCommand("", "late_sender"), dir);
    INFO(r.output);
    REQUIRE(r.status == 0);
    const fs::path experiment = dir / "waitscope_example_late_sender_4";
    for (const char* file : {"traces.otf2", "report.cubex", "trace.stat", "summary.txt",
                             "summary.html", "waitscope.measurement"}) {
        CHECK(fs::exists(experiment / file));
    }
    CHECK(r.output.find("[1/3] measuring 4 ranks (libwaitscope preloaded)") != std::string::npos);
    CHECK(r.output.find("[2/3] analyzing") != std::string::npos);
    CHECK(r.output.find("waitscope-replay: forward replay") != std::string::npos);
    CHECK(r.output.find("measurement took") != std::string::npos);
    CHECK(r.output.find("analysis took") != std::string::npos);
    const std::string summary = readFile(experiment / "summary.txt");
    CHECK(r.output.find(summary) != std::string::npos); // the summary is printed at the end
    const std::string first = firstFinding(summary);
    INFO(summary);
    CHECK(first.find("Late Sender (mpi_latesender)") != std::string::npos);
    // No compiler instrumentation: analyze unwinds the user's call path to each MPI call.
    CHECK(first.find("call path: example_late_sender/main/receive_block/MPI_Recv\n") !=
          std::string::npos);
    CHECK(first.find("full path:") == std::string::npos); // short enough to show whole
    const size_t ranksAt = first.find("ranks:");
    const std::string ranks = first.substr(ranksAt, first.find('\n', ranksAt) - ranksAt);
    CHECK(ranks.find(" 1 (") != std::string::npos);
    CHECK(ranks.find(" 3 (") != std::string::npos);
    CHECK(ranks.find(" 0 (") == std::string::npos);
    CHECK(ranks.find(" 2 (") == std::string::npos);
    // The root causes: the senders' computation (delay costs).
    const size_t causeAt = first.find("caused by:");
    REQUIRE(causeAt != std::string::npos);
    const std::string cause = first.substr(causeAt); // the finding's last line, maybe wrapped
    CHECK(cause.find(" 0 (") != std::string::npos);
    CHECK(cause.find(" 2 (") != std::string::npos);
    CHECK(cause.find(" 1 (") == std::string::npos);
    CHECK(cause.find(" 3 (") == std::string::npos);
    CHECK(cause.find("delay_latesender") != std::string::npos);
    CHECK(summary.find("effect:      the measurement did not noticeably disturb the run") !=
          std::string::npos);
    CHECK(summary.find("ranks:       4 ranks \u00d7 1 thread\n") != std::string::npos);
    // Every line of the run's own output names the tool that wrote it.
    CHECK(r.output.find("waitscope analyze: [1/3] measuring") != std::string::npos);
    CHECK(r.output.find("waitscope analyze: [3/3] summarizing") != std::string::npos);
    CHECK(r.output.find("\nerror:") == std::string::npos);
    // No ratio against an event file of a few kilobytes ("10243.07x ... of 0.0 MB").
    CHECK(r.output.find("its largest event file of 0.0 MB") == std::string::npos);
    CHECK(summary.find("command:     mpirun -np 4 ") != std::string::npos);

    // score on the experiment (its report has the visits) estimates Waitscope's real trace.
    const Run score = run(kDriver + " score -g score.filter " + experiment.string(), dir);
    INFO(score.output);
    REQUIRE(score.status == 0);
    CHECK(score.output.find("(waitscope format)") != std::string::npos);
    checkScoreEstimatesTrace(score.output, experiment);
}

TEST_CASE("analyze of rank0_serial names Wait at N x N on ranks 1-3 and rank 0's serial work") {
    const fs::path dir = workDirectory("rank0_serial");
    const Run r = run(analyzeCommand("-q", "rank0_serial"), dir);
    INFO(r.output);
    REQUIRE(r.status == 0);
    CHECK(r.output.find("Waitscope summary") == std::string::npos); // -q prints no summary
    const std::string summary = readFile(dir / "waitscope_example_rank0_serial_4/summary.txt");
    INFO(summary);
    const std::string first = firstFinding(summary);
    CHECK(first.find("Wait at N x N (mpi_wait_nxn)") != std::string::npos);
    CHECK(first.find("call path: example_rank0_serial/main/global_sum/MPI_Allreduce") !=
          std::string::npos);
    for (const char* rank : {" 1 (", " 2 (", " 3 ("}) {
        CHECK(first.find(rank) != std::string::npos);
    }
    const std::string flat = collapseSpaces(summary);
    CHECK(flat.find("- Rank 0 alone spends") != std::string::npos);
    // Sampling finds write_output in the uninstrumented program, so the root causes name it.
    CHECK(flat.find("while ranks 1, 2 and 3 wait for it in MPI_Allreduce") != std::string::npos);
    CHECK(flat.find("lies on the critical path") != std::string::npos);
    CHECK(flat.find("This serial work is the thing to fix") != std::string::npos);
}

TEST_CASE("analyze refuses an existing experiment directory by name and keeps it") {
    const fs::path dir = workDirectory("existing");
    const fs::path experiment = dir / "waitscope_example_late_sender_4";
    fs::create_directories(experiment);
    std::ofstream(experiment / "keep.txt") << "previous run\n";
    const Run r = run(analyzeCommand("", "late_sender"), dir);
    CHECK(r.status == 1);
    CHECK(r.output.find("error: experiment directory '" + experiment.string() +
                        "' already exists; remove it yourself, choose another with -e DIR, or "
                        "analyze it again with -a") != std::string::npos);
    CHECK(readFile(experiment / "keep.txt") == "previous run\n");
}

TEST_CASE("analyze -a analyzes an existing experiment again and -e chooses the directory") {
    const fs::path dir = workDirectory("again");
    Run r = analyzed("-q -e exp", "wait_nxn", dir);
    fs::remove(dir / "exp/summary.txt");
    r = run(kEnv + " " + kDriver + " analyze -a -q exp", dir);
    INFO(r.output);
    REQUIRE(r.status == 0);
    const std::string summary = readFile(dir / "exp/summary.txt");
    CHECK(firstFinding(summary).find("Wait at N x N") != std::string::npos);
    // Again with the timestamps corrected: the run's clocks agree, the finding stays.
    r = run(kEnv + " " + kDriver + " analyze --time-correct -a -q exp", dir);
    INFO(r.output);
    REQUIRE(r.status == 0);
    CHECK(r.output.find("waitscope-replay: --time-correct moved receives forward") !=
          std::string::npos);
    CHECK(firstFinding(readFile(dir / "exp/summary.txt")).find("Wait at N x N") !=
          std::string::npos);
    r = run(kDriver + " analyze -a missing_exp", dir);
    CHECK(r.status == 1);
    CHECK(r.output.find("error: experiment directory 'missing_exp' not found") !=
          std::string::npos);
}

TEST_CASE("a program that fails passes its exit code on and the analysis is skipped") {
    const fs::path dir = workDirectory("failing");
    const Run r = run(kEnv + " " + kDriver + " analyze -e exp mpirun -np 2 sh -c 'exit 3'", dir);
    INFO(r.output);
    CHECK(r.status == 3);
    CHECK(r.output.find("the program exited with code 3; analysis skipped") != std::string::npos);
    CHECK(r.output.find("analysis skipped") != std::string::npos);
    CHECK_FALSE(fs::exists(dir / "exp/report.cubex"));
}

TEST_CASE("analyze -n prints the measurement and analysis commands without running them") {
    const fs::path dir = workDirectory("dry_run");
    std::ofstream(dir / "my.filter") << "SCOREP_REGION_NAMES_BEGIN\nSCOREP_REGION_NAMES_END\n";
    Run r = analyzed("-n -f my.filter", "late_sender", dir);
    CHECK(r.output.find("measure:   mpirun -x WAITSCOPE_EXPERIMENT_DIRECTORY=" + dir.string() +
                        "/waitscope_example_late_sender_4 -x WAITSCOPE_FILTER=" + dir.string() +
                        "/my.filter -x LD_PRELOAD=") != std::string::npos);
    CHECK(r.output.find("/lib/libwaitscope.so -x WAITSCOPE_SAMPLING=true -np 4 " + kExamples +
                        "/example_late_sender") != std::string::npos);
    // The analysis runs on one process per core, at most one per traced rank.
    CHECK(r.output.find("analyze:   mpirun -np " + std::to_string(std::min(4, cores())) + " ") !=
          std::string::npos);
    CHECK(r.output.find("waitscope-replay " + dir.string() + "/waitscope_example_late_sender_4") !=
          std::string::npos);
    CHECK_FALSE(fs::exists(dir / "waitscope_example_late_sender_4"));

    r = analyzed("-n --time-correct", "late_sender", dir);
    CHECK(r.output.find("waitscope-replay --time-correct " + dir.string() +
                        "/waitscope_example_late_sender_4") != std::string::npos);

    r = analyzed("-n --profile", "late_sender", dir);
    CHECK(r.output.find("-x WAITSCOPE_TRACING=false -x WAITSCOPE_PROFILING=true") !=
          std::string::npos);
    CHECK(r.output.find("waitscope-replay") == std::string::npos);
}

#ifdef WAITSCOPE_TEST_LINKED_PROGRAM
TEST_CASE("analyze preloads nothing into a program linked with libwaitscope") {
    const fs::path dir = workDirectory("linked");
    const Run r = run(
        kEnv + " " + kDriver + " analyze -n mpirun -np 2 " + WAITSCOPE_TEST_LINKED_PROGRAM, dir);
    INFO(r.output);
    REQUIRE(r.status == 0);
    CHECK(r.output.find("-x WAITSCOPE_EXPERIMENT_DIRECTORY=") != std::string::npos);
    CHECK(r.output.find("LD_PRELOAD") == std::string::npos);
}
#endif

TEST_CASE("analyze names a missing launcher and a command line it cannot parse") {
    const fs::path dir = workDirectory("bad_input");
    Run r = run(kDriver + " analyze qsub -n 4 ./app", dir);
    CHECK(r.status == 2);
    CHECK(r.output.find("error: launcher 'qsub' is not supported") != std::string::npos);
    r = run("PATH=/nonexistent " + kDriver + " analyze mpirun -np 2 ./app", dir);
    CHECK(r.status == 2);
    CHECK(r.output.find("error: launcher 'mpirun' not found in PATH") != std::string::npos);
    r = run(kEnv + " " + kDriver + " analyze mpirun -np 2 ./no_such_app", dir);
    CHECK(r.status == 2);
    CHECK(r.output.find("error: program './no_such_app' not found or not executable") !=
          std::string::npos);
}

TEST_CASE("examine prints the summary without a display and writes HTML that renders") {
    const fs::path dir = workDirectory("examine");
    Run r = analyzed("-q -e exp", "rank0_serial", dir);
    r = run("env -u DISPLAY -u WAYLAND_DISPLAY " + kDriver + " examine exp", dir);
    REQUIRE(r.status == 0);
    CHECK(r.output.find("Top findings") != std::string::npos);
    // A display that cannot be opened: the explorer (if built) fails, the text summary follows.
    r = run("DISPLAY=:99 " + kDriver + " examine exp/report.cubex", dir);
    REQUIRE(r.status == 0);
    CHECK(r.output.find("; printing the summary") != std::string::npos);
    // One line from the explorer, not Qt's platform messages and abort.
    CHECK(r.output.find("cannot open the display :99") != std::string::npos);
    CHECK(r.output.find("qt.qpa") == std::string::npos);
    CHECK(r.output.find("failed to start") == std::string::npos);
    CHECK(r.output.find("Top findings") != std::string::npos);
    r = run(kDriver + " examine exp --html page.html", dir);
    REQUIRE(r.status == 0);
    REQUIRE(fs::exists(dir / "page.html"));

    const std::string chromium = WAITSCOPE_TEST_CHROMIUM;
    if (chromium.empty() || chromium.find("NOTFOUND") != std::string::npos) {
        WARN("chromium not installed: the HTML page was not rendered");
        return;
    }
    const std::string flags = " --headless --no-sandbox --disable-gpu "
                              "--disable-background-networking --disable-component-update "
                              "--disable-sync --no-first-run --user-data-dir=" +
                              (dir / "chromium-profile").string() + " --window-size=1000,1400";
    r = run(chromium + flags + " --screenshot=" + (dir / "page.png").string() + " file://" +
                (dir / "page.html").string(),
            dir);
    INFO(r.output);
    REQUIRE(fs::exists(dir / "page.png"));
    // Pixels: not blank, and the charts' colours present (the bars were drawn).
    r = run(std::string(WAITSCOPE_TEST_PYTHON) + " " + WAITSCOPE_TEST_CHECK_PNG + " page.png", dir);
    INFO(r.output);
    CHECK(r.status == 0);
    // Headings as the browser parsed them.
    r = run(chromium + flags + " --dump-dom file://" + (dir / "page.html").string(), dir);
    for (const char* heading :
         {"<h1>Waitscope summary</h1>", "<h2>Where the time went</h2>", "<h2>Top findings</h2>",
          "<h2>Waiting time per rank</h2>", "<h2>Advice</h2>"}) {
        CHECK(r.output.find(heading) != std::string::npos);
    }
}

namespace {

/// The value in seconds on the line of `tree` (a section of --print-visible) that ends in
/// `name`, or -1 when there is none ("1.03 s  MPI Rank 1", "136 us  main").
double shownSeconds(const std::string& visible, const std::string& tree, const std::string& name) {
    const size_t start = visible.find(tree + ":\n");
    if (start == std::string::npos)
        return -1.0;
    const size_t end = visible.find(":\n", start + tree.size() + 2);
    std::istringstream lines(visible.substr(start, end - start));
    for (std::string line; std::getline(lines, line);) {
        if (line.size() <= name.size() + 2 ||
            line.compare(line.size() - name.size() - 2, std::string::npos, "  " + name) != 0)
            continue;
        std::istringstream fields(line.substr(line[0] == '>' ? 1 : 0));
        double value = 0.0;
        std::string unit;
        fields >> value >> unit;
        const double scale = unit == "s" ? 1.0 : unit == "ms" ? 1e-3 : unit == "us" ? 1e-6 : 0.0;
        return scale > 0.0 ? value * scale : -1.0;
    }
    return -1.0;
}

/// `waitscope examine DIR --screenshot PNG -- OPTIONS --print-visible` under a fresh X server.
Run examineOnX(const std::string& experiment, const std::string& png, const std::string& options,
               const fs::path& dir) {
    return run("env -u QT_QPA_PLATFORM -u WAYLAND_DISPLAY " + std::string(WAITSCOPE_TEST_XVFB_RUN) +
                   " -a -s '-screen 0 1600x1000x24' " + kDriver + " examine " + experiment +
                   " --screenshot " + png + " -- " + options + " --print-visible",
               dir);
}

/// Checks the picture of the explorer's window with check_screenshot.py --explorer (or another
/// of its modes).
void checkExplorerPicture(const fs::path& png, const fs::path& dir,
                          const std::string& mode = "--explorer") {
    REQUIRE(fs::exists(png));
    const Run check = run(std::string(WAITSCOPE_TEST_PYTHON) + " " + WAITSCOPE_TEST_CHECK_PNG +
                              " " + mode + " " + png.string(),
                          dir);
    INFO(check.output);
    CHECK(check.status == 0);
}

} // namespace

TEST_CASE("examine opens our experiment and Scalasca's in a real X window that shows values") {
    if (!xvfbInstalled()) {
        return;
    }
    const fs::path dir = workDirectory("explorer");
    Run r = analyzed("-q", "late_sender", dir);

    // As the README says: examine the experiment directory. The window opens on the hottest
    // path with the ranks shown.
    r = examineOnX("waitscope_example_late_sender_4", "ours.png", "", dir);
    INFO(r.output);
    REQUIRE(r.status == 0);
    CHECK(r.output.find("call tree:\n") != std::string::npos);
    CHECK(r.output.find("\n> ") != std::string::npos); // a call path is selected
    CHECK(shownSeconds(r.output, "metric tree", "Time") > 0.0);
    for (const char* rank : {"MPI Rank 0", "MPI Rank 1", "MPI Rank 2", "MPI Rank 3"}) {
        CHECK(shownSeconds(r.output, "system tree", rank) >= 0.0);
    }
    checkExplorerPicture(dir / "ours.png", dir);

    // The README's selection: ranks 1 and 3 wait about 1 s (5 x 200 ms) in the Late Sender, the
    // others not at all.
    r = examineOnX("waitscope_example_late_sender_4", "late.png",
                   "--metric mpi_latesender --callpath receive_block/MPI_Recv --rank 1", dir);
    INFO(r.output);
    REQUIRE(r.status == 0);
    // The selected row: MPI_Recv below receive_block.
    const size_t selected = r.output.find("  receive_block\n> ");
    REQUIRE(selected != std::string::npos);
    const size_t lineEnd = r.output.find('\n', selected + 17);
    CHECK(r.output.substr(lineEnd - 10, 10) == "  MPI_Recv");
    // (Generous: a loaded machine stretches the waits; the values are checked closely by the
    // examples' end-to-end test.)
    CHECK(shownSeconds(r.output, "system tree", "MPI Rank 1") == Approx(1.0).margin(0.6));
    CHECK(shownSeconds(r.output, "system tree", "MPI Rank 3") == Approx(1.0).margin(0.6));
    CHECK(shownSeconds(r.output, "system tree", "MPI Rank 0") == 0.0);
    CHECK(shownSeconds(r.output, "system tree", "MPI Rank 2") == 0.0);
    checkExplorerPicture(dir / "late.png", dir);

    // Scalasca's experiment: its combined trace.cubex, with Scalasca's values.
    const std::string scalasca = std::string(WAITSCOPE_TEST_REFERENCE) + "/late_sender";
    r = examineOnX(scalasca, "scalasca.png", "--metric mpi_latesender --callpath main/MPI_Recv",
                   dir);
    INFO(r.output);
    REQUIRE(r.status == 0);
    CHECK(shownSeconds(r.output, "system tree", "MPI Rank 1") == Approx(1.03).margin(0.005));
    CHECK(shownSeconds(r.output, "system tree", "MPI Rank 3") == Approx(1.00).margin(0.005));
    checkExplorerPicture(dir / "scalasca.png", dir);

    // A call path that matches nothing: the explorer names the one meant, examine fails.
    r = examineOnX("waitscope_example_late_sender_4", "none.png", "--callpath main/MPI_Recv", dir);
    CHECK(r.status != 0);
    CHECK(r.output.find("no call path 'main/MPI_Recv' in this report; did you mean "
                        "'example_late_sender/main/receive_block/MPI_Recv'?") != std::string::npos);
}

namespace {

/// The signed value at the start of `text` ("+12.4 ms", "\u22120.75 s", with `percent` also
/// "\u221274.0 %"): seconds, or the percentage; NaN for another unit.
double signedValue(std::string text, bool percent) {
    const std::string minus = "\xe2\x88\x92"; // U+2212
    double sign = 1.0;
    if (text.rfind(minus, 0) == 0) {
        sign = -1.0;
        text = text.substr(minus.size());
    } else if (!text.empty() && text[0] == '+') {
        text = text.substr(1);
    }
    std::istringstream fields(text);
    double value = 0.0;
    std::string unit;
    fields >> value >> unit;
    const double scale = unit == "s"              ? 1.0
                         : unit == "ms"           ? 1e-3
                         : unit == "us"           ? 1e-6
                         : unit == "%" && percent ? 1.0
                                                  : 0.0;
    return scale > 0.0 ? sign * value * scale : std::nan("");
}

/// Like shownSeconds for a difference ("+12.4 ms  name", "\u22120.75 s  name  [only in report]"):
/// the signed value in seconds on the line of `tree` whose name (before any marker) is `name`;
/// NaN when there is none.
double shownDifference(const std::string& visible, const std::string& tree,
                       const std::string& name) {
    const size_t start = visible.find(tree + ":\n");
    if (start == std::string::npos)
        return std::nan("");
    const size_t end = visible.find(":\n", start + tree.size() + 2);
    std::istringstream lines(visible.substr(start, end - start));
    for (std::string line; std::getline(lines, line);) {
        std::string text = line.substr(line[0] == '>' ? 1 : 0);
        text = text.substr(text.find_first_not_of(' '));
        const size_t nameAt = text.find("  " + name);
        if (nameAt == std::string::npos)
            continue;
        const std::string rest = text.substr(nameAt + 2 + name.size());
        // After the name: a presence marker, or the compared columns of the system tree.
        if (!rest.empty() && rest.rfind("  [", 0) != 0 && rest.rfind("  |  ", 0) != 0)
            continue;
        return signedValue(text, false);
    }
    return std::nan("");
}

/// A compared column of the system tree's line of `name` ("  |  baseline 1.01 s  report 264 ms
/// vs baseline −74.0 %"): the seconds after "baseline " or "report ", or the percent after
/// "vs baseline "; NaN when absent.
double shownColumn(const std::string& visible, const std::string& name, const std::string& column) {
    const size_t start = visible.find("system tree:\n");
    if (start == std::string::npos)
        return std::nan("");
    std::istringstream lines(visible.substr(start));
    for (std::string line; std::getline(lines, line);) {
        const size_t bar = line.find("  " + name + "  |  ");
        if (bar == std::string::npos)
            continue;
        const std::string columns = line.substr(bar + name.size() + 7);
        const size_t at =
            column == "baseline" ? columns.find("baseline ") : columns.find("  " + column + " ");
        if (at == std::string::npos)
            return std::nan("");
        return signedValue(columns.substr(at + (column == "baseline" ? 0 : 2) + column.size() + 1),
                           true);
    }
    return std::nan("");
}

} // namespace

TEST_CASE("the explorer shows a shorter injected wait as a Late Sender improvement against the "
          "baseline, in a real X window") {
    if (!xvfbInstalled()) {
        return;
    }
    const fs::path dir = workDirectory("baseline");
    // Before: ranks 1 and 3 wait 5 x 200 ms; after: 5 x 50 ms.
    Run r = analyzed("-q -e before", "late_sender 5 200", dir);
    r = analyzed("-q -e after", "late_sender 5 50", dir);

    r = examineOnX("after", "difference.png",
                   "--baseline before --metric mpi_latesender --callpath receive_block/MPI_Recv "
                   "--rank 1",
                   dir);
    INFO(r.output);
    REQUIRE(r.status == 0);
    // About 5 x 150 ms less waiting on ranks 1 and 3 (generous: a loaded machine stretches the
    // waits), none on the senders.
    CHECK(shownDifference(r.output, "system tree", "MPI Rank 1") == Approx(-0.75).margin(0.4));
    CHECK(shownDifference(r.output, "system tree", "MPI Rank 3") == Approx(-0.75).margin(0.4));
    CHECK(shownDifference(r.output, "system tree", "MPI Rank 0") == 0.0);
    CHECK(shownDifference(r.output, "system tree", "MPI Rank 2") == 0.0);
    // The improvement is shown with a true minus sign; the senders compute less as well.
    CHECK(r.output.find("\xe2\x88\x92") != std::string::npos);
    CHECK(shownDifference(r.output, "metric tree", "Late Sender") < -0.3);
    // Both runs side by side in the system tree: rank 1 waited about 1 s before, 0.25 s after
    // (-75 %); rank 0 waited in neither.
    CHECK(shownColumn(r.output, "MPI Rank 1", "baseline") == Approx(1.0).margin(0.4));
    CHECK(shownColumn(r.output, "MPI Rank 1", "report") == Approx(0.25).margin(0.3));
    CHECK(shownColumn(r.output, "MPI Rank 1", "vs baseline") == Approx(-75.0).margin(20.0));
    CHECK(shownColumn(r.output, "MPI Rank 0", "baseline") == 0.0);
    CHECK(shownColumn(r.output, "MPI Rank 0", "vs baseline") == 0.0);
    checkExplorerPicture(dir / "difference.png", dir, "--difference");

    // Percent of the baseline in every tree: Late Sender fell by about three quarters.
    r = examineOnX("after", "percent.png",
                   "--baseline before --metric mpi_latesender --callpath receive_block/MPI_Recv "
                   "--mode baseline",
                   dir);
    INFO(r.output);
    REQUIRE(r.status == 0);
    // The row "−74.0 %  MPI_Recv": the percent before the name.
    const size_t recvAt = r.output.find(" %  MPI_Recv\n");
    REQUIRE(recvAt != std::string::npos);
    const size_t numberAt = r.output.rfind("\xe2\x88\x92", recvAt);
    REQUIRE(numberAt != std::string::npos);
    CHECK(std::stod(r.output.substr(numberAt + 3, recvAt - numberAt - 3)) ==
          Approx(75.0).margin(20.0));
    CHECK(r.output.find("%  Late Sender\n") != std::string::npos);
    CHECK(r.output.find("inf") == std::string::npos);
    CHECK(r.output.find("nan") == std::string::npos);
}

TEST_CASE("a runtime profile from analyze --profile is scored within 20 % of the real trace") {
    const fs::path dir = workDirectory("profile");
    Run r = analyzed("-q --profile -e prof", "late_sender", dir);
    if (!fs::exists(dir / "prof/profile.cubex")) {
        WARN("the measurement wrote no profile.cubex: profiling is not in this build");
        return;
    }
    CHECK_FALSE(fs::exists(dir / "prof/traces.otf2"));
    r = run(analyzeCommand("-q -e trace", "late_sender"), dir);
    REQUIRE(r.status == 0);
    r = run(kDriver + " score -g prof.filter prof", dir);
    INFO(r.output);
    REQUIRE(r.status == 0);
    checkScoreEstimatesTrace(r.output, dir / "trace");
    // The profile's summary splits the time by region even without wait-state metrics.
    r = run(kDriver + " examine --text prof/profile.cubex", dir);
    REQUIRE(r.status == 0);
    CHECK(r.output.find("point-to-point        0.00 s") == std::string::npos);
    CHECK(r.output.find("no wait-state metrics") != std::string::npos);
}

TEST_CASE("score estimates a Score-P profile's trace, suggests a buffer, and writes a filter only "
          "with -g, once") {
    const fs::path dir = workDirectory("score");
    const std::string profile = std::string(WAITSCOPE_TEST_REFERENCE) + "/late_sender";
    Run r = run(kDriver + " score " + profile, dir);
    INFO(r.output);
    REQUIRE(r.status == 0);
    CHECK(r.output.find("Estimated trace size (scorep format)") != std::string::npos);
    CHECK(r.output.find("MPI_Recv") != std::string::npos);
    // The buffer each rank needs, in the variable's own syntax (the trace is small: 1M).
    CHECK(r.output.find("WAITSCOPE_TOTAL_MEMORY=1M holds each rank's events") != std::string::npos);
    CHECK_FALSE(fs::exists(dir / "waitscope.filter")); // not asked for
    r = run(kDriver + " score -g " + profile, dir);
    REQUIRE(r.status == 0);
    const std::string filter = readFile(dir / "waitscope.filter");
    CHECK(filter.find("SCOREP_REGION_NAMES_BEGIN") != std::string::npos);
    CHECK(filter.find("SCOREP_REGION_NAMES_END") != std::string::npos);
    std::ofstream(dir / "waitscope.filter") << "mine\n";
    r = run(kDriver + " score -g " + profile, dir);
    CHECK(r.status == 0);
    CHECK(r.output.find("waitscope.filter exists and is kept") != std::string::npos);
    CHECK(readFile(dir / "waitscope.filter") == "mine\n");
    r = run(kDriver + " score -g other.filter " + profile, dir);
    CHECK(r.status == 0);
    CHECK(fs::exists(dir / "other.filter"));
}

TEST_CASE("score refuses a negative or malformed region count with a clear message") {
    const fs::path dir = workDirectory("score_count");
    const std::string profile = std::string(WAITSCOPE_TEST_REFERENCE) + "/late_sender";
    for (const char* count : {"-5", "3x"}) {
        Run r = run(kDriver + " score -r " + count + " " + profile, dir);
        INFO(r.output);
        CHECK(r.status == 2);
        CHECK(r.output.find(std::string("waitscope score: error: -r '") + count +
                            "': expected a whole number from 0 to 999999999") != std::string::npos);
    }
    Run r = run(kDriver + " score -r 0 " + profile, dir);
    CHECK(r.status == 0);
    CHECK(r.output.find("MPI_Recv") == std::string::npos);
}

TEST_CASE("analyze runs mpirun without -np: the launcher decides the rank count and the analysis "
          "takes it from the trace") {
    const fs::path dir = workDirectory("no_count");
    // Two slots on this host: mpirun starts two ranks.
    const Run r = run(kEnv + " " + kDriver + " analyze mpirun --host localhost:2 " + kExamples +
                          "/example_wait_nxn",
                      dir);
    INFO(r.output);
    REQUIRE(r.status == 0);
    CHECK(r.output.find("measuring the ranks the launcher starts") != std::string::npos);
    CHECK(r.output.find("the launcher started 2 ranks") != std::string::npos);
    CHECK(r.output.find("analyzing the traces on 2 ranks") != std::string::npos);
    // The experiment gets its usual name once the count is known.
    const fs::path experiment = dir / "waitscope_example_wait_nxn_2";
    REQUIRE(fs::exists(experiment / "report.cubex"));
    CHECK_FALSE(fs::exists(dir / "waitscope_example_wait_nxn"));
    const std::string summary = readFile(experiment / "summary.txt");
    CHECK(summary.find("ranks:       2 ranks") != std::string::npos);
    CHECK(summary.find("command:     mpirun --host localhost:2 ") != std::string::npos);
}

TEST_CASE("analyze -a reuses the launcher options the experiment was measured with, and a "
          "launcher after the directory replaces them") {
    const fs::path dir = workDirectory("again_options");
    Run r = run(kEnv + " " + kDriver + " analyze -q -e exp mpirun -np 2 --oversubscribe " +
                    kExamples + "/example_wait_nxn",
                dir);
    INFO(r.output);
    REQUIRE(r.status == 0);
    CHECK(readFile(dir / "exp/waitscope.command") ==
          "mpirun -np 2 --oversubscribe " + kExamples + "/example_wait_nxn\n");
    // The command the clock-violation note suggests, as it is written there.
    r = run(kEnv + " " + kDriver + " analyze -n --time-correct -a exp", dir);
    INFO(r.output);
    REQUIRE(r.status == 0);
    CHECK(r.output.find("analyze:   mpirun -np 2 --oversubscribe ") != std::string::npos);
    CHECK(r.output.find("waitscope-replay --time-correct " + (dir / "exp").string()) !=
          std::string::npos);
    r = run(kEnv + " " + kDriver + " analyze -n -a exp mpirun --bind-to none", dir);
    INFO(r.output);
    REQUIRE(r.status == 0);
    CHECK(r.output.find("analyze:   mpirun -np 2 --bind-to none ") != std::string::npos);
    CHECK(r.output.find("--oversubscribe") == std::string::npos);
    // And it runs: the replay gets the options it needs.
    r = run(kEnv + " " + kDriver + " analyze --time-correct -a exp", dir);
    INFO(r.output);
    REQUIRE(r.status == 0);
    CHECK(r.output.find("waitscope analyze: [1/2] analyzing the traces on 2 ranks") !=
          std::string::npos);
    CHECK(r.output.find("mpirun -np 2 --oversubscribe ") != std::string::npos);
    // A rank count after the directory sets the analysis's processes (M:N, same report), and
    // --serial analyzes in one process without the launcher.
    r = run(kEnv + " " + kDriver + " analyze -n -a exp mpirun -np 1", dir);
    INFO(r.output);
    REQUIRE(r.status == 0);
    CHECK(r.output.find("analyze:   mpirun -np 1 ") != std::string::npos);
    r = run(kEnv + " " + kDriver + " analyze -n --serial -a exp", dir);
    INFO(r.output);
    REQUIRE(r.status == 0);
    CHECK(r.output.find("analyze:   ") != std::string::npos);
    CHECK(r.output.find("waitscope-replay --serial " + (dir / "exp").string()) !=
          std::string::npos);
    CHECK(r.output.find("analyze:   mpirun") == std::string::npos);
    const std::string report = readFile(dir / "exp/trace.stat");
    r = run(kEnv + " " + kDriver + " analyze --time-correct -a exp mpirun -np 1", dir);
    INFO(r.output);
    REQUIRE(r.status == 0);
    CHECK(r.output.find("analyzing the traces of 2 ranks on 1 process\n") != std::string::npos);
    CHECK(readFile(dir / "exp/trace.stat") == report);
}

TEST_CASE("a profile-only experiment: one unnumbered step, and examine summarizes its profile "
          "without claiming there are no wait states") {
    const fs::path dir = workDirectory("profile_only");
    Run r = analyzed("--profile -e prof", "late_sender", dir);
    CHECK(r.output.find("[1/") == std::string::npos);
    CHECK(r.output.find("waitscope analyze: measuring 4 ranks") != std::string::npos);
    // The command it suggests works.
    const size_t at = r.output.find("examine it: ");
    REQUIRE(at != std::string::npos);
    const std::string suggested = r.output.substr(at + 12, r.output.find('\n', at) - at - 12);
    CHECK(suggested == "waitscope examine " + (dir / "prof").string());
    r = run("env -u DISPLAY -u WAYLAND_DISPLAY " + kDriver + " examine " + (dir / "prof").string(),
            dir);
    INFO(r.output);
    REQUIRE(r.status == 0);
    CHECK(r.output.find("not available: a runtime profile has no wait-state metrics") !=
          std::string::npos);
    CHECK(r.output.find("no wait state costs") == std::string::npos);
}

TEST_CASE("on a terminal the phase's elapsed time ticks, and the program's output is never "
          "written into the ticking line") {
    const fs::path dir = workDirectory("ticking");
    if (run("command -v script", dir).status != 0) {
        WARN("util-linux script is not installed: no terminal to tick on");
        return;
    }
    // rank0_serial runs about 2 s: the measurement ticks at least once.
    const Run r = run("script -qec \"" + kEnv + " " + kDriver + " analyze -e exp mpirun -np 2 " +
                          kExamples + "/example_rank0_serial\" /dev/null",
                      dir);
    INFO(r.output);
    REQUIRE(r.status == 0);
    CHECK(r.output.find("\rwaitscope analyze: [1/3] measuring... 1 s\033[K") != std::string::npos);
    // The program's line follows a cleared tick line, at the start of the line.
    CHECK(r.output.find("\r\033[Krank0_serial: 2 ranks") != std::string::npos);
    CHECK(r.output.find("s\033[Krank0_serial") == std::string::npos);
    // Without a terminal there is no ticking, only a line per phase.
    const Run plain = run(kEnv + " " + kDriver + " analyze -a exp", dir);
    INFO(plain.output);
    REQUIRE(plain.status == 0);
    CHECK(plain.output.find('\r') == std::string::npos);
    CHECK(plain.output.find("waitscope analyze: [1/2] analyzing the traces on 2 ranks\n") !=
          std::string::npos);
}
