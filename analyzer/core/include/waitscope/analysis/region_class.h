// Which part of the metric tree a region's time belongs to.
#pragma once

#include "waitscope/trace/definitions.h"

#include <cstdint>

namespace waitscope::analysis {

/// The time category of a region, following Scalasca's grouping of MPI calls by name.
enum class RegionClass : uint8_t {
    Computation,
    Overhead, ///< measurement regions such as buffer flushes
    MpiInit,
    MpiFinalize,
    MpiMgmtComm,
    MpiMgmtFile,
    MpiMgmtWin,
    MpiBarrier,
    MpiRmaSync,
    MpiPointToPoint,
    MpiCollective,
    MpiRmaCommunication,
    MpiIoIndividual,
    MpiIoCollective,
    MpiOther,
    // OpenMP runtime time (regions of the OpenMP paradigm; parallel regions, loops and tasks
    // are computation).
    OmpFork,            ///< fork and join of a team
    OmpExplicitBarrier, ///< `#pragma omp barrier`
    OmpImplicitBarrier,
    OmpCritical, ///< entering a critical section (its sblock is computation)
    OmpLockApi,  ///< omp_set_lock until acquired
    OmpOrdered,  ///< entering an ordered region
    OmpTaskwait,
    OmpFlush,
    // POSIX threads calls (regions of the pthread paradigm).
    PthreadManagement, ///< pthread_join (and creation, exit, ... in Score-P's traces)
    PthreadMutexLock,  ///< pthread_mutex_lock until acquired
    PthreadMutex,      ///< the other mutex calls (trylock, unlock, init, destroy)
    PthreadCondWait,   ///< pthread_cond_wait / pthread_cond_timedwait
    PthreadCondition,  ///< the other condition calls (signal, broadcast, init, destroy)
};

/// True for the classes of OpenMP runtime time.
inline bool isOpenmpClass(RegionClass regionClass) {
    return regionClass >= RegionClass::OmpFork && regionClass <= RegionClass::OmpFlush;
}

/// True for the classes of POSIX threads calls.
inline bool isPthreadClass(RegionClass regionClass) {
    return regionClass >= RegionClass::PthreadManagement;
}

/// Classifies `region` by paradigm, role and name.
RegionClass classifyRegion(const trace::Region& region);

} // namespace waitscope::analysis
