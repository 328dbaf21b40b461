// The runtime profile: a call-path profile per rank built from the record stream, unified
// across ranks at finalize and written as profile.cubex (what Score-P's profiling mode does).
#pragma once

#include "waitscope/base/result.h"
#include "waitscope/measure/definitions.h"

#include <cstdint>
#include <mpi.h>
#include <string>
#include <vector>

namespace waitscope::measure {

class ProfileBuilder;

/// A sampled thread's profile: written as location "thread `number`" of the rank.
struct ThreadProfile {
    std::uint32_t number = 0;
    const ProfileBuilder* profile = nullptr;
};

/// Aggregates records into call-path nodes: visits, inclusive time (sum, min, max per visit),
/// bytes and messages sent and received. Fed every record exactly once, in order.
class ProfileBuilder {
public:
    ProfileBuilder();

    /// Aggregates the records [begin, end). Never fails; unbalanced leaves are counted.
    void consume(const std::uint64_t* begin, const std::uint64_t* end) noexcept;

    /// Closes regions still open at `time` (the end of the run).
    void closeOpenRegions(std::uint64_t time) noexcept;

    /// Unifies call paths across ranks (PMPI on `comm`), gathers the values on rank 0 and
    /// writes `path` there. Collective. `regions` are this rank's local region definitions;
    /// `ticksPerSecond` converts times; `hosts` names each rank's node on rank 0. This builder
    /// is the rank's main thread; `threads` (sampled threads, in creation order) become
    /// further locations of the rank's process.
    Status write(const std::string& path, const std::vector<RegionDefinition>& regions,
                 double ticksPerSecond, MPI_Comm comm, const std::vector<std::string>& hosts,
                 const std::string& programName, const std::vector<ThreadProfile>& threads = {});

    std::size_t nodeCount() const { return m_nodes.size(); }
    std::uint64_t unbalancedLeaves() const { return m_unbalanced; }

private:
    struct Node {
        std::uint32_t parent;
        std::uint32_t region;
        std::uint64_t visits = 0;
        std::uint64_t inclusiveTicks = 0;
        std::uint64_t minTicks = ~0ull;
        std::uint64_t maxTicks = 0;
        std::uint64_t bytesSent = 0;
        std::uint64_t bytesReceived = 0;
        std::uint64_t messagesSent = 0;
        std::uint64_t messagesReceived = 0;
        std::vector<std::uint32_t> children;
    };
    struct Frame {
        std::uint32_t node;
        std::uint64_t enter;
        bool context = false; ///< pushed by a calling-context record, not by Enter
    };

    std::uint32_t child(std::uint32_t parent, std::uint32_t region);
    /// Each node's path key (the root's is empty).
    std::vector<std::string> nodeKeys(const std::vector<RegionDefinition>& regions) const;
    /// Appends this location's block: a row per metric indexed by global path, then the
    /// root's value per metric.
    void appendRows(const std::vector<std::string>& keys, const DefinitionSet& paths,
                    double ticksPerSecond, std::vector<double>& out) const;
    /// Leaves the innermost open node at `time`, adding the visit to it.
    void popFrame(std::uint64_t time) noexcept;
    /// Makes the calling-context frames on top of the stack the path of `context` at `time`.
    void syncContext(std::uint32_t context, std::uint64_t time) noexcept;

    std::vector<Node> m_nodes; ///< node 0 is the artificial root (the program)
    std::vector<Frame> m_stack;
    std::uint64_t m_time = 0;          ///< decoding state of the record stream
    std::uint64_t m_previousTime = 0;  ///< time of the record before the current one
    std::vector<std::uint32_t> m_path; ///< scratch for syncContext
    std::uint64_t m_unbalanced = 0;
};

} // namespace waitscope::measure
