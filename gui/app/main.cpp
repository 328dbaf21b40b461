// waitscope-gui: command line of the explorer (open a report, select, take a screenshot).
#include "main_window.h"
#include "metric_help.h"
#include "report_view.h"
#include "timeline_panel.h"
#include "timeline_view.h"

#include <QApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QImage>
#include <QScreen>
#include <QTimer>
#include <QWindow>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <optional>
#include <sys/resource.h>
#include <unistd.h>
#include <vector>
#include <waitscope/cli/command_line.h>

using namespace waitscope::gui;

namespace {

struct Options {
    QString report;
    QString baseline; ///< --baseline: show report − baseline
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
    bool timeline = false;     ///< --timeline: the trace on the timeline instead of the report
    bool withTimeline = false; ///< --with-timeline: the report, its timeline below
    QString instance;          ///< --instance: next, previous or worst
    bool byNode = false;       ///< --by-node: timeline rows grouped by node
    bool callDepth = false;    ///< --call-depth: one strip per call depth
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
            {"peer", ValueMode::PeerPercent},
            {"baseline", ValueMode::PercentOfBaseline}};
        if (options.mode == QLatin1String("baseline") && !view.session().isDifference())
            return QStringLiteral("--mode baseline: percent of the baseline needs --baseline");
        bool known = false;
        for (const auto& [name, mode] : kModes)
            if (options.mode == QLatin1String(name)) {
                view.setValueMode(mode);
                known = true;
            }
        if (!known)
            return QStringLiteral(
                       "unknown value mode %1 (absolute, root, selection, peer, baseline)")
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

// --by-node, --call-depth and --instance on the timeline; with --print-visible prints what it
// shows.
void stepToInstance(TimelineView& view, const Options& options) {
    if (!options.instance.isEmpty() || options.printVisible)
        view.waitForEvents(); // the instances are read on a worker
    view.setGroupByNode(options.byNode);
    view.setDepthMode(options.callDepth);
    if (options.instance == QLatin1String("next"))
        view.showNext();
    else if (options.instance == QLatin1String("previous"))
        view.showPrevious();
    else if (options.instance == QLatin1String("worst"))
        view.showWorst();
    if (options.printVisible) {
        std::printf("timeline: %s\ntimeline window: %.9f %.9f\n", qPrintable(view.pickedText()),
                    view.windowStart(), view.windowEnd());
        std::fflush(stdout);
    }
}

// The calling thread's CPU time.
double threadCpuMilliseconds() {
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) * 1e3 + static_cast<double>(now.tv_nsec) / 1e6;
}

double processCpuMilliseconds() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    const auto ms = [](const timeval& t) {
        return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_usec) / 1e3;
    };
    return ms(usage.ru_utime) + ms(usage.ru_stime);
}

// The median, 95th percentile and maximum of `values`, as text.
std::string spread(std::vector<double> values) {
    if (values.empty())
        return "none";
    std::sort(values.begin(), values.end());
    const auto at = [&](double q) {
        return values[std::min(values.size() - 1, static_cast<size_t>(q * values.size()))];
    };
    char text[160];
    std::snprintf(text, sizeof text, "median %.2f ms, 95th %.2f ms, max %.2f ms (%zu)", at(0.5),
                  at(0.95), values.back(), values.size());
    return text;
}

// Runs the event loop for `milliseconds` (what the worker delivers meanwhile is taken).
void idle(int milliseconds) {
    QElapsedTimer clock;
    clock.start();
    for (qint64 left = milliseconds; left > 0; left = milliseconds - clock.elapsed())
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, static_cast<int>(left));
}

// --timeline --timing: the whole run rendered offscreen, then 100 scripted zoom and pan steps
// from the whole run down to single events and back. A step is timed from the zoom or pan to its
// final picture: rendered at once when what it draws is in memory (the events, read ahead or at
// once from the page cache, or the overview when the window holds too many to draw), else
// rendered from the overview, the window's events awaited from the worker and rendered again.
// WAITSCOPE_TIMELINE_PAUSE_MS (default 0, back to back) is the idle time before each step, as
// between a user's wheel turns. Peak memory at the end.
void timeTimeline(TimelineView& view, const QElapsedTimer& sinceStart) {
    QImage image(view.size(), QImage::Format_ARGB32_Premultiplied);
    QElapsedTimer clock;
    clock.start();
    view.render(&image);
    std::printf("whole run shown: %lld ms to render, %lld ms since start (%s)\n",
                static_cast<long long>(clock.elapsed()),
                static_cast<long long>(sinceStart.elapsed()),
                view.drawsFromSummary() ? "from the overview" : "from the events");
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    std::printf("peak memory when the whole run is shown: %ld MiB\n", usage.ru_maxrss / 1024);
    view.waitForEvents();
    std::printf("instances and critical path read on the worker: shown %lld ms since start\n",
                static_cast<long long>(sinceStart.elapsed()));
    const int pause = qEnvironmentVariableIntValue("WAITSCOPE_TIMELINE_PAUSE_MS");
    std::vector<double> finals;     // the step to its final picture, wall
    std::vector<double> cpuSteps;   // the GUI thread's CPU time of the same
    std::vector<double> cpuProcess; // the process's (GUI thread and worker) CPU time of the same
    std::vector<double> awaited;    // the steps that waited for the worker: to the final picture
    double narrowest = view.windowEnd() - view.windowStart();
    int fromSummary = 0;
    const int readsBefore = view.windowReads();
    const int atOnceBefore = view.windowReadsAtOnce();
    for (int step = 0; step < 100; ++step) {
        if (pause > 0)
            idle(pause);
        const double anchor = 0.1 + 0.8 * ((step * 37) % 100) / 100.0;
        QElapsedTimer frame;
        frame.start();
        const double cpuBefore = threadCpuMilliseconds();
        const double processBefore = processCpuMilliseconds();
        if (step < 45)
            view.zoom(0.72, anchor); // down to microseconds
        else if (step < 60)
            view.pan(step % 2 == 0 ? 0.35 : -0.2);
        else
            view.zoom(1.3, anchor);
        narrowest = std::min(narrowest, view.windowEnd() - view.windowStart());
        view.render(&image);
        const bool waited = view.detailPending();
        if (waited) {
            view.waitForEvents();
            view.render(&image);
        }
        finals.push_back(static_cast<double>(frame.nsecsElapsed()) / 1e6);
        cpuSteps.push_back(threadCpuMilliseconds() - cpuBefore);
        cpuProcess.push_back(processCpuMilliseconds() - processBefore);
        if (waited)
            awaited.push_back(finals.back());
        if (qEnvironmentVariableIsSet("WAITSCOPE_TIMELINE_STEPS"))
            std::printf("step %d: %.3f ms (CPU %.3f ms, process %.3f ms), window %.6g s%s%s\n",
                        step, finals.back(), cpuSteps.back(), cpuProcess.back(),
                        view.windowEnd() - view.windowStart(),
                        view.drawsFromSummary() ? ", from the overview" : "",
                        waited ? ", events awaited" : "");
        fromSummary += view.drawsFromSummary() ? 1 : 0;
    }
    getrusage(RUSAGE_SELF, &usage);
    std::printf("100 zoom/pan steps to the final picture (pause %d ms before each): %s "
                "(%d from the overview; %d window reads, %d of them at once from the page "
                "cache; narrowest window %.3g s)\n",
                pause, spread(finals).c_str(), fromSummary, view.windowReads() - readsBefore,
                view.windowReadsAtOnce() - atOnceBefore, narrowest);
    std::printf("the same steps in the GUI thread's CPU time: %s\n", spread(cpuSteps).c_str());
    std::printf("the same steps in the process's CPU time (worker too): %s\n",
                spread(cpuProcess).c_str());
    std::printf("steps that waited for the worker's read: %s\n", spread(awaited).c_str());
    std::printf("peak memory: %ld MiB\n", usage.ru_maxrss / 1024);
    std::fflush(stdout);
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
        std::string report, baseline, screenshot, metric, callPath, rank, mode, search, tab, size,
            instance;
        bool rankGiven = false;
        waitscope::cli::CommandLine commandLine("gui");
        commandLine
            .description("Waitscope explorer: metric, call and system trees of a CUBE4 report.")
            .positional("REPORT", "report (.cubex) or experiment directory", report, false)
            .option("--baseline", "BEFORE",
                    "show the differences REPORT − BEFORE (a report or experiment directory)",
                    baseline)
            .option("--screenshot", "FILE", "render the window to FILE (PNG) and exit", screenshot)
            .option("--metric", "NAME", "select the metric (unique or display name)", metric)
            .option("--callpath", "PATH",
                    "select the call path a/b/c, its last regions (b/c), or a call node id",
                    callPath)
            .option("--rank", "N", "select the process of MPI rank N",
                    [&](const std::string& value) {
                        rank = value;
                        rankGiven = true;
                        return waitscope::Status::success();
                    })
            .option("--mode", "MODE",
                    "value mode: absolute, root, selection, peer, baseline (percent of "
                    "the baseline, with --baseline)",
                    mode)
            .option("--search", "TEXT", "search the call tree for TEXT", search)
            .option("--tab", "NAME", "information tab: metric, source, attributes", tab)
            .flag("--expand-hottest",
                  "expand the hottest path of the selected metric (the window opens with the "
                  "first metric's)",
                  options.hottest)
            .flag("--flat", "show the flat profile", options.flat)
            .flag("--sort", "sort the trees by value", options.sort)
            .option("--size", "WxH", "window size for --screenshot (default 1400x860)", size)
            .flag("--timing",
                  "print the time to first values and to expand the hottest path, then exit "
                  "(with --timeline: to show the whole run and 100 zoom and pan steps, "
                  "rendered offscreen, and the peak memory)",
                  options.timing)
            .flag("--print-visible",
                  "print the rows the three trees show (value and name; the selected ones marked "
                  "with >), e.g. with --screenshot",
                  options.printVisible)
            .flag("--metric-docs",
                  "open Help > Metric documentation at the selected metric (with --screenshot, "
                  "the picture is of that window)",
                  options.metricDocs)
            .flag("--timeline", "open the experiment's trace on the timeline instead of the report",
                  options.timeline)
            .flag("--with-timeline",
                  "open the report with the trace's timeline below it; the selected metric and "
                  "call path pick the wait-state instances on it",
                  options.withTimeline)
            .flag("--by-node", "on the timeline, group the rows by the node their rank ran on",
                  options.byNode)
            .flag("--call-depth", "on the timeline, one strip per call depth in each row",
                  options.callDepth)
            .option("--instance", "STEP",
                    "on the timeline, show the first (next), last (previous) or most severe "
                    "(worst) picked wait-state instance",
                    instance)
            // Qt reads its own options from the command line when the application starts.
            .passedOn({"-platform", "--platform"}, "NAME", "Qt's platform plugin (e.g. offscreen)")
            .passedOn({"-style", "--style"}, "STYLE", "Qt's widget style")
            .passedOn({"-stylesheet", "--stylesheet"}, "FILE", "Qt style sheet file")
            .passedOn({"-platformtheme", "--platformtheme"}, "NAME", "Qt's platform theme")
            .passedOn({"-platformpluginpath", "--platformpluginpath"}, "DIR",
                      "where Qt looks for platform plugins")
            .passedOn({"-plugin", "--plugin"}, "NAME", "an additional Qt plugin")
            .passedOn({"-display", "--display"}, "DISPLAY", "the X display")
            .passedOn({"-qwindowgeometry", "--qwindowgeometry"}, "WxH+X+Y",
                      "geometry of the first window (Qt)")
            .passedOn({"-qwindowtitle", "--qwindowtitle"}, "TITLE",
                      "title of the first window (Qt)")
            .passedOn({"-qwindowicon", "--qwindowicon"}, "FILE", "icon of the first window (Qt)")
            .passedOn({"-reverse", "--reverse"}, "", "right-to-left layout (Qt)");
        if (auto exit = commandLine.parse(argc, argv))
            return *exit;

        options.report = QString::fromStdString(report);
        options.baseline = QString::fromStdString(baseline);
        if (!options.baseline.isEmpty() && options.report.isEmpty())
            return fail(QStringLiteral("--baseline needs a report to compare with it"));
        options.screenshot = QString::fromStdString(screenshot);
        options.metric = QString::fromStdString(metric);
        options.callPath = QString::fromStdString(callPath);
        options.rank = QString::fromStdString(rank);
        if (rankGiven) {
            bool number = false;
            if (options.rank.toLongLong(&number) < 0 || !number)
                return fail(QStringLiteral("--rank %1: not a rank (a whole number from 0)")
                                .arg(options.rank));
        }
        options.mode = QString::fromStdString(mode);
        options.search = QString::fromStdString(search);
        options.tab = QString::fromStdString(tab);
        options.instance = QString::fromStdString(instance);
        if (!options.instance.isEmpty() && options.instance != QLatin1String("next") &&
            options.instance != QLatin1String("previous") &&
            options.instance != QLatin1String("worst"))
            return fail(
                QStringLiteral("--instance %1: not next, previous or worst").arg(options.instance));
        if (!options.instance.isEmpty() && !options.timeline && !options.withTimeline)
            return fail(QStringLiteral("--instance needs --timeline or --with-timeline"));
        if (!size.empty()) {
            QStringList parts = QString::fromStdString(size).split(QLatin1Char('x'));
            if (parts.size() != 2 || parts[0].toInt() < 200 || parts[1].toInt() < 150)
                return fail(QStringLiteral("bad --size %1 (expected WxH, e.g. 1400x860)")
                                .arg(QString::fromStdString(size)));
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
        QElapsedTimer clock;
        clock.start();
        auto store = waitscope::timeline::TimelineStore::open(options.report.toStdString());
        if (!store)
            return fail(QString::fromStdString(store.error().message()));
        const qint64 opened = clock.restart();
        const auto events = (*store)->skeleton().events();
        const bool fromCache = (*store)->fromCache();
        TimelineView view(std::move(*store));
        view.resize(options.size);
        if (options.timing) {
            std::printf("timeline: %llu events, opened in %lld ms (%s)\n",
                        static_cast<unsigned long long>(events), static_cast<long long>(opened),
                        fromCache ? "event cache and overview read"
                                  : "one pass over the trace: event cache and overview built");
            timeTimeline(view, sinceStart);
            return 0;
        }
        stepToInstance(view, options);
        if (!options.screenshot.isEmpty()) {
            view.waitForEvents();
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
            if (options.withTimeline) {
                // Interactive: opened on a worker, stepped to the instance once shown.
                QObject::connect(
                    &window, &MainWindow::timelineShown,
                    [&options](TimelinePanel* panel) { stepToInstance(*panel->view(), options); });
                if (TimelinePanel* panel = window.showTimeline()) {
                    stepToInstance(*panel->view(), options);
                    if (batch)
                        panel->view()->waitForEvents();
                } else if (!window.timelineOpening())
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
            // Let the layouts settle before grabbing (a timer owned by the application: the
            // static singleShot with a functor reads as a leak to clang-tidy's analyzer).
            auto* settle = new QTimer(&app);
            settle->setSingleShot(true);
            settle->start(50);
            QObject::connect(settle, &QTimer::timeout, &app, [&, pictured] {
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
        window.openReport(options.report, options.baseline);
    window.show();
    return app.exec();
}
