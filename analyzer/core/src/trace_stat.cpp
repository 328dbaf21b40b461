// Instance statistics: order statistics by linear interpolation, population variance.
#include "waitscope/analysis/trace_stat.h"

#include <algorithm>
#include <cstdio>

namespace waitscope::analysis {
namespace {

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
    std::vector<PatternStatistics> all;
    for (size_t m = 0; m < kMetricCount; ++m) {
        const PatternSamples& samples = result.samples(static_cast<Metric>(m));
        if (samples.count() == 0) {
            continue;
        }
        PatternStatistics s;
        s.metric = static_cast<Metric>(m);
        s.count = samples.count();
        s.sum = samples.sum;
        s.mean = s.sum / static_cast<double>(s.count);
        s.minimum = samples.minimum;
        s.maximum = samples.maximum;
        s.variance =
            std::max(0.0, samples.sumSquares / static_cast<double>(s.count) - s.mean * s.mean);
        std::vector<double> values(samples.severities.begin(), samples.severities.end());
        std::sort(values.begin(), values.end());
        s.median = quantile(values, 0.5);
        s.quartile25 = quantile(values, 0.25);
        s.quartile75 = quantile(values, 0.75);
        s.mostSevere = samples.mostSevere;
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
