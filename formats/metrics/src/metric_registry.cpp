// Lookups in the metric registry, and compile-time checks of its tree.
#include <waitscope/metrics/metric_registry.h>

namespace waitscope::metrics {
namespace {

// Every id names its own row, and every parent comes before its children (the analyzer and
// the report writer add metrics in this order).
constexpr bool wellOrdered() {
    for (std::size_t i = 0; i < kMetricCount; ++i) {
        const MetricDefinition& d = kMetricDefinitions[i];
        if (static_cast<std::size_t>(d.id) != i) {
            return false;
        }
        if (d.parent != MetricId::None && static_cast<std::size_t>(d.parent) >= i) {
            return false;
        }
        // The analyzer's metrics have their parents among the analyzer's metrics.
        if (i < kAnalyzedMetricCount && d.parent != MetricId::None &&
            static_cast<std::size_t>(d.parent) >= kAnalyzedMetricCount) {
            return false;
        }
    }
    for (std::size_t i = 0; i < kProfileMetricCount; ++i) {
        if (static_cast<std::size_t>(kProfileMetricDefinitions[i].id) != i) {
            return false;
        }
    }
    return true;
}
static_assert(wellOrdered(), "metric_list.h: a parent must come before its children");

} // namespace

std::optional<MetricId> findMetric(std::string_view uniqueName) noexcept {
    for (const MetricDefinition& d : kMetricDefinitions) {
        if (d.uniqueName == uniqueName) {
            return d.id;
        }
    }
    return std::nullopt;
}

std::string_view unitName(Unit unit) noexcept {
    switch (unit) {
    case Unit::Seconds:
        return "sec";
    case Unit::Occurrences:
        return "occ";
    case Unit::Bytes:
        return "bytes";
    }
    return "";
}

} // namespace waitscope::metrics
