// parseLinearCubePL: recognizes CubePL expressions that are sums/differences of metrics.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>
#include <waitscope/report/metric.h>

namespace waitscope::report::detail {

/// One term of a linear combination: coefficient times a metric's value.
struct LinearTerm {
    double coefficient = 1.0;
    MetricId metric = 0;
};

/// Longest expression parsed (Scalasca's are well under 1 KiB); longer ones are not evaluated.
inline constexpr std::size_t kMaxExpressionLength = 65536;

/// Parses `expression` if it is a linear combination of metric references such as
/// "metric::time(i) - metric::omp_idle_threads(i)" or "2 * (metric::a() + metric::b())";
/// each metric appears in one term (repeated references are merged).
/// `lookup` maps unique names to ids. Returns nullopt for anything else (conditions,
/// variables, products of metrics, unknown metrics, longer than
/// kMaxExpressionLength) with the reason in `why`.
std::optional<std::vector<LinearTerm>>
parseLinearCubePL(std::string_view expression,
                  const std::function<std::optional<MetricId>(std::string_view)>& lookup,
                  std::string& why);

} // namespace waitscope::report::detail
