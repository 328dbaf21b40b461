// The metric table: unique names, hierarchy, units and descriptions.
#include "waitscope/analysis/metric.h"

#include <array>

namespace waitscope::analysis {
namespace {

using M = Metric;
constexpr MetricUnit kSec = MetricUnit::Seconds;
constexpr MetricUnit kOcc = MetricUnit::Occurrences;
constexpr MetricUnit kByte = MetricUnit::Bytes;

// Ordered like the enum; checked at start-up of the tests (metricInfo asserts the order).
const std::array<MetricInfo, kMetricCount> kMetrics = {{
    {M::Time, "time", "Time", std::nullopt, kSec, "total time of the program on each call path",
     false},
    {M::Execution, "execution", "Execution", M::Time, kSec, "time spent executing the program",
     false},
    {M::Overhead, "overhead", "Overhead", M::Time, kSec, "time the measurement itself took", false},
    {M::Comp, "comp", "Computation", M::Execution, kSec, "time outside MPI calls", false},
    {M::Mpi, "mpi", "MPI", M::Execution, kSec, "time inside MPI calls", false},
    {M::MpiManagement, "mpi_management", "Management", M::Mpi, kSec, "MPI management calls", false},
    {M::MpiInitExit, "mpi_init_exit", "Init/Finalize", M::MpiManagement, kSec,
     "MPI_Init and MPI_Finalize", false},
    {M::MpiInitCompletion, "mpi_init_completion", "Initialization Completion", M::MpiInitExit, kSec,
     "time in MPI_Init after the first process left it", true},
    {M::MpiFinalizeWait, "mpi_finalize_wait", "Wait at Finalize", M::MpiInitExit, kSec,
     "time in MPI_Finalize until the last process entered it", true},
    {M::MpiMgmtComm, "mpi_mgmt_comm", "Communicator Management", M::MpiManagement, kSec,
     "communicator, group and topology calls", false},
    {M::MpiMgmtFile, "mpi_mgmt_file", "File Management", M::MpiManagement, kSec,
     "MPI file management calls", false},
    {M::MpiMgmtWin, "mpi_mgmt_win", "Window Management", M::MpiManagement, kSec,
     "MPI window creation and destruction", false},
    {M::MpiSynchronization, "mpi_synchronization", "Synchronization", M::Mpi, kSec,
     "MPI calls that only synchronize", false},
    {M::MpiSyncCollective, "mpi_sync_collective", "Collective", M::MpiSynchronization, kSec,
     "barriers", false},
    {M::MpiBarrierWait, "mpi_barrier_wait", "Wait at Barrier", M::MpiSyncCollective, kSec,
     "time in a barrier until the last process arrived", true},
    {M::MpiBarrierCompletion, "mpi_barrier_completion", "Barrier Completion", M::MpiSyncCollective,
     kSec, "time in a barrier after the first process left it", true},
    {M::MpiRmaSynchronization, "mpi_rma_synchronization", "Remote Memory Access",
     M::MpiSynchronization, kSec, "one-sided synchronization calls", false},
    {M::MpiCommunication, "mpi_communication", "Communication", M::Mpi, kSec,
     "MPI calls that move data", false},
    {M::MpiPointToPoint, "mpi_point2point", "Point-to-point", M::MpiCommunication, kSec,
     "point-to-point calls", false},
    {M::MpiLateSender, "mpi_latesender", "Late Sender", M::MpiPointToPoint, kSec,
     "a receive or wait posted before the matching send began", true},
    {M::MpiLateSenderWrongOrder, "mpi_latesender_wo", "Messages in Wrong Order", M::MpiLateSender,
     kSec, "Late Sender while an earlier sent message was already waiting", true},
    {M::MpiLswoDifferent, "mpi_lswo_different", "From different sources",
     M::MpiLateSenderWrongOrder, kSec, "wrong order between messages of different senders", true},
    {M::MpiLswoSame, "mpi_lswo_same", "From same source", M::MpiLateSenderWrongOrder, kSec,
     "wrong order between messages of one sender", true},
    {M::MpiLateReceiver, "mpi_latereceiver", "Late Receiver", M::MpiPointToPoint, kSec,
     "a blocking send waiting for the receiver to post the receive", true},
    {M::MpiCollective, "mpi_collective", "Collective", M::MpiCommunication, kSec,
     "collective calls with data", false},
    {M::MpiEarlyReduce, "mpi_earlyreduce", "Early Reduce", M::MpiCollective, kSec,
     "root of an n-to-1 operation waiting for the last sender", true},
    {M::MpiEarlyScan, "mpi_earlyscan", "Early Scan", M::MpiCollective, kSec,
     "a scan waiting for lower ranks to enter", true},
    {M::MpiLateBroadcast, "mpi_latebroadcast", "Late Broadcast", M::MpiCollective, kSec,
     "receivers of a 1-to-n operation waiting for the root", true},
    {M::MpiWaitNxn, "mpi_wait_nxn", "Wait at N x N", M::MpiCollective, kSec,
     "time in an n-to-n operation until the last process entered", true},
    {M::MpiNxnCompletion, "mpi_nxn_completion", "N x N Completion", M::MpiCollective, kSec,
     "time in an n-to-n operation after the first process left it", true},
    {M::MpiRmaCommunication, "mpi_rma_communication", "One-sided", M::MpiCommunication, kSec,
     "one-sided communication calls", false},
    {M::MpiIo, "mpi_io", "File I/O", M::Mpi, kSec, "MPI file I/O", false},
    {M::MpiIoIndividual, "mpi_io_individual", "Individual", M::MpiIo, kSec, "individual file I/O",
     false},
    {M::MpiIoCollective, "mpi_io_collective", "Collective", M::MpiIo, kSec, "collective file I/O",
     false},
    {M::Visits, "visits", "Visits", std::nullopt, kOcc, "how often each call path ran", false},
    {M::Syncs, "syncs", "Synchronizations", std::nullopt, kOcc, "operations without payload",
     false},
    {M::SyncsP2p, "syncs_p2p", "Point-to-point", M::Syncs, kOcc, "zero-byte messages", false},
    {M::SyncsSend, "syncs_send", "Sends", M::SyncsP2p, kOcc, "zero-byte sends", false},
    {M::SyncsRecv, "syncs_recv", "Receives", M::SyncsP2p, kOcc, "zero-byte receives", false},
    {M::SyncsColl, "syncs_coll", "Collective", M::Syncs, kOcc, "collectives without payload",
     false},
    {M::Comms, "comms", "Communications", std::nullopt, kOcc, "operations with payload", false},
    {M::CommsP2p, "comms_p2p", "Point-to-point", M::Comms, kOcc, "messages with payload", false},
    {M::CommsSend, "comms_send", "Sends", M::CommsP2p, kOcc, "sends with payload", false},
    {M::CommsRecv, "comms_recv", "Receives", M::CommsP2p, kOcc, "receives with payload", false},
    {M::CommsColl, "comms_coll", "Collective", M::Comms, kOcc, "collectives with payload", false},
    {M::CommsCxch, "comms_cxch", "Exchange", M::CommsColl, kOcc,
     "collectives sending and receiving", false},
    {M::CommsCsrc, "comms_csrc", "As source", M::CommsColl, kOcc, "collectives only sending",
     false},
    {M::CommsCdst, "comms_cdst", "As destination", M::CommsColl, kOcc, "collectives only receiving",
     false},
    {M::Bytes, "bytes", "Bytes transferred", std::nullopt, kByte, "bytes moved by MPI", false},
    {M::BytesP2p, "bytes_p2p", "Point-to-point", M::Bytes, kByte, "bytes of messages", false},
    {M::BytesSent, "bytes_sent", "Sent", M::BytesP2p, kByte, "bytes sent in messages", false},
    {M::BytesRcvd, "bytes_rcvd", "Received", M::BytesP2p, kByte, "bytes received in messages",
     false},
    {M::BytesColl, "bytes_coll", "Collective", M::Bytes, kByte, "bytes moved by collectives",
     false},
    {M::BytesCout, "bytes_cout", "Outgoing", M::BytesColl, kByte, "bytes a process contributed",
     false},
    {M::BytesCin, "bytes_cin", "Incoming", M::BytesColl, kByte, "bytes a process received", false},
    {M::MpiSlsCount, "mpi_sls_count", "Late Sender synchronizations", std::nullopt, kOcc,
     "Late Sender instances of zero-byte messages", false},
    {M::MpiSlrCount, "mpi_slr_count", "Late Receiver synchronizations", std::nullopt, kOcc,
     "Late Receiver instances of zero-byte messages", false},
    {M::MpiClsCount, "mpi_cls_count", "Late Sender communications", std::nullopt, kOcc,
     "Late Sender instances of messages with payload", false},
    {M::MpiClrCount, "mpi_clr_count", "Late Receiver communications", std::nullopt, kOcc,
     "Late Receiver instances of messages with payload", false},
    {M::MpiSlswoCount, "mpi_slswo_count", "Wrong order synchronizations", std::nullopt, kOcc,
     "wrong-order Late Sender instances of zero-byte messages", false},
    {M::MpiClswoCount, "mpi_clswo_count", "Wrong order communications", std::nullopt, kOcc,
     "wrong-order Late Sender instances of messages with payload", false},

    {M::Imbalance, "imbalance", "Computational imbalance", std::nullopt, kSec,
     "distance of a process's computation time from the average over all processes", false},
    {M::ImbalanceAbove, "imbalance_above", "Overload", M::Imbalance, kSec,
     "computation time above the average", false},
    {M::ImbalanceAboveSingle, "imbalance_above_single", "Single participant", M::ImbalanceAbove,
     kSec, "overload on call paths only one process visits", false},
    {M::ImbalanceBelow, "imbalance_below", "Underload", M::Imbalance, kSec,
     "computation time below the average", false},
    {M::ImbalanceBelowBypass, "imbalance_below_bypass", "Non-participation", M::ImbalanceBelow,
     kSec, "underload of processes that do not visit the call path", false},
    {M::ImbalanceBelowSingularity, "imbalance_below_singularity", "Singularity",
     M::ImbalanceBelowBypass, kSec, "non-participation on call paths only one process visits",
     false},
    {M::CriticalPath, "critical_path", "Critical path", std::nullopt, kSec,
     "time on the chain of activities the end of the run waited for", false},
    {M::CriticalPathImbalance, "critical_path_imbalance", "Imbalance", M::CriticalPath, kSec,
     "critical-path time above the average time over the processes", false},
    {M::PerformanceImpact, "performance_impact", "Performance impact", std::nullopt, kSec,
     "time of all processes, split by its impact on the run's length", false},
    {M::PerformanceImpactCriticalPath, "performance_impact_criticalpath",
     "Critical-path activities", M::PerformanceImpact, kSec,
     "time of the activities found on the critical path", false},
    {M::CriticalPathActivities, "critical_path_activities", "Activity impact",
     M::PerformanceImpactCriticalPath, kSec,
     "time of the critical-path activities, counted for all processes", false},
    {M::CriticalImbalanceImpact, "critical_imbalance_impact", "Critical imbalance impact",
     M::PerformanceImpactCriticalPath, kSec,
     "waiting the critical path's imbalance causes on the other processes", false},
    {M::IntraPartitionImbalance, "intra_partition_imbalance", "Intra-partition imbalance",
     M::CriticalImbalanceImpact, kSec, "imbalance impact among processes doing the same activity",
     false},
    {M::InterPartitionImbalance, "inter_partition_imbalance", "Inter-partition imbalance",
     M::CriticalImbalanceImpact, kSec,
     "imbalance impact between processes doing different activities", false},
    {M::NonCriticalPathActivities, "non_critical_path_activities", "Non-critical-path activities",
     M::PerformanceImpact, kSec, "time of activities that are not on the critical path", false},
}};

} // namespace

const MetricInfo& metricInfo(Metric metric) {
    const MetricInfo& info = kMetrics[static_cast<size_t>(metric)];
    return info;
}

std::optional<Metric> metricByName(std::string_view name) {
    for (const MetricInfo& info : kMetrics) {
        if (info.uniqueName == name) {
            return info.metric;
        }
    }
    return std::nullopt;
}

} // namespace waitscope::analysis
