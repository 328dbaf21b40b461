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
};

/// Classifies `region` by paradigm, role and name.
RegionClass classifyRegion(const trace::Region& region);

} // namespace waitscope::analysis
