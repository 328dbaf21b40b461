// SystemNode and CartTopology: the machine side of a report (machines, nodes, processes, threads).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace waitscope::report {

/// Index of a node in Report::systemNodes().
using SystemNodeId = std::uint32_t;
/// Index of a location (thread) in Report::locations(): the column of every severity row.
using LocationId = std::uint32_t;

/// Level of a system-tree node. Only locations hold values; the others sum their locations.
enum class SystemKind {
    Machine,  ///< CUBE systemtreenode of class "machine" (a root)
    Node,     ///< any other CUBE systemtreenode (class "node", ...)
    Process,  ///< CUBE locationgroup (an MPI rank)
    Location, ///< CUBE location (a thread)
};

/// One node of the system tree.
struct SystemNode {
    SystemKind kind = SystemKind::Machine;
    std::string name;
    std::string className; ///< systemtreenode class, e.g. "machine", "node"
    std::string type;      ///< locationgroup/location type, e.g. "process", "thread"
    std::int64_t rank = 0; ///< MPI rank of a process; thread number of a location
    std::optional<SystemNodeId> parent;
    std::vector<SystemNodeId> children;
    /// For kind Location: its column in severity rows.
    LocationId location = 0;
};

/// One dimension of a Cartesian topology.
struct CartDimension {
    std::string name;
    std::int64_t size = 0;
    bool periodic = false;
};

/// A Cartesian topology: a named grid with coordinates per location.
struct CartTopology {
    std::string name;
    std::vector<CartDimension> dimensions;
    /// Coordinates of each placed location, one value per dimension.
    std::vector<std::pair<LocationId, std::vector<std::int64_t>>> coordinates;
};

} // namespace waitscope::report
