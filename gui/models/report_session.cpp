// ReportSession: one opened report with its selection and the models of all panes.
#include <QThread>
#include <waitscope/gui/report_loader.h>
#include <waitscope/gui/report_session.h>

namespace waitscope::gui {

Result<std::unique_ptr<ReportSession>> ReportSession::open(const QString& fileOrDirectory,
                                                           const report::ReadProgress& progress) {
    Result<QString> path = resolveReportPath(fileOrDirectory);
    if (!path)
        return path.error();
    auto report = loadReport(*path, progress);
    if (!report)
        return report.error();
    return std::make_unique<ReportSession>(std::move(*report), *path);
}

ReportSession::ReportSession(std::shared_ptr<const report::Report> report, QString path)
    : ReportSession(std::move(report), std::move(path), nullptr, nullptr) {}

ReportSession::ReportSession(std::shared_ptr<const report::Report> report, QString path,
                             std::shared_ptr<const report::Report> baseline,
                             std::shared_ptr<const report::Report> after)
    : m_path(std::move(path)), m_selection(std::make_unique<SelectionState>(std::move(report))) {
    // The compared reports first: the models read them when they compute their values.
    m_selection->setComparedReports(std::move(baseline), std::move(after));
    m_metricTree = std::make_unique<MetricTreeModel>(m_selection.get());
    m_callTree = std::make_unique<CallTreeModel>(m_selection.get());
    m_systemTree = std::make_unique<SystemTreeModel>(m_selection.get());
    m_flatProfile = std::make_unique<FlatProfileModel>(m_selection.get(), m_callTree.get());
}

Result<std::unique_ptr<ReportSession>>
ReportSession::openDifference(const QString& after, const QString& before,
                              const report::ReadProgress& progress) {
    Result<ReportDifference> difference = gui::openDifference(after, before, progress);
    if (!difference)
        return difference.error();
    return std::make_unique<ReportSession>(std::move(*difference));
}

ReportSession::ReportSession(ReportDifference difference)
    : ReportSession(difference.report, difference.afterPath, difference.baseline,
                    difference.after) {
    m_baselinePath = difference.beforePath;
    m_notes = difference.notes;
    m_ranksAligned = difference.ranksAligned;
    m_metricTree->setDifference(std::move(difference.metrics));
    m_callTree->setDifference(std::move(difference.callNodes));
    m_systemTree->setDifference(std::move(difference.systemNodes));
    // The system tree shows each location's value in both runs next to the difference.
    if (difference.baseline && difference.after)
        m_systemTree->setComparedColumns(true);
}

// Models go before the selection they point to.
ReportSession::~ReportSession() {
    m_flatProfile.reset();
    m_systemTree.reset();
    m_callTree.reset();
    m_metricTree.reset();
}

void ReportSession::moveToThread(QThread* thread) {
    m_selection->moveToThread(thread);
    m_metricTree->moveToThread(thread);
    m_callTree->moveToThread(thread);
    m_systemTree->moveToThread(thread);
    m_flatProfile->moveToThread(thread);
}

} // namespace waitscope::gui
