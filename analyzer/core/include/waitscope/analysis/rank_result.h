// What the replay of one rank produces: its call tree, severities, instances and diagnostics.
#pragma once

#include "waitscope/analysis/call_tree.h"
#include "waitscope/analysis/metric.h"

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>
#include <waitscope/experiment/diagnostic_counts.h>

namespace waitscope::analysis {

/// One occurrence of a wait-state pattern: trace.stat's most severe instances and the
/// instances file beside the report.
struct PatternInstance {
    Metric metric = Metric::Time;
    NodeId node = kNoNode;
    uint32_t rank = 0;
    double enter = 0.0;
    double exit = 0.0;
    double severity = 0.0;
};

/// A wait-state instance in an analysis process's scratch file (instance_spill.h): its call node
/// on the rank's own call tree, and its sequence number in the order the rank found them.
struct SpilledInstance {
    double enter = 0.0;
    double exit = 0.0;
    double severity = 0.0;
    uint32_t rank = 0;
    NodeId node = kNoNode;
    uint32_t metric = 0;
    uint32_t reserved = 0;
    uint64_t sequence = 0;
};

/// A sorted run of one rank's instances in the scratch files of process `process`: records
/// [first, first + count) of each of its two files.
struct SpilledRun {
    uint32_t process = 0;
    uint32_t rank = 0;
    uint64_t first = 0;
    uint64_t count = 0;
};

/// One stretch of the critical path on one rank, [start, end] in seconds on the analyzed trace
/// clock: the path arrives on the rank at `start` in call `from` (where another rank handed it
/// over, or the start of the run: kNoNode) and leaves at `end` at the enter of call `to` (for
/// another rank, or the end of the run: kNoNode).
struct PathSegment {
    /// `location` of a stretch on the rank's main location.
    static constexpr uint64_t kMainLocation = UINT64_MAX;
    uint32_t rank = 0;
    double start = 0.0;
    double end = 0.0;
    NodeId from = kNoNode;
    NodeId to = kNoNode;
    uint64_t location = kMainLocation; ///< the OTF2 location id of a further thread's stretch
};

/// Severities of one rank: metric x call node (of the rank's own call tree).
class SeverityRows {
public:
    /// Adds `value` to (metric, node), growing the rows as nodes appear.
    void add(Metric metric, NodeId node, double value) {
        auto& row = m_rows[static_cast<size_t>(metric)];
        if (node >= row.size()) {
            row.resize(node + 1, 0.0);
        }
        row[node] += value;
    }
    double get(Metric metric, NodeId node) const {
        const auto& row = m_rows[static_cast<size_t>(metric)];
        return node < row.size() ? row[node] : 0.0;
    }

    /// The values of `metric` indexed by node (may be shorter than the tree).
    const std::vector<double>& row(Metric metric) const {
        return m_rows[static_cast<size_t>(metric)];
    }
    std::vector<double>& row(Metric metric) { return m_rows[static_cast<size_t>(metric)]; }

private:
    std::array<std::vector<double>, kMetricCount> m_rows;
};

/// The instances of one pattern in compact form: every severity (as float, for order
/// statistics), exact running sums, and the most severe instances in full.
struct PatternSamples {
    /// How many of the most severe instances are kept.
    static constexpr size_t kKept = 5;

    std::vector<float> severities;
    double sum = 0.0;
    double sumSquares = 0.0;
    double minimum = 0.0;
    double maximum = 0.0;
    std::vector<PatternInstance> mostSevere; ///< most severe first, ties by rank then time

    /// Adds one instance.
    void add(const PatternInstance& instance);
    /// Adds all instances of `other`.
    void merge(const PatternSamples& other);
    size_t count() const { return severities.size(); }
};

/// Anomaly counters of the input (unmatched messages, clock violations, ...) of one rank,
/// indexed by the diagnostics registry (waitscope/experiment/diagnostics.h).
using Diagnostics = experiment::DiagnosticCounts;

/// The profile of one further thread (a location after the main one) of a rank: time in its
/// categories and visits per call path of the rank's call tree; no MPI replay, no wait states.
struct ThreadResult {
    uint64_t location = 0; ///< the OTF2 location id
    std::string name;
    SeverityRows severities; ///< on RankResult::tree
    uint64_t events = 0;     ///< events read from the location
    /// Its thread order records (POSIX threads): its sequence number in the rank's thread
    /// contingent (0: it has no ThreadBegin) and when it began and ended, in seconds (`end`
    /// 0: no ThreadEnd)
    uint32_t sequence = 0;
    double begin = 0.0;
    double end = 0.0;
};

/// The replay result of one rank.
struct RankResult {
    uint32_t rank = 0;
    CallTree tree;           ///< call paths of the main location and of the further threads
    SeverityRows severities; ///< of the main location
    std::array<PatternSamples, kMetricCount> patterns;
    /// Every wait-state instance of the main location in the order found (on `tree`); none when
    /// they went to scratch files (ReplayOptions::instanceSpill), then in `spilledRuns`.
    std::vector<PatternInstance> instances;
    std::vector<SpilledRun> spilledRuns;
    Diagnostics diagnostics;
    /// The rank's stretches of the critical path (on `tree`), latest first.
    std::vector<PathSegment> criticalPath;
    uint64_t events = 0;               ///< events of the main location
    std::vector<ThreadResult> threads; ///< the further threads, in definition order
    /// Problems that left part of the rank out of the analysis (an unreadable thread), each
    /// naming the file and location.
    std::vector<std::string> warnings;
};

} // namespace waitscope::analysis
