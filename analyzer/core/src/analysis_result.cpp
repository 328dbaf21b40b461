// Merging rank results: call tree unification in rank order, then a dense severity cube.
#include "waitscope/analysis/analysis_result.h"

#include <algorithm>

namespace waitscope::analysis {

AnalysisResult AnalysisResult::merge(std::vector<RankResult>&& results) {
    CallTree tree;
    for (const RankResult& result : results) {
        unifyCallTree(tree, result.tree);
    }
    AnalysisResult merged(std::move(tree), static_cast<uint32_t>(results.size()));
    // Room for all instances at once: growing rank by rank would copy them each time and
    // hold the old copy beside the new (the merge's peak; reserved pages become resident only
    // as the ranks' instances arrive, while each rank's own are freed after it).
    size_t instances = 0;
    for (const RankResult& result : results) {
        instances += result.instances.size();
    }
    merged.m_instances.reserve(instances);
    for (RankResult& result : results) {
        // Cannot fail: the tree holds every rank's paths, and there are as many ranks.
        (void)merged.addRank(std::move(result));
        result = RankResult();
    }
    return merged;
}

AnalysisResult::AnalysisResult(CallTree tree, uint32_t ranks)
    : m_ranks(ranks), m_tree(std::move(tree)) {
    m_slots.assign(kMetricCount * m_tree.size(), kNoSlot);
    m_diagnostics.reserve(ranks);
    m_events.reserve(ranks);
}

uint32_t AnalysisResult::slot(size_t cell) {
    uint32_t& slot = m_slots[cell];
    if (slot == kNoSlot) {
        if (m_slotCount % kRowsPerChunk == 0) {
            m_rows.push_back(std::make_unique<double[]>(size_t{kRowsPerChunk} * m_ranks));
        }
        slot = m_slotCount++;
    }
    return slot;
}

Status AnalysisResult::addRank(RankResult&& result) {
    const uint32_t r = m_added;
    if (r >= m_ranks) {
        return Error("rank " + std::to_string(result.rank) + ": a result beyond the " +
                     std::to_string(m_ranks) + " ranks merged");
    }
    // Where each node of the rank's tree is in the merged one.
    const CallTree& local = result.tree;
    std::vector<NodeId> toGlobal(local.size());
    for (NodeId n = 0; n < local.size(); ++n) {
        const CallTree::Node& node = local.node(n);
        toGlobal[n] =
            m_tree.find(node.parent == kNoNode ? kNoNode : toGlobal[node.parent], node.region);
        if (toGlobal[n] == kNoNode) {
            return Error("rank " + std::to_string(result.rank) +
                         ": a call path missing from the merged call tree");
        }
    }
    ++m_added;
    for (size_t m = 0; m < kMetricCount; ++m) {
        const std::vector<double>& row = result.severities.row(static_cast<Metric>(m));
        for (NodeId n = 0; n < local.size() && n < row.size(); ++n) {
            add(static_cast<Metric>(m), toGlobal[n], r, row[n]);
        }
    }
    for (size_t m = 0; m < kMetricCount; ++m) {
        PatternSamples& samples = result.patterns[m];
        for (PatternInstance& instance : samples.mostSevere) {
            instance.node = toGlobal[instance.node];
        }
        m_patterns[m].merge(samples);
    }
    // No reserve() to the exact new size here: called once per rank, it would reallocate and
    // copy all earlier ranks' instances every time (O(N^2) on process 0); push_back grows
    // geometrically.
    for (PatternInstance& instance : result.instances) {
        instance.node = toGlobal[instance.node];
        m_instances.push_back(instance);
    }
    if (!result.spilledRuns.empty()) {
        // The merge of the runs maps their nodes (O(the rank's call tree), as its rows above).
        if (m_spilledNodes.size() <= r) {
            m_spilledNodes.resize(r + 1);
        }
        m_spilledNodes[r] = toGlobal;
        m_spilledRuns.insert(m_spilledRuns.end(), result.spilledRuns.begin(),
                             result.spilledRuns.end());
    }
    for (PathSegment& segment : result.criticalPath) {
        segment.from = segment.from == kNoNode ? kNoNode : toGlobal[segment.from];
        segment.to = segment.to == kNoNode ? kNoNode : toGlobal[segment.to];
        m_criticalPath.push_back(segment);
    }
    for (ThreadResult& thread : result.threads) {
        ThreadValues values{r, thread.location, std::move(thread.name), thread.events, {}};
        for (size_t m = 0; m < kMetricCount; ++m) {
            const std::vector<double>& row = thread.severities.row(static_cast<Metric>(m));
            for (NodeId n = 0; n < row.size(); ++n) {
                if (row[n] != 0.0) {
                    values.severities.add(static_cast<Metric>(m), toGlobal[n], row[n]);
                }
            }
        }
        m_threads.push_back(std::move(values));
    }
    for (std::string& warning : result.warnings) {
        m_warnings.push_back(std::move(warning));
    }
    m_diagnostics.push_back(result.diagnostics);
    m_events.push_back(result.events);
    return Status::success();
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
