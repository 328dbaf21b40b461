// The metrics the analyzer computes, identified by Scalasca's unique names.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace waitscope::analysis {

/// Every metric the analysis fills. Values are stored inclusive along the metric tree (a
/// parent holds the sum of its children plus its own part), the way Scalasca reports them.
enum class Metric : uint8_t {
    Time,
    Execution,
    Overhead,
    Comp,
    Mpi,
    MpiManagement,
    MpiInitExit,
    MpiInitCompletion,
    MpiFinalizeWait,
    MpiMgmtComm,
    MpiMgmtFile,
    MpiMgmtWin,
    MpiSynchronization,
    MpiSyncCollective,
    MpiBarrierWait,
    MpiBarrierCompletion,
    MpiRmaSynchronization,
    MpiCommunication,
    MpiPointToPoint,
    MpiLateSender,
    MpiLateSenderWrongOrder,
    MpiLswoDifferent,
    MpiLswoSame,
    MpiLateReceiver,
    MpiCollective,
    MpiEarlyReduce,
    MpiEarlyScan,
    MpiLateBroadcast,
    MpiWaitNxn,
    MpiNxnCompletion,
    MpiRmaCommunication,
    MpiIo,
    MpiIoIndividual,
    MpiIoCollective,
    Visits,
    Syncs,
    SyncsP2p,
    SyncsSend,
    SyncsRecv,
    SyncsColl,
    Comms,
    CommsP2p,
    CommsSend,
    CommsRecv,
    CommsColl,
    CommsCxch,
    CommsCsrc,
    CommsCdst,
    Bytes,
    BytesP2p,
    BytesSent,
    BytesRcvd,
    BytesColl,
    BytesCout,
    BytesCin,
    MpiSlsCount,
    MpiSlrCount,
    MpiClsCount,
    MpiClrCount,
    MpiSlswoCount,
    MpiClswoCount,

    // Root causes: delay costs and wait-state classification (one block, parents first).
    Delay,
    DelayMpi,
    DelayP2p,
    DelayLateSenderAggregate,
    DelayLateSender,
    DelayLateSenderLongterm,
    DelayLateReceiverAggregate,
    DelayLateReceiver,
    DelayLateReceiverLongterm,
    DelayCollective,
    DelayBarrierAggregate,
    DelayBarrier,
    DelayBarrierLongterm,
    DelayN2nAggregate,
    DelayN2n,
    DelayN2nLongterm,
    Delay12nAggregate,
    Delay12n,
    Delay12nLongterm,
    DelayN21Aggregate,
    DelayN21,
    DelayN21Longterm,
    WaitstatesPropagatingVsTerminal,
    MpiWaitPropagating,
    MpiWaitPropagatingLs,
    MpiWaitPropagatingLr,
    MpiWaitTerminal,
    MpiWaitTerminalLs,
    MpiWaitTerminalLr,
    WaitstatesDirectVsIndirect,
    MpiWaitDirect,
    MpiWaitDirectLateSender,
    MpiWaitDirectLateReceiver,
    MpiWaitIndirect,
    MpiWaitIndirectLateSender,
    MpiWaitIndirectLateReceiver,

    // Root causes: critical path and its performance impact, computational imbalance.
    CriticalPath,
    CriticalPathImbalance,
    PerformanceImpact,
    PerformanceImpactCriticalPath,
    CriticalPathActivities,
    CriticalImbalanceImpact,
    IntraPartitionImbalance,
    InterPartitionImbalance,
    NonCriticalPathActivities,
    Imbalance,
    ImbalanceAbove,
    ImbalanceAboveSingle,
    ImbalanceBelow,
    ImbalanceBelowBypass,
    ImbalanceBelowSingularity,
    Count_, ///< number of metrics, not a metric
};

inline constexpr size_t kMetricCount = static_cast<size_t>(Metric::Count_);

/// What a metric measures.
enum class MetricUnit : uint8_t { Seconds, Occurrences, Bytes };

/// Self-description of a metric: unique name, display name, parent, unit and meaning.
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
