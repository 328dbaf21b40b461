// Instance statistics: order statistics by linear interpolation, population variance.
#include "waitscope/analysis/trace_stat.h"

#include <algorithm>
#include <cstdio>

namespace waitscope::analysis {
namespace {

constexpr size_t kMostSevere = 5;

// Value at fraction `q` of the sorted values, interpolating between neighbours.
double quantile(const std::vector<double>& sorted, double q) {
    const double position = q * static_cast<double>(sorted.size() - 1);
    const auto below = static_cast<size_t>(position);
    const size_t above = std::min(below + 1, sorted.size() - 1);
    const double fraction = position - static_cast<double>(below);
    return sorted[below] + fraction * (sorted[above] - sorted[below]);
}

} // namespace

std::vector<PatternStatistics> patternStatistics(const AnalysisResult& result) {
    std::vector<std::vector<const PatternInstance*>> byMetric(kMetricCount);
    for (const PatternInstance& instance : result.instances()) {
        byMetric[static_cast<size_t>(instance.metric)].push_back(&instance);
    }
    std::vector<PatternStatistics> all;
    for (size_t m = 0; m < kMetricCount; ++m) {
        auto& instances = byMetric[m];
        if (instances.empty()) {
            continue;
        }
        PatternStatistics s;
        s.metric = static_cast<Metric>(m);
        s.count = instances.size();
        std::vector<double> values;
        for (const PatternInstance* i : instances) {
            values.push_back(i->severity);
            s.sum += i->severity;
        }
        std::sort(values.begin(), values.end());
        s.mean = s.sum / static_cast<double>(s.count);
        s.minimum = values.front();
        s.maximum = values.back();
        s.median = quantile(values, 0.5);
        s.quartile25 = quantile(values, 0.25);
        s.quartile75 = quantile(values, 0.75);
        if (s.count > 1) {
            double squares = 0.0;
            for (double v : values) {
                squares += (v - s.mean) * (v - s.mean);
            }
            s.variance = squares / static_cast<double>(s.count);
        }
        // Most severe first; ties broken by rank and time so every transport lists the same.
        std::stable_sort(instances.begin(), instances.end(),
                         [](const PatternInstance* a, const PatternInstance* b) {
                             if (a->severity != b->severity) {
                                 return a->severity > b->severity;
                             }
                             return a->rank != b->rank ? a->rank < b->rank : a->enter < b->enter;
                         });
        for (size_t k = 0; k < std::min(kMostSevere, instances.size()); ++k) {
            s.mostSevere.push_back(*instances[k]);
        }
        all.push_back(std::move(s));
    }
    return all;
}

std::string traceStatText(const std::vector<PatternStatistics>& statistics) {
    std::string out = "PatternName               Count      Mean    Median      Minimum      "
                      "Maximum      Sum     "
                      "Variance    Quartil25    Quartil75\n";
    char line[512];
    for (const PatternStatistics& s : statistics) {
        std::snprintf(line, sizeof line, "%-25s %10zu %.7f %.7f %.10f %.10f %.10f %.10f",
                      std::string(metricInfo(s.metric).uniqueName).c_str(), s.count, s.mean,
                      s.median, s.minimum, s.maximum, s.sum, s.variance);
        out += line;
        if (s.count >= 4) {
            std::snprintf(line, sizeof line, " %.10f %.10f", s.quartile25, s.quartile75);
            out += line;
        }
        out += "\n";
        for (const PatternInstance& i : s.mostSevere) {
            std::snprintf(line, sizeof line,
                          "- cnode %u enter: %.10f exit: %.10f duration: %.10f rank: %u\n", i.node,
                          i.enter, i.exit, i.severity, i.rank);
            out += line;
        }
        out += "\n";
    }
    return out;
}

} // namespace waitscope::analysis
