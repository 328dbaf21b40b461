// Scaling study: costs (time summed over ranks) per call path and wait-state metric per run.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <set>
#include <waitscope/compare/scaling_study.h>

namespace waitscope::compare {
namespace {

using namespace report;

/// Efficiency below which a call path no longer scales.
constexpr double kStopsScaling = 0.8;
/// Share of the largest run's time a call path needs to matter.
constexpr double kMinimumShare = 0.01;
/// Growth from the smallest to the largest run for a wait state to count as growing.
constexpr double kGrowth = 1.1;

std::int64_t rankCount(const Report& report) {
    std::set<std::int64_t> ranks;
    for (const SystemNode& node : report.systemNodes())
        if (node.kind == SystemKind::Process)
            ranks.insert(node.rank);
    return static_cast<std::int64_t>(ranks.size());
}

/// Whether the metric is a wait state: Scalasca's names for waiting and its completions.
bool isWaitState(const std::string& uniqueName) {
    for (const char* part : {"late", "wait", "early", "completion"})
        if (uniqueName.find(part) != std::string::npos)
            return true;
    return false;
}

std::string seconds(double value) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.3f s", value);
    return buffer;
}

} // namespace

double ScalingRow::efficiency() const {
    if (cost.empty() || cost.back() == 0.0)
        return cost.empty() || cost.front() == 0.0 ? 1.0 : INFINITY;
    return cost.front() / cost.back();
}

Result<ScalingStudy> studyScaling(std::span<const Report* const> runs) {
    if (runs.size() < 2)
        return Error("compare --scaling: give runs at 2 or more rank counts");
    std::vector<const Report*> sorted(runs.begin(), runs.end());
    std::stable_sort(sorted.begin(), sorted.end(), [](const Report* a, const Report* b) {
        return rankCount(*a) < rankCount(*b);
    });
    ScalingStudy study;
    const std::size_t n = sorted.size();
    std::map<std::string, std::vector<double>> paths;
    std::map<std::string, std::vector<double>> waits;
    std::map<std::string, std::string> waitNames;
    study.program.name = "whole program";
    study.program.cost.assign(n, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
        const Report& run = *sorted[i];
        study.ranks.push_back(rankCount(run));
        if (i > 0 && study.ranks[i] == study.ranks[i - 1])
            return Error("compare --scaling: two runs with " + std::to_string(study.ranks[i]) +
                         " ranks; give one run per rank count");
        auto time = run.findMetric("time");
        if (!time)
            return Error("compare --scaling: a report has no metric \"time\"");
        auto total = run.total(*time);
        if (!total)
            return total.error();
        study.program.cost[i] = *total;
        auto values = run.callNodeValues(*time, CallTreeMode::Exclusive);
        if (!values)
            return values.error();
        for (CallNodeId c = 0; c < values->size(); ++c) {
            auto& row = paths[run.callPath(c)];
            row.resize(n, 0.0);
            row[i] += (*values)[c];
        }
        for (MetricId m = 0; m < run.metrics().size(); ++m) {
            const Metric& metric = run.metrics()[m];
            MetricId root = m;
            while (run.metrics()[root].parent)
                root = *run.metrics()[root].parent;
            if (root != *time || isDerived(metric.kind) || !metric.available ||
                !isWaitState(metric.uniqueName))
                continue;
            auto waitTotal = run.total(m, MetricMode::Exclusive);
            if (!waitTotal)
                return waitTotal.error();
            auto& row = waits[metric.uniqueName];
            row.resize(n, 0.0);
            row[i] = *waitTotal;
            waitNames[metric.uniqueName] = metric.displayName;
        }
    }
    for (auto& [path, cost] : paths) {
        cost.resize(n, 0.0);
        ScalingRow row{path, cost};
        if (cost.back() >= kMinimumShare * study.program.cost.back() &&
            row.efficiency() < kStopsScaling)
            study.stopScaling.push_back(std::move(row));
    }
    std::stable_sort(study.stopScaling.begin(), study.stopScaling.end(),
                     [](const ScalingRow& a, const ScalingRow& b) {
                         return a.cost.back() - a.cost.front() > b.cost.back() - b.cost.front();
                     });
    for (auto& [name, cost] : waits) {
        cost.resize(n, 0.0);
        if (cost.back() > kGrowth * cost.front() &&
            cost.back() >= kMinimumShare * study.program.cost.back())
            study.growingWaits.push_back({waitNames[name] + " (" + name + ")", cost});
    }
    std::stable_sort(study.growingWaits.begin(), study.growingWaits.end(),
                     [](const ScalingRow& a, const ScalingRow& b) {
                         return a.cost.back() - a.cost.front() > b.cost.back() - b.cost.front();
                     });
    return study;
}

void printScalingStudy(const ScalingStudy& study, std::ostream& out) {
    std::string counts;
    for (std::int64_t r : study.ranks)
        counts += (counts.empty() ? "" : ", ") + std::to_string(r);
    out << "Scaling study at " << counts
        << " ranks (cost = time summed over ranks, i.e. time x ranks; efficiency = cost at "
        << study.ranks.front() << " ranks / cost at " << study.ranks.back()
        << " ranks, 100 % when the same work takes the same cost on more ranks)\n\n";
    auto printRow = [&](const ScalingRow& row, bool efficiency) {
        out << "  " << row.name << ": ";
        for (std::size_t i = 0; i < row.cost.size(); ++i)
            out << (i ? " -> " : "") << seconds(row.cost[i]);
        if (efficiency) {
            char buffer[32];
            std::snprintf(buffer, sizeof buffer, ", efficiency %.0f %%", 100 * row.efficiency());
            out << buffer;
        } else if (row.cost.front() > 0) {
            char buffer[32];
            std::snprintf(buffer, sizeof buffer, " (x%.1f)", row.cost.back() / row.cost.front());
            out << buffer;
        }
        out << '\n';
    };
    printRow(study.program, true);
    out << "\nCall paths that stop scaling (efficiency under 80 %, 1 % of the cost or more):\n";
    if (study.stopScaling.empty())
        out << "  none\n";
    for (const ScalingRow& row : study.stopScaling)
        printRow(row, true);
    out << "\nWait states that grow with the rank count:\n";
    if (study.growingWaits.empty())
        out << "  none\n";
    for (const ScalingRow& row : study.growingWaits)
        printRow(row, false);
}

} // namespace waitscope::compare
