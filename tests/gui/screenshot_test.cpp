// Offscreen screenshot tests: waitscope-gui renders a reference report and one of ours, and a
// file that is not a report gives a message while the window still renders.
#include "image_pixels.h"
#include "test_reports.h"

#include <QColor>
#include <QFile>
#include <QImage>
#include <QProcess>
#include <catch2/catch.hpp>

using namespace waitscope::gui::test;

namespace {

struct Run {
    int exitCode = -1;
    QString errors;
    QString output;
    QImage image;
};

// Runs waitscope-gui with `arguments` in `environment`; stdout and stderr apart.
Run runGui(const QStringList& arguments, const QProcessEnvironment& environment) {
    QProcess process;
    process.setProcessEnvironment(environment);
    process.start(QStringLiteral(WAITSCOPE_GUI_EXECUTABLE), arguments);
    REQUIRE(process.waitForFinished(60000));
    Run run;
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    run.errors = QString::fromLocal8Bit(process.readAllStandardError());
    run.output = QString::fromLocal8Bit(process.readAllStandardOutput());
    return run;
}

// The environment without any display or chosen Qt platform.
QProcessEnvironment withoutDisplay() {
    auto environment = QProcessEnvironment::systemEnvironment();
    for (const char* name : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"})
        environment.remove(QLatin1String(name));
    return environment;
}

Run screenshot(const QString& name, QStringList arguments) {
    QString png = QStringLiteral(WAITSCOPE_TEST_TMP_DIR "/") + name + QStringLiteral(".png");
    QFile::remove(png);
    QProcess process;
    auto environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    process.setProcessEnvironment(environment);
    arguments << QStringLiteral("--screenshot") << png;
    process.start(QStringLiteral(WAITSCOPE_GUI_EXECUTABLE), arguments);
    REQUIRE(process.waitForFinished(60000));
    Run run;
    run.exitCode = process.exitCode();
    run.errors = QString::fromLocal8Bit(process.readAllStandardError());
    run.output = QString::fromLocal8Bit(process.readAllStandardOutput());
    run.image = QImage(png);
    return run;
}

const QColor kHot(0xd7, 0x30, 0x27); // colourFor(1.0)

} // namespace

TEST_CASE("the window renders a reference report with the selections asked for", "[screenshot]") {
    Run run = screenshot(QStringLiteral("reference"),
                         {QString::fromStdString(referenceReport("late_sender", "trace")),
                          QStringLiteral("--metric"), QStringLiteral("mpi_latesender"),
                          QStringLiteral("--callpath"), QStringLiteral("late_sender/main/MPI_Recv"),
                          QStringLiteral("--rank"), QStringLiteral("1")});
    INFO(run.errors.toStdString());
    CHECK(run.exitCode == 0);
    REQUIRE_FALSE(run.image.isNull());
    CHECK(run.image.size() == QSize(1400, 860));
    // MPI_Recv holds all of Late Sender: its colour box is the hottest colour.
    CHECK(pixelsOf(run.image, kHot, 5) > 50);
}

TEST_CASE("the window renders a report written by Waitscope", "[screenshot]") {
    (void)writtenReport();
    Run run =
        screenshot(QStringLiteral("ours"),
                   {QStringLiteral(WAITSCOPE_TEST_TMP_DIR "/written.cubex"),
                    QStringLiteral("--expand-hottest"), QStringLiteral("--mode"),
                    QStringLiteral("peer"), QStringLiteral("--size"), QStringLiteral("1200x720")});
    INFO(run.errors.toStdString());
    CHECK(run.exitCode == 0);
    REQUIRE_FALSE(run.image.isNull());
    CHECK(run.image.size() == QSize(1200, 720));
    CHECK(pixelsOf(run.image, kHot, 5) > 50);
}

TEST_CASE("a file that is not a report gives a message naming the problem", "[screenshot]") {
    Run run = screenshot(QStringLiteral("invalid"),
                         {QStringLiteral(WAITSCOPE_REFERENCE_DIR "/late_sender/late_sender.c")});
    CHECK(run.exitCode == 1);
    CHECK(run.errors.contains(QStringLiteral("late_sender.c: ")));
    CHECK_FALSE(run.image.isNull()); // the window was still there to render
}

TEST_CASE("bad selections are reported", "[screenshot]") {
    Run run = screenshot(QStringLiteral("bad_metric"),
                         {QString::fromStdString(referenceReport("late_sender", "trace")),
                          QStringLiteral("--metric"), QStringLiteral("no_such_metric")});
    CHECK(run.exitCode == 1);
    CHECK(run.errors.contains(QStringLiteral("no metric named no_such_metric")));
}

TEST_CASE("a rank that is negative, not a number or not in the report is refused by name",
          "[screenshot]") {
    QString report = QString::fromStdString(referenceReport("late_sender", "trace"));
    // Refused before any window, so without a display too.
    for (const char* rank : {"-5", "abc", "1.5", ""}) {
        Run run = runGui({report, QStringLiteral("--rank"), QLatin1String(rank)}, withoutDisplay());
        CHECK(run.exitCode == 1);
        CHECK(run.errors == QStringLiteral("waitscope-gui: error: --rank %1: not a rank (a whole "
                                           "number from 0)\n")
                                .arg(QLatin1String(rank)));
    }
    for (const char* rank : {"2147483647", "4"}) {
        Run run = screenshot(QStringLiteral("bad_rank"),
                             {report, QStringLiteral("--rank"), QLatin1String(rank)});
        CHECK(run.exitCode == 1);
        CHECK(run.errors.contains(QStringLiteral("waitscope-gui: error: --rank %1: no process with "
                                                 "this rank in the report (ranks 0 to 3)\n")
                                      .arg(QLatin1String(rank))));
    }
}

// The threads' values are checked in system_tree_model_test.cpp; this one renders them (rank 0
// expanded: its master thread, then thread 1 and thread 2) for a look.
TEST_CASE("the window shows a hybrid process's threads", "[screenshot][threads]") {
    (void)threadedReport();
    Run run = screenshot(QStringLiteral("threads"),
                         {QStringLiteral(WAITSCOPE_TEST_TMP_DIR "/threaded.cubex"),
                          QStringLiteral("--metric"), QStringLiteral("time"),
                          QStringLiteral("--callpath"), QStringLiteral("worker_fn/compute"),
                          QStringLiteral("--rank"), QStringLiteral("0")});
    INFO(run.errors.toStdString());
    CHECK(run.exitCode == 0);
    REQUIRE_FALSE(run.image.isNull());
    CHECK(run.image.size() == QSize(1400, 860));
}

TEST_CASE("--help and bad options need no display", "[screenshot][display]") {
    Run help = runGui({QStringLiteral("--help")}, withoutDisplay());
    CHECK(help.exitCode == 0);
    CHECK(help.output.contains(QStringLiteral("--callpath PATH")));
    CHECK(help.errors.isEmpty());
    // The usage error of every waitscope command: named, exit status 2.
    Run bad = runGui({QStringLiteral("--no-such-option")}, withoutDisplay());
    CHECK(bad.exitCode == 2);
    CHECK(bad.errors.startsWith(
        QStringLiteral("waitscope gui: error: unknown option '--no-such-option'\n")));
}

TEST_CASE("without a display the window is refused in one line, a picture still renders",
          "[screenshot][display]") {
    const QString report = QString::fromStdString(referenceReport("late_sender", "trace"));
    Run window = runGui({report}, withoutDisplay());
    CHECK(window.exitCode == 1);
    CHECK(window.errors.startsWith(
        QStringLiteral("waitscope-gui: error: no display to show the window on")));
    CHECK(window.errors.count(QLatin1Char('\n')) == 1);
    QString png = QStringLiteral(WAITSCOPE_TEST_TMP_DIR "/no_display.png");
    QFile::remove(png);
    Run picture = runGui({report, QStringLiteral("--screenshot"), png}, withoutDisplay());
    CHECK(picture.exitCode == 0);
    CHECK(QImage(png).size() == QSize(1400, 860));
}

TEST_CASE("a display that cannot be opened gives one line instead of Qt's abort",
          "[screenshot][display]") {
    auto environment = withoutDisplay();
    environment.insert(QStringLiteral("DISPLAY"), QStringLiteral(":4711"));
    Run run =
        runGui({QString::fromStdString(referenceReport("late_sender", "trace"))}, environment);
    CHECK(run.exitCode == 1); // not a crash
    CHECK(run.errors.startsWith(QStringLiteral("waitscope-gui: error: cannot open the display "
                                               ":4711: could not connect to display :4711")));
    CHECK_FALSE(run.errors.contains(QStringLiteral("qt.qpa")));
    CHECK_FALSE(run.errors.contains(QStringLiteral("failed to start")));
}

TEST_CASE("the window opens on the hottest path with the ranks shown", "[screenshot]") {
    (void)writtenReport();
    Run run = screenshot(QStringLiteral("start"),
                         {QStringLiteral(WAITSCOPE_TEST_TMP_DIR "/written.cubex"),
                          QStringLiteral("--print-visible")});
    INFO(run.errors.toStdString());
    CHECK(run.exitCode == 0);
    // main keeps 1 s, compute holds 4 s: the path ends at compute, which is selected; the
    // system tree shows compute's time on each rank.
    CHECK(run.output.contains(QStringLiteral("call tree:\n"
                                             "  1.00 s  main\n"
                                             ">   4.00 s  compute\n"
                                             "    1.50 s  MPI_Recv\n")));
    CHECK(run.output.contains(QStringLiteral("system tree:\n"
                                             "> 0 s  cluster\n"
                                             "    0 s  node0\n"
                                             "      3.00 s  MPI Rank 0\n"
                                             "      1.00 s  MPI Rank 1\n")));
}

TEST_CASE("a metric chosen on the command line opens on its own hottest path", "[screenshot]") {
    (void)writtenReport();
    // Time's hottest path ends at compute (4 s); Late Sender's only value is at MPI_Recv.
    Run run = screenshot(QStringLiteral("metric_hottest"),
                         {QStringLiteral(WAITSCOPE_TEST_TMP_DIR "/written.cubex"),
                          QStringLiteral("--metric"), QStringLiteral("mpi_latesender"),
                          QStringLiteral("--print-visible")});
    INFO(run.errors.toStdString());
    CHECK(run.exitCode == 0);
    CHECK(run.output.contains(QStringLiteral("    0 s  compute\n"
                                             ">   1.00 s  MPI_Recv\n")));
    CHECK(run.output.contains(QStringLiteral("      1.00 s  MPI Rank 0\n"
                                             "      0 s  MPI Rank 1\n")));
}

TEST_CASE("a call path is found by its last regions, or the ones meant are named", "[screenshot]") {
    const QString report = QString::fromStdString(referenceReport("late_sender", "trace"));
    Run found = screenshot(QStringLiteral("suffix"),
                           {report, QStringLiteral("--metric"), QStringLiteral("mpi_latesender"),
                            QStringLiteral("--callpath"), QStringLiteral("main/MPI_Recv"),
                            QStringLiteral("--print-visible")});
    INFO(found.errors.toStdString());
    CHECK(found.exitCode == 0);
    CHECK(found.output.contains(QStringLiteral(">     2.03 s  MPI_Recv\n")));
    Run missing = screenshot(QStringLiteral("no_suffix"), {report, QStringLiteral("--callpath"),
                                                           QStringLiteral("solve/mpi_recv")});
    CHECK(missing.exitCode == 1);
    CHECK(missing.errors.contains(
        QStringLiteral("no call path 'solve/mpi_recv' in this report; did you mean "
                       "'late_sender/main/MPI_Recv'?")));
}

TEST_CASE("Help > Metric documentation describes the selected metric", "[screenshot]") {
    Run run = screenshot(QStringLiteral("metric_docs"),
                         {QString::fromStdString(referenceReport("late_sender", "trace")),
                          QStringLiteral("--metric"), QStringLiteral("mpi_latesender"),
                          QStringLiteral("--metric-docs"), QStringLiteral("--print-visible")});
    INFO(run.errors.toStdString());
    CHECK(run.exitCode == 0);
    CHECK(run.output.contains(QStringLiteral("metric documentation (")));
    CHECK(run.output.contains(QStringLiteral("Late Sender\nmpi_latesender, unit sec\nTime a "
                                             "receiving process waits")));
    CHECK(run.image.size() == QSize(900, 560)); // the documentation window, not the main one
}

TEST_CASE("a report file without metrics gives a message, not a crash",
          "[screenshot][degenerate]") {
    Run run = screenshot(QStringLiteral("no_metrics"),
                         {QString::fromStdString(writeReportWithoutMetrics())});
    CHECK(run.exitCode == 1);
    CHECK(run.errors.contains(QStringLiteral("no_metrics.cubex: anchor.xml: no metrics")));
    CHECK_FALSE(run.image.isNull()); // the window was still there to render
}
