// Offscreen screenshot tests: waitscope-gui renders a reference report and one of ours, and a
// file that is not a report gives a message while the window still renders.
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
    QImage image;
};

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
    run.image = QImage(png);
    return run;
}

// Counts pixels close to `colour` (the colour boxes are painted flat).
int countPixels(const QImage& image, QColor colour) {
    int count = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) {
            QColor pixel = image.pixelColor(x, y);
            if (std::abs(pixel.red() - colour.red()) + std::abs(pixel.green() - colour.green()) +
                    std::abs(pixel.blue() - colour.blue()) <
                6)
                ++count;
        }
    return count;
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
    CHECK(countPixels(run.image, kHot) > 50);
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
    CHECK(countPixels(run.image, kHot) > 50);
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
