// ReportSession: one opened report with its selection and the models of all panes.
#pragma once

#include <QString>
#include <memory>
#include <waitscope/base/result.h>
#include <waitscope/gui/call_tree_model.h>
#include <waitscope/gui/flat_profile_model.h>
#include <waitscope/gui/metric_tree_model.h>
#include <waitscope/gui/report_difference.h>
#include <waitscope/gui/selection_state.h>
#include <waitscope/gui/system_tree_model.h>
#include <waitscope/report/cubex_reader.h>

class QThread;

namespace waitscope::gui {

/// Everything a window needs to show one report: the selection and the four models, coupled.
/// Built completely by open() — on a worker thread if wanted, so that reading the report and
/// computing the first values never blocks the window — then handed to the GUI thread with
/// moveToThread().
class ReportSession {
public:
    /// Opens `fileOrDirectory` (see loadReport) and builds the models with the first metric's
    /// values. Fails with the loader's message.
    /// `progress` is told the loading stages (see loadReport).
    static Result<std::unique_ptr<ReportSession>> open(const QString& fileOrDirectory,
                                                       const report::ReadProgress& progress = {});
    /// Opens AFTER and its baseline BEFORE (openDifference) and builds the models over
    /// AFTER − BEFORE, shown as differences (ValueTreeModel::setDifference). Fails with the
    /// loader's message.
    static Result<std::unique_ptr<ReportSession>>
    openDifference(const QString& after, const QString& before,
                   const report::ReadProgress& progress = {});
    /// Builds the models over a difference of two reports.
    explicit ReportSession(ReportDifference difference);
    /// Builds the models over an already opened report.
    explicit ReportSession(std::shared_ptr<const report::Report> report, QString path = {});
    ~ReportSession();

    /// Moves all objects to `thread` (call from the thread that built them).
    void moveToThread(QThread* thread);

    const QString& path() const { return m_path; }
    /// True if the session shows AFTER − BEFORE; path() is then AFTER's report.
    bool isDifference() const { return !m_baselinePath.isEmpty(); }
    /// BEFORE's report in a difference, else empty.
    const QString& baselinePath() const { return m_baselinePath; }
    /// What the user should know about a difference (e.g. per-rank values do not align).
    const QStringList& notes() const { return m_notes; }
    /// False in a difference of reports with different locations (rank counts): its system
    /// tree then holds one "whole program" location, see report::alignReports.
    bool ranksAligned() const { return m_ranksAligned; }
    const report::Report& report() const { return m_selection->report(); }
    SelectionState* selection() const { return m_selection.get(); }
    MetricTreeModel* metricTree() const { return m_metricTree.get(); }
    CallTreeModel* callTree() const { return m_callTree.get(); }
    SystemTreeModel* systemTree() const { return m_systemTree.get(); }
    FlatProfileModel* flatProfile() const { return m_flatProfile.get(); }

private:
    /// Builds the models over `report`; with `baseline` and `after` (a difference's compared
    /// reports on its trees) the trees also hold their values.
    ReportSession(std::shared_ptr<const report::Report> report, QString path,
                  std::shared_ptr<const report::Report> baseline,
                  std::shared_ptr<const report::Report> after);

    QString m_path;
    QString m_baselinePath;
    QStringList m_notes;
    bool m_ranksAligned = true;
    std::unique_ptr<SelectionState> m_selection;
    std::unique_ptr<MetricTreeModel> m_metricTree;
    std::unique_ptr<CallTreeModel> m_callTree;
    std::unique_ptr<SystemTreeModel> m_systemTree;
    std::unique_ptr<FlatProfileModel> m_flatProfile;
};

} // namespace waitscope::gui
