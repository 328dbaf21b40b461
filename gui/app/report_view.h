// ReportView: the three coupled panes of one report with the information panels below them.
#pragma once

#include <QWidget>
#include <memory>
#include <waitscope/gui/report_session.h>

class QComboBox;
class QCheckBox;
class QLabel;
class QLineEdit;
class QMenu;
class QPlainTextEdit;
class QSplitter;
class QStackedWidget;
class QTableView;
class QTableWidget;
class QTabWidget;
class QTextBrowser;
class QTreeView;

namespace waitscope::gui {

/// Shows one ReportSession: metric tree, call tree (or flat profile) and system tree side by
/// side, coupled through the session's SelectionState; a tool row (value mode, search, expand
/// the hottest path, sort, flat profile, colour legend); and tabs with the selected metric's
/// description, the selected region's location and source, and the report's attributes.
class ReportView : public QWidget {
    Q_OBJECT
public:
    /// QTreeView lays out expanded levels recursively, some 300 bytes of stack each: the trees
    /// are expanded at most this deep, and a deeper node is shown by its ancestor at that depth.
    static constexpr std::size_t kMaxExpandedDepth = 10000;
    /// Takes ownership of the session (whose objects must live in the GUI thread).
    explicit ReportView(std::unique_ptr<ReportSession> session, QWidget* parent = nullptr);
    ~ReportView() override;

    ReportSession& session() const { return *m_session; }

    /// Selects the metric with this unique or display name and expands its ancestors. Returns
    /// false if there is none.
    bool selectMetric(const QString& name);
    /// Selects a call path and expands its ancestors: "a/b/c" in full, a call node id, or its
    /// last regions ("b/c", report::findCallPathsBySuffix; of several, the one with the largest
    /// value). Returns an empty string, or the message naming what did not match with up to
    /// three paths the user may have meant (report::suggestCallPaths).
    QString selectCallPath(const QString& path);
    /// Selects the process of an MPI rank and expands its ancestors, and the process itself when
    /// it has more than one thread. Returns false if none.
    bool selectRank(qint64 rank);
    /// Sets the value mode (also in the selector).
    void setValueMode(ValueMode mode);
    /// Searches the call tree by name, highlights and reveals the matches; returns how many.
    int search(const QString& text);
    /// Expands the call tree along its hottest path (ValueTreeModel::hottestPath), the path's
    /// end included, and selects the end.
    void expandHottestPath();
    /// Expands the system tree down to the processes (machines and nodes open).
    void expandToProcesses();
    /// Shows the flat profile instead of the call tree (or back).
    void showFlatProfile(bool flat);
    /// Orders the children of all three trees by value.
    void setSortByValue(bool byValue);
    /// Shows the information tab "metric", "source" or "attributes"; false if unknown.
    bool showTab(const QString& name);
    /// A one-line summary for the status bar: ranks, metrics, call paths.
    QString summary() const;
    /// The note above a difference's system tree saying that per-rank values do not align
    /// (different rank counts), or nullptr.
    QLabel* systemNote() const { return m_systemNote; }
    /// The tree views, for tests: "metric", "call" or "system" (nullptr otherwise).
    QTreeView* treeView(const QString& name) const;
    /// The context menu of `view` at the row `index` (invalid: the empty area below the rows):
    /// copy the call path or name and the value, expand or collapse all below, expand or
    /// collapse all, and per tree: the hottest path and the source (call tree), the
    /// description (metric tree), expanding to the processes (system tree). The caller owns it.
    QMenu* contextMenu(QTreeView* view, const QModelIndex& index);
    /// The rows the three trees show (every row whose ancestors are expanded), one per line:
    /// "> " for a selected row (else two spaces), two spaces per depth, then the value and the
    /// name as shown (e.g. ">     1.03 s  MPI Rank 1"); in a difference's system tree then
    /// "  |  baseline 1.50 s  report 750 ms  vs baseline −50.0 %".
    QString visibleRows() const;

signals:
    /// A message for the status bar.
    void message(const QString& text);

private:
    QTreeView* makeTree(ValueTreeModel* model);
    void onMetricCurrent(const QModelIndex& index);
    void onCallPathCurrent(const QModelIndex& index);
    void onSystemCurrent(const QModelIndex& index);
    void updateMetricInfo();
    void updateCallPathInfo();
    void fillAttributes();
    void reveal(QTreeView* view, ValueTreeModel* model, std::uint32_t node, bool select);

    std::unique_ptr<ReportSession> m_session;
    QTreeView* m_metricView = nullptr;
    QTreeView* m_callView = nullptr;
    QTableView* m_flatView = nullptr;
    QTreeView* m_systemView = nullptr;
    QStackedWidget* m_callStack = nullptr;
    QComboBox* m_modeBox = nullptr;
    QLineEdit* m_searchEdit = nullptr;
    QCheckBox* m_sortBox = nullptr;
    QCheckBox* m_flatBox = nullptr;
    QTabWidget* m_tabs = nullptr;
    QTextBrowser* m_metricInfo = nullptr;
    QLabel* m_regionInfo = nullptr;
    QPlainTextEdit* m_source = nullptr;
    QTableWidget* m_attributes = nullptr;
    QLabel* m_systemNote = nullptr; ///< why per-rank values do not align, or null
};

} // namespace waitscope::gui
