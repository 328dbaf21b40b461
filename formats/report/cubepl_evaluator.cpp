// The report's value queries: stored rows in either call-tree view, derived (CubePL) metrics
// as linear combinations of their operands, and the metric-exclusive view (see
// cubepl_evaluator.h).
#include "cubepl_evaluator.h"

#include "row_order.h"

#include <algorithm>
#include <bit>

namespace waitscope::report::detail {

double decode(DataType type, std::uint64_t bits) {
    switch (type) {
    case DataType::Int64:
        return static_cast<double>(static_cast<std::int64_t>(bits));
    case DataType::Uint64:
        return static_cast<double>(bits);
    default:
        return std::bit_cast<double>(bits);
    }
}

Aggregate aggregateOf(DataType type) {
    if (type == DataType::MinDouble)
        return Aggregate::Min;
    if (type == DataType::MaxDouble)
        return Aggregate::Max;
    return Aggregate::Sum;
}

CubePLEvaluator::CubePLEvaluator(const Report& report, const SeverityStorage& storage)
    : m_report(report), m_storage(storage) {}

std::uint64_t CubePLEvaluator::memoKey(MetricId m, MetricMode metricMode) {
    return std::uint64_t(m) * 2 + (metricMode == MetricMode::Exclusive ? 1 : 0);
}

Result<const MetricRows*> CubePLEvaluator::rowsOf(MetricId m) const {
    auto rows = m_storage.rows(m, m_report.locations().size());
    if (!rows)
        return rows.error().withContext("metric '" + m_report.metrics()[m].uniqueName + "'");
    return rows;
}

Result<const std::vector<LinearTerm>*> CubePLEvaluator::termsOf(MetricId m) {
    if (auto it = m_parsedTerms.find(m); it != m_parsedTerms.end())
        return &it->second;
    const Metric& metric = m_report.metrics()[m];
    std::vector<LinearTerm> terms;
    if (metric.expression.empty()) {
        for (MetricId child : metric.children)
            terms.push_back({1.0, child});
    } else {
        std::string why;
        auto parsed = parseLinearCubePL(
            metric.expression, [this](std::string_view name) { return m_report.findMetric(name); },
            why);
        if (!parsed)
            return Error("metric '" + metric.uniqueName + "': cannot evaluate expression: " + why);
        terms = std::move(*parsed);
    }
    return &m_parsedTerms.emplace(m, std::move(terms)).first->second;
}

Status CubePLEvaluator::checkAvailable(MetricId m) const {
    if (m >= m_report.metrics().size())
        return Error("metric id " + std::to_string(m) + " out of range");
    const Metric& metric = m_report.metrics()[m];
    if (!metric.available)
        return Error("metric '" + metric.uniqueName +
                     "' is not available: " + metric.unavailableReason);
    if (m_depth > kMaxDepth)
        return Error("metric '" + metric.uniqueName +
                     "': derived definitions nest too deeply (or are cyclic)");
    return Status::success();
}

// Per-location values at one call node (the same node and view for the whole evaluator).
Result<std::vector<double>> CubePLEvaluator::atNode(MetricId m, CallNodeId c, CallTreeMode callMode,
                                                    MetricMode metricMode) {
    std::uint64_t key = memoKey(m, metricMode);
    if (auto it = m_memo.find(key); it != m_memo.end())
        return it->second;
    auto result = atNodeUncached(m, c, callMode, metricMode);
    if (result)
        m_memo.emplace(key, *result);
    return result;
}

// Per-call-node values over all locations (the same view for the whole evaluator).
Result<std::vector<double>> CubePLEvaluator::perNode(MetricId m, CallTreeMode callMode,
                                                     MetricMode metricMode) {
    std::uint64_t key = memoKey(m, metricMode);
    if (auto it = m_memo.find(key); it != m_memo.end())
        return it->second;
    auto result = perNodeUncached(m, callMode, metricMode);
    if (result)
        m_memo.emplace(key, *result);
    return result;
}

template <class InclusiveOf, class Stored>
Result<std::vector<double>> CubePLEvaluator::evaluate(MetricId m, MetricMode metricMode,
                                                      std::size_t width, InclusiveOf inclusiveOf,
                                                      Stored stored) {
    if (Status s = checkAvailable(m); !s)
        return s.error();
    const Metric& metric = m_report.metrics()[m];
    ++m_depth;
    struct Guard {
        int& d;
        ~Guard() { --d; }
    } guard{m_depth};
    if (metricMode == MetricMode::Exclusive && aggregateOf(metric.dataType) == Aggregate::Sum) {
        auto own = inclusiveOf(m);
        if (!own)
            return own;
        for (MetricId child : metric.children) {
            auto part = inclusiveOf(child);
            if (!part)
                return part;
            for (std::size_t i = 0; i < width; ++i)
                (*own)[i] -= (*part)[i];
        }
        return own;
    }
    if (isDerived(metric.kind)) {
        auto terms = termsOf(m);
        if (!terms)
            return terms.error();
        std::vector<double> out(width, 0.0);
        for (const auto& term : **terms) {
            auto part = inclusiveOf(term.metric);
            if (!part)
                return part;
            for (std::size_t i = 0; i < width; ++i)
                out[i] += term.coefficient * (*part)[i];
        }
        return out;
    }
    auto rows = rowsOf(m);
    if (!rows)
        return rows.error();
    return stored(metric, **rows);
}

Result<std::vector<double>> CubePLEvaluator::atNodeUncached(MetricId m, CallNodeId c,
                                                            CallTreeMode callMode,
                                                            MetricMode metricMode) {
    return evaluate(
        m, metricMode, m_report.locations().size(),
        [&](MetricId other) { return atNode(other, c, callMode, MetricMode::Inclusive); },
        [&](const Metric& metric, const MetricRows& rows) {
            return storedAtNode(metric, rows, c, callMode);
        });
}

std::vector<double> CubePLEvaluator::storedAtNode(const Metric& metric, const MetricRows& rows,
                                                  CallNodeId c, CallTreeMode callMode) const {
    const auto& nodes = m_report.callNodes();
    std::size_t width = m_report.locations().size();
    Aggregate agg = aggregateOf(metric.dataType);
    std::vector<double> out(width, 0.0);
    std::vector<bool> seen(agg == Aggregate::Sum ? 0 : width, false);
    std::vector<std::uint64_t> buffer(width);
    auto combine = [&](CallNodeId n, double sign) {
        if (n >= rows.rowOf.size() || rows.rowOf[n] == kNoRow)
            return;
        SeverityStorage::readRow(rows, n, buffer.data(), width);
        for (std::size_t i = 0; i < width; ++i) {
            double v = decode(metric.dataType, buffer[i]);
            if (agg == Aggregate::Sum) {
                out[i] += sign * v;
            } else if (!seen[i]) {
                out[i] = v;
                seen[i] = true;
            } else {
                out[i] = agg == Aggregate::Min ? std::min(out[i], v) : std::max(out[i], v);
            }
        }
    };
    bool storedInclusive = metric.kind == MetricKind::Inclusive;
    bool wantInclusive = callMode == CallTreeMode::Inclusive;
    if (metric.kind == MetricKind::Simple || storedInclusive == wantInclusive) {
        combine(c, 1.0);
    } else if (storedInclusive) {
        // Exclusive from inclusive: own minus the children (min/max: own).
        combine(c, 1.0);
        if (agg == Aggregate::Sum)
            for (CallNodeId child : nodes[c].children)
                combine(child, -1.0);
    } else {
        // Inclusive from exclusive: the whole subtree.
        std::vector<CallNodeId> stack{c};
        while (!stack.empty()) {
            CallNodeId n = stack.back();
            stack.pop_back();
            combine(n, 1.0);
            for (CallNodeId child : nodes[n].children)
                stack.push_back(child);
        }
    }
    return out;
}

Result<std::vector<double>> CubePLEvaluator::perNodeUncached(MetricId m, CallTreeMode callMode,
                                                             MetricMode metricMode) {
    return evaluate(
        m, metricMode, m_report.callNodes().size(),
        [&](MetricId other) { return perNode(other, callMode, MetricMode::Inclusive); },
        [&](const Metric& metric, const MetricRows& rows) {
            return storedPerNode(metric, rows, callMode);
        });
}

std::vector<double> CubePLEvaluator::storedPerNode(const Metric& metric, const MetricRows& rows,
                                                   CallTreeMode callMode) const {
    const auto& nodes = m_report.callNodes();
    std::size_t width = m_report.locations().size();
    Aggregate agg = aggregateOf(metric.dataType);
    std::vector<double> own(nodes.size(), 0.0);
    std::vector<bool> present(nodes.size(), false);
    std::vector<std::uint64_t> buffer(width);
    for (CallNodeId n = 0; n < nodes.size(); ++n) {
        if (n >= rows.rowOf.size() || rows.rowOf[n] == kNoRow)
            continue;
        present[n] = true;
        SeverityStorage::readRow(rows, n, buffer.data(), width);
        double acc = 0.0;
        for (std::size_t i = 0; i < width; ++i) {
            double v = decode(metric.dataType, buffer[i]);
            if (agg == Aggregate::Sum)
                acc += v;
            else if (i == 0)
                acc = v;
            else
                acc = agg == Aggregate::Min ? std::min(acc, v) : std::max(acc, v);
        }
        own[n] = acc;
    }
    bool storedInclusive = metric.kind == MetricKind::Inclusive;
    bool wantInclusive = callMode == CallTreeMode::Inclusive;
    if (metric.kind == MetricKind::Simple || storedInclusive == wantInclusive)
        return own;
    if (storedInclusive) {
        if (agg != Aggregate::Sum)
            return own;
        std::vector<double> out = own;
        for (CallNodeId n = 0; n < nodes.size(); ++n)
            for (CallNodeId child : nodes[n].children)
                out[n] -= own[child];
        return out;
    }
    std::vector<double> out = own;
    std::vector<CallNodeId> order = preOrder(nodes);
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        CallNodeId n = *it;
        if (!nodes[n].parent)
            continue;
        CallNodeId p = *nodes[n].parent;
        if (agg == Aggregate::Sum) {
            out[p] += out[n];
        } else if (present[n]) {
            out[p] = !present[p]             ? out[n]
                     : agg == Aggregate::Min ? std::min(out[p], out[n])
                                             : std::max(out[p], out[n]);
            present[p] = true;
        }
    }
    return out;
}

} // namespace waitscope::report::detail
