// Where patterns put their findings: severities per call node plus instances for trace.stat.
#pragma once

#include "waitscope/analysis/instance_spill.h"
#include "waitscope/analysis/rank_result.h"
#include "waitscope/analysis/transport.h"

#include <string>
#include <vector>

namespace waitscope::analysis {

/// The MPI call a pattern looks at on this rank. 24 bytes: the root-cause passes hold one per
/// communicating call of a rank (the call path and the lane share the doubles' alignment).
struct CallSpan {
    CallSpan() = default;
    CallSpan(NodeId callNode, double enterTime, double exitTime, uint32_t callLane = 0)
        : enter(enterTime), exit(exitTime), node(callNode), lane(callLane) {}
    double enter = 0.0;
    double exit = 0.0;
    NodeId node = kNoNode;
    /// The location that made the call: 0 the rank's main one, k the k-th replay lane (a further
    /// thread that calls MPI itself, RankState::lanes)
    uint32_t lane = 0;
};
static_assert(sizeof(CallSpan) == 24, "a call span holds no padding");

/// A communication event of the replayed rank and the index of the MPI call around it.
struct ReplayOperation {
    uint32_t event;
    uint32_t span;
};

/// Records severities and instances of one rank, each on the location of its call.
class PatternSink {
public:
    /// `lanes`: the profiles of the rank's replay lanes (lane k at k - 1), where findings on
    /// their calls go; null when the rank has none.
    explicit PatternSink(RankResult& result, std::vector<ThreadResult>* lanes = nullptr)
        : m_result(result), m_instances(result.instances), m_lanes(lanes) {}
    /// Puts the instances into `instances` instead of the result's (the windowed replay keeps a
    /// pass's instances apart, to append them in the order of the whole-rank passes).
    PatternSink(RankResult& result, std::vector<PatternInstance>& instances)
        : m_result(result), m_instances(instances), m_lanes(nullptr) {}

    /// Adds `severity` of `metric` on `span`'s node; positive severities also become an instance.
    void record(Metric metric, const CallSpan& span, double severity) {
        if (severity <= 0.0) {
            return;
        }
        rowsOf(span).add(metric, span.node, severity);
        const PatternInstance instance{metric,     span.node, m_result.rank,
                                       span.enter, span.exit, severity};
        m_result.patterns[static_cast<size_t>(metric)].add(instance);
        if (m_spill != nullptr) {
            m_spill->add(instance, m_segment);
        } else {
            m_instances.push_back(instance);
        }
    }
    /// Puts the instances into `buffer` (scratch files, in bounded memory) as `segment` of the
    /// rank's instances (see InstanceSpill::Buffer::add()) instead of into memory; null: memory.
    void spillTo(InstanceSpill::Buffer* buffer, uint32_t segment) {
        m_spill = buffer;
        m_segment = segment;
    }
    /// Adds to a metric without an instance (counts, parents of a pattern).
    void add(Metric metric, NodeId node, double value) {
        m_result.severities.add(metric, node, value);
    }
    /// Adds to a metric without an instance, on the location of `span`'s call.
    void add(Metric metric, const CallSpan& span, double value) {
        rowsOf(span).add(metric, span.node, value);
    }
    /// The severities of the location of `span`'s call.
    SeverityRows& rowsOf(const CallSpan& span) {
        if (span.lane == 0 || m_lanes == nullptr || span.lane > m_lanes->size()) {
            return m_result.severities;
        }
        return (*m_lanes)[span.lane - 1].severities;
    }
    /// Adds a stretch of the critical path on this rank (for the critical-path file).
    void pathSegment(const PathSegment& segment) {
        m_result.criticalPath.push_back(segment);
        m_result.criticalPath.back().rank = m_result.rank;
    }
    /// Counts an anomaly of the input.
    void diagnose(experiment::Diagnostic diagnostic, uint64_t count = 1) {
        m_result.diagnostics[diagnostic] += count;
    }

private:
    RankResult& m_result;
    std::vector<PatternInstance>& m_instances;
    std::vector<ThreadResult>* m_lanes;
    InstanceSpill::Buffer* m_spill = nullptr;
    uint32_t m_segment = 0;
};

/// One rank's view of a finished collective exchange: every member's contribution (enter,
/// exit, ... in communicator rank order) with their reductions, the own position and the root
/// (communicator rank, or none). The reductions make a pattern O(1) per member.
struct CollectiveView {
    CallSpan span;
    const GatheredCollective* gathered = nullptr;
    uint32_t self = 0;
    uint32_t root = 0xFFFFFFFFu;

    size_t members() const { return gathered->members(); }
    /// Values per member: enter, exit, and what more the exchange carried.
    size_t width() const { return gathered->width(); }
    double enterOf(size_t member) const { return gathered->enterOf(member); }
    double exitOf(size_t member) const { return gathered->exitOf(member); }
    double maxEnter() const { return gathered->maxEnter(); }
    double minExit() const { return gathered->minExit(); }
};

// One function per collective pattern; each file explains its pattern.
void detectWaitAtBarrier(const CollectiveView& view, PatternSink& sink);
void detectWaitAtNxn(const CollectiveView& view, PatternSink& sink);
void detectLateBroadcast(const CollectiveView& view, PatternSink& sink);
void detectEarlyReduce(const CollectiveView& view, PatternSink& sink);
void detectEarlyScan(const CollectiveView& view, bool exclusive, PatternSink& sink);
void detectInitCompletion(const CollectiveView& view, PatternSink& sink);
void detectFinalizeWait(const CollectiveView& view, PatternSink& sink);
void detectWaitAtCollectiveIo(const CollectiveView& view, PatternSink& sink);
/// The time a blocking send in [sendEnter, sendExit] waited for its receive, entered at
/// `receiveEnter` (0 when none, also when the send had returned by then).
double lateReceiverWait(double sendEnter, double sendExit, double receiveEnter);
/// Late Receiver at a blocking send, seen in the backward replay with the receive's call times.
/// Returns the waiting time found (0 when none).
double detectLateReceiver(const CallSpan& send, const ReplayRecord& receive, uint64_t length,
                          PatternSink& sink);

} // namespace waitscope::analysis
