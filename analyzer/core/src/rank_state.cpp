// The state one rank's analysis hands from stage to stage, as the pipeline starts it.
#include "rank_state.h"

namespace waitscope::analysis {

RankState::RankState(const RankInput& rankInput, Transport& transport)
    : input(rankInput), defs(rankInput.definitions), events(rankInput.events),
      rootCause(rankInput.options.rootCause) {
    result.rank = transport.rank();
    if (rankInput.options.instanceSpill != nullptr) {
        spill =
            std::make_unique<InstanceSpill::Buffer>(*rankInput.options.instanceSpill, result.rank);
        sink.spillTo(spill.get(), 0);
    }
    if (rankInput.windows != nullptr && rootCause) {
        events = &windowEvents; // filled by the windowed profile stage
    }
    if (events != nullptr) {
        result.events = events->size();
        if (rootCause) {
            delay = std::make_unique<DelayAnalysis>(defs, *events, transport, result);
            pathCollectives = std::make_unique<PathCollectives>(defs, result.rank);
        }
    }
    classes.reserve(defs.regions.size());
    for (const trace::Region& region : defs.regions) {
        classes.push_back(classifyRegion(region));
    }
    openmp = std::make_unique<OpenmpTimeline>(defs, classes);
}

} // namespace waitscope::analysis
