// The rank's local definitions (regions, communicators) and their canonical encodings.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>
#include <waitscope/base/region_role.h>

namespace waitscope::measure {

/// Region roles and paradigms: the project-wide vocabulary (waitscope/base/region_role.h),
/// numerically equal to OTF2's so no translation is needed.
using waitscope::Paradigm;
using waitscope::RegionRole;

struct RegionDefinition {
    std::string name;
    std::string canonicalName;
    std::string file;
    std::uint32_t beginLine = 0;
    std::uint32_t endLine = 0;
    RegionRole role = RegionRole::Function;
    Paradigm paradigm = Paradigm::User;
};

/// Identity of a communicator across ranks: who created it and its creation number there.
/// kWorldKey and kSelfKey name the predefined ones.
using CommKey = std::uint64_t;
inline constexpr CommKey kWorldKey = ~0ull - 1;
inline constexpr CommKey kSelfKey = ~0ull;
inline constexpr CommKey kNoCommKey = ~0ull - 2;
inline CommKey makeCommKey(std::uint32_t creatorWorldRank, std::uint32_t sequence) {
    return (static_cast<std::uint64_t>(creatorWorldRank) << 32) | sequence;
}

struct CommDefinition {
    CommKey key = kNoCommKey;
    CommKey parent = kNoCommKey;
    std::string name;
    std::vector<std::uint32_t> members; ///< world ranks in communicator-rank order
    bool describes = false; ///< this rank holds the full description (rank 0 of the communicator)
};

/// A node of the calling-context tree (sampling and unwinding): a region called from the
/// context `parent` (kNoContext at the top).
struct CallingContextDefinition {
    std::uint32_t region = 0;
    std::uint32_t parent = 0;
};
inline constexpr std::uint32_t kNoContext = ~0u;

/// An MPI window (one-sided communication): identified across ranks by its communicator and
/// the number of windows created on that communicator before it, as Score-P identifies them.
struct RmaWindowDefinition {
    CommKey comm = kNoCommKey;
    std::uint32_t sequence = 0;
    std::string name; ///< "MPI_Win_create window", ... (Score-P's names)
};

/// A file opened through MPI-IO (an OTF2 I/O handle): the file's name, the communicator it was
/// opened on, and how many times this rank opened that file on that communicator before. The
/// open is collective, so every member names the handle alike.
struct IoHandleDefinition {
    std::string file;
    CommKey comm = kNoCommKey;
    std::uint32_t sequence = 0;
};

/// Everything a rank defines while it runs. Ids are dense indices ("local ids") that events
/// use; unification maps them to global ids at finalize.
class Definitions {
public:
    std::uint32_t addRegion(RegionDefinition region);
    /// Replaces region `id` (a region named before its source was known: OpenMP constructs
    /// are named at finalize). Before unification only.
    void setRegion(std::uint32_t id, RegionDefinition region);
    std::uint32_t addComm(CommDefinition comm);
    /// The calling context of `region` called from `parent` (kNoContext: a top-level one),
    /// defined on first use. Not for signal context (it may allocate).
    std::uint32_t callingContext(std::uint32_t region, std::uint32_t parent);

    std::uint32_t addRmaWindow(RmaWindowDefinition window);
    /// The id of the MPI group with `worldRanks` as members (in group order), defined on first
    /// use (the groups of MPI_Win_post and MPI_Win_start).
    std::uint32_t rmaGroup(const std::vector<std::uint32_t>& worldRanks);
    const std::vector<RmaWindowDefinition>& rmaWindows() const { return m_rmaWindows; }
    const std::vector<std::vector<std::uint32_t>>& rmaGroups() const { return m_rmaGroups; }
    /// A new I/O handle for `file` opened on `comm` (its sequence counted here). Not for signal
    /// context.
    std::uint32_t addIoHandle(const std::string& file, CommKey comm);
    const std::vector<IoHandleDefinition>& ioHandles() const { return m_ioHandles; }

    const std::vector<RegionDefinition>& regions() const { return m_regions; }
    const std::vector<CommDefinition>& comms() const { return m_comms; }
    const std::vector<CallingContextDefinition>& callingContexts() const { return m_contexts; }

private:
    std::vector<RegionDefinition> m_regions;
    std::vector<CommDefinition> m_comms;
    std::vector<CallingContextDefinition> m_contexts;
    std::unordered_map<std::uint64_t, std::uint32_t> m_contextIds; ///< by parent << 32 | region
    std::vector<RmaWindowDefinition> m_rmaWindows;
    std::vector<std::vector<std::uint32_t>> m_rmaGroups;
    std::vector<IoHandleDefinition> m_ioHandles;
};

/// A set of definitions keyed by their identity, merged across ranks during unification.
/// The value of an entry holds its description (empty when the key says it all).
struct DefinitionSet {
    std::vector<std::pair<std::string, std::string>> entries; ///< sorted by key, unique

    /// Adds an entry; a later description replaces an empty one.
    void add(std::string key, std::string value);
    /// Merges `other` into this set.
    void merge(const DefinitionSet& other);
    /// Position of `key`, or -1.
    long find(const std::string& key) const;

    std::string serialize() const;
    /// Restores a set written by serialize(); false on damaged input.
    bool deserialize(const std::string& bytes);
};

/// The canonical identity bytes of a region (all its fields).
std::string regionKey(const RegionDefinition& region);
RegionDefinition regionFromKey(const std::string& key);
/// The identity bytes of a communicator (its CommKey) and its description bytes.
std::string commKeyBytes(CommKey key);
/// The identity bytes of a calling context: the region keys on its path, outermost first,
/// each prefixed by its length. A parent's key is a prefix of its children's.
std::string callingContextKey(const Definitions& defs, std::uint32_t context);
/// Splits a calling-context key into its regions' keys, outermost first.
std::vector<std::string> splitCallingContextKey(const std::string& key);
std::string commDescription(const CommDefinition& comm);
CommDefinition commFromEntry(const std::string& key, const std::string& description);
/// The global id of each unified communicator (by its position in `comms`): the unified
/// order, except that a parent comes before every communicator derived from it. Written in
/// id order, the definitions then meet each parent first and their ids count up from 0, as
/// OTF2 readers expect (otf2-print warns about anything else).
std::vector<std::uint32_t> commIdsParentsFirst(const DefinitionSet& comms);
/// The identity bytes of an I/O handle (communicator, file, sequence) and back.
std::string ioHandleKey(const IoHandleDefinition& handle);
IoHandleDefinition ioHandleFromKey(const std::string& key);

/// The identity bytes of a window (its communicator's key bytes, then its sequence number,
/// big-endian: windows sort by communicator, then creation) and its description (its name).
std::string rmaWindowKey(const RmaWindowDefinition& window);
RmaWindowDefinition rmaWindowFromEntry(const std::string& key, const std::string& description);
/// The identity bytes of a group: its members' world ranks.
std::string rmaGroupKey(const std::vector<std::uint32_t>& worldRanks);
std::vector<std::uint32_t> rmaGroupFromKey(const std::string& key);

} // namespace waitscope::measure
