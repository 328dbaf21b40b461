// Writes the rank's buffered records into the OTF2 archive, and the archive's definitions:
// the measurement's records and definition sets translated for waitscope::trace's Otf2Writer.
#pragma once

#include "waitscope/base/result.h"
#include "waitscope/measure/definitions.h"
#include "waitscope/trace/otf2_writer.h"

#include <cstdint>
#include <mpi.h>
#include <otf2/otf2.h>
#include <string>
#include <vector>

namespace waitscope::measure {

/// A clock offset measured against rank 0: global time = local time + offset.
struct ClockOffset {
    std::uint64_t localTime = 0;
    std::int64_t offset = 0;
    double deviation = 0;
};

/// A location of a rank besides its main thread's: a sampled thread.
struct ThreadLocation {
    std::uint32_t number = 0; ///< k: the location's id is k << 32 | rank
    std::uint64_t events = 0;
};

/// The OTF2 location id of thread `number` of `rank` (0: the main thread), as Score-P numbers
/// them: the thread in the upper 32 bits, the rank in the lower.
inline std::uint64_t threadLocationId(std::uint32_t number, int rank) {
    return (static_cast<std::uint64_t>(number) << 32) | static_cast<std::uint32_t>(rank);
}

/// What rank 0 needs to know about every rank to write the global definitions.
struct RankSummary {
    std::uint64_t events = 0;
    std::uint32_t nodeIndex = 0;         ///< index into the node names
    std::vector<ThreadLocation> threads; ///< the rank's sampled threads, in creation order
};

/// Everything the global definition file holds, gathered on rank 0.
struct GlobalDefinitions {
    std::uint64_t ticksPerSecond = 0;
    std::uint64_t globalOffset = 0;
    std::uint64_t traceLength = 0;
    std::string programName;
    std::string programPath;
    std::vector<std::string> nodeNames;
    std::vector<RankSummary> ranks;
    DefinitionSet regions;    ///< keys from regionKey()
    DefinitionSet comms;      ///< keys from commKeyBytes(), descriptions from commDescription()
    DefinitionSet contexts;   ///< keys from callingContextKey()
    DefinitionSet rmaWindows; ///< keys from rmaWindowKey(), descriptions their names
    DefinitionSet rmaGroups;  ///< keys from rmaGroupKey(): written after the communicators' groups
    DefinitionSet ioHandles;  ///< keys from ioHandleKey()
    std::uint64_t samplingPeriodNs = 0; ///< the sampling timer's period (0: no sampling)
};

/// The parent of each unified calling context (keys from callingContextKey(): a parent's key
/// is a prefix of its children's), kNoContext for the outermost ones.
std::vector<std::uint32_t> contextParents(const DefinitionSet& contexts);

/// A location's calling-context state while its records are written: the context of its last
/// calling-context record, for the unwind distance of the next one.
struct UnwindState {
    /// The calling-context tree (each id's parent, kNoContext for a root); null: the running
    /// measurement's definitions (local ids).
    const std::vector<std::uint32_t>* parents = nullptr;
    std::uint32_t previous = kNoContext;
    std::uint32_t parentOf(std::uint32_t context) const noexcept;
};

/// One rank's OTF2 archive handle: event writer, local and global definition writers.
class TraceWriter {
public:
    TraceWriter() = default;
    TraceWriter(const TraceWriter&) = delete;
    TraceWriter& operator=(const TraceWriter&) = delete;
    ~TraceWriter();

    /// Opens `directory`/traces.otf2 collectively on `comm` (PMPI; MPI_COMM_NULL: this process
    /// alone) with an OTF2 memory pool of `poolBytes`. Fails with a message naming the directory.
    Status open(const std::string& directory, int rank, std::size_t poolBytes, MPI_Comm comm);

    /// Translates records [begin, end) into OTF2 events. Never fails; OTF2 errors are counted.
    /// Returns where the whole records end (`end` unless the last one is cut or damaged).
    const std::uint64_t* write(const std::uint64_t* begin, const std::uint64_t* end) noexcept;

    /// Translates records while the program runs, before the archive is open: on the spill
    /// writer's thread, or the program's when it writes a chunk itself (one chunk at a time, in
    /// order). The first call creates the event file of `rank` as `path` (false, and nothing
    /// translated, when it cannot: finalize then translates everything); `parents` is the
    /// calling-context tree as it was when the records were handed over. OTF2 errors are
    /// counted at finalize. open() links the file into the archive (or moves it there) and
    /// goes on writing it.
    bool encodeDuringRun(const std::string& path, int rank, const std::uint64_t* begin,
                         const std::uint64_t* end,
                         const std::vector<std::uint32_t>* parents) noexcept;

    /// Writes the events translated during the run so far into their file (the current chunk's
    /// part too: Otf2EventEncoder::writePending), so that a rank killed afterwards leaves them;
    /// `fileBytes` the file's bytes that hold them, `chunkBytes` its chunk size. False when
    /// there is no such file or a write failed. The same thread as encodeDuringRun.
    bool writeRunEvents(std::uint64_t& fileBytes, std::uint64_t& chunkBytes) noexcept;

    /// The calling-context tree the records name (each id's parent), when it is not the
    /// running measurement's: `waitscope recover` writes global ids. Kept by reference.
    void setContextParents(const std::vector<std::uint32_t>* parents) noexcept {
        m_unwind.parents = parents;
    }

    /// Ends the current rank's event stream and starts the one of `rank` in the same archive
    /// (an archive opened with MPI_COMM_NULL that holds every rank: `waitscope recover`).
    /// Returns the events written for the previous rank. OTF2 errors are counted.
    std::uint64_t beginRank(int rank) noexcept;

    /// Translates the whole record stream of sampled thread `number` into the events of its
    /// own location (threadLocationId) and closes its event file. Call after the main
    /// location's last write() (its event file is closed first) and before
    /// writeLocalDefinitions. Never fails; OTF2 errors are counted. Returns the events written.
    std::uint64_t writeThread(std::uint32_t number, const std::uint64_t* begin,
                              const std::uint64_t* end) noexcept;

    /// Writes the local definitions of the rank's main location and of every thread location
    /// written (the same mappings and offsets): id mappings to global ids and clock offsets.
    Status writeLocalDefinitions(const std::vector<std::uint32_t>& regionMap,
                                 const std::vector<std::uint32_t>& commMap,
                                 const std::vector<std::uint32_t>& contextMap,
                                 const std::vector<ClockOffset>& offsets,
                                 const std::vector<std::uint32_t>& rmaWindowMap = {},
                                 const std::vector<std::uint32_t>& rmaGroupMap = {},
                                 const std::vector<std::uint32_t>& ioHandleMap = {});

    /// The global id of the rank's thread contingent (threadContingentId), for the mapping of
    /// kThreadContingentLocal written by writeLocalDefinitions; unset: none is mapped.
    void setThreadContingent(std::uint32_t global) noexcept { m_threadContingent = global; }

    /// Writes the global definitions (rank 0 only).
    Status writeGlobalDefinitions(const GlobalDefinitions& defs);

    /// Closes the archive (collective). The event count is valid before this.
    Status close();

    /// Forgets the archive without closing it: for when not every rank could open it (closing
    /// is collective and would wait for them) or it is half open (closing could crash).
    void abandon() noexcept;

    /// Closes only this rank's event file, for a rank that leaves the job alone (MPI_Abort).
    void closeEventsAlone() noexcept;

    std::uint64_t eventsWritten() const;
    /// The time of the last record decoded (the delta base of the next one).
    std::uint64_t decodeTime() const { return m_decodeTime; }
    bool isOpen() const { return m_archive.isOpen(); }

private:
    /// Adds the archive's new OTF2 errors to the rank's diagnostics.
    void countErrors() noexcept;
    Status writeGlobalDefinitionRecords(const GlobalDefinitions& defs);

    trace::Otf2Writer m_archive;
    trace::Otf2EventEncoder m_events;     ///< the main location's (encoded by us: a tight loop)
    std::uint64_t m_countedErrors = 0;    ///< of m_archive's, already in the diagnostics
    trace::Otf2ErrorLog m_runErrors;      ///< of the events encoded during the run
    std::uint64_t m_countedRunErrors = 0; ///< of m_runErrors, already in the diagnostics
    bool m_runEncodingFailed = false;     ///< the event file could not be created in the run
    std::string m_runPath;                ///< where the events encoded in the run are
    std::uint64_t m_mainEvents = 0;       ///< the main location's events, once its writer closed
    std::vector<std::uint64_t> m_threadLocations; ///< written by writeThread
    std::vector<std::uint64_t> m_earlierRanks;    ///< written before beginRank
    int m_rank = 0;
    std::uint64_t m_decodeTime = 0;
    UnwindState m_unwind;                           ///< the main location's
    std::uint32_t m_threadContingent = 0xFFFFFFFFu; ///< its global id; all ones: none
    std::string m_directory;
};

/// The first error an OTF2 call reported in this process (OTF2_SUCCESS: none yet), for the
/// rank's status: with OTF2_ERROR_ENOSPC the disk was full.
OTF2_ErrorCode firstOtf2Error() noexcept;

/// The global id of communicators' location group in the written definitions.
inline constexpr std::uint32_t kLocationsGroup = 0;

/// The local communicator id of the rank's thread contingent (OTF2's communicator of the POSIX
/// threads that create and join one another, one per rank), which the thread order records
/// name: fixed, since records are translated while the program runs; finalize maps it to
/// threadContingentId(). Far beyond the MPI communicators' local ids.
inline constexpr std::uint32_t kThreadContingentLocal = (1u << 24) - 1;
/// The global id of rank `rank`'s thread contingent: after the job's `comms` communicators.
inline std::uint32_t threadContingentId(std::size_t comms, int rank) {
    return static_cast<std::uint32_t>(comms) + static_cast<std::uint32_t>(rank);
}
/// The global id of the first MPI group of one-sided synchronization (rmaGroups): after the
/// locations group and the one group of each of the `comms` communicators.
inline std::uint32_t firstRmaGroupId(std::size_t comms) {
    return kLocationsGroup + 1 + static_cast<std::uint32_t>(comms);
}

} // namespace waitscope::measure
