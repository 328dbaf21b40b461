// waitscope-gui --timeline renders an experiment with a Late Sender: the receives of the odd
// ranks in point-to-point blue and their wait states shaded in the pattern's red; and a program
// traced without user regions with its computation between the MPI calls.
#include "image_pixels.h"
#include "waitscope/analysis/serial_analysis.h"
#include "waitscope/analysis/wait_instances.h"

#include <QColor>
#include <QImage>
#include <QProcess>
#include <catch2/catch.hpp>
#include <filesystem>

namespace fs = std::filesystem;
using waitscope::gui::test::pixelsOf;

namespace {

// Renders the timeline of `experiment` into `png` (1400 x 400, offscreen).
QImage renderTimeline(const std::filesystem::path& experiment, const std::filesystem::path& png) {
    QProcess process;
    auto environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    process.setProcessEnvironment(environment);
    process.start(QStringLiteral(WAITSCOPE_GUI_EXECUTABLE),
                  {QStringLiteral("--timeline"), QStringLiteral("--screenshot"),
                   QString::fromStdString(png.string()), QStringLiteral("--size"),
                   QStringLiteral("1400x400"), QString::fromStdString(experiment.string())});
    REQUIRE(process.waitForFinished(60000));
    CHECK(process.exitCode() == 0);
    return QImage(QString::fromStdString(png.string()));
}

} // namespace

TEST_CASE("the timeline shows the Late Sender's receives and wait states", "[timeline]") {
    const fs::path dir = fs::path(WAITSCOPE_TEST_TMP_DIR) / "timeline_late_sender";
    fs::remove_all(dir);
    fs::create_directories(dir);
    const fs::path reference = fs::path(WAITSCOPE_REFERENCE_DIR) / "late_sender" / "trace";
    fs::copy(reference, dir, fs::copy_options::recursive);
    auto result = waitscope::analysis::analyzeArchiveInProcess((dir / "traces.otf2").string());
    REQUIRE(result.ok());
    REQUIRE(
        waitscope::analysis::writeWaitInstances(*result, (dir / "instances.txt").string()).ok());
    const QImage image = renderTimeline(dir, dir / "timeline.png");
    REQUIRE(!image.isNull());
    CHECK(image.width() == 1400);
    // Point-to-point blue on ranks 1 and 3 (their receives last most of the run), and the
    // Late Sender's red over them (hatched: the solid share alone is a large area).
    CHECK(pixelsOf(image, QColor(0x3f, 0x7f, 0xd0), 5) > 20000);
    CHECK(pixelsOf(image, QColor(0x99, 0x00, 0x0d), 5) > 5000);
}

TEST_CASE("the time between MPI calls of a program traced without user regions is computation",
          "[timeline]") {
    // Debian's hpcc preloaded with our library (no samples): MPI calls only, each rank's row
    // filled between them by the program's own visit.
    const fs::path dir = fs::path(WAITSCOPE_TEST_TMP_DIR) / "timeline_mpi_only";
    fs::remove_all(dir);
    fs::copy(fs::path(WAITSCOPE_REFERENCE_DIR) / "hpcc" / "trace", dir,
             fs::copy_options::recursive);
    const QImage image = renderTimeline(dir, dir / "timeline.png");
    REQUIRE(!image.isNull());
    // Computation green over a large share of the 4 rows: about 43,000 pixels (none before the
    // program was a visit).
    CHECK(pixelsOf(image, QColor(0x9c, 0xc6, 0x8f), 5) > 30000);
}
