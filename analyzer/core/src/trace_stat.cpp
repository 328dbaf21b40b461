// Instance statistics: order statistics by linear interpolation, population variance.
#include "waitscope/analysis/trace_stat.h"

#include <algorithm>
#include <cstdio>

namespace waitscope::analysis {
namespace {

// Value at fraction `q` of the values in order, interpolating between neighbours. Selects
// instead of sorting (there may be millions of instances): `values` is partitioned so that
// everything before `from` is at most the value there; quantiles are asked in ascending order,
// each continuing from where the last one left (`from`).
double quantile(std::vector<double>& values, double q, size_t& from) {
    const double position = q * static_cast<double>(values.size() - 1);
    const auto below = static_cast<size_t>(position);
    const auto first = values.begin() + static_cast<std::ptrdiff_t>(from);
    const auto nth = values.begin() + static_cast<std::ptrdiff_t>(below);
    std::nth_element(first, nth, values.end());
    from = below;
    const double fraction = position - static_cast<double>(below);
    if (below + 1 >= values.size() || fraction == 0.0) {
        return *nth;
    }
    const double above = *std::min_element(nth + 1, values.end());
    return *nth + fraction * (above - *nth);
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
        size_t from = 0;
        s.quartile25 = quantile(values, 0.25, from);
        s.median = quantile(values, 0.5, from);
        s.quartile75 = quantile(values, 0.75, from);
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
