// The metric registry's data: every metric of Waitscope's (Scalasca-compatible) metric tree and
// every metric of the runtime profile, one line each, expanded by metric_registry.h.
#pragma once

// X(id, unique name, display name, parent id or None, unit, kind, description)
//
// id           the C++ name of the metric (metrics::MetricId, analysis::Metric)
// unique name  Scalasca's unique name: the report's metric, share/metrics/<name>.md and the
//              anchor of its documentation (scalasca_patterns.html#<name>)
// display name as reports show it (the documentation file says the same)
// parent       the metric it is part of in the tree; a parent comes before its children
// unit         Seconds, Occurrences or Bytes
// kind         Measured (read off the events), WaitState (a wait-state pattern with
//              per-instance statistics), WaitStateCount (how often one occurred), RootCause
//              (delay costs, propagation, critical path, imbalance)
// description  one line, for tools and listings; the documentation file says more
//
// The OpenMP metrics (OMPT recording, analyzer/core/src/openmp_analysis.cpp), at the end of the
// analyzed ones: Scalasca's OpenMP subtree of execution, and the idle threads below time.
// clang-format off
#define WAITSCOPE_OPENMP_METRICS(X) \
    X(OmpTime, "omp_time", "OpenMP", Execution, Seconds, Measured, "time in the OpenMP runtime: management and synchronization") \
    X(OmpManagement, "omp_management", "Management", OmpTime, Seconds, Measured, "creating and ending thread teams") \
    X(OmpFork, "omp_fork", "Fork", OmpManagement, Seconds, Measured, "the encountering thread's time forking and joining a team") \
    X(OmpSynchronization, "omp_synchronization", "Synchronization", OmpTime, Seconds, Measured, "OpenMP barriers, critical sections, locks, ordered and taskwait") \
    X(OmpBarrier, "omp_barrier", "Barrier", OmpSynchronization, Seconds, Measured, "time in OpenMP barriers") \
    X(OmpEbarrier, "omp_ebarrier", "Explicit", OmpBarrier, Seconds, Measured, "time in explicit barriers") \
    X(OmpEbarrierWait, "omp_ebarrier_wait", "Wait at Barrier", OmpEbarrier, Seconds, WaitState, "time in an explicit barrier before the team's last thread arrived, tasks run there excluded") \
    X(OmpIbarrier, "omp_ibarrier", "Implicit", OmpBarrier, Seconds, Measured, "time in the implicit barriers of parallel regions and worksharing constructs") \
    X(OmpIbarrierWait, "omp_ibarrier_wait", "Wait at Barrier", OmpIbarrier, Seconds, WaitState, "time in an implicit barrier before the team's last thread arrived, tasks run there excluded") \
    X(OmpCritical, "omp_critical", "Critical", OmpSynchronization, Seconds, Measured, "time entering critical sections") \
    X(OmpLockContentionCritical, "omp_lock_contention_critical", "Lock Contention", OmpCritical, Seconds, WaitState, "time waiting to enter a critical section another thread was in") \
    X(OmpLockApi, "omp_lock_api", "Lock API", OmpSynchronization, Seconds, Measured, "time acquiring OpenMP locks") \
    X(OmpLockContentionApi, "omp_lock_contention_api", "Lock Contention", OmpLockApi, Seconds, WaitState, "time waiting to acquire an OpenMP lock") \
    X(OmpOrdered, "omp_ordered", "Ordered", OmpSynchronization, Seconds, Measured, "time waiting to enter ordered regions") \
    X(OmpTaskwait, "omp_taskwait", "Task Wait", OmpSynchronization, Seconds, Measured, "time in taskwait, tasks run there excluded") \
    X(OmpFlush, "omp_flush", "Flush", OmpTime, Seconds, Measured, "time in OpenMP flushes") \
    X(OmpIdleThreads, "omp_idle_threads", "Idle threads", Time, Seconds, WaitState, "time the worker threads are idle while their rank's master thread runs outside parallel regions") \
    X(OmpLimitedParallelism, "omp_limited_parallelism", "Limited parallelism", OmpIdleThreads, Seconds, WaitState, "idle time of worker threads left out of a smaller team") \
    X(DelayOmp, "delay_omp", "OpenMP", Delay, Seconds, RootCause, "delay costs of OpenMP wait states") \
    X(DelayOmpbarrierAggregate, "delay_ompbarrier_aggregate", "OpenMP barrier", DelayOmp, Seconds, RootCause, "delay costs of OpenMP barrier waiting") \
    X(DelayOmpbarrier, "delay_ompbarrier", "Short-term", DelayOmpbarrierAggregate, Seconds, RootCause, "excess time of the last thread to arrive that directly made the others wait at an OpenMP barrier") \
    X(DelayOmpbarrierLongterm, "delay_ompbarrier_longterm", "Long-term", DelayOmpbarrierAggregate, Seconds, RootCause, "waiting at an OpenMP barrier caused through the last thread to arrive: its MPI wait states since its previous barrier (Scalasca's cause, carried back to what made it wait), or critical sections others held while it waited for them")
// clang-format on

// The metrics the analyzer computes, in the order of its dense metric index and of the
// metrics in its reports (changing the order changes every report).
// clang-format off
#define WAITSCOPE_ANALYZED_METRICS(X) \
    X(Time, "time", "Time", None, Seconds, Measured, "total time of the program on each call path") \
    X(Execution, "execution", "Execution", Time, Seconds, Measured, "time spent executing the program") \
    X(Overhead, "overhead", "Overhead", Time, Seconds, Measured, "time the measurement itself took") \
    X(Comp, "comp", "Computation", Execution, Seconds, Measured, "time outside MPI calls") \
    X(Mpi, "mpi", "MPI", Execution, Seconds, Measured, "time inside MPI calls") \
    X(MpiManagement, "mpi_management", "Management", Mpi, Seconds, Measured, "MPI management calls") \
    X(MpiInitExit, "mpi_init_exit", "Init/Finalize", MpiManagement, Seconds, Measured, "MPI_Init and MPI_Finalize") \
    X(MpiInitCompletion, "mpi_init_completion", "Initialization Completion", MpiInitExit, Seconds, WaitState, "time in MPI_Init after the first process left it") \
    X(MpiFinalizeWait, "mpi_finalize_wait", "Wait at Finalize", MpiInitExit, Seconds, WaitState, "time in MPI_Finalize until the last process entered it") \
    X(MpiMgmtComm, "mpi_mgmt_comm", "Communicator", MpiManagement, Seconds, Measured, "communicator, group and topology calls") \
    X(MpiMgmtFile, "mpi_mgmt_file", "File", MpiManagement, Seconds, Measured, "MPI file management calls") \
    X(MpiMgmtWin, "mpi_mgmt_win", "Window", MpiManagement, Seconds, Measured, "MPI window creation and destruction") \
    X(MpiSynchronization, "mpi_synchronization", "Synchronization", Mpi, Seconds, Measured, "MPI calls that only synchronize") \
    X(MpiSyncCollective, "mpi_sync_collective", "Collective", MpiSynchronization, Seconds, Measured, "barriers") \
    X(MpiBarrierWait, "mpi_barrier_wait", "Wait at Barrier", MpiSyncCollective, Seconds, WaitState, "time in a barrier until the last process arrived") \
    X(MpiBarrierCompletion, "mpi_barrier_completion", "Barrier Completion", MpiSyncCollective, Seconds, WaitState, "time in a barrier after the first process left it") \
    X(MpiRmaSynchronization, "mpi_rma_synchronization", "One-sided", MpiSynchronization, Seconds, Measured, "one-sided synchronization calls") \
    X(MpiCommunication, "mpi_communication", "Communication", Mpi, Seconds, Measured, "MPI calls that move data") \
    X(MpiPointToPoint, "mpi_point2point", "Point-to-point", MpiCommunication, Seconds, Measured, "point-to-point calls") \
    X(MpiLateSender, "mpi_latesender", "Late Sender", MpiPointToPoint, Seconds, WaitState, "a receive or wait posted before the matching send began") \
    X(MpiLateSenderWrongOrder, "mpi_latesender_wo", "Messages in Wrong Order", MpiLateSender, Seconds, WaitState, "Late Sender while an earlier sent message was already waiting") \
    X(MpiLswoDifferent, "mpi_lswo_different", "From different sources", MpiLateSenderWrongOrder, Seconds, WaitState, "wrong order between messages of different senders") \
    X(MpiLswoSame, "mpi_lswo_same", "From same source", MpiLateSenderWrongOrder, Seconds, WaitState, "wrong order between messages of one sender") \
    X(MpiLateReceiver, "mpi_latereceiver", "Late Receiver", MpiPointToPoint, Seconds, WaitState, "a blocking send waiting for the receiver to post the receive") \
    X(MpiCollective, "mpi_collective", "Collective", MpiCommunication, Seconds, Measured, "collective calls with data") \
    X(MpiEarlyReduce, "mpi_earlyreduce", "Early Reduce", MpiCollective, Seconds, WaitState, "root of an n-to-1 operation waiting for the last sender") \
    X(MpiEarlyScan, "mpi_earlyscan", "Early Scan", MpiCollective, Seconds, WaitState, "a scan waiting for lower ranks to enter") \
    X(MpiLateBroadcast, "mpi_latebroadcast", "Late Broadcast", MpiCollective, Seconds, WaitState, "receivers of a 1-to-n operation waiting for the root") \
    X(MpiWaitNxn, "mpi_wait_nxn", "Wait at N x N", MpiCollective, Seconds, WaitState, "time in an n-to-n operation until the last process entered") \
    X(MpiNxnCompletion, "mpi_nxn_completion", "N x N Completion", MpiCollective, Seconds, WaitState, "time in an n-to-n operation after the first process left it") \
    X(MpiRmaCommunication, "mpi_rma_communication", "One-sided", MpiCommunication, Seconds, Measured, "one-sided communication calls") \
    X(MpiIo, "mpi_io", "File I/O", Mpi, Seconds, Measured, "MPI file I/O") \
    X(MpiIoIndividual, "mpi_io_individual", "Individual", MpiIo, Seconds, Measured, "individual file I/O") \
    X(MpiIoCollective, "mpi_io_collective", "Collective", MpiIo, Seconds, Measured, "collective file I/O") \
    X(Visits, "visits", "Visits", None, Occurrences, Measured, "how often each call path ran") \
    X(Syncs, "syncs", "MPI synchronizations", None, Occurrences, Measured, "operations without payload") \
    X(SyncsP2p, "syncs_p2p", "Point-to-point", Syncs, Occurrences, Measured, "zero-byte messages") \
    X(SyncsSend, "syncs_send", "Sends", SyncsP2p, Occurrences, Measured, "zero-byte sends") \
    X(SyncsRecv, "syncs_recv", "Receives", SyncsP2p, Occurrences, Measured, "zero-byte receives") \
    X(SyncsColl, "syncs_coll", "Collective", Syncs, Occurrences, Measured, "collectives without payload") \
    X(Comms, "comms", "MPI communications", None, Occurrences, Measured, "operations with payload") \
    X(CommsP2p, "comms_p2p", "Point-to-point", Comms, Occurrences, Measured, "messages with payload") \
    X(CommsSend, "comms_send", "Sends", CommsP2p, Occurrences, Measured, "sends with payload") \
    X(CommsRecv, "comms_recv", "Receives", CommsP2p, Occurrences, Measured, "receives with payload") \
    X(CommsColl, "comms_coll", "Collective", Comms, Occurrences, Measured, "collectives with payload") \
    X(CommsCxch, "comms_cxch", "Exchange", CommsColl, Occurrences, Measured, "collectives sending and receiving") \
    X(CommsCsrc, "comms_csrc", "As source", CommsColl, Occurrences, Measured, "collectives only sending") \
    X(CommsCdst, "comms_cdst", "As destination", CommsColl, Occurrences, Measured, "collectives only receiving") \
    X(Bytes, "bytes", "MPI bytes transferred", None, Bytes, Measured, "bytes moved by MPI") \
    X(BytesP2p, "bytes_p2p", "Point-to-point", Bytes, Bytes, Measured, "bytes of messages") \
    X(BytesSent, "bytes_sent", "Sent", BytesP2p, Bytes, Measured, "bytes sent in messages") \
    X(BytesRcvd, "bytes_rcvd", "Received", BytesP2p, Bytes, Measured, "bytes received in messages") \
    X(BytesColl, "bytes_coll", "Collective", Bytes, Bytes, Measured, "bytes moved by collectives") \
    X(BytesCout, "bytes_cout", "Outgoing", BytesColl, Bytes, Measured, "bytes a process contributed") \
    X(BytesCin, "bytes_cin", "Incoming", BytesColl, Bytes, Measured, "bytes a process received") \
    X(MpiSlsCount, "mpi_sls_count", "Late Senders", SyncsRecv, Occurrences, WaitStateCount, "Late Sender instances of zero-byte messages") \
    X(MpiSlrCount, "mpi_slr_count", "Late Receivers", SyncsSend, Occurrences, WaitStateCount, "Late Receiver instances of zero-byte messages") \
    X(MpiClsCount, "mpi_cls_count", "Late Senders", CommsRecv, Occurrences, WaitStateCount, "Late Sender instances of messages with payload") \
    X(MpiClrCount, "mpi_clr_count", "Late Receivers", CommsSend, Occurrences, WaitStateCount, "Late Receiver instances of messages with payload") \
    X(MpiSlswoCount, "mpi_slswo_count", "Messages in Wrong Order", MpiSlsCount, Occurrences, WaitStateCount, "wrong-order Late Sender instances of zero-byte messages") \
    X(MpiClswoCount, "mpi_clswo_count", "Messages in Wrong Order", MpiClsCount, Occurrences, WaitStateCount, "wrong-order Late Sender instances of messages with payload") \
    X(Delay, "delay", "Delay costs", None, Seconds, RootCause, "waiting time caused by excess time of the latecomers, on the call paths of that excess") \
    X(DelayMpi, "delay_mpi", "MPI", Delay, Seconds, RootCause, "delay costs of MPI wait states") \
    X(DelayP2p, "delay_p2p", "Point-to-point", DelayMpi, Seconds, RootCause, "delay costs of point-to-point wait states") \
    X(DelayLateSenderAggregate, "delay_latesender_aggregate", "Late Sender", DelayP2p, Seconds, RootCause, "delay costs of Late Sender wait states") \
    X(DelayLateSender, "delay_latesender", "Short-term", DelayLateSenderAggregate, Seconds, RootCause, "excess time that directly made a sender late") \
    X(DelayLateSenderLongterm, "delay_latesender_longterm", "Long-term", DelayLateSenderAggregate, Seconds, RootCause, "excess time that caused Late Sender waiting further along by propagation") \
    X(DelayLateReceiverAggregate, "delay_latereceiver_aggregate", "Late Receiver", DelayP2p, Seconds, RootCause, "delay costs of Late Receiver wait states") \
    X(DelayLateReceiver, "delay_latereceiver", "Short-term", DelayLateReceiverAggregate, Seconds, RootCause, "excess time that directly made a receiver late") \
    X(DelayLateReceiverLongterm, "delay_latereceiver_longterm", "Long-term", DelayLateReceiverAggregate, Seconds, RootCause, "excess time that caused Late Receiver waiting further along by propagation") \
    X(DelayCollective, "delay_collective", "Collective", DelayMpi, Seconds, RootCause, "delay costs of collective wait states") \
    X(DelayBarrierAggregate, "delay_barrier_aggregate", "Wait at Barrier", DelayCollective, Seconds, RootCause, "delay costs of Wait at Barrier") \
    X(DelayBarrier, "delay_barrier", "Short-term", DelayBarrierAggregate, Seconds, RootCause, "excess time that directly made the last process late for a barrier") \
    X(DelayBarrierLongterm, "delay_barrier_longterm", "Long-term", DelayBarrierAggregate, Seconds, RootCause, "excess time that caused barrier waiting further along by propagation") \
    X(DelayN2nAggregate, "delay_n2n_aggregate", "Wait at N x N", DelayCollective, Seconds, RootCause, "delay costs of Wait at N x N") \
    X(DelayN2n, "delay_n2n", "Short-term", DelayN2nAggregate, Seconds, RootCause, "excess time that directly made the last process late for an n-to-n operation") \
    X(DelayN2nLongterm, "delay_n2n_longterm", "Long-term", DelayN2nAggregate, Seconds, RootCause, "excess time that caused n-to-n waiting further along by propagation") \
    X(Delay12nAggregate, "delay_12n_aggregate", "Late Broadcast", DelayCollective, Seconds, RootCause, "delay costs of Late Broadcast") \
    X(Delay12n, "delay_12n", "Short-term", Delay12nAggregate, Seconds, RootCause, "excess time that directly made the root of a 1-to-n operation late") \
    X(Delay12nLongterm, "delay_12n_longterm", "Long-term", Delay12nAggregate, Seconds, RootCause, "excess time that caused 1-to-n waiting further along by propagation") \
    X(DelayN21Aggregate, "delay_n21_aggregate", "Early Reduce", DelayCollective, Seconds, RootCause, "delay costs of Early Reduce") \
    X(DelayN21, "delay_n21", "Short-term", DelayN21Aggregate, Seconds, RootCause, "excess time that directly made the last sender of an n-to-1 operation late") \
    X(DelayN21Longterm, "delay_n21_longterm", "Long-term", DelayN21Aggregate, Seconds, RootCause, "excess time that caused n-to-1 waiting further along by propagation") \
    X(WaitstatesPropagatingVsTerminal, "waitstates_propagating_vs_terminal", "MPI point-to-point wait states (propagating vs. terminal)", None, Seconds, RootCause, "point-to-point waiting split by whether it caused further waiting") \
    X(MpiWaitPropagating, "mpi_wait_propagating", "Propagating wait states", WaitstatesPropagatingVsTerminal, Seconds, RootCause, "waiting that caused waiting on other processes") \
    X(MpiWaitPropagatingLs, "mpi_wait_propagating_ls", "Late Sender", MpiWaitPropagating, Seconds, RootCause, "Late Sender waiting that caused waiting on other processes") \
    X(MpiWaitPropagatingLr, "mpi_wait_propagating_lr", "Late Receiver", MpiWaitPropagating, Seconds, RootCause, "Late Receiver waiting that caused waiting on other processes") \
    X(MpiWaitTerminal, "mpi_wait_terminal", "Terminal wait states", WaitstatesPropagatingVsTerminal, Seconds, RootCause, "waiting that caused no further waiting") \
    X(MpiWaitTerminalLs, "mpi_wait_terminal_ls", "Late Sender", MpiWaitTerminal, Seconds, RootCause, "Late Sender waiting that caused no further waiting") \
    X(MpiWaitTerminalLr, "mpi_wait_terminal_lr", "Late Receiver", MpiWaitTerminal, Seconds, RootCause, "Late Receiver waiting that caused no further waiting") \
    X(WaitstatesDirectVsIndirect, "waitstates_direct_vs_indirect", "MPI point-to-point wait states (direct vs. indirect)", None, Seconds, RootCause, "point-to-point waiting split by whether the partner itself waited") \
    X(MpiWaitDirect, "mpi_wait_direct", "Direct wait states", WaitstatesDirectVsIndirect, Seconds, RootCause, "waiting caused by the partner's excess time") \
    X(MpiWaitDirectLateSender, "mpi_wait_direct_latesender", "Late Sender", MpiWaitDirect, Seconds, RootCause, "Late Sender waiting caused by the sender's excess time") \
    X(MpiWaitDirectLateReceiver, "mpi_wait_direct_latereceiver", "Late Receiver", MpiWaitDirect, Seconds, RootCause, "Late Receiver waiting caused by the receiver's excess time") \
    X(MpiWaitIndirect, "mpi_wait_indirect", "Indirect wait states", WaitstatesDirectVsIndirect, Seconds, RootCause, "waiting propagated from the partner's own waiting") \
    X(MpiWaitIndirectLateSender, "mpi_wait_indirect_latesender", "Late Sender", MpiWaitIndirect, Seconds, RootCause, "Late Sender waiting propagated from the sender's own waiting") \
    X(MpiWaitIndirectLateReceiver, "mpi_wait_indirect_latereceiver", "Late Receiver", MpiWaitIndirect, Seconds, RootCause, "Late Receiver waiting propagated from the receiver's own waiting") \
    X(CriticalPath, "critical_path", "Critical path", None, Seconds, RootCause, "time on the chain of activities the end of the run waited for") \
    X(CriticalPathImbalance, "critical_path_imbalance", "Imbalance", CriticalPath, Seconds, RootCause, "critical-path time above the average time over the processes") \
    X(PerformanceImpact, "performance_impact", "Performance impact", None, Seconds, RootCause, "time of all processes, split by its impact on the run's length") \
    X(PerformanceImpactCriticalPath, "performance_impact_criticalpath", "Critical-path activities", PerformanceImpact, Seconds, RootCause, "time of the activities found on the critical path") \
    X(CriticalPathActivities, "critical_path_activities", "Activity impact", PerformanceImpactCriticalPath, Seconds, RootCause, "time of the critical-path activities, counted for all processes") \
    X(CriticalImbalanceImpact, "critical_imbalance_impact", "Imbalance impact", PerformanceImpactCriticalPath, Seconds, RootCause, "waiting the critical path's imbalance causes on the other processes") \
    X(IntraPartitionImbalance, "intra_partition_imbalance", "Intra-partition imbalance", CriticalImbalanceImpact, Seconds, RootCause, "imbalance impact among processes doing the same activity") \
    X(InterPartitionImbalance, "inter_partition_imbalance", "Inter-partition imbalance", CriticalImbalanceImpact, Seconds, RootCause, "imbalance impact between processes doing different activities") \
    X(NonCriticalPathActivities, "non_critical_path_activities", "Non-critical-path activities", PerformanceImpact, Seconds, RootCause, "time of activities that are not on the critical path") \
    X(Imbalance, "imbalance", "Computational imbalance", None, Seconds, RootCause, "distance of a process's computation time from the average over all processes") \
    X(ImbalanceAbove, "imbalance_above", "Overload", Imbalance, Seconds, RootCause, "computation time above the average") \
    X(ImbalanceAboveSingle, "imbalance_above_single", "Single participant", ImbalanceAbove, Seconds, RootCause, "overload on call paths only one process visits") \
    X(ImbalanceBelow, "imbalance_below", "Underload", Imbalance, Seconds, RootCause, "computation time below the average") \
    X(ImbalanceBelowBypass, "imbalance_below_bypass", "Non-participation", ImbalanceBelow, Seconds, RootCause, "underload of processes that do not visit the call path") \
    X(ImbalanceBelowSingularity, "imbalance_below_singularity", "Singularity", ImbalanceBelowBypass, Seconds, RootCause, "non-participation on call paths only one process visits") \
    WAITSCOPE_OPENMP_METRICS(X) \
    WAITSCOPE_ANALYZED_MPI_FILE_METRICS(X) \
    WAITSCOPE_PTHREAD_METRICS(X) \
    WAITSCOPE_ANALYZED_RMA_METRICS(X)

// MPI file I/O (issue 26): Scalasca's counts of file reads and writes, by the call's region
// (individual or collective, read or write). Written into a report only when the run did file
// I/O, so reports of runs without it are unchanged. Then, from the OTF2 I/O records: the wait
// at collective file operations (Waitscope's own pattern) and the bytes read and written under
// Score-P's profile names (Scalasca 2.6 has no I/O byte metrics).
#define WAITSCOPE_ANALYZED_MPI_FILE_METRICS(X) \
    X(MpiFileOps, "mpi_file_ops", "MPI file operations", None, Occurrences, Measured, "number of MPI file operations") \
    X(MpiFileIops, "mpi_file_iops", "Individual", MpiFileOps, Occurrences, Measured, "number of individual MPI file operations") \
    X(MpiFileIrops, "mpi_file_irops", "Reads", MpiFileIops, Occurrences, Measured, "number of individual MPI file reads") \
    X(MpiFileIwops, "mpi_file_iwops", "Writes", MpiFileIops, Occurrences, Measured, "number of individual MPI file writes") \
    X(MpiFileCops, "mpi_file_cops", "Collective", MpiFileOps, Occurrences, Measured, "number of collective MPI file operations") \
    X(MpiFileCrops, "mpi_file_crops", "Reads", MpiFileCops, Occurrences, Measured, "number of collective MPI file reads") \
    X(MpiFileCwops, "mpi_file_cwops", "Writes", MpiFileCops, Occurrences, Measured, "number of collective MPI file writes") \
    X(MpiIoWaitCollective, "mpi_io_wait_collective", "Wait at Collective I/O", MpiIoCollective, Seconds, WaitState, "time in a collective file operation until the last process of the file's communicator arrived (Waitscope's; Scalasca has none)") \
    X(IoBytesRead, "io_bytes_read", "I/O bytes read", None, Bytes, Measured, "bytes read from files by MPI-IO (Score-P's profile name)") \
    X(IoBytesWritten, "io_bytes_written", "I/O bytes written", None, Bytes, Measured, "bytes written to files by MPI-IO (Score-P's profile name)")

// POSIX threads (issue 25, measurement/threads): Scalasca's Pthread subtree of execution, time in
// the program's mutex, condition and join calls, and the delay costs of join waits. Written into a report only when its trace has
// regions of the pthread paradigm, so reports of other runs are unchanged.
#define WAITSCOPE_PTHREAD_METRICS(X) \
    X(PthreadTime, "pthread_time", "POSIX threads", Execution, Seconds, Measured, "time in the POSIX threads API: thread management and synchronization") \
    X(PthreadManagement, "pthread_management", "Pthread Management", PthreadTime, Seconds, Measured, "time managing threads (pthread_join)") \
    X(PthreadSynchronization, "pthread_synchronization", "Pthread Synchronization", PthreadTime, Seconds, Measured, "time in mutex and condition variable calls") \
    X(PthreadLockApi, "pthread_lock_api", "Pthread Mutex", PthreadSynchronization, Seconds, Measured, "time in mutex lock, trylock and unlock calls") \
    X(PthreadLockContentionMutexLock, "pthread_lock_contention_mutex_lock", "Pthread Mutex Lock Contention", PthreadLockApi, Seconds, WaitState, "time waiting in pthread_mutex_lock until the mutex is acquired") \
    X(PthreadConditional, "pthread_conditional", "Pthread Condition", PthreadSynchronization, Seconds, Measured, "time in condition variable calls") \
    X(PthreadLockContentionConditional, "pthread_lock_contention_conditional", "Pthread Condition Lock Contention", PthreadConditional, Seconds, WaitState, "time waiting in a condition wait until the condition is signalled and the mutex acquired again") \
    X(DelayPthreadJoin, "delay_pthread_join", "Pthread join", Delay, Seconds, RootCause, "excess work of a joined thread since it began that made the joining thread wait in pthread_join (Waitscope's; Scalasca has no POSIX threads delay costs)")

// One-sided communication (issue 26, analyzer/core/src/rma_*.cpp): Scalasca's RMA wait states,
// the active/passive split of one-sided synchronization time, the pair-wise synchronization
// counts and the one-sided operation counts and bytes, from OTF2's RMA records. Written into a
// report only when the trace defines RMA windows, so reports of other runs are unchanged.
#define WAITSCOPE_ANALYZED_RMA_METRICS(X) \
    X(MpiRmaWaitAtCreate, "mpi_rma_wait_at_create", "Wait at Create", MpiMgmtWin, Seconds, WaitState, "time in window creation spent waiting for the last process of the group to start creating the window") \
    X(MpiRmaWaitAtFree, "mpi_rma_wait_at_free", "Wait at Free", MpiMgmtWin, Seconds, WaitState, "time in window release spent waiting for the last process of the group to start freeing the window") \
    X(MpiRmaSyncActive, "mpi_rma_sync_active", "Active Target", MpiRmaSynchronization, Seconds, Measured, "time in active-target one-sided synchronization, where both sides take part") \
    X(MpiRmaSyncLatePost, "mpi_rma_sync_late_post", "Late Post", MpiRmaSyncActive, Seconds, WaitState, "time an access epoch waits because the target has not yet exposed its window") \
    X(MpiRmaEarlyWait, "mpi_rma_early_wait", "Early Wait", MpiRmaSyncActive, Seconds, WaitState, "time the target of an exposure epoch waits for origins that have not yet finished their accesses") \
    X(MpiRmaLateComplete, "mpi_rma_late_complete", "Late Complete", MpiRmaEarlyWait, Seconds, WaitState, "part of the early-wait time caused by origins that finished their transfers but closed the epoch late") \
    X(MpiRmaWaitAtFence, "mpi_rma_wait_at_fence", "Wait at Fence", MpiRmaSyncActive, Seconds, WaitState, "time in a fence before the last process of the window has entered it") \
    X(MpiRmaEarlyFence, "mpi_rma_early_fence", "Early Fence", MpiRmaWaitAtFence, Seconds, WaitState, "time in a fence waiting for outstanding one-sided transfers to finish") \
    X(MpiRmaSyncPassive, "mpi_rma_sync_passive", "Passive Target", MpiRmaSynchronization, Seconds, Measured, "time in passive-target synchronization (window locks)") \
    X(MpiRmaSyncLockCompetition, "mpi_rma_sync_lock_competition", "Lock Contention", MpiRmaSyncPassive, Seconds, WaitState, "time waiting to acquire a window lock that another process holds") \
    X(MpiRmaSyncWaitForProgress, "mpi_rma_sync_wait_for_progress", "Wait for Progress", MpiRmaSyncPassive, Seconds, WaitState, "time waiting for a lock operation to make progress on the target") \
    X(MpiRmaCommLatePost, "mpi_rma_comm_late_post", "Late Post", MpiRmaCommunication, Seconds, WaitState, "time one-sided transfers wait because the target has not yet exposed its window") \
    X(MpiRmaCommLockCompetition, "mpi_rma_comm_lock_competition", "Lock Contention", MpiRmaCommunication, Seconds, WaitState, "time one-sided transfers wait for a window lock held by another process") \
    X(MpiRmaCommWaitForProgress, "mpi_rma_comm_wait_for_progress", "Wait for Progress", MpiRmaCommunication, Seconds, WaitState, "time one-sided transfers wait for progress on the target") \
    X(SyncsRma, "syncs_rma", "One-sided", Syncs, Occurrences, Measured, "number of one-sided synchronization operations") \
    X(SyncsRmaActive, "syncs_rma_active", "Active target", SyncsRma, Occurrences, Measured, "number of active-target one-sided synchronizations") \
    X(SyncsRmaPassive, "syncs_rma_passive", "Passive target", SyncsRma, Occurrences, Measured, "number of passive-target one-sided synchronizations") \
    X(MpiRmaPairsyncCount, "mpi_rma_pairsync_count", "MPI pair-wise one-sided synchronizations", None, Occurrences, WaitStateCount, "number of one-sided synchronizations between pairs of processes") \
    X(MpiRmaPairsyncUnneededCount, "mpi_rma_pairsync_unneeded_count", "Unneeded synchronizations", MpiRmaPairsyncCount, Occurrences, WaitStateCount, "number of pair-wise one-sided synchronizations that were not needed for correctness") \
    X(CommsRma, "comms_rma", "One-sided", Comms, Occurrences, Measured, "number of one-sided transfer operations") \
    X(CommsRmaPuts, "comms_rma_puts", "Puts", CommsRma, Occurrences, Measured, "number of one-sided put operations") \
    X(CommsRmaGets, "comms_rma_gets", "Gets", CommsRma, Occurrences, Measured, "number of one-sided get operations") \
    X(CommsRmaAtomics, "comms_rma_atomics", "Atomics", CommsRma, Occurrences, Measured, "number of one-sided atomic operations") \
    X(BytesRma, "bytes_rma", "One-sided", Bytes, Bytes, Measured, "bytes moved by one-sided operations") \
    X(BytesPut, "bytes_put", "Sent", BytesRma, Bytes, Measured, "bytes written to remote windows") \
    X(BytesGet, "bytes_get", "Received", BytesRma, Bytes, Measured, "bytes read from remote windows")

// The rest of Scalasca's documented tree: metrics Waitscope reads in Scalasca's reports and
// documents, but does not compute (none since one-sided Wait for Progress is computed).
#define WAITSCOPE_DOCUMENTED_METRICS(X)

// clang-format on

// X(id, unique name, display name, value type, unit, description)
//
// The runtime profile's flat metrics (WAITSCOPE_PROFILING), in the order of its report. Where
// the unique name is also a metric of the tree, the unit agrees (checked by the tests); the
// display names and descriptions say what the profile counts, which is not always the tree's.
// clang-format off
#define WAITSCOPE_PROFILE_METRICS(X) \
    X(Visits, "visits", "Visits", Uint64, Occurrences, "Number of times a call path was entered") \
    X(Time, "time", "Time", Double, Seconds, "Time spent in a call path, without its callees") \
    X(MinTime, "min_time", "Minimum Inclusive Time", MinDouble, Seconds, "Shortest visit of a call path, callees included") \
    X(MaxTime, "max_time", "Maximum Inclusive Time", MaxDouble, Seconds, "Longest visit of a call path, callees included") \
    X(BytesSent, "bytes_sent", "Bytes Sent", Uint64, Bytes, "Bytes sent by MPI point-to-point and collective operations") \
    X(BytesRcvd, "bytes_rcvd", "Bytes Received", Uint64, Bytes, "Bytes received by MPI point-to-point and collective operations") \
    X(CommsSend, "comms_send", "Messages Sent", Uint64, Occurrences, "Point-to-point messages sent") \
    X(CommsRecv, "comms_recv", "Messages Received", Uint64, Occurrences, "Point-to-point messages received")
// clang-format on
