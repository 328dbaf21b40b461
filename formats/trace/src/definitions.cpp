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

uint32_t Definitions::programRegion(uint32_t programName) const {
    if (programName < strings.size()) {
        const std::string& name = strings[programName];
        for (uint32_t r = 0; r < regions.size(); ++r) {
            if (regions[r].canonicalName == name || regions[r].name == name) {
                return r;
            }
        }
    }
    return static_cast<uint32_t>(regions.size() + programName);
}

uint32_t Definitions::worldRank(uint32_t comm, uint32_t commRank, uint32_t self) const {
    if (comm >= communicators.size()) {
        return kUndefined;
    }
    const Communicator& c = communicators[comm];
    if (c.isSelf) {
        return commRank == 0 ? self : kUndefined;
    }
    return commRank < c.worldRanks.size() ? c.worldRanks[commRank] : kUndefined;
}

const Location* Definitions::locationOfRank(uint32_t rank) const {
    for (const Location& location : locations) {
        if (location.group == rank) {
            return &location;
        }
    }
    return nullptr;
}

std::vector<const Location*> Definitions::locationsOfRank(uint32_t rank) const {
    std::vector<const Location*> found;
    for (const Location& location : locations) {
        if (location.group == rank) {
            found.push_back(&location);
        }
    }
    return found;
}

std::string Definitions::regionName(uint32_t region) const {
    if (region < regions.size()) {
        return regions[region].name;
    }
    // Beyond the regions: a program without a region of its own, named by its path string.
    const uint64_t string = static_cast<uint64_t>(region) - regions.size();
    if (string < strings.size() && !strings[string].empty()) {
        const std::string& path = strings[string];
        return path.substr(path.find_last_of('/') + 1);
    }
    return "<region " + std::to_string(region) + ">";
}

} // namespace waitscope::trace
