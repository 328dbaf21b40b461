// The measurement's configuration: every WAITSCOPE_* environment variable, parsed once at init.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace waitscope::measure {

/// The groups of MPI functions that can be recorded or skipped (WAITSCOPE_MPI_GROUPS).
enum MpiGroup : std::uint32_t {
    kGroupEnv = 1u << 0,     ///< MPI_Init, MPI_Finalize, MPI_Abort, ...
    kGroupP2p = 1u << 1,     ///< point-to-point communication and completion calls
    kGroupColl = 1u << 2,    ///< collective operations, blocking and nonblocking
    kGroupCg = 1u << 3,      ///< communicator and group management
    kGroupTopo = 1u << 4,    ///< process topologies
    kGroupType = 1u << 5,    ///< datatype management
    kGroupMisc = 1u << 6,    ///< everything else (MPI_Wtime, MPI_Get_count, ...)
    kGroupReqTest = 1u << 7, ///< MPI_Test*/MPI_Iprobe calls that complete nothing
    kGroupUser = 1u << 8,    ///< user functions (compiler instrumentation, annotations)
    kGroupIo = 1u << 9,      ///< MPI file I/O (MPI_File_*)
    kGroupRma = 1u << 10,    ///< one-sided communication: windows, synchronization, transfers
    kGroupDefault =
        kGroupEnv | kGroupP2p | kGroupColl | kGroupCg | kGroupTopo | kGroupIo | kGroupRma,
    kGroupAll = 0xffu | kGroupIo | kGroupRma,
};

/// Which clock stamps the events (WAITSCOPE_CLOCK).
enum class ClockKind { Auto, Tsc, Monotonic };

/// The parsed configuration. Values come from the environment; unknown or malformed values
/// produce one warning each (in `warnings`) and keep their default.
struct Config {
    bool enabled = true;                     ///< WAITSCOPE_ENABLE
    bool tracing = true;                     ///< WAITSCOPE_TRACING
    bool profiling = false;                  ///< WAITSCOPE_PROFILING
    std::string experimentDirectory;         ///< WAITSCOPE_EXPERIMENT_DIRECTORY (empty: default)
    bool overwrite = false;                  ///< WAITSCOPE_OVERWRITE
    std::uint64_t totalMemory = 16u << 20;   ///< WAITSCOPE_TOTAL_MEMORY, bytes per rank
    std::uint32_t mpiGroups = kGroupDefault; ///< WAITSCOPE_MPI_GROUPS
    ClockKind clock = ClockKind::Auto;       ///< WAITSCOPE_CLOCK
    bool signalHandlers = true;              ///< WAITSCOPE_SIGNAL_HANDLERS
    bool verbose = false;                    ///< WAITSCOPE_VERBOSE
    bool sampling = false;                   ///< WAITSCOPE_SAMPLING
    std::uint32_t samplingFrequency = 100;   ///< WAITSCOPE_SAMPLING_FREQUENCY, per second
    bool unwindCache = true;                 ///< WAITSCOPE_UNWIND_CACHE
    std::vector<std::string> warnings;       ///< one line per rejected value
};

/// One documented variable, for `waitscope config` and the docs.
struct ConfigVariable {
    const char* name;
    const char* defaultValue;
    const char* validValues;
    const char* description;
};

/// The table of every variable the measurement reads, in a stable order.
const std::vector<ConfigVariable>& configVariables();

/// Parses the configuration from `getenv`. Never fails: bad values become warnings.
Config configFromEnvironment();

/// Parses a memory size such as "16M", "512k", "1G" or "1048576" (bytes); false if malformed.
bool parseMemorySize(const std::string& text, std::uint64_t& bytes);

/// Parses a comma-separated MPI group list ("default", "all", "p2p,coll", "default,-cg");
/// false if a name is unknown (`bad` then names it).
bool parseMpiGroups(const std::string& text, std::uint32_t& groups, std::string& bad);

/// The group list in WAITSCOPE_MPI_GROUPS syntax ("env,p2p,coll,cg,topo").
std::string mpiGroupNames(std::uint32_t groups);

/// The default experiment directory for a program: "waitscope_<exe>_<ranks>".
std::string defaultExperimentDirectory(const std::string& executable, int ranks);

} // namespace waitscope::measure
