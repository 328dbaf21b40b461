// waitscope-gui: command line of the explorer (open a report, select, take a screenshot).
#include "main_window.h"
#include "metric_help.h"
#include "report_view.h"
#include "timeline_view.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDateTime>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QScreen>
#include <QTimer>
#include <QWindow>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <unistd.h>

using namespace waitscope::gui;

namespace {

struct Options {
    QString report;
    QString screenshot;
    QString metric;
    QString callPath;
    QString rank;
    QString mode;
    QString search;
    QString tab;
    QSize size{1400, 860};
    bool hottest = false;
    bool flat = false;
    bool sort = false;
    bool timing = false;
    bool printVisible = false;
    bool metricDocs = false;
    bool timeline = false; ///< --timeline: the trace on the timeline instead of the report
};

int fail(const QString& message) {
    std::fprintf(stderr, "waitscope-gui: error: %s\n", qPrintable(message));
    return 1;
}

// Waits until the call tree shows the values of the selected metric (computed in the
// background), so that what follows sees them.
void waitForValues(ReportView& view) {
    CallTreeModel* calls = view.session().callTree();
    if (!calls->isComputing())
        return;
    QEventLoop wait;
    QObject::connect(calls, &CallTreeModel::computingChanged, &wait, &QEventLoop::quit);
    wait.exec();
}

// Applies the selection options to the opened report; returns an error message or empty.
QString applySelections(ReportView& view, const Options& options) {
    if (!options.mode.isEmpty()) {
        static const std::pair<const char*, ValueMode> kModes[] = {
            {"absolute", ValueMode::Absolute},
            {"root", ValueMode::PercentOfRoot},
            {"selection", ValueMode::PercentOfSelection},
            {"peer", ValueMode::PeerPercent}};
        bool known = false;
        for (const auto& [name, mode] : kModes)
            if (options.mode == QLatin1String(name)) {
                view.setValueMode(mode);
                known = true;
            }
        if (!known)
            return QStringLiteral("unknown value mode %1 (absolute, root, selection, peer)")
                .arg(options.mode);
    }
    if (options.sort)
        view.setSortByValue(true);
    if (!options.metric.isEmpty() && !view.selectMetric(options.metric))
        return QStringLiteral("no metric named %1").arg(options.metric);
    waitForValues(view);
    // The window opens on the hottest path of the first metric; a metric chosen here gets its own
    // hottest path unless a call path is chosen too.
    if (options.hottest || (!options.metric.isEmpty() && options.callPath.isEmpty()))
        view.expandHottestPath();
    if (!options.callPath.isEmpty())
        if (QString error = view.selectCallPath(options.callPath); !error.isEmpty())
            return error;
    if (!options.rank.isEmpty() && !view.selectRank(options.rank.toLongLong())) {
        std::optional<std::int64_t> first, last;
        for (const waitscope::report::SystemNode& node : view.session().report().systemNodes())
            if (node.kind == waitscope::report::SystemKind::Process) {
                first = std::min(first.value_or(node.rank), node.rank);
                last = std::max(last.value_or(node.rank), node.rank);
            }
        return first ? QStringLiteral("--rank %1: no process with this rank in the report (ranks "
                                      "%2 to %3)")
                           .arg(options.rank)
                           .arg(*first)
                           .arg(*last)
                     : QStringLiteral("--rank %1: the report has no processes").arg(options.rank);
    }
    if (!options.search.isEmpty())
        view.search(options.search);
    if (options.flat)
        view.showFlatProfile(true);
    if (!options.tab.isEmpty() && !view.showTab(options.tab))
        return QStringLiteral("unknown tab %1 (metric, source, attributes)").arg(options.tab);
    return {};
}

bool environmentSet(const char* name) {
    const char* value = std::getenv(name);
    return value != nullptr && *value != '\0';
}

// Qt's messages while the platform plugin starts. When it cannot start (no display to connect
// to), Qt prints several lines and aborts; the user gets one line instead.
bool g_started = false;
QString g_platformProblem;

void startupMessageHandler(QtMsgType type, const QMessageLogContext& context,
                           const QString& message) {
    const bool platform =
        context.category != nullptr && QByteArray(context.category).startsWith("qt.qpa");
    if (!g_started && type == QtFatalMsg) {
        QByteArray display = qgetenv("DISPLAY");
        std::fprintf(stderr,
                     "waitscope-gui: error: cannot open the display %s%s%s; "
                     "`waitscope examine --text DIR` prints the findings, and `waitscope-gui "
                     "--screenshot FILE REPORT` renders the window without a display\n",
                     display.isEmpty() ? "(DISPLAY is not set)" : display.constData(),
                     g_platformProblem.isEmpty() ? "" : ": ", qPrintable(g_platformProblem));
        std::fflush(stderr);
        _exit(1);
    }
    if (!g_started && platform) {
        if (g_platformProblem.isEmpty())
            g_platformProblem = message;
        return;
    }
    std::fprintf(stderr, "%s\n", qPrintable(qFormatLogMessage(type, context, message)));
}

// The window as the display shows it: read back from the window system when there is one
// (proof that a real window was mapped), rendered by the widgets offscreen.
QPixmap capture(QWidget& window) {
    if (QGuiApplication::platformName() == QLatin1String("offscreen"))
        return window.grab();
    QWindow* handle = window.windowHandle();
    QElapsedTimer waited;
    waited.start();
    while (handle != nullptr && !handle->isExposed() && waited.elapsed() < 5000)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
    window.repaint();
    QCoreApplication::processEvents();
    return window.screen()->grabWindow(window.winId());
}

} // namespace

int main(int argc, char** argv) {
    QElapsedTimer sinceStart;
    sinceStart.start();
    // The command line is read before the window system is touched, so that --help and
    // mistakes in the options need no display.
    Options options;
    bool batch = false;
    {
        QCoreApplication parsing(argc, argv);
        QCoreApplication::setApplicationName(QStringLiteral("waitscope-gui"));
        QCommandLineParser parser;
        parser.setApplicationDescription(
            QStringLiteral("Waitscope explorer: metric, call and system trees of a CUBE4 report"));
        parser.addHelpOption();
        parser.addPositionalArgument(QStringLiteral("report"),
                                     QStringLiteral("report (.cubex) or experiment directory"));
        QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                      QStringLiteral("render the window to FILE (PNG) and exit"),
                                      QStringLiteral("FILE"));
        QCommandLineOption metric(QStringLiteral("metric"),
                                  QStringLiteral("select the metric (unique or display name)"),
                                  QStringLiteral("NAME"));
        QCommandLineOption callPath(
            QStringLiteral("callpath"),
            QStringLiteral("select the call path a/b/c, its last regions (b/c), or a call node id"),
            QStringLiteral("PATH"));
        QCommandLineOption rank(QStringLiteral("rank"),
                                QStringLiteral("select the process of MPI rank N"),
                                QStringLiteral("N"));
        QCommandLineOption mode(QStringLiteral("mode"),
                                QStringLiteral("value mode: absolute, root, selection, peer"),
                                QStringLiteral("MODE"));
        QCommandLineOption search(QStringLiteral("search"),
                                  QStringLiteral("search the call tree for TEXT"),
                                  QStringLiteral("TEXT"));
        QCommandLineOption tab(QStringLiteral("tab"),
                               QStringLiteral("information tab: metric, source, attributes"),
                               QStringLiteral("NAME"));
        QCommandLineOption hottest(
            QStringLiteral("expand-hottest"),
            QStringLiteral("expand the hottest path of the selected metric (the window opens with "
                           "the first metric's)"));
        QCommandLineOption flat(QStringLiteral("flat"), QStringLiteral("show the flat profile"));
        QCommandLineOption sort(QStringLiteral("sort"), QStringLiteral("sort the trees by value"));
        QCommandLineOption size(QStringLiteral("size"),
                                QStringLiteral("window size for --screenshot (default 1400x860)"),
                                QStringLiteral("WxH"));
        QCommandLineOption printVisible(
            QStringLiteral("print-visible"),
            QStringLiteral("print the rows the three trees show (value and name; the selected ones "
                           "marked with >), e.g. with --screenshot"));
        QCommandLineOption metricDocs(
            QStringLiteral("metric-docs"),
            QStringLiteral("open Help > Metric documentation at the selected metric (with "
                           "--screenshot, the picture is of that window)"));
        QCommandLineOption timing(QStringLiteral("timing"),
                                  QStringLiteral("print the time to first values and to expand the "
                                                 "hottest path, then exit"));
        QCommandLineOption timelineOption(
            QStringLiteral("timeline"),
            QStringLiteral("open the experiment's trace on the timeline instead of the report"));
        parser.addOptions({screenshot, metric, callPath, rank, mode, search, tab, hottest, flat,
                           sort, size, timing, printVisible, metricDocs, timelineOption});
        parser.process(parsing);

        options.report = parser.positionalArguments().value(0);
        options.screenshot = parser.value(screenshot);
        options.metric = parser.value(metric);
        options.callPath = parser.value(callPath);
        options.rank = parser.value(rank);
        if (parser.isSet(rank)) {
            bool number = false;
            if (options.rank.toLongLong(&number) < 0 || !number)
                return fail(QStringLiteral("--rank %1: not a rank (a whole number from 0)")
                                .arg(options.rank));
        }
        options.mode = parser.value(mode);
        options.search = parser.value(search);
        options.tab = parser.value(tab);
        options.hottest = parser.isSet(hottest);
        options.flat = parser.isSet(flat);
        options.sort = parser.isSet(sort);
        options.timing = parser.isSet(timing);
        options.printVisible = parser.isSet(printVisible);
        options.metricDocs = parser.isSet(metricDocs);
        options.timeline = parser.isSet(timelineOption);
        if (parser.isSet(size)) {
            QStringList parts = parser.value(size).split(QLatin1Char('x'));
            if (parts.size() != 2 || parts[0].toInt() < 200 || parts[1].toInt() < 150)
                return fail(QStringLiteral("bad --size %1 (expected WxH, e.g. 1400x860)")
                                .arg(parser.value(size)));
            options.size = QSize(parts[0].toInt(), parts[1].toInt());
        }
        batch = !options.screenshot.isEmpty() || options.timing;
        if (batch && options.report.isEmpty())
            return fail(QStringLiteral("--screenshot and --timing need a report"));
    }

    // Without a display a picture is still rendered (offscreen); a window cannot be shown.
    if (!environmentSet("QT_QPA_PLATFORM") && !environmentSet("DISPLAY") &&
        !environmentSet("WAYLAND_DISPLAY")) {
        if (!batch)
            return fail(QStringLiteral(
                "no display to show the window on (DISPLAY is not set); `waitscope examine "
                "--text DIR` prints the findings, and --screenshot FILE renders the window "
                "without a display"));
        qputenv("QT_QPA_PLATFORM", "offscreen");
    }
    qInstallMessageHandler(startupMessageHandler);
    QApplication app(argc, argv);
    g_started = true;
    qInstallMessageHandler(nullptr);
    QApplication::setApplicationName(QStringLiteral("waitscope-gui"));

    if (options.timeline) {
        // The timeline of a trace: read here, then shown (or rendered to --screenshot).
        auto timeline = waitscope::timeline::Timeline::load(options.report.toStdString());
        if (!timeline)
            return fail(QString::fromStdString(timeline.error().message()));
        TimelineView view(std::move(*timeline));
        view.resize(options.size);
        if (!options.screenshot.isEmpty()) {
            if (!view.grab().save(options.screenshot))
                return fail(QStringLiteral("cannot write %1").arg(options.screenshot));
            return 0;
        }
        view.show();
        return app.exec();
    }

    MainWindow window(!batch);
    // On a real screen the window fits it, so that a picture of it shows all of it.
    QSize size = options.size;
    if (QGuiApplication::platformName() != QLatin1String("offscreen") && window.screen())
        size = size.boundedTo(window.screen()->availableSize());
    window.resize(size);
    int status = 0;
    QObject::connect(&window, &MainWindow::reportOpened, &app, [&](bool ok) {
        if (!ok) {
            std::fprintf(stderr, "waitscope-gui: error: %s\n", qPrintable(window.lastError()));
            status = 1; // for scripts; the window itself stays usable
        }
        ReportView* view = window.reportView();
        if (ok && view) {
            if (options.timing) {
                window.repaint(); // the first values are painted when this returns
                qint64 firstValuesEpoch = QDateTime::currentMSecsSinceEpoch();
                std::printf("time to first values: %lld ms since start, %lld ms to open and "
                            "build the models\n",
                            static_cast<long long>(sinceStart.elapsed()),
                            static_cast<long long>(window.lastOpenMilliseconds()));
                QElapsedTimer clock;
                clock.start();
                view->expandHottestPath();
                window.repaint();
                std::printf("expand hottest path: %lld ms\n",
                            static_cast<long long>(clock.elapsed()));
                // Another metric: the call and system trees recompute their values.
                const auto& metrics = view->session().report().metrics();
                if (metrics.size() > 1) {
                    clock.restart();
                    view->selectMetric(QString::fromStdString(metrics[1].uniqueName));
                    window.repaint();
                    qint64 blocked = clock.elapsed();
                    waitForValues(*view);
                    window.repaint();
                    std::printf("select another metric: GUI thread busy %lld ms, values shown "
                                "after %lld ms\n",
                                static_cast<long long>(blocked),
                                static_cast<long long>(clock.elapsed()));
                }
                clock.restart();
                int matches = view->search(QStringLiteral("region_1"));
                window.repaint();
                std::printf("search the call tree (%d matches): %lld ms\n", matches,
                            static_cast<long long>(clock.elapsed()));
                std::printf("first values at epoch ms %lld\n",
                            static_cast<long long>(firstValuesEpoch));
                std::fflush(stdout);
            }
            if (QString error = applySelections(*view, options); !error.isEmpty()) {
                std::fprintf(stderr, "waitscope-gui: error: %s\n", qPrintable(error));
                status = 1;
            }
        }
        QWidget* pictured = &window;
        if (options.metricDocs) {
            MetricHelp* help = window.showMetricHelp();
            pictured = help;
            if (options.printVisible)
                std::printf("metric documentation (%d metrics):\n%s\n", help->metricCount(),
                            qPrintable(help->shownText()));
        }
        if (!batch)
            return;
        if (!options.screenshot.isEmpty()) {
            // Let the layouts settle before grabbing.
            QTimer::singleShot(50, &app, [&, pictured] {
                if (options.printVisible && window.reportView()) {
                    std::fputs(qPrintable(window.reportView()->visibleRows()), stdout);
                    std::fflush(stdout);
                }
                if (!capture(*pictured).save(options.screenshot)) {
                    std::fprintf(stderr, "waitscope-gui: error: cannot write %s\n",
                                 qPrintable(options.screenshot));
                    status = 1;
                }
                app.exit(status);
            });
        } else {
            if (options.printVisible && window.reportView())
                std::fputs(qPrintable(window.reportView()->visibleRows()), stdout);
            app.exit(status);
        }
    });
    // Reading starts before the window is shown, so that both overlap.
    if (!options.report.isEmpty())
        window.openReport(options.report);
    window.show();
    return app.exec();
}
