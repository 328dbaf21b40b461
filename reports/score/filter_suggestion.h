// Filter suggestion: regions worth excluding from tracing, in the Score-P filter syntax.
#pragma once

#include "trace_size_estimate.h"

#include <string>
#include <vector>

namespace waitscope::analysis {

/// Regions to exclude: user or compiler regions that cost at least `minShare` of the trace's
/// event bytes, run at least `minVisitsPerRank` times on some rank, and take less than
/// `maxTimePerVisit` seconds per visit (short, frequent calls, whose measurement costs more
/// than it tells).
std::vector<const RegionEstimate*> regionsToFilter(const TraceSizeEstimate& estimate,
                                                   double minShare = 0.01,
                                                   double maxTimePerVisit = 10e-6,
                                                   std::uint64_t minVisitsPerRank = 1000);

/// A filter file (SCOREP_REGION_NAMES_BEGIN / EXCLUDE ... / SCOREP_REGION_NAMES_END) that
/// excludes `regions`, with a comment per region saying what it costs.
std::string filterFileText(const TraceSizeEstimate& estimate,
                           const std::vector<const RegionEstimate*>& regions);

} // namespace waitscope::analysis
