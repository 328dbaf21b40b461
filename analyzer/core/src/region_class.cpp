// Region classification: MPI calls by name (as Scalasca groups them), measurement regions.
#include "waitscope/analysis/region_class.h"

#include <string_view>

namespace waitscope::analysis {
namespace {

bool startsWith(std::string_view text, std::string_view prefix) {
    return text.substr(0, prefix.size()) == prefix;
}
bool contains(std::string_view text, std::string_view part) {
    return text.find(part) != std::string_view::npos;
}
// MPI_Wait and MPI_Test with nothing or "all", "any", "some" after them.
bool isCompletionName(std::string_view name) {
    for (const std::string_view call : {"MPI_Wait", "MPI_Test"}) {
        if (startsWith(name, call)) {
            const std::string_view rest = name.substr(call.size());
            return rest.empty() || rest == "all" || rest == "any" || rest == "some";
        }
    }
    return false;
}

} // namespace

/// The OpenMP runtime's regions by role (the recording's and Score-P's), and the lock API by
/// name; the rest of OpenMP (parallel, loops, tasks, critical sblocks) is computation.
RegionClass classifyOpenmpRegion(const trace::Region& region) {
    using trace::RegionRole;
    switch (region.role) {
    case RegionRole::ThreadCreate:
    case RegionRole::ThreadWait:
        return RegionClass::OmpFork;
    case RegionRole::Barrier:
        return RegionClass::OmpExplicitBarrier;
    case RegionRole::ImplicitBarrier:
        return RegionClass::OmpImplicitBarrier;
    case RegionRole::Critical:
        return RegionClass::OmpCritical;
    case RegionRole::Ordered:
        return RegionClass::OmpOrdered;
    case RegionRole::TaskWait:
        return RegionClass::OmpTaskwait;
    case RegionRole::Flush:
        return RegionClass::OmpFlush;
    default:
        break;
    }
    const std::string_view name = region.name;
    if (startsWith(name, "omp_") && contains(name, "_lock")) {
        return RegionClass::OmpLockApi;
    }
    return RegionClass::Computation;
}

/// The POSIX threads calls by name (Score-P's and the recording's region names); the thread's
/// start routine and unknown calls are computation.
RegionClass classifyPthreadRegion(const trace::Region& region) {
    const std::string_view name = region.name;
    if (name == "pthread_mutex_lock") {
        return RegionClass::PthreadMutexLock;
    }
    if (startsWith(name, "pthread_mutex_")) {
        return RegionClass::PthreadMutex;
    }
    if (name == "pthread_cond_wait" || name == "pthread_cond_timedwait") {
        return RegionClass::PthreadCondWait;
    }
    if (startsWith(name, "pthread_cond_")) {
        return RegionClass::PthreadCondition;
    }
    if (name == "pthread_join" || name == "pthread_create" || name == "pthread_exit" ||
        name == "pthread_cancel" || name == "pthread_detach") {
        return RegionClass::PthreadManagement;
    }
    return RegionClass::Computation;
}

RegionClass classifyRegion(const trace::Region& region) {
    using trace::RegionRole;
    if (region.paradigm == trace::Paradigm::OpenMp) {
        return classifyOpenmpRegion(region);
    }
    if (region.paradigm == trace::Paradigm::Pthread) {
        return classifyPthreadRegion(region);
    }
    if (region.paradigm != trace::Paradigm::Mpi) {
        if (region.name == "TRACE BUFFER FLUSH" || region.name == "WAITSCOPE BUFFER FLUSH" ||
            region.name == "WAITSCOPE SYMBOL RESOLUTION") {
            return RegionClass::Overhead;
        }
        return RegionClass::Computation;
    }
    const std::string_view name = region.name;
    if (name == "MPI_Init" || name == "MPI_Init_thread") {
        return RegionClass::MpiInit;
    }
    if (name == "MPI_Finalize") {
        return RegionClass::MpiFinalize;
    }
    if (name == "MPI_Barrier" || name == "MPI_Ibarrier") {
        return RegionClass::MpiBarrier;
    }
    if (startsWith(name, "MPI_Comm_") || startsWith(name, "MPI_Cart") ||
        startsWith(name, "MPI_Graph") || startsWith(name, "MPI_Dist_graph") ||
        startsWith(name, "MPI_Intercomm_") || startsWith(name, "MPI_Group_") ||
        name == "MPI_Topo_test" || name == "MPI_Dims_create") {
        return RegionClass::MpiMgmtComm;
    }
    if (startsWith(name, "MPI_File_")) {
        if (region.role == RegionRole::FileIo) {
            const bool collective = contains(name, "_all") || contains(name, "_ordered");
            return collective ? RegionClass::MpiIoCollective : RegionClass::MpiIoIndividual;
        }
        return RegionClass::MpiMgmtFile;
    }
    if (name == "MPI_Win_create" || name == "MPI_Win_create_dynamic" ||
        name == "MPI_Win_allocate" || name == "MPI_Win_allocate_shared" || name == "MPI_Win_free") {
        return RegionClass::MpiMgmtWin;
    }
    if (startsWith(name, "MPI_Win_")) {
        return RegionClass::MpiRmaSync;
    }
    if (region.role == RegionRole::Rma || region.role == RegionRole::Atomic) {
        return RegionClass::MpiRmaCommunication;
    }
    if (region.role == RegionRole::Barrier) {
        return RegionClass::MpiBarrier;
    }
    if (region.role == RegionRole::CollectiveOneToAll ||
        region.role == RegionRole::CollectiveAllToOne ||
        region.role == RegionRole::CollectiveAllToAll ||
        region.role == RegionRole::CollectiveOther) {
        return RegionClass::MpiCollective;
    }
    // Point-to-point by the role the trace gives (send, receive, probe and the request
    // creation are POINT2POINT in Score-P's traces and ours) or as a completion call, as
    // Scalasca's remapping (scout.spec) classes them. MPI_Start, MPI_Startall,
    // MPI_Request_free and MPI_Cancel have the role FUNCTION there: plain MPI time.
    if (region.role == RegionRole::PointToPoint || isCompletionName(name)) {
        return RegionClass::MpiPointToPoint;
    }
    return RegionClass::MpiOther;
}

} // namespace waitscope::analysis
