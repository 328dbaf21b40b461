// ReportDifference: two reports as one difference report (AFTER − BEFORE) for the explorer's
// baseline mode, with what each node of the difference was found in.
#pragma once

#include <QString>
#include <QStringList>
#include <cstdint>
#include <memory>
#include <vector>
#include <waitscope/base/result.h>
#include <waitscope/report/cubex_reader.h>
#include <waitscope/report/report.h>

namespace waitscope::gui {

/// Which of the two compared reports hold a node of the difference report.
enum class Presence : std::uint8_t {
    Both,       ///< in the report and its baseline
    OnlyAfter,  ///< new: only in the report (AFTER)
    OnlyBefore, ///< gone: only in the baseline (BEFORE)
};

/// AFTER − BEFORE as report::diffReports computes it (trees unified by name and call path,
/// ranks by MPI rank and thread), with the presence of every metric, call node and system node
/// of the difference (indexed by their ids in `report`).
struct ReportDifference {
    std::shared_ptr<const report::Report> report;
    /// BEFORE and AFTER on the trees of `report` (report::alignReports: the same ids), whose
    /// values the explorer shows next to the difference; null if not computed.
    std::shared_ptr<const report::Report> baseline;
    std::shared_ptr<const report::Report> after;
    QString afterPath;  ///< the report file of AFTER
    QString beforePath; ///< the report file of BEFORE (the baseline)
    bool ranksAligned = true;
    QStringList notes; ///< e.g. why per-rank values do not align
    std::vector<Presence> metrics;
    std::vector<Presence> callNodes;
    std::vector<Presence> systemNodes;
};

/// Computes the presence of the difference's nodes in `after` and `before`: metrics by unique
/// name, call nodes by their path of region names. System nodes are always in both: with aligned
/// ranks every location is in both reports, otherwise the one "whole program" location is.
void markPresence(ReportDifference& difference, const report::Report& after,
                  const report::Report& before);

/// Opens both (files or experiment directories, see loadReport) and computes AFTER − BEFORE
/// with every metric's values loaded, and both reports on its trees. Fails with the loader's or the
/// algebra's message. `progress` is told the stages of both reads.
Result<ReportDifference> openDifference(const QString& after, const QString& before,
                                        const report::ReadProgress& progress = {});

} // namespace waitscope::gui
