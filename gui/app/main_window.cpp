// MainWindow: the explorer's window.
#include "main_window.h"

#include "metric_help.h"
#include "report_view.h"
#include "timeline_panel.h"

#include <QApplication>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QPointer>
#include <QProgressBar>
#include <QStatusBar>
#include <QThread>
#include <QThreadPool>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace waitscope::gui {

MainWindow::MainWindow(bool interactive, QWidget* parent)
    : QMainWindow(parent), m_interactive(interactive) {
    setWindowTitle(tr("Waitscope explorer"));
    resize(1400, 860);

    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open report..."), QKeySequence::Open, this, &MainWindow::chooseFile);
    file->addAction(tr("Open &experiment directory..."), this, [this] {
        QString directory =
            QFileDialog::getExistingDirectory(this, tr("Open experiment directory"));
        if (!directory.isEmpty())
            openReport(directory);
    });
    file->addAction(tr("&Compare with baseline..."), this, &MainWindow::chooseBaseline);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
    QMenu* viewMenu = menuBar()->addMenu(tr("&View"));
    viewMenu->addAction(tr("&Timeline"), QKeySequence(Qt::CTRL | Qt::Key_T), this,
                        &MainWindow::showTimeline);
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Metric documentation"), QKeySequence::HelpContents, this,
                    &MainWindow::showMetricHelp);
    help->addAction(tr("&About the explorer"), this, [this] {
        QMessageBox::about(
            this, tr("About the Waitscope explorer"),
            tr("<p><b>Waitscope explorer</b> shows CUBE4 reports of Waitscope, Scalasca and "
               "Score-P: the metric tree, the call tree and the system tree, coupled from left "
               "to right.</p><p>A collapsed node shows its inclusive value, an expanded one "
               "its exclusive value. Right-click a tree for copying, expanding and the "
               "source; <b>Help &gt; Metric documentation</b> explains every metric.</p>"));
    });

    auto* central = new QWidget;
    auto* layout = new QVBoxLayout(central);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    m_banner = new QLabel;
    m_banner->setWordWrap(true);
    m_banner->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_banner->setStyleSheet(QStringLiteral(
        "QLabel { background: #fde2e1; color: #7a1411; padding: 6px; border-bottom: 1px solid "
        "#e0a09c; }"));
    m_banner->hide();
    m_welcome = new QLabel(tr("<h2>Waitscope explorer</h2><p>Open a report (.cubex) or an "
                              "experiment directory with the <b>File</b> menu or on the command "
                              "line: <tt>waitscope-gui waitscope_app_4</tt></p>"));
    m_welcome->setAlignment(Qt::AlignCenter);
    layout->addWidget(m_banner);
    layout->addWidget(m_welcome, 1);
    setCentralWidget(central);

    m_summary = new QLabel;
    statusBar()->addPermanentWidget(m_summary);
    m_progress = new QProgressBar;
    m_progress->setRange(0, 100);
    m_progress->setFormat(QStringLiteral("%p %"));
    m_progress->setMaximumWidth(160);
    m_progress->hide();
    statusBar()->addPermanentWidget(m_progress);

    connect(&m_watcher, &QFutureWatcher<std::shared_ptr<Opened>>::finished, this,
            &MainWindow::finishOpening);
}

MainWindow::~MainWindow() {
    m_watcher.waitForFinished();
}

void MainWindow::chooseFile() {
    QString path = QFileDialog::getOpenFileName(this, tr("Open report"), QString(),
                                                tr("CUBE4 reports (*.cubex);;All files (*)"));
    if (!path.isEmpty())
        openReport(path);
}

void MainWindow::chooseBaseline() {
    if (m_shownReport.isEmpty()) {
        showError(tr("open a report first, then compare it with a baseline"));
        return;
    }
    QString path =
        QFileDialog::getOpenFileName(this, tr("Baseline to compare %1 with").arg(m_shownReport),
                                     QString(), tr("CUBE4 reports (*.cubex);;All files (*)"));
    if (!path.isEmpty())
        openReport(m_shownReport, path);
}

void MainWindow::openReport(const QString& fileOrDirectory, const QString& baseline) {
    if (m_watcher.isRunning())
        m_watcher.waitForFinished();
    m_opening = fileOrDirectory;
    m_openingBaseline = baseline;
    m_clock.start();
    m_progress->setValue(0);
    m_progress->show();
    statusBar()->showMessage(
        baseline.isEmpty()
            ? tr("Opening %1 ...").arg(fileOrDirectory)
            : tr("Opening %1 and its baseline %2 ...").arg(fileOrDirectory, baseline));
    QThread* guiThread = thread();
    QPointer<MainWindow> window(this);
    m_watcher.setFuture(QtConcurrent::run([fileOrDirectory, baseline, guiThread, window] {
        // Reading and the first values happen here; the objects then move to the GUI thread.
        // Progress goes to the window through its event loop, only when the percentage moves.
        int shown = -1;
        auto progress = [&shown, window, fileOrDirectory](std::string_view stage, double fraction) {
            const int percent = static_cast<int>(100 * fraction);
            if (percent == shown)
                return;
            shown = percent;
            const QString text = QString::fromUtf8(stage.data(), qsizetype(stage.size()));
            QMetaObject::invokeMethod(
                window,
                [window, percent, text, fileOrDirectory] {
                    if (!window || !window->m_progress->isVisible())
                        return;
                    window->m_progress->setValue(percent);
                    window->statusBar()->showMessage(
                        MainWindow::tr("Opening %1: %2 ...").arg(fileOrDirectory, text));
                },
                Qt::QueuedConnection);
        };
        auto opened = std::make_shared<Opened>(
            baseline.isEmpty()
                ? ReportSession::open(fileOrDirectory, progress)
                : ReportSession::openDifference(fileOrDirectory, baseline, progress));
        if (opened->ok())
            (*opened)->get()->moveToThread(guiThread);
        return opened;
    }));
}

void MainWindow::finishOpening() {
    m_progress->hide();
    std::shared_ptr<Opened> opened = m_watcher.result();
    if (!opened || !opened->ok()) {
        showError(opened ? QString::fromStdString(opened->error().message())
                         : tr("%1: could not be opened").arg(m_opening));
        emit reportOpened(false);
        return;
    }
    m_banner->hide();
    m_lastError.clear();
    auto* view = new ReportView(std::move(opened->value()));
    connect(view, &ReportView::message, this,
            [this](const QString& text) { statusBar()->showMessage(text, 10000); });
    auto* layout = static_cast<QVBoxLayout*>(centralWidget()->layout());
    if (m_view) {
        layout->removeWidget(m_view);
        m_view->deleteLater();
    }
    if (m_timeline) { // the timeline of the previous experiment
        m_timeline->parentWidget()->deleteLater();
        m_timeline = nullptr;
    }
    m_welcome->hide();
    layout->addWidget(view, 1);
    m_view = view;
    m_summary->setText(view->summary());
    m_shownReport = m_opening;
    m_openMilliseconds = m_clock.elapsed();
    if (view->session().isDifference()) {
        setWindowTitle(tr("%1 − %2 - Waitscope explorer")
                           .arg(view->session().path(), view->session().baselinePath()));
        QString notes = view->session().notes().join(QStringLiteral("; "));
        statusBar()->showMessage(notes.isEmpty() ? tr("Opened in %1 ms").arg(m_openMilliseconds)
                                                 : notes);
    } else {
        setWindowTitle(tr("%1 - Waitscope explorer").arg(view->session().path()));
        statusBar()->showMessage(tr("Opened in %1 ms").arg(m_openMilliseconds), 5000);
    }
    emit reportOpened(true);
}

MetricHelp* MainWindow::showMetricHelp() {
    const report::Report* report = m_view ? &m_view->session().report() : nullptr;
    QString current;
    if (report && m_view->session().selection()->metric() < report->metrics().size())
        current = QString::fromStdString(
            report->metrics()[m_view->session().selection()->metric()].uniqueName);
    auto* dialog = new MetricHelp(report, current, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show();
    return dialog;
}

TimelinePanel* MainWindow::showTimeline() {
    if (m_timelineDock) {
        m_timelineDock->show();
        return m_timeline; // nullptr while a worker opens it
    }
    if (!m_view) {
        showError(tr("open an experiment first, then show its timeline"));
        return nullptr;
    }
    // The trace beside the report: the experiment directory, or the report file's directory.
    const QFileInfo shown(m_view->session().path());
    const std::string experiment =
        (shown.isDir() ? shown.filePath() : shown.absolutePath()).toStdString();
    m_timelineDock = new QDockWidget(tr("Timeline"), this);
    m_timelineDock->setObjectName(QStringLiteral("timeline"));
    addDockWidget(Qt::BottomDockWidgetArea, m_timelineDock);
    resizeDocks({m_timelineDock}, {height() / 2}, Qt::Vertical);
    using OpenedStore = Result<std::shared_ptr<const timeline::TimelineStore>>;
    const auto show = [this](OpenedStore store) {
        if (!store) {
            showError(QString::fromStdString(store.error().message()));
            m_timelineDock->deleteLater();
            m_timelineDock = nullptr;
            return;
        }
        m_timeline = new TimelinePanel(std::move(*store));
        m_timeline->link(m_view->session().selection());
        delete m_timelineDock->widget(); // the progress, if any
        m_timelineDock->setWidget(m_timeline);
    };
    if (!m_interactive) { // batch (screenshots): opened here, on purpose
        show(timeline::TimelineStore::open(experiment));
        return m_timeline;
    }
    // A cached trace opens in milliseconds; an uncached one (Score-P's, or one analyzed with
    // --no-timeline) takes one pass over the trace: a progress bar meanwhile.
    auto* progress = new QProgressBar;
    progress->setRange(0, 100);
    progress->setFormat(tr("reading the trace for the timeline (first open): %p%"));
    m_timelineDock->setWidget(progress);
    const QPointer<MainWindow> window(this);
    const QPointer<QProgressBar> bar(progress);
    QThreadPool::globalInstance()->start([window, bar, experiment, show] {
        auto store = timeline::TimelineStore::open(experiment, [bar](int percent) {
            QMetaObject::invokeMethod(
                qApp,
                [bar, percent] {
                    if (bar)
                        bar->setValue(percent);
                },
                Qt::QueuedConnection);
        });
        auto result = std::make_shared<OpenedStore>(std::move(store));
        QMetaObject::invokeMethod(
            qApp,
            [window, result, show] {
                if (!window)
                    return;
                show(std::move(*result));
                if (window->m_timeline)
                    emit window->timelineShown(window->m_timeline);
            },
            Qt::QueuedConnection);
    });
    return nullptr;
}

void MainWindow::showError(const QString& message) {
    m_lastError = message;
    m_banner->setText(tr("<b>Could not open the report.</b> %1").arg(message.toHtmlEscaped()));
    m_banner->show();
    statusBar()->showMessage(tr("error: %1").arg(message));
    if (m_interactive) {
        auto* box = new QMessageBox(QMessageBox::Warning, tr("Could not open the report"), message,
                                    QMessageBox::Ok, this);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open(); // window-modal, non-blocking: the window stays usable behind it
    }
}

} // namespace waitscope::gui
