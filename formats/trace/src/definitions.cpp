// Queries over the global definitions of a trace.
#include "waitscope/trace/definitions.h"

namespace waitscope::trace {

uint32_t Definitions::rankCount() const {
    uint32_t count = 0;
    for (const LocationGroup& group : locationGroups) {
        if (group.isProcess) {
            ++count;
        }
    }
    return count;
}

const Location* Definitions::locationOfRank(uint32_t rank) const {
    for (const Location& location : locations) {
        if (location.group == rank) {
            return &location;
        }
    }
    return nullptr;
}

std::string Definitions::regionName(uint32_t region) const {
    if (region < regions.size()) {
        return regions[region].name;
    }
    return "<region " + std::to_string(region) + ">";
}

} // namespace waitscope::trace
