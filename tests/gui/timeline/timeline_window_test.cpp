// The timeline in a real window (under xvfb-run), linked to the explorer: the selected metric
// and call path pick the wait-state instances, --instance steps to one and the window shows
// it; the critical path is drawn. On the Late Sender reference and on Debian's hpcc (a program
// nobody here wrote) traced with our library on 2 ranks, where the critical-path file is also
// checked against the in-process analysis.
#include "trace_text.h"
#include "waitscope/analysis/critical_path_file.h"
#include "waitscope/analysis/serial_analysis.h"
#include "waitscope/analysis/wait_instances.h"

#include <QColor>
#include <QImage>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <sstream>

using namespace waitscope;
using waitscope::test::runCommand;
namespace fs = std::filesystem;

namespace {

bool haveXvfb() {
    const std::string xvfb = WAITSCOPE_TEST_XVFB_RUN;
    return !xvfb.empty() && xvfb.find("NOTFOUND") == std::string::npos;
}

// waitscope-gui with `arguments` on a fresh X server.
test::CommandResult guiOnX(const std::string& arguments) {
    return runCommand("env -u QT_QPA_PLATFORM -u WAYLAND_DISPLAY " +
                      std::string(WAITSCOPE_TEST_XVFB_RUN) + " -a -s '-screen 0 1600x1000x24' " +
                      WAITSCOPE_GUI_EXECUTABLE + " " + arguments + " 2>&1");
}

// What the GUI printed of the timeline: "instance K of N: ..., rank R, cnode C, ..." and the
// window.
struct Shown {
    size_t position = 0;
    size_t picked = 0;
    uint32_t rank = 0;
    uint32_t node = 0;
    double from = 0.0;
    double to = 0.0;
};

Shown shownOf(const std::string& output) {
    Shown shown;
    const size_t at = output.find("timeline: instance ");
    REQUIRE(at != std::string::npos);
    std::istringstream line(output.substr(at + 19));
    std::string of;
    line >> shown.position >> of >> shown.picked;
    const size_t rank = output.find(", rank ", at);
    const size_t cnode = output.find(", cnode ", at);
    REQUIRE(rank != std::string::npos);
    REQUIRE(cnode != std::string::npos);
    shown.rank = static_cast<uint32_t>(std::stoul(output.substr(rank + 7)));
    shown.node = static_cast<uint32_t>(std::stoul(output.substr(cnode + 8)));
    const size_t window = output.find("timeline window: ");
    REQUIRE(window != std::string::npos);
    std::istringstream times(output.substr(window + 17));
    times >> shown.from >> shown.to;
    return shown;
}

// The Late Sender instances (with their wrong-order kinds) of an instances file.
std::vector<analysis::PatternInstance> lateSenders(const fs::path& experiment) {
    auto read = analysis::readWaitInstances((experiment / "instances.txt").string());
    REQUIRE(read.ok());
    std::vector<analysis::PatternInstance> late;
    for (const analysis::PatternInstance& i : *read) {
        for (std::optional<analysis::Metric> m = i.metric; m; m = analysis::metricInfo(*m).parent) {
            if (*m == analysis::Metric::MpiLateSender) {
                late.push_back(i);
                break;
            }
        }
    }
    return late;
}

int countColour(const QImage& image, QColor colour) {
    int count = 0;
    for (int y = 0; y < image.height(); ++y) {
        for (int x = 0; x < image.width(); ++x) {
            const QColor pixel = image.pixelColor(x, y);
            count += std::abs(pixel.red() - colour.red()) +
                         std::abs(pixel.green() - colour.green()) +
                         std::abs(pixel.blue() - colour.blue()) <
                     6;
        }
    }
    return count;
}

// The explorer with the timeline, Late Sender on the whole call tree (its root collapsed)
// selected, stepped to the worst instance: it is the most severe of the experiment's Late
// Sender instances, and the window shows its call.
void checkWorstLateSender(const fs::path& experiment, const fs::path& png) {
    const std::vector<analysis::PatternInstance> late = lateSenders(experiment);
    REQUIRE(!late.empty());
    const test::CommandResult run = guiOnX(experiment.string() +
                                           " --with-timeline --metric mpi_latesender --callpath 0 "
                                           "--instance worst --print-visible --screenshot " +
                                           png.string());
    INFO(run.output);
    REQUIRE(run.exitCode == 0);
    const Shown shown = shownOf(run.output);
    CHECK(shown.picked == late.size());
    const auto worst = std::max_element(
        late.begin(), late.end(),
        [](const analysis::PatternInstance& a, const analysis::PatternInstance& b) {
            return a.severity < b.severity;
        });
    double worstSeverity = 0.0;
    bool found = false;
    for (const analysis::PatternInstance& i : late) {
        if (i.rank == shown.rank && i.node == shown.node && i.enter >= shown.from &&
            i.exit <= shown.to) {
            found = true;
            worstSeverity = std::max(worstSeverity, i.severity);
        }
    }
    CHECK(found);
    CHECK(worstSeverity == Approx(worst->severity));
    const QImage image(QString::fromStdString(png.string()));
    REQUIRE(!image.isNull());
    CHECK(countColour(image, QColor(0xc0, 0x10, 0xc0)) > 50); // the critical path's line

    // The worst's call path alone (a leaf: inclusive is itself) picks only its instances.
    const size_t onPath = static_cast<size_t>(
        std::count_if(late.begin(), late.end(),
                      [&](const analysis::PatternInstance& i) { return i.node == shown.node; }));
    const test::CommandResult path =
        guiOnX(experiment.string() + " --with-timeline --metric mpi_latesender --callpath " +
               std::to_string(shown.node) + " --instance next --print-visible --screenshot " +
               png.string());
    INFO(path.output);
    REQUIRE(path.exitCode == 0);
    const Shown first = shownOf(path.output);
    CHECK(first.position == 1);
    CHECK(first.picked == onPath);
    CHECK(first.node == shown.node);
}

// Per rank the critical path's stretches add up to the rank's critical_path value.
void checkCriticalPath(const fs::path& experiment) {
    auto result = analysis::analyzeArchiveInProcess((experiment / "traces.otf2").string());
    REQUIRE(result.ok());
    auto path = analysis::readCriticalPath((experiment / "critical_path.txt").string());
    REQUIRE(path.ok());
    REQUIRE(!path->empty());
    std::vector<double> lengths(result->ranks(), 0.0);
    for (const analysis::PathSegment& s : *path) {
        REQUIRE(s.rank < result->ranks());
        lengths[s.rank] += s.end - s.start;
    }
    for (uint32_t rank = 0; rank < result->ranks(); ++rank) {
        double value = 0.0;
        for (analysis::NodeId node = 0; node < result->tree().size(); ++node) {
            value += result->value(analysis::Metric::CriticalPath, node, rank);
        }
        INFO("rank " << rank);
        CHECK(lengths[rank] == Approx(value).margin(1e-6));
    }
}

} // namespace

TEST_CASE("the timeline picks the explorer's Late Sender instances and shows the worst, in a "
          "real X window",
          "[timeline][xvfb]") {
    if (!haveXvfb()) {
        WARN("xvfb-run not installed: the timeline was not run on an X server");
        return;
    }
    const fs::path dir = test::freshDirectory("timeline_window");
    const fs::path experiment = dir / "late_sender";
    fs::copy(fs::path(WAITSCOPE_REFERENCE_DIR) / "late_sender" / "trace", experiment,
             fs::copy_options::recursive);
    const test::CommandResult replay =
        runCommand(std::string(WAITSCOPE_TEST_REPLAY) + " --serial --quiet " + experiment.string());
    INFO(replay.output);
    REQUIRE(replay.exitCode == 0);
    checkWorstLateSender(experiment, dir / "explorer.png");

    // The timeline alone: the run's whole length, every instance picked.
    const test::CommandResult alone =
        guiOnX("--timeline " + experiment.string() + " --print-visible --screenshot " +
               (dir / "timeline.png").string());
    INFO(alone.output);
    REQUIRE(alone.exitCode == 0);
    CHECK(alone.output.find("timeline: 28 of 28 wait-state instances picked") != std::string::npos);
    const QImage image(QString::fromStdString((dir / "timeline.png").string()));
    REQUIRE(!image.isNull());
    CHECK(countColour(image, QColor(0xc0, 0x10, 0xc0)) > 500);

    // Grouped by node, one strip per call depth: still the whole run and every instance.
    const test::CommandResult grouped = guiOnX(
        "--timeline " + experiment.string() +
        " --by-node --call-depth --print-visible --screenshot " + (dir / "grouped.png").string());
    INFO(grouped.output);
    REQUIRE(grouped.exitCode == 0);
    CHECK(grouped.output.find("timeline: 28 of 28 wait-state instances picked") !=
          std::string::npos);
    CHECK(!QImage(QString::fromStdString((dir / "grouped.png").string())).isNull());
}

#ifdef WAITSCOPE_TEST_HPCC
TEST_CASE("hpcc traced on 2 ranks: its critical path adds up and the timeline shows its worst "
          "Late Sender",
          "[timeline][hpcc]") {
    if (!haveXvfb()) {
        WARN("xvfb-run not installed: the timeline was not run on an X server");
        return;
    }
    const fs::path dir = test::freshDirectory("timeline_hpcc");
    fs::copy_file(WAITSCOPE_TEST_HPCC_INPUT, dir / "hpccinf.txt");
    test::CommandResult run = runCommand(
        "cd '" + dir.string() + "' && " +
        test::mpirunCommand(2, {"WAITSCOPE_EXPERIMENT_DIRECTORY=exp"}, WAITSCOPE_TEST_HPCC));
    INFO(run.output);
    REQUIRE(run.exitCode == 0);
    const fs::path experiment = dir / "exp";
    // The parallel analysis (two processes: the segments travel through the transport).
    run = runCommand(
        test::mpirunCommand(2, {}, WAITSCOPE_TEST_REPLAY, "--quiet " + experiment.string(), false));
    INFO(run.output);
    REQUIRE(run.exitCode == 0);
    checkCriticalPath(experiment);
    checkWorstLateSender(experiment, dir / "hpcc.png");
}
#endif
