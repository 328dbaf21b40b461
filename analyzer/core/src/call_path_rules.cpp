// Time categories of regions and calling-context paths, for every profiled location.
#include "waitscope/analysis/call_path_rules.h"

#include <algorithm>

namespace waitscope::analysis {

namespace {

/// The OpenMP part of addTimeSeverities: below OpenMP, the category of the class.
void addOpenmpTimeSeverities(SeverityRows& s, RegionClass cls, NodeId node, double seconds) {
    s.add(Metric::OmpTime, node, seconds);
    if (cls == RegionClass::OmpFork) {
        s.add(Metric::OmpManagement, node, seconds);
        s.add(Metric::OmpFork, node, seconds);
        return;
    }
    if (cls == RegionClass::OmpFlush) {
        s.add(Metric::OmpFlush, node, seconds);
        return;
    }
    s.add(Metric::OmpSynchronization, node, seconds);
    switch (cls) {
    case RegionClass::OmpExplicitBarrier:
        s.add(Metric::OmpBarrier, node, seconds);
        s.add(Metric::OmpEbarrier, node, seconds);
        break;
    case RegionClass::OmpImplicitBarrier:
        s.add(Metric::OmpBarrier, node, seconds);
        s.add(Metric::OmpIbarrier, node, seconds);
        break;
    case RegionClass::OmpCritical:
        s.add(Metric::OmpCritical, node, seconds);
        break;
    case RegionClass::OmpLockApi:
        s.add(Metric::OmpLockApi, node, seconds);
        break;
    case RegionClass::OmpOrdered:
        s.add(Metric::OmpOrdered, node, seconds);
        break;
    case RegionClass::OmpTaskwait:
        s.add(Metric::OmpTaskwait, node, seconds);
        break;
    default:
        break;
    }
}

/// The POSIX threads part of addTimeSeverities. Without lock acquire and release events the
/// time of a lock call, or of a condition wait, is all waiting: an uncontended mutex is taken at
/// once, and a condition wait ends when another thread signalled and released the mutex.
void addPthreadTimeSeverities(SeverityRows& s, RegionClass cls, NodeId node, double seconds) {
    s.add(Metric::PthreadTime, node, seconds);
    if (cls == RegionClass::PthreadManagement) {
        s.add(Metric::PthreadManagement, node, seconds);
        return;
    }
    s.add(Metric::PthreadSynchronization, node, seconds);
    switch (cls) {
    case RegionClass::PthreadMutexLock:
        s.add(Metric::PthreadLockApi, node, seconds);
        s.add(Metric::PthreadLockContentionMutexLock, node, seconds);
        break;
    case RegionClass::PthreadMutex:
        s.add(Metric::PthreadLockApi, node, seconds);
        break;
    case RegionClass::PthreadCondWait:
        s.add(Metric::PthreadConditional, node, seconds);
        s.add(Metric::PthreadLockContentionConditional, node, seconds);
        break;
    case RegionClass::PthreadCondition:
        s.add(Metric::PthreadConditional, node, seconds);
        break;
    default:
        break;
    }
}

} // namespace

void addTimeSeverities(SeverityRows& s, RegionClass cls, NodeId node, double seconds) {
    s.add(Metric::Time, node, seconds);
    if (cls == RegionClass::Overhead) {
        s.add(Metric::Overhead, node, seconds);
        return;
    }
    s.add(Metric::Execution, node, seconds);
    if (cls == RegionClass::Computation) {
        s.add(Metric::Comp, node, seconds);
        return;
    }
    if (isOpenmpClass(cls)) {
        addOpenmpTimeSeverities(s, cls, node, seconds);
        return;
    }
    if (isPthreadClass(cls)) {
        addPthreadTimeSeverities(s, cls, node, seconds);
        return;
    }
    s.add(Metric::Mpi, node, seconds);
    switch (cls) {
    case RegionClass::MpiInit:
    case RegionClass::MpiFinalize:
        s.add(Metric::MpiManagement, node, seconds);
        s.add(Metric::MpiInitExit, node, seconds);
        break;
    case RegionClass::MpiMgmtComm:
        s.add(Metric::MpiManagement, node, seconds);
        s.add(Metric::MpiMgmtComm, node, seconds);
        break;
    case RegionClass::MpiMgmtFile:
        s.add(Metric::MpiManagement, node, seconds);
        s.add(Metric::MpiMgmtFile, node, seconds);
        break;
    case RegionClass::MpiMgmtWin:
        s.add(Metric::MpiManagement, node, seconds);
        s.add(Metric::MpiMgmtWin, node, seconds);
        break;
    case RegionClass::MpiBarrier:
        s.add(Metric::MpiSynchronization, node, seconds);
        s.add(Metric::MpiSyncCollective, node, seconds);
        break;
    case RegionClass::MpiRmaSync:
        s.add(Metric::MpiSynchronization, node, seconds);
        s.add(Metric::MpiRmaSynchronization, node, seconds);
        break;
    case RegionClass::MpiPointToPoint:
        s.add(Metric::MpiCommunication, node, seconds);
        s.add(Metric::MpiPointToPoint, node, seconds);
        break;
    case RegionClass::MpiCollective:
        s.add(Metric::MpiCommunication, node, seconds);
        s.add(Metric::MpiCollective, node, seconds);
        break;
    case RegionClass::MpiRmaCommunication:
        s.add(Metric::MpiCommunication, node, seconds);
        s.add(Metric::MpiRmaCommunication, node, seconds);
        break;
    case RegionClass::MpiIoIndividual:
        s.add(Metric::MpiIo, node, seconds);
        s.add(Metric::MpiIoIndividual, node, seconds);
        break;
    case RegionClass::MpiIoCollective:
        s.add(Metric::MpiIo, node, seconds);
        s.add(Metric::MpiIoCollective, node, seconds);
        break;
    default:
        break;
    }
}

std::vector<uint32_t> callingContextPath(const trace::Definitions& defs, uint32_t context,
                                         bool& unknown) {
    std::vector<uint32_t> path;
    // The length bound guards against parent cycles in a damaged trace.
    for (uint32_t c = context; c < defs.callingContexts.size() && path.size() < 4096;
         c = defs.callingContexts[c].parent) {
        path.push_back(defs.callingContexts[c].region);
    }
    unknown = context != trace::kUndefined && context >= defs.callingContexts.size();
    std::reverse(path.begin(), path.end());
    return path;
}

} // namespace waitscope::analysis
