// Global definitions of a trace: strings, regions, locations, groups, communicators and clock.
#pragma once

#include <cstdint>
#include <string>
#include <vector>
#include <waitscope/base/region_role.h>

namespace waitscope::trace {

/// Marker for an absent reference (OTF2's UNDEFINED for 32-bit references).
inline constexpr uint32_t kUndefined = 0xFFFFFFFFu;

/// Region roles and paradigms: the project-wide vocabulary (waitscope/base/region_role.h).
using waitscope::Paradigm;
using waitscope::RegionRole;

/// One source region (function, MPI call, artificial measurement region).
struct Region {
    std::string name;
    std::string canonicalName;
    std::string file; ///< empty when the trace does not say
    uint32_t beginLine = 0;
    uint32_t endLine = 0;
    RegionRole role = RegionRole::Unknown;
    Paradigm paradigm = Paradigm::Unknown;
};

/// A location group; for MPI traces one per rank, and its index is the rank.
struct LocationGroup {
    std::string name;
    bool isProcess = false;
    uint32_t systemTreeParent = kUndefined; ///< the system tree node it runs on
};

/// A node of the system tree (a machine, a compute node, ...), with its class ("machine",
/// "node", ...) and its parent node (kUndefined for a root).
struct SystemTreeNode {
    std::string name;
    std::string className;
    uint32_t parent = kUndefined;
};

/// What a location is (OTF2_LocationType, reduced to the kinds the analysis distinguishes).
enum class LocationType : uint8_t { CpuThread, AcceleratorStream, Metric, Other };

/// A location (thread of execution) with the event count the archive announces.
struct Location {
    uint64_t id = 0;
    std::string name;
    uint32_t group = kUndefined;
    uint64_t announcedEvents = 0;
    LocationType type = LocationType::CpuThread;
};

/// What a group definition lists.
enum class GroupKind : uint8_t { Locations, CommGroup, CommSelf, Other };

/// A group; for CommGroup the members are indices into the MPI locations group.
struct Group {
    std::string name;
    GroupKind kind = GroupKind::Other;
    Paradigm paradigm = Paradigm::Unknown;
    std::vector<uint64_t> members;
    /// For an MPI CommGroup, the world rank of each member (resolved with the communicators);
    /// empty otherwise.
    std::vector<uint32_t> worldRanks;
};

/// A communicator definition; `worldRanks` maps each communicator rank to a world rank
/// (empty for MPI_COMM_SELF-like communicators, which contain only the calling rank).
struct Communicator {
    std::string name;
    uint32_t group = kUndefined;
    uint32_t parent = kUndefined;
    bool isSelf = false;
    std::vector<uint32_t> worldRanks;
};

/// A one-sided communication window (OTF2 RmaWin): its name and the communicator it was
/// created on (kUndefined when the trace does not say).
struct RmaWindow {
    std::string name;
    uint32_t comm = kUndefined;
};

/// A calling-context definition (sampling traces).
struct CallingContext {
    uint32_t region = kUndefined;
    uint32_t parent = kUndefined;
};

/// An I/O handle (a file opened through an I/O paradigm such as MPI-IO): the file's name, its
/// paradigm (an index into Definitions::ioParadigms) and the communicator it was opened on
/// (kUndefined: none; MPI-IO's collective operations on the handle synchronize over it).
struct IoHandle {
    std::string name;
    uint32_t file = kUndefined; ///< an index into Definitions::ioFiles
    uint32_t paradigm = kUndefined;
    uint32_t comm = kUndefined;
};

/// Timer resolution and range of the trace.
struct ClockProperties {
    uint64_t ticksPerSecond = 1;
    uint64_t globalOffset = 0;
    uint64_t traceLength = 0;
};

/// All global definitions of an archive, indexed by their OTF2 reference.
class Definitions {
public:
    std::vector<std::string> strings;
    std::vector<Region> regions;
    std::vector<LocationGroup> locationGroups;
    std::vector<SystemTreeNode> systemTreeNodes;
    std::vector<Location> locations;
    std::vector<Group> groups;
    std::vector<Communicator> communicators;
    std::vector<CallingContext> callingContexts;
    ClockProperties clock;
    std::vector<RmaWindow> rmaWindows;
    /// File I/O: the paradigms' names ("MPI-IO"), the files' names and the handles, each by
    /// its OTF2 reference.
    std::vector<std::string> ioParadigms;
    std::vector<std::string> ioFiles;
    std::vector<IoHandle> ioHandles;

    /// The region of a program named by string `programName` (a ProgramBegin record): the region
    /// whose name or canonical name is that string, else the reference regions.size() + string.
    uint32_t programRegion(uint32_t programName) const;
    /// The world rank of member `commRank` of communicator `comm`, seen from world rank `self`
    /// (a self communicator's only member is the caller); kUndefined when the communicator or
    /// the member is unknown. The one rule for the analysis, the export and the timeline.
    uint32_t worldRank(uint32_t comm, uint32_t commRank, uint32_t self) const;
    /// The communicator of window `window`, or kUndefined when the window is unknown.
    uint32_t windowComm(uint32_t window) const {
        return window < rmaWindows.size() ? rmaWindows[window].comm : kUndefined;
    }
    /// Number of MPI ranks (process location groups).
    uint32_t rankCount() const;
    /// The location that holds the events of `rank` (its first location), or nullptr.
    const Location* locationOfRank(uint32_t rank) const;
    /// Every location of `rank`'s location group in definition order: the main location (the
    /// one locationOfRank() names, which carries the MPI events) first, then the others (the
    /// rank's further threads). Empty when the rank has no location.
    std::vector<const Location*> locationsOfRank(uint32_t rank) const;
    /// Converts a timestamp in ticks to seconds since the trace's global offset.
    double seconds(uint64_t ticks) const {
        return static_cast<double>(static_cast<int64_t>(ticks - clock.globalOffset)) /
               static_cast<double>(clock.ticksPerSecond);
    }
    /// Region name. A reference beyond the regions stands for a program that has no region of
    /// its own (see programRegion()); it is named after the program path's last component.
    /// Otherwise "<region N>" for an unknown reference.
    std::string regionName(uint32_t region) const;
};

} // namespace waitscope::trace
