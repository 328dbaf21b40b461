// Formatting of report views; values come from the Report query API only.
#include "report_printer.h"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <waitscope/report/call_path_search.h>

namespace waitscope::report {
namespace {

std::string csvField(const std::string& text) {
    if (text.find_first_of(",\"\n") == std::string::npos)
        return text;
    std::string out = "\"";
    for (char c : text) {
        if (c == '"')
            out += '"';
        out += c;
    }
    return out + "\"";
}

std::string number(double value, DataType type) {
    char buffer[64];
    if (type == DataType::Int64 || type == DataType::Uint64)
        std::snprintf(buffer, sizeof buffer, "%.0f", value);
    else
        std::snprintf(buffer, sizeof buffer, "%.6f", value);
    return buffer;
}

// Full precision for scripts.
std::string exact(double value) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.17g", value);
    return buffer;
}

// A metric by unique name, else by display name when exactly one metric has it.
Result<MetricId> metricByName(const Report& report, const std::string& name) {
    if (auto id = report.findMetric(name))
        return *id;
    std::vector<MetricId> byDisplay;
    for (MetricId m = 0; m < report.metrics().size(); ++m)
        if (report.metrics()[m].displayName == name)
            byDisplay.push_back(m);
    if (byDisplay.size() == 1)
        return byDisplay.front();
    if (byDisplay.empty())
        return Error("no metric '" + name + "' in this report");
    std::string which;
    for (MetricId m : byDisplay) {
        const Metric& metric = report.metrics()[m];
        which += "\n  " + metric.uniqueName;
        if (metric.parent)
            which += " (under " + report.metrics()[*metric.parent].uniqueName + ")";
    }
    return Error("metric name '" + name + "' matches " + std::to_string(byDisplay.size()) +
                 " metrics; give the unique name of one:" + which);
}

// A call path given as the whole path, a call node id, or the end of a path.
Result<CallNodeId> callNodeByPath(const Report& report, const std::string& path) {
    if (auto c = report.findCallPath(path))
        return *c;
    if (!path.empty() &&
        std::all_of(path.begin(), path.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        if (path.size() < 11) {
            unsigned long long id = std::stoull(path);
            if (id < report.callNodes().size())
                return static_cast<CallNodeId>(id);
        }
        return Error("call node id " + path + " out of range (" +
                     std::to_string(report.callNodes().size()) + " call nodes)");
    }
    std::vector<CallNodeId> matches = findCallPathsBySuffix(report, path);
    if (matches.size() == 1)
        return matches.front();
    constexpr std::size_t kListed = 10;
    auto listing = [&](const std::vector<CallNodeId>& nodes) {
        std::string out;
        for (std::size_t i = 0; i < nodes.size() && i < kListed; ++i)
            out += "\n  " + report.callPath(nodes[i]) + " (id " + std::to_string(nodes[i]) + ")";
        if (nodes.size() > kListed)
            out += "\n  ... and " + std::to_string(nodes.size() - kListed) + " more";
        return out;
    };
    if (matches.size() > 1)
        return Error("call path '" + path + "' matches " + std::to_string(matches.size()) +
                     " call paths; give more of the path or a call node id:" + listing(matches));
    std::vector<CallNodeId> close = suggestCallPaths(report, path);
    if (close.empty())
        return Error("no call path '" + path + "' in this report");
    return Error("no call path '" + path + "' in this report; did you mean:" + listing(close));
}

} // namespace

Status printMetricTotals(const Report& report, std::ostream& out, OutputFormat format) {
    const auto& metrics = report.metrics();
    if (format == OutputFormat::Csv)
        out << "metric,display_name,unit,total\n";
    std::vector<std::pair<MetricId, int>> stack;
    auto roots = report.rootMetrics();
    for (auto it = roots.rbegin(); it != roots.rend(); ++it)
        stack.emplace_back(*it, 0);
    while (!stack.empty()) {
        auto [m, depth] = stack.back();
        stack.pop_back();
        const Metric& metric = metrics[m];
        Result<double> total = report.total(m);
        if (format == OutputFormat::Csv) {
            out << csvField(metric.uniqueName) << ',' << csvField(metric.displayName) << ','
                << csvField(metric.unit) << ',' << (total ? exact(*total) : std::string()) << '\n';
        } else {
            // Indentation stops at 40 levels, so that a deep tree prints in linear size.
            std::string label = std::string(2 * std::min(depth, 40), ' ') + metric.uniqueName;
            char line[256];
            std::snprintf(line, sizeof line, "%-48s %20s %-6s ", label.c_str(),
                          total ? number(*total, metric.dataType).c_str() : "n/a",
                          metric.unit.c_str());
            out << line << metric.displayName;
            if (!total)
                out << "  (" << total.error().message() << ")";
            out << '\n';
        }
        for (auto it = metric.children.rbegin(); it != metric.children.rend(); ++it)
            stack.emplace_back(*it, depth + 1);
    }
    return Status::success();
}

Status printTopCallPaths(const Report& report, const std::string& metricName, std::size_t count,
                         CallTreeMode mode, std::ostream& out, OutputFormat format) {
    auto metric = metricByName(report, metricName);
    if (!metric)
        return metric.error();
    auto values = report.callNodeValues(*metric, mode);
    if (!values)
        return values.error();
    std::vector<CallNodeId> order(values->size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](CallNodeId a, CallNodeId b) { return (*values)[a] > (*values)[b]; });
    if (order.size() > count)
        order.resize(count);
    const Metric& info = report.metrics()[*metric];
    if (format == OutputFormat::Csv)
        out << "cnode,call_path,value\n";
    else
        out << "Top call paths for " << info.uniqueName << " ("
            << (mode == CallTreeMode::Exclusive ? "exclusive" : "inclusive") << ", " << info.unit
            << "):\n";
    for (CallNodeId c : order) {
        if (format == OutputFormat::Csv) {
            out << c << ',' << csvField(report.callPath(c)) << ',' << exact((*values)[c]) << '\n';
        } else {
            char line[64];
            std::snprintf(line, sizeof line, "%20s  ", number((*values)[c], info.dataType).c_str());
            out << line << report.callPath(c) << '\n';
        }
    }
    return Status::success();
}

Status printRankDistribution(const Report& report, const std::string& metricName,
                             const std::string& callPath, CallTreeMode mode, std::ostream& out,
                             OutputFormat format) {
    auto metric = metricByName(report, metricName);
    if (!metric)
        return metric.error();
    auto cnode = callNodeByPath(report, callPath);
    if (!cnode)
        return cnode.error();
    const Metric& info = report.metrics()[*metric];
    if (format == OutputFormat::Csv)
        out << "rank,process,value\n";
    else
        out << info.uniqueName << " at " << report.callPath(*cnode) << " ("
            << (mode == CallTreeMode::Exclusive ? "exclusive" : "inclusive") << ", " << info.unit
            << "):\n";
    // The call path's values are computed once for all locations, then each process takes
    // its own threads (by the metric's aggregation: sum, or min/max).
    auto perLocation = report.locationValues(*metric, *cnode, mode);
    if (!perLocation)
        return perLocation.error();
    DataType aggregation = isDerived(info.kind) ? DataType::Double : info.dataType;
    const auto& nodes = report.systemNodes();
    for (SystemNodeId s = 0; s < nodes.size(); ++s) {
        if (nodes[s].kind != SystemKind::Process)
            continue;
        std::optional<double> v;
        for (SystemNodeId child : nodes[s].children) {
            if (nodes[child].kind != SystemKind::Location)
                continue;
            double x = (*perLocation)[nodes[child].location];
            v = !v                                   ? x
                : aggregation == DataType::MinDouble ? std::min(*v, x)
                : aggregation == DataType::MaxDouble ? std::max(*v, x)
                                                     : *v + x;
        }
        v = v.value_or(0.0);
        if (format == OutputFormat::Csv) {
            out << nodes[s].rank << ',' << csvField(nodes[s].name) << ',' << exact(*v) << '\n';
        } else {
            char line[128];
            std::snprintf(line, sizeof line, "  rank %-6lld %20s  ",
                          static_cast<long long>(nodes[s].rank), number(*v, info.dataType).c_str());
            out << line << nodes[s].name << '\n';
        }
    }
    return Status::success();
}

Status printAttributes(const Report& report, std::ostream& out, OutputFormat format) {
    if (format == OutputFormat::Csv) {
        out << "key,value\n";
        for (const auto& [key, value] : report.attributes())
            out << csvField(key) << ',' << csvField(value) << '\n';
        for (const auto& url : report.mirrors())
            out << "mirror," << csvField(url) << '\n';
        return Status::success();
    }
    for (const auto& [key, value] : report.attributes())
        out << key << " = " << value << '\n';
    for (const auto& url : report.mirrors())
        out << "mirror = " << url << '\n';
    out << "metrics = " << report.metrics().size() << ", call paths = " << report.callNodes().size()
        << ", locations = " << report.locations().size() << '\n';
    return Status::success();
}

} // namespace waitscope::report
