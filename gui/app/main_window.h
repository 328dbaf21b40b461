// MainWindow: the explorer's window (opens reports in the background, shows a ReportView).
#pragma once

#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QMainWindow>
#include <memory>
#include <waitscope/gui/report_session.h>

class QDockWidget;
class QLabel;
class QProgressBar;

namespace waitscope::gui {

class MetricHelp;
class ReportView;
class TimelinePanel;

/// The top-level window. openReport() reads the report and builds its models on a worker
/// thread while the window stays responsive (a busy progress bar in the status bar); a file
/// that is not a valid report gives a message naming the problem and the previous report (or
/// the welcome text) stays.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    /// `interactive` false suppresses message boxes (for --screenshot and tests).
    explicit MainWindow(bool interactive = true, QWidget* parent = nullptr);
    ~MainWindow() override;

    /// Starts opening a report file or experiment directory in the background; with a
    /// `baseline` (another report or experiment directory), the difference report − baseline.
    void openReport(const QString& fileOrDirectory, const QString& baseline = {});
    /// Asks for a baseline report and shows the open report's difference to it (File > Compare
    /// with baseline...).
    void chooseBaseline();
    /// The view of the report shown, or nullptr.
    ReportView* reportView() const { return m_view; }
    /// Milliseconds from openReport() to the report's models being ready and shown.
    qint64 lastOpenMilliseconds() const { return m_openMilliseconds; }
    /// The last error message, empty after a successful open.
    const QString& lastError() const { return m_lastError; }
    /// Opens the Help menu's metric documentation at the selected metric (non-modal; the
    /// window deletes itself when closed).
    MetricHelp* showMetricHelp();
    /// Shows the trace of the open experiment on a timeline below the explorer, its wait
    /// states picked by the explorer's selection (View > Timeline); nullptr with a message when
    /// there is no trace. In an interactive window the timeline is opened on a worker (at a
    /// first open of a trace the analyzer did not cache, one pass over it, with a progress bar
    /// in the dock): nullptr then too, and timelineShown() follows; the window never waits.
    TimelinePanel* showTimeline();
    /// Whether a worker opens the timeline.
    bool timelineOpening() const { return m_timelineDock && !m_timeline; }
    /// The timeline below the explorer, or nullptr.
    TimelinePanel* timelinePanel() const { return m_timeline; }

signals:
    /// Emitted when opening finished, successfully or not.
    void reportOpened(bool ok);
    /// Emitted when a timeline opened on a worker is shown.
    void timelineShown(TimelinePanel* panel);

private:
    using Opened = Result<std::unique_ptr<ReportSession>>;
    void finishOpening();
    void showError(const QString& message);
    void chooseFile();

    bool m_interactive;
    ReportView* m_view = nullptr;
    TimelinePanel* m_timeline = nullptr; ///< in a dock below the explorer
    QDockWidget* m_timelineDock = nullptr;
    QLabel* m_banner = nullptr;
    QLabel* m_welcome = nullptr;
    QLabel* m_summary = nullptr;
    QProgressBar* m_progress = nullptr;
    QFutureWatcher<std::shared_ptr<Opened>> m_watcher;
    QString m_opening;
    QString m_openingBaseline;
    QString m_shownReport; ///< what the user opened (not the difference), for a baseline
    QElapsedTimer m_clock;
    qint64 m_openMilliseconds = 0;
    QString m_lastError;
};

} // namespace waitscope::gui
