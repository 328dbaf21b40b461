// The metrics the analyzer computes, identified by Scalasca's unique names.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <waitscope/metrics/metric_registry.h>

namespace waitscope::analysis {

/// Every metric the analysis fills, in the registry's order (metric_list.h,
/// WAITSCOPE_ANALYZED_METRICS): a metric's value equals its metrics::MetricId. Values are stored
/// inclusive along the metric tree (a parent holds the sum of its children plus its own part),
/// the way Scalasca reports them.
enum class Metric : uint8_t {
#define WAITSCOPE_ANALYSIS_METRIC(id, ...) id,
    WAITSCOPE_ANALYZED_METRICS(WAITSCOPE_ANALYSIS_METRIC)
#undef WAITSCOPE_ANALYSIS_METRIC
        Count_, ///< number of metrics, not a metric
};

inline constexpr size_t kMetricCount = static_cast<size_t>(Metric::Count_);

/// True for the OpenMP metrics (WAITSCOPE_OPENMP_METRICS, one block of the registry): reports
/// carry them only for traces with OpenMP regions.
inline constexpr bool isOpenmpMetric(Metric metric) {
    return metric >= Metric::OmpTime && metric <= Metric::OmpLimitedParallelism;
}

/// True for the POSIX threads metrics (WAITSCOPE_PTHREAD_METRICS, one block of the registry):
/// reports carry them only for traces with regions of the pthread paradigm.
inline constexpr bool isPthreadMetric(Metric metric) {
    return metric >= Metric::PthreadTime && metric <= Metric::PthreadLockContentionConditional;
}

/// What a metric measures (Seconds, Occurrences, Bytes).
using MetricUnit = metrics::Unit;

/// Self-description of a metric: unique name, display name, parent, unit and meaning, as the
/// metric registry defines it.
struct MetricInfo {
    Metric metric;
    std::string_view uniqueName;
    std::string_view displayName;
    std::optional<Metric> parent;
    MetricUnit unit;
    std::string_view description;
    bool isPattern; ///< a wait state with per-instance statistics in trace.stat
};

/// The description of `metric`.
const MetricInfo& metricInfo(Metric metric);
/// The metric with Scalasca unique name `name`, if the analyzer computes it.
std::optional<Metric> metricByName(std::string_view name);

} // namespace waitscope::analysis
