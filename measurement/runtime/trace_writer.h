// Writes the rank's buffered records into the OTF2 archive, and the archive's definitions.
#pragma once

#include "waitscope/base/result.h"
#include "waitscope/measure/definitions.h"

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

/// What rank 0 needs to know about every rank to write the global definitions.
struct RankSummary {
    std::uint64_t events = 0;
    std::uint32_t nodeIndex = 0; ///< index into the node names
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
    DefinitionSet regions;  ///< keys from regionKey()
    DefinitionSet comms;    ///< keys from commKeyBytes(), descriptions from commDescription()
    DefinitionSet contexts; ///< keys from callingContextKey()
    std::uint64_t samplingPeriodNs = 0; ///< the sampling timer's period (0: no sampling)
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
    void write(const std::uint64_t* begin, const std::uint64_t* end) noexcept;

    /// Writes the local definitions: id mappings to global ids and the clock offsets.
    Status writeLocalDefinitions(const std::vector<std::uint32_t>& regionMap,
                                 const std::vector<std::uint32_t>& commMap,
                                 const std::vector<std::uint32_t>& contextMap,
                                 const std::vector<ClockOffset>& offsets);

    /// Writes the global definitions (rank 0 only).
    Status writeGlobalDefinitions(const GlobalDefinitions& defs);

    /// Closes the archive (collective). The event count is valid before this.
    Status close();

    /// Closes only this rank's event file, for a rank that leaves the job alone (MPI_Abort).
    void closeEventsAlone() noexcept;

    std::uint64_t eventsWritten() const;
    /// The time of the last record decoded (the delta base of the next one).
    std::uint64_t decodeTime() const { return m_decodeTime; }
    bool isOpen() const { return m_archive != nullptr; }

private:
    OTF2_Archive* m_archive = nullptr;
    OTF2_EvtWriter* m_events = nullptr;
    int m_rank = 0;
    std::uint64_t m_decodeTime = 0;
    std::string m_directory;
};

/// The global id of communicators' location group in the written definitions.
inline constexpr std::uint32_t kLocationsGroup = 0;

} // namespace waitscope::measure
