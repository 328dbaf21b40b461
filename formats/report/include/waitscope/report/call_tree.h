// Region and CallNode: the program side of a report (source regions and the call tree).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace waitscope::report {

/// Index of a region in Report::regions().
using RegionId = std::uint32_t;
/// Index of a call node in Report::callNodes().
using CallNodeId = std::uint32_t;

/// A source code region (function, MPI call, loop, ...).
struct Region {
    std::string name;        ///< e.g. "MPI_Recv"
    std::string mangledName; ///< linker name; empty means "same as name" when written
    std::string file;        ///< CUBE "mod": source file or module, e.g. "MPI"
    int beginLine = -1;      ///< -1 when unknown
    int endLine = -1;        ///< -1 when unknown
    std::string paradigm;    ///< "mpi", "compiler", "user", "measurement", ...
    std::string role;        ///< "function", "barrier", "point2point", "artificial", ...
    std::string url;
    std::string description;
};

/// A call path: the region called, from which parent call node, at which line.
struct CallNode {
    RegionId region = 0;
    std::optional<CallNodeId> parent; ///< nullopt for a root
    std::vector<CallNodeId> children; ///< in definition order
    int line = -1;                    ///< call-site line, -1 when unknown
    std::string file;                 ///< call-site file (CUBE "mod" of a cnode), may be empty
};

} // namespace waitscope::report
