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
};

/// True for the classes of OpenMP runtime time.
inline bool isOpenmpClass(RegionClass regionClass) {
    return regionClass >= RegionClass::OmpFork;
}

/// Classifies `region` by paradigm, role and name.
RegionClass classifyRegion(const trace::Region& region);

} // namespace waitscope::analysis
