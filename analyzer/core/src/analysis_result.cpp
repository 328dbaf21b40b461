// Merging rank results: call tree unification in rank order, then a dense severity cube.
#include "waitscope/analysis/analysis_result.h"

#include <algorithm>

namespace waitscope::analysis {

AnalysisResult AnalysisResult::merge(std::vector<RankResult>&& results) {
    AnalysisResult merged;
    merged.m_ranks = static_cast<uint32_t>(results.size());
    std::vector<std::vector<NodeId>> toGlobal(results.size());
    for (size_t r = 0; r < results.size(); ++r) {
        const CallTree& local = results[r].tree;
        toGlobal[r].resize(local.size());
        for (NodeId n = 0; n < local.size(); ++n) {
            const CallTree::Node& node = local.node(n);
            const NodeId parent = node.parent == kNoNode ? kNoNode : toGlobal[r][node.parent];
            toGlobal[r][n] = merged.m_tree.child(parent, node.region);
        }
    }
    const size_t nodes = merged.m_tree.size();
    merged.m_values.assign(kMetricCount * nodes * merged.m_ranks, 0.0);
    for (size_t r = 0; r < results.size(); ++r) {
        RankResult& result = results[r];
        for (size_t m = 0; m < kMetricCount; ++m) {
            for (NodeId n = 0; n < result.tree.size(); ++n) {
                const double v = result.severities.get(static_cast<Metric>(m), n);
                merged.m_values[(m * nodes + toGlobal[r][n]) * merged.m_ranks + r] += v;
            }
        }
        for (size_t m = 0; m < kMetricCount; ++m) {
            PatternSamples& samples = result.patterns[m];
            for (PatternInstance& instance : samples.mostSevere) {
                instance.node = toGlobal[r][instance.node];
            }
            merged.m_patterns[m].merge(samples);
            samples = PatternSamples();
        }
        for (PatternInstance& instance : result.instances) {
            instance.node = toGlobal[r][instance.node];
            merged.m_instances.push_back(instance);
        }
        result.instances = {};
        for (ThreadResult& thread : result.threads) {
            ThreadValues values{static_cast<uint32_t>(r),
                                thread.location,
                                std::move(thread.name),
                                thread.events,
                                {}};
            for (size_t m = 0; m < kMetricCount; ++m) {
                const std::vector<double>& row = thread.severities.row(static_cast<Metric>(m));
                for (NodeId n = 0; n < row.size(); ++n) {
                    if (row[n] != 0.0) {
                        values.severities.add(static_cast<Metric>(m), toGlobal[r][n], row[n]);
                    }
                }
            }
            merged.m_threads.push_back(std::move(values));
        }
        for (std::string& warning : result.warnings) {
            merged.m_warnings.push_back(std::move(warning));
        }
        merged.m_diagnostics.push_back(result.diagnostics);
        merged.m_events.push_back(result.events);
    }
    return merged;
}

namespace {

bool moreSevere(const PatternInstance& a, const PatternInstance& b) {
    if (a.severity != b.severity) {
        return a.severity > b.severity;
    }
    return a.rank != b.rank ? a.rank < b.rank : a.enter < b.enter;
}

} // namespace

void PatternSamples::add(const PatternInstance& instance) {
    const double v = instance.severity;
    minimum = severities.empty() ? v : std::min(minimum, v);
    maximum = severities.empty() ? v : std::max(maximum, v);
    severities.push_back(static_cast<float>(v));
    sum += v;
    sumSquares += v * v;
    const auto at = std::upper_bound(mostSevere.begin(), mostSevere.end(), instance, moreSevere);
    if (static_cast<size_t>(at - mostSevere.begin()) < kKept) {
        mostSevere.insert(at, instance);
        if (mostSevere.size() > kKept) {
            mostSevere.pop_back();
        }
    }
}

void PatternSamples::merge(const PatternSamples& other) {
    if (other.severities.empty()) {
        return;
    }
    minimum = severities.empty() ? other.minimum : std::min(minimum, other.minimum);
    maximum = severities.empty() ? other.maximum : std::max(maximum, other.maximum);
    severities.insert(severities.end(), other.severities.begin(), other.severities.end());
    sum += other.sum;
    sumSquares += other.sumSquares;
    for (const PatternInstance& instance : other.mostSevere) {
        const auto at =
            std::upper_bound(mostSevere.begin(), mostSevere.end(), instance, moreSevere);
        mostSevere.insert(at, instance);
    }
    if (mostSevere.size() > kKept) {
        mostSevere.resize(kKept);
    }
}

double AnalysisResult::value(Metric metric, NodeId node) const {
    double sum = 0.0;
    for (uint32_t r = 0; r < m_ranks; ++r) {
        sum += value(metric, node, r);
    }
    return sum;
}

double AnalysisResult::total(Metric metric) const {
    double sum = 0.0;
    for (NodeId n = 0; n < m_tree.size(); ++n) {
        sum += value(metric, n);
    }
    return sum;
}

uint64_t AnalysisResult::diagnostic(experiment::Diagnostic diagnostic) const {
    uint64_t sum = 0;
    for (const Diagnostics& d : m_diagnostics) {
        sum += d.value(diagnostic);
    }
    return sum;
}

} // namespace waitscope::analysis
