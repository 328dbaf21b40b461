// Run comparison: collects per-run values by (metric, call path) and tests each pair.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>
#include <waitscope/base/markup_escape.h>
#include <waitscope/compare/run_comparison.h>

namespace waitscope::compare {
namespace {

using Key = std::pair<std::string, std::string>; // (metric unique name, call path)

/// Share of the run time below which a significant change of a time is not worth naming.
constexpr double kNegligibleShare = 0.001;

struct MetricInfo {
    std::string displayName;
    std::string unit;
};

/// Adds one run's values to `samples[key][run]`.
Status collect(const report::Report& run, std::size_t index, std::size_t runs,
               std::map<Key, std::vector<double>>& samples,
               std::map<std::string, MetricInfo>& metrics) {
    using namespace report;
    for (MetricId m = 0; m < run.metrics().size(); ++m) {
        const Metric& metric = run.metrics()[m];
        if (isDerived(metric.kind) || !metric.available)
            continue;
        // Scalasca repeats names in its other hierarchies (Late Sender as a delay cost, a
        // terminal wait, a direct wait...): those are told apart by their hierarchy's name.
        MetricId root = m;
        while (run.metrics()[root].parent)
            root = *run.metrics()[root].parent;
        std::string label = metric.displayName;
        if (root != m && root != run.rootMetrics().front())
            label += " (" + run.metrics()[root].displayName + ")";
        metrics.try_emplace(metric.uniqueName, MetricInfo{label, metric.unit});
        auto values = run.callNodeValues(m, CallTreeMode::Exclusive, MetricMode::Exclusive);
        if (!values)
            return values.error();
        for (CallNodeId c = 0; c < values->size(); ++c) {
            if ((*values)[c] == 0.0)
                continue;
            auto& sample = samples[{metric.uniqueName, run.callPath(c)}];
            sample.resize(runs, 0.0);
            sample[index] += (*values)[c];
        }
    }
    return {};
}

std::string formatNumber(double value, int digits) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
    return buffer;
}

std::string unitSuffix(const std::string& unit) {
    if (unit == "sec")
        return " s";
    if (unit == "occ")
        return "";
    return " " + unit;
}

/// A value with sign and unit: "+0.02 s", "-12".
std::string signedValue(double value, const std::string& unit) {
    const double magnitude = std::fabs(value);
    const int digits = unit == "occ" || unit == "bytes"
                           ? (magnitude == std::floor(magnitude) ? 0 : 1)
                       : magnitude >= 100                    ? 1
                       : magnitude >= 0.01 || magnitude == 0 ? 2
                                                             : 6;
    return (value < 0 ? "-" : "+") + formatNumber(magnitude, digits) + unitSuffix(unit);
}

std::string runsText(const Comparison& c) {
    return c.runsBefore == c.runsAfter ? std::to_string(c.runsBefore) + " runs each"
                                       : std::to_string(c.runsBefore) + " runs before, " +
                                             std::to_string(c.runsAfter) + " after";
}

/// The changes to show: significant ones first (up to `limit`), then up to 5 within noise.
std::pair<std::vector<const Change*>, std::vector<const Change*>>
selectChanges(const Comparison& comparison, std::size_t limit) {
    std::vector<const Change*> significant;
    std::vector<const Change*> noise;
    for (const Change& change : comparison.changes) {
        if (change.significant && change.negligible)
            continue;
        if (change.significant && significant.size() < limit)
            significant.push_back(&change);
        else if (!change.significant && noise.size() < 5 && change.change() != 0.0)
            noise.push_back(&change);
    }
    return {significant, noise};
}

} // namespace

double Change::percent() const {
    if (test.meanBefore == 0.0)
        return change() == 0.0 ? 0.0 : std::copysign(INFINITY, change());
    return 100.0 * change() / std::fabs(test.meanBefore);
}

Result<Comparison> compareRuns(std::span<const report::Report* const> before,
                               std::span<const report::Report* const> after, double level) {
    if (before.empty() || after.empty())
        return Error("compare: give at least one run before and one after");
    std::map<Key, std::vector<double>> beforeSamples;
    std::map<Key, std::vector<double>> afterSamples;
    std::map<std::string, MetricInfo> metrics;
    for (std::size_t i = 0; i < before.size(); ++i)
        if (Status s = collect(*before[i], i, before.size(), beforeSamples, metrics); !s)
            return s.error();
    for (std::size_t i = 0; i < after.size(); ++i)
        if (Status s = collect(*after[i], i, after.size(), afterSamples, metrics); !s)
            return s.error();
    Comparison comparison;
    comparison.runsBefore = before.size();
    comparison.runsAfter = after.size();
    comparison.level = level;
    std::map<Key, bool> keys;
    for (const auto& [key, _] : beforeSamples)
        keys[key] = true;
    for (const auto& [key, _] : afterSamples)
        keys[key] = true;
    for (const auto& [key, _] : keys) {
        std::vector<double> b = beforeSamples[key];
        std::vector<double> a = afterSamples[key];
        b.resize(before.size(), 0.0);
        a.resize(after.size(), 0.0);
        Change change;
        change.metric = key.first;
        change.displayName = metrics[key.first].displayName;
        change.unit = metrics[key.first].unit;
        change.callPath = key.second;
        change.test = welchTest(b, a);
        change.significant = change.test.tested && change.test.p < level;
        comparison.changes.push_back(std::move(change));
    }
    // The run time before: the total of the first metric hierarchy when it is a time.
    double runTime = 0;
    for (const report::Report* run : before) {
        if (run->metrics().empty() || run->metrics()[run->rootMetrics().front()].unit != "sec")
            continue;
        auto total = run->total(run->rootMetrics().front());
        if (!total)
            return total.error();
        runTime += *total / static_cast<double>(before.size());
    }
    comparison.negligibleSeconds = kNegligibleShare * runTime;
    for (Change& change : comparison.changes)
        change.negligible =
            change.unit == "sec" && std::fabs(change.change()) < comparison.negligibleSeconds;
    std::stable_sort(comparison.changes.begin(), comparison.changes.end(),
                     [](const Change& x, const Change& y) {
                         // Times first (the question is where time went), then counts and
                         // bytes; the largest change first within each.
                         const bool xTime = x.unit == "sec";
                         const bool yTime = y.unit == "sec";
                         if (xTime != yTime)
                             return xTime;
                         return std::fabs(x.change()) > std::fabs(y.change());
                     });
    return comparison;
}

std::string shortCallPath(const std::string& path) {
    constexpr std::size_t kLongest = 6; // regions shown in full
    constexpr std::size_t kLast = 4;    // regions kept at the end of a longer path
    std::vector<std::size_t> slashes;
    for (std::size_t at = path.find('/'); at != std::string::npos; at = path.find('/', at + 1))
        slashes.push_back(at);
    if (slashes.size() + 1 <= kLongest)
        return path;
    return path.substr(0, slashes.front()) + "/..." + path.substr(slashes[slashes.size() - kLast]);
}

std::string describeChange(const Change& change, const Comparison& comparison) {
    std::string line = change.displayName + " at " + shortCallPath(change.callPath) + ": " +
                       signedValue(change.change(), change.unit);
    const double percent = change.percent();
    if (std::isfinite(percent))
        line += " (" + std::string(percent < 0 ? "-" : "+") +
                formatNumber(std::fabs(percent), std::fabs(percent) >= 10 ? 0 : 1) + " %)";
    else
        line += " (new)";
    if (!change.test.tested)
        return line + ", not tested (needs 2 runs or more on each side)";
    const std::string p =
        change.test.p < 0.0001 ? "p < 0.0001" : "p = " + formatNumber(change.test.p, 4);
    return line + (change.significant ? ", significant over " : ", within noise over ") +
           runsText(comparison) + " (" + p + ")";
}

void printComparison(const Comparison& comparison, std::ostream& out, std::size_t limit) {
    const auto [significant, noise] = selectChanges(comparison, limit);
    out << "Comparison of " << runsText(comparison) << " (Welch's t-test, level "
        << formatNumber(comparison.level, 2) << "; values summed over ranks, exclusive per "
        << "call path)\n\n";
    if (comparison.runsBefore < 2 || comparison.runsAfter < 2)
        out << "With fewer than 2 runs on a side the noise is unknown: nothing is tested.\n\n";
    std::size_t negligible = 0;
    for (const Change& change : comparison.changes)
        negligible += change.significant && change.negligible;
    out << "Changes larger than the noise:\n";
    if (significant.empty())
        out << "  none\n";
    for (const Change* change : significant)
        out << "  " << describeChange(*change, comparison) << '\n';
    if (negligible > 0)
        out << "  (and " << negligible << " more under "
            << signedValue(comparison.negligibleSeconds, "sec").substr(1)
            << ", 0.1 % of the run time: real but too small to matter)\n";
    out << "\nLargest changes within noise:\n";
    if (noise.empty())
        out << "  none\n";
    for (const Change* change : noise)
        out << "  " << describeChange(*change, comparison) << '\n';
}

namespace {
/// A call path in a table cell: shortened, with the full path as the tooltip.
std::string callPathCell(const std::string& path) {
    const std::string shown = shortCallPath(path);
    if (shown == path)
        return "<code>" + escapeMarkup(path) + "</code>";
    return "<code title=\"" + escapeMarkup(path) + "\">" + escapeMarkup(shown) + "</code>";
}
} // namespace

void writeComparisonHtml(const Comparison& comparison, std::ostream& out, std::size_t limit) {
    const auto [significant, noise] = selectChanges(comparison, limit);
    out << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Waitscope comparison"
           "</title>\n<style>body{font-family:sans-serif;max-width:60em;margin:2em auto}"
           "table{border-collapse:collapse}td,th{padding:.2em .6em;border-bottom:1px solid #ccc;"
           "text-align:left}.better{color:#1a7f37}.worse{color:#c62828}.noise{color:#777}"
           "</style></head><body>\n<h1>Comparison of "
        << escapeMarkup(runsText(comparison)) << "</h1>\n<p>Welch's t-test at level "
        << formatNumber(comparison.level, 2)
        << "; values summed over ranks, exclusive per call path.</p>\n";
    auto table = [&](const std::string& title, const std::vector<const Change*>& changes) {
        out << "<h2>" << escapeMarkup(title) << "</h2>\n";
        if (changes.empty()) {
            out << "<p>none</p>\n";
            return;
        }
        out << "<table><tr><th>metric</th><th>call path</th><th>before</th><th>after</th>"
               "<th>change</th><th>%</th><th>p</th></tr>\n";
        for (const Change* c : changes) {
            const std::string cls = !c->significant   ? "noise"
                                    : c->change() < 0 ? "better"
                                                      : "worse";
            const double percent = c->percent();
            out << "<tr class=\"" << cls << "\"><td>" << escapeMarkup(c->displayName) << "</td><td>"
                << callPathCell(c->callPath) << "</td><td>" << formatNumber(c->test.meanBefore, 4)
                << " ± " << formatNumber(c->test.sdBefore, 4) << "</td><td>"
                << formatNumber(c->test.meanAfter, 4) << " ± " << formatNumber(c->test.sdAfter, 4)
                << "</td><td>" << escapeMarkup(signedValue(c->change(), c->unit)) << "</td><td>"
                << (std::isfinite(percent) ? formatNumber(percent, 1) : std::string("new"))
                << "</td><td>" << (c->test.tested ? formatNumber(c->test.p, 4) : "–")
                << "</td></tr>\n";
        }
        out << "</table>\n";
    };
    table("Changes larger than the noise", significant);
    table("Largest changes within noise", noise);
    out << "</body></html>\n";
}

} // namespace waitscope::compare
