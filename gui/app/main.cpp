// waitscope-gui: command line of the explorer (open a report, select, take a screenshot).
#include "main_window.h"
#include "report_view.h"
#include "timeline_view.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDateTime>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTimer>
#include <cstdio>

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
    if (options.hottest)
        view.expandHottestPath();
    if (!options.callPath.isEmpty() && !view.selectCallPath(options.callPath))
        return QStringLiteral("no call path %1").arg(options.callPath);
    if (!options.rank.isEmpty() && !view.selectRank(options.rank.toLongLong()))
        return QStringLiteral("no process with rank %1").arg(options.rank);
    if (!options.search.isEmpty())
        view.search(options.search);
    if (options.flat)
        view.showFlatProfile(true);
    if (!options.tab.isEmpty() && !view.showTab(options.tab))
        return QStringLiteral("unknown tab %1 (metric, source, attributes)").arg(options.tab);
    return {};
}

} // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("waitscope-gui"));
    QElapsedTimer sinceStart;
    sinceStart.start();

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
    QCommandLineOption callPath(QStringLiteral("callpath"),
                                QStringLiteral("select the call path a/b/c (or a call node id)"),
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
    QCommandLineOption hottest(QStringLiteral("expand-hottest"),
                               QStringLiteral("expand the call tree along the hottest path"));
    QCommandLineOption flat(QStringLiteral("flat"), QStringLiteral("show the flat profile"));
    QCommandLineOption sort(QStringLiteral("sort"), QStringLiteral("sort the trees by value"));
    QCommandLineOption size(QStringLiteral("size"),
                            QStringLiteral("window size for --screenshot (default 1400x860)"),
                            QStringLiteral("WxH"));
    QCommandLineOption timing(QStringLiteral("timing"),
                              QStringLiteral("print the time to first values and to expand the "
                                             "hottest path, then exit"));
    QCommandLineOption timelineOption(
        QStringLiteral("timeline"),
        QStringLiteral("open the experiment's trace on the timeline instead of the report"));
    parser.addOption(timelineOption);
    parser.addOptions(
        {screenshot, metric, callPath, rank, mode, search, tab, hottest, flat, sort, size, timing});
    parser.process(app);

    Options options;
    options.report = parser.positionalArguments().value(0);
    options.screenshot = parser.value(screenshot);
    options.metric = parser.value(metric);
    options.callPath = parser.value(callPath);
    options.rank = parser.value(rank);
    options.mode = parser.value(mode);
    options.search = parser.value(search);
    options.tab = parser.value(tab);
    options.hottest = parser.isSet(hottest);
    options.flat = parser.isSet(flat);
    options.sort = parser.isSet(sort);
    options.timing = parser.isSet(timing);
    if (parser.isSet(size)) {
        QStringList parts = parser.value(size).split(QLatin1Char('x'));
        if (parts.size() != 2 || parts[0].toInt() < 200 || parts[1].toInt() < 150)
            return fail(QStringLiteral("bad --size %1 (expected WxH, e.g. 1400x860)")
                            .arg(parser.value(size)));
        options.size = QSize(parts[0].toInt(), parts[1].toInt());
    }
    bool batch = !options.screenshot.isEmpty() || options.timing;
    if (batch && options.report.isEmpty())
        return fail(QStringLiteral("--screenshot and --timing need a report"));

    if (parser.isSet(timelineOption)) {
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
    window.resize(options.size);
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
        if (!batch)
            return;
        if (!options.screenshot.isEmpty()) {
            // Let the layouts settle before grabbing.
            QTimer::singleShot(50, &app, [&] {
                if (!window.grab().save(options.screenshot)) {
                    std::fprintf(stderr, "waitscope-gui: error: cannot write %s\n",
                                 qPrintable(options.screenshot));
                    status = 1;
                }
                app.exit(status);
            });
        } else {
            app.exit(status);
        }
    });
    // Reading starts before the window is shown, so that both overlap.
    if (!options.report.isEmpty())
        window.openReport(options.report);
    window.show();
    return app.exec();
}
