// The OpenMP team of the analyzer's unit tests: a tiny trace's regions classified, and rank k's
// stream profiled as further thread k of the master, whose timeline the test feeds by hand.
#pragma once

#include "openmp_timeline.h"
#include "tiny_trace.h"
#include "waitscope/analysis/region_class.h"
#include "waitscope/analysis/thread_profile.h"

#include <cstdint>
#include <vector>

namespace waitscope::testing {

/// The class of each region of `defs`, by region id.
inline std::vector<analysis::RegionClass> regionClasses(const trace::Definitions& defs) {
    std::vector<analysis::RegionClass> classes;
    for (const trace::Region& r : defs.regions) {
        classes.push_back(analysis::classifyRegion(r));
    }
    return classes;
}

/// Profiles the stream of `t`'s rank `k` as further thread k of `master`'s rank (location
/// k << 32, "thread k") into `result.threads`, with its OpenMP timeline appended to `threads`
/// (reserve room for every thread first: the timelines must not move before the analysis).
inline void profileTeamThread(const TinyTrace& t, uint32_t k,
                              const std::vector<analysis::RegionClass>& classes,
                              analysis::OpenmpTimeline& master,
                              std::vector<analysis::OpenmpTimeline>& threads,
                              analysis::RankResult& result) {
    threads.emplace_back(t.defs, classes);
    threads.back().master = &master;
    analysis::Diagnostics diagnostics;
    const trace::Location location{uint64_t{k} << 32, "thread " + std::to_string(k), 0, 0};
    result.threads.push_back(analysis::profileThread(t.defs, location, t.streams()[k], result.tree,
                                                     diagnostics, analysis::kNoNode,
                                                     &threads.back()));
}

} // namespace waitscope::testing
