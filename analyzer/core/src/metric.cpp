// The analyzer's metric table, taken from the metric registry (waitscope/metrics).
#include "waitscope/analysis/metric.h"

#include <array>

namespace waitscope::analysis {
namespace {

// The analyzer's metrics are the registry's first ones, with the same values.
static_assert(kMetricCount == metrics::kAnalyzedMetricCount);
#define WAITSCOPE_SAME_VALUE(id, ...)                                                              \
    static_assert(static_cast<size_t>(Metric::id) == static_cast<size_t>(metrics::MetricId::id));
WAITSCOPE_ANALYZED_METRICS(WAITSCOPE_SAME_VALUE)
#undef WAITSCOPE_SAME_VALUE

constexpr std::array<MetricInfo, kMetricCount> makeTable() {
    std::array<MetricInfo, kMetricCount> table{};
    for (size_t m = 0; m < kMetricCount; ++m) {
        const metrics::MetricDefinition& d = metrics::kMetricDefinitions[m];
        std::optional<Metric> parent;
        if (d.parent != metrics::MetricId::None) {
            parent = static_cast<Metric>(d.parent);
        }
        table[m] = {static_cast<Metric>(m),
                    d.uniqueName,
                    d.displayName,
                    parent,
                    d.unit,
                    d.description,
                    d.kind == metrics::Kind::WaitState};
    }
    return table;
}

constexpr std::array<MetricInfo, kMetricCount> kMetrics = makeTable();

} // namespace

const MetricInfo& metricInfo(Metric metric) {
    const MetricInfo& info = kMetrics[static_cast<size_t>(metric)];
    return info;
}

std::optional<Metric> metricByName(std::string_view name) {
    for (const MetricInfo& info : kMetrics) {
        if (info.uniqueName == name) {
            return info.metric;
        }
    }
    return std::nullopt;
}

} // namespace waitscope::analysis
