// CubePLEvaluator: computes a report's values for one query, from stored rows in either
// call-tree view, for derived (CubePL) metrics as linear combinations of their operands
// (cubepl_linear.h), and in the metric-exclusive view.
#pragma once

#include "cubepl_linear.h"
#include "severity_storage.h"

#include <cstdint>
#include <unordered_map>
#include <vector>
#include <waitscope/base/result.h>
#include <waitscope/report/report.h>

namespace waitscope::report::detail {

/// The value of a stored 8-byte bit pattern of a metric of type `type`.
double decode(DataType type, std::uint64_t bits);

/// How the values of a metric's data type aggregate over locations and call paths.
enum class Aggregate { Sum, Min, Max };
Aggregate aggregateOf(DataType type);

/// Answers one query (one call node and call-tree view, or all call nodes in one view): each
/// metric's result is computed once and reused, so derived metrics that share operands (a DAG,
/// as in Scalasca's hierarchies) cost one evaluation per metric, not one per path through the
/// DAG. Lives for one query; `report` and `storage` must outlive it.
class CubePLEvaluator {
public:
    CubePLEvaluator(const Report& report, const SeverityStorage& storage);

    /// Per-location values of metric `m` at call node `c` (the same node and view for the
    /// whole evaluator). Fails on an id out of range, an unavailable metric, an expression that
    /// cannot be evaluated, definitions nested too deeply (or cyclic), or corrupt data.
    Result<std::vector<double>> atNode(MetricId m, CallNodeId c, CallTreeMode callMode,
                                       MetricMode metricMode);
    /// Per-call-node values of metric `m` over all locations (the same view for the whole
    /// evaluator). Fails like atNode().
    Result<std::vector<double>> perNode(MetricId m, CallTreeMode callMode, MetricMode metricMode);

private:
    static constexpr int kMaxDepth = 256; // bounds the recursion (and catches cycles)

    static std::uint64_t memoKey(MetricId m, MetricMode metricMode);
    Result<const MetricRows*> rowsOf(MetricId m) const;
    /// The operands of derived metric `m`: its parsed expression, or its children summed.
    Result<const std::vector<LinearTerm>*> termsOf(MetricId m);
    Status checkAvailable(MetricId m) const;
    /// The `width` values of metric `m` in `metricMode` from the metric tree: an exclusive sum
    /// is its inclusive values minus its children's, a derived metric its terms' weighted sum,
    /// both from `inclusiveOf(metric)` (one recursion level deeper); otherwise `stored(metric,
    /// rows)`.
    template <class InclusiveOf, class Stored>
    Result<std::vector<double>> evaluate(MetricId m, MetricMode metricMode, std::size_t width,
                                         InclusiveOf inclusiveOf, Stored stored);
    Result<std::vector<double>> atNodeUncached(MetricId m, CallNodeId c, CallTreeMode callMode,
                                               MetricMode metricMode);
    std::vector<double> storedAtNode(const Metric& metric, const MetricRows& rows, CallNodeId c,
                                     CallTreeMode callMode) const;
    Result<std::vector<double>> perNodeUncached(MetricId m, CallTreeMode callMode,
                                                MetricMode metricMode);
    std::vector<double> storedPerNode(const Metric& metric, const MetricRows& rows,
                                      CallTreeMode callMode) const;

    const Report& m_report;
    const SeverityStorage& m_storage;
    int m_depth = 0;
    std::unordered_map<std::uint64_t, std::vector<double>> m_memo;
    std::unordered_map<MetricId, std::vector<LinearTerm>> m_parsedTerms;
};

} // namespace waitscope::report::detail
