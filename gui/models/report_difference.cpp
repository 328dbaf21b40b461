// ReportDifference: AFTER − BEFORE through the report algebra, with the presence of each node.
#include <optional>
#include <set>
#include <string>
#include <waitscope/gui/report_difference.h>
#include <waitscope/gui/report_loader.h>
#include <waitscope/report/report_algebra.h>

namespace waitscope::gui {

namespace {

/// The path of region names from the root to every call node, joined by '/'. Region names may
/// contain '/', so the separator is a character no name holds.
std::vector<std::string> callPathKeys(const report::Report& report) {
    const auto& nodes = report.callNodes();
    std::vector<std::string> keys(nodes.size());
    std::vector<char> done(nodes.size(), 0);
    for (report::CallNodeId id = 0; id < nodes.size(); ++id) {
        // Parents first: walk up to a finished ancestor, then down.
        std::vector<report::CallNodeId> chain;
        for (auto up = std::optional<report::CallNodeId>(id); up && !done[*up];
             up = nodes[*up].parent)
            chain.push_back(*up);
        for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
            const auto& node = nodes[*it];
            keys[*it] = (node.parent ? keys[*node.parent] + '\x1f' : std::string()) +
                        report.regions()[node.region].name;
            done[*it] = 1;
        }
    }
    return keys;
}

Presence presenceOf(bool inAfter, bool inBefore) {
    if (inAfter && !inBefore)
        return Presence::OnlyAfter;
    if (inBefore && !inAfter)
        return Presence::OnlyBefore;
    return Presence::Both;
}

} // namespace

void markPresence(ReportDifference& difference, const report::Report& after,
                  const report::Report& before) {
    const report::Report& diff = *difference.report;
    auto metricNames = [](const report::Report& report) {
        std::set<std::string> names;
        for (const report::Metric& metric : report.metrics())
            names.insert(metric.uniqueName);
        return names;
    };
    const auto afterMetrics = metricNames(after);
    const auto beforeMetrics = metricNames(before);
    difference.metrics.clear();
    for (const report::Metric& metric : diff.metrics())
        difference.metrics.push_back(presenceOf(afterMetrics.count(metric.uniqueName) != 0,
                                                beforeMetrics.count(metric.uniqueName) != 0));
    auto pathSet = [](const report::Report& report) {
        auto keys = callPathKeys(report);
        return std::set<std::string>(keys.begin(), keys.end());
    };
    const auto afterPaths = pathSet(after);
    const auto beforePaths = pathSet(before);
    difference.callNodes.clear();
    for (const std::string& key : callPathKeys(diff))
        difference.callNodes.push_back(
            presenceOf(afterPaths.count(key) != 0, beforePaths.count(key) != 0));
    difference.systemNodes.assign(diff.systemNodes().size(), Presence::Both);
}

Result<ReportDifference> openDifference(const QString& after, const QString& before,
                                        const report::ReadProgress& progress) {
    // Each read takes half of the progress.
    auto half = [&progress](double offset) -> report::ReadProgress {
        if (!progress)
            return {};
        return [&progress, offset](std::string_view stage, double fraction) {
            progress(stage, offset + 0.5 * fraction);
        };
    };
    ReportDifference difference;
    Result<QString> afterPath = resolveReportPath(after);
    if (!afterPath)
        return afterPath.error();
    Result<QString> beforePath = resolveReportPath(before);
    if (!beforePath)
        return beforePath.error();
    auto afterReport = loadReport(*afterPath, half(0.0));
    if (!afterReport)
        return afterReport.error();
    auto beforeReport = loadReport(*beforePath, half(0.5));
    if (!beforeReport)
        return beforeReport.error();
    Result<report::AlignedPair> diff = report::alignReports(**afterReport, **beforeReport);
    if (!diff)
        return diff.error();
    difference.report = std::make_shared<const report::Report>(std::move(diff->difference));
    difference.after = std::make_shared<const report::Report>(std::move(diff->first));
    difference.baseline = std::make_shared<const report::Report>(std::move(diff->second));
    difference.afterPath = *afterPath;
    difference.beforePath = *beforePath;
    difference.ranksAligned = diff->ranksAligned;
    for (const std::string& note : diff->notes)
        difference.notes << QString::fromStdString(note);
    markPresence(difference, **afterReport, **beforeReport);
    return difference;
}

} // namespace waitscope::gui
