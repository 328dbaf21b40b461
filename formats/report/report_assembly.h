// ReportAssembly: how a reader puts together a Report from a file's contents, without the
// checks of Report's building interface (the reader has validated the ids).
#pragma once

#include "severity_storage.h"

#include <memory>
#include <string>
#include <vector>
#include <waitscope/report/report.h>

namespace waitscope::report::detail {

/// Assembles one Report from what a reader decoded: metrics and regions in file order, the
/// call and system trees whole, the severity storage last. The caller guarantees the ids it
/// passes are valid and the trees consistent; nothing is checked. (Not to be confused with
/// the analyzer's report_builder, which turns an analysis result into a Report through the
/// checked interface.)
class ReportAssembly {
public:
    /// The report assembled so far, e.g. for setAttribute(), addMirror() and lookups.
    Report& report() { return m_report; }
    const Report& report() const { return m_report; }

    /// Appends a metric (its parent, if any, already appended) and returns its id.
    MetricId appendMetric(Metric metric);
    /// Appends a region and returns its id.
    RegionId appendRegion(Region region);
    /// Appends a Cartesian topology whose coordinates name existing locations.
    void appendTopology(CartTopology topology);
    /// Replaces the call tree (parents and children already consistent).
    void setCallNodes(std::vector<CallNode> nodes);
    /// Replaces the system tree; `location` fields must number the locations densely from 0
    /// (they become the columns of every severity row).
    void setSystemNodes(std::vector<SystemNode> nodes);
    /// Marks a metric as not evaluable, with the reason shown to users (ignored for an id out
    /// of range).
    void setMetricUnavailable(MetricId metric, std::string reason);
    /// Replaces the severity storage (e.g. with one that loads rows on first use).
    void setStorage(std::unique_ptr<SeverityStorage> storage);

    /// The assembled report.
    Report finish() && { return std::move(m_report); }

private:
    Report m_report;
};

} // namespace waitscope::report::detail
