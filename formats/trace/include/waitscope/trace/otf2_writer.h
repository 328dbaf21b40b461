// Writing OTF2 archives: the archive's lifecycle, local and global definitions. The writer
// counterpart of otf2_archive.h; each location's events go through Otf2EventWriter.
//
// An archive is written in libotf2's phases: open() (the event files open), the events of each
// location (openEvents() .. closeEvents()), writeLocalDefinitions() once for every location,
// the global definitions (on the archive's root process only), close(). Nothing throws out of
// the writer: lifecycle and definition calls return a Status naming the archive and what
// failed, event calls count what libotf2 refuses (errors()).
#pragma once

#include "waitscope/base/result.h"
#include "waitscope/trace/definitions.h"
#include "waitscope/trace/otf2_event_encoder.h"
#include "waitscope/trace/otf2_event_writer.h"

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <otf2/OTF2_Archive.h>
#include <string>
#include <utility>
#include <vector>

namespace waitscope::trace {

namespace detail {
struct Otf2ChunkPool;
} // namespace detail

/// How an archive is opened.
struct Otf2WriterOptions {
    size_t eventChunkBytes = 1u << 20;
    size_t definitionChunkBytes = 4u << 20;
    /// Event chunk memory held at most (libotf2 flushes chunks to disk when it runs out); 0:
    /// libotf2 allocates as many chunks as it likes.
    size_t eventPoolBytes = 0;
    /// The archive's creator; empty: none recorded.
    std::string creator;
    /// Installs the collective callbacks of an archive that several processes write together
    /// (an MPI job: OTF2_MPI_Archive_SetCollectiveCallbacks); null: this process writes the
    /// archive alone (every location in it).
    OTF2_ErrorCode (*collectives)(OTF2_Archive* archive, void* context) = nullptr;
    void* collectivesContext = nullptr;
};

/// A location's local definitions: mapping tables from its local ids to global ones (entry i:
/// the global id of local id i) and clock offsets. An empty table, or one that maps every id to
/// itself, is not written: the local ids are the global ones.
struct LocalDefinitions {
    std::vector<uint64_t> regions;
    std::vector<uint64_t> comms;
    /// Further communicators (local id, global id), local ids ascending beyond `comms`'s: a
    /// rank's thread contingent, whose local id is fixed before its global one is known. With
    /// any, the communicator mapping is written sparse.
    std::vector<std::pair<uint64_t, uint64_t>> extraComms;
    std::vector<uint64_t> callingContexts;
    std::vector<uint64_t> strings;
    std::vector<uint64_t> rmaWins; ///< RMA windows (OTF2_MAPPING_RMA_WIN)
    std::vector<uint64_t> groups;  ///< groups events name (OTF2_MAPPING_GROUP: RmaGroupSync)
    std::vector<uint64_t> ioHandles;
    /// Global time = local time + offset, measured at `localTime`.
    struct ClockOffset {
        uint64_t localTime = 0;
        int64_t offset = 0;
        double deviation = 0;
    };
    std::vector<ClockOffset> clockOffsets;
};

/// The local definitions of one location.
struct LocationDefinitions {
    uint64_t location = 0;
    LocalDefinitions definitions;
};

/// One OTF2 archive being written (see the phases above). Not copyable; at most one writer
/// writes into a process's archive at a time (libotf2's error callback is per process).
class Otf2Writer {
public:
    Otf2Writer();
    Otf2Writer(const Otf2Writer&) = delete;
    Otf2Writer& operator=(const Otf2Writer&) = delete;
    /// Closes an archive still open (collective when opened with collectives).
    ~Otf2Writer();

    /// Creates `directory`/traces.otf2 and opens its event files. From here on libotf2's errors
    /// are counted (errors()) instead of printed. Fails naming the directory; a half-opened
    /// archive is then abandoned (closing it could crash inside libotf2).
    Status open(const std::string& directory, const Otf2WriterOptions& options = {});

    /// The event writer of `location`; not valid() when libotf2 cannot open it.
    Otf2EventWriter openEvents(uint64_t location) noexcept;
    /// Ends a location's events (invalidates `events`). Returns OTF2_SUCCESS or libotf2's
    /// failure (counted).
    OTF2_ErrorCode closeEvents(Otf2EventWriter& events) noexcept;
    /// The events of `location` encoded by Waitscope itself into the same event file libotf2
    /// would write (otf2_event_encoder.h): the fast way to write many events. Never together
    /// with openEvents() for one location. Not valid() without memory for a chunk; a file that
    /// cannot be created is counted in errors() (the events are then dropped).
    Otf2EventEncoder encodeEvents(uint64_t location) noexcept;
    /// The same before the archive is opened (a program's events encoded while it runs), into
    /// the file `path`, to be renamed to the location's event file (eventFilePath) once the
    /// archive is open: libotf2 refuses to create an archive whose traces directory exists.
    /// Chunks of `chunkBytes` (the archive's event chunk size). Failures are counted in
    /// `errors`; not valid() without memory for a chunk.
    static Otf2EventEncoder encodeEventsBeforeOpen(const std::string& path, uint64_t location,
                                                   size_t chunkBytes,
                                                   Otf2ErrorLog* errors) noexcept;
    /// Where the event file of `location` goes in the archive in `directory`.
    static std::string eventFilePath(const std::string& directory, uint64_t location);
    /// Ends an encoder's events: writes its last chunk and closes its file (invalidates
    /// `events`). Returns OTF2_SUCCESS or the first failure (counted in errors()).
    OTF2_ErrorCode closeEvents(Otf2EventEncoder& events) noexcept;

    /// Closes the event files (every event writer must be closed) and writes the local
    /// definitions of every location: one file each, empty without definitions (readers then
    /// know that no location lacks its tables). Once per archive.
    Status writeLocalDefinitions(const std::vector<LocationDefinitions>& locations);
    /// The same, with the same definitions for each of `locations`.
    Status writeLocalDefinitions(const std::vector<uint64_t>& locations,
                                 const LocalDefinitions& definitions);

    // --- global definitions (the archive's root process, after the local definitions) -------
    // Each call writes the strings it names first, once per archive (string ids count up in
    // the order of first use); ids of everything else are the caller's.

    /// The global id of `text`, written on first use.
    Result<uint32_t> string(const std::string& text);
    Status writeClockProperties(const ClockProperties& clock);
    /// A paradigm definition naming `paradigm` (of the process class, as MPI).
    Status writeParadigm(Paradigm paradigm, const std::string& name);
    Status writeSystemTreeNode(uint32_t id, const SystemTreeNode& node);
    Status writeLocationGroup(uint32_t id, const LocationGroup& group);
    Status writeLocation(const Location& location);
    /// A region; its description is empty. Roles and paradigms Other are written as unknown.
    Status writeRegion(uint32_t id, const Region& region);
    /// A time interrupt generator (the sampling timer) of `periodNs` nanoseconds.
    Status writeSamplingTimer(uint32_t id, const std::string& name, uint64_t periodNs);
    Status writeCallingContext(uint32_t id, const CallingContext& context);
    Status writeGroup(uint32_t id, const Group& group);
    /// A communicator (name, group, parent); `createDestroyEvents`: its CommCreate and
    /// CommDestroy events are in the trace.
    Status writeComm(uint32_t id, const Communicator& comm, bool createDestroyEvents = false);
    /// An RMA window of communicator `comm` whose RmaWinCreate and RmaWinDestroy events are in
    /// the trace (Score-P's flag).
    Status writeRmaWin(uint32_t id, const std::string& name, uint32_t comm);
    /// File I/O: an I/O paradigm (as Score-P's MPI-IO: identified and named `name`), a
    /// regular file in system tree node `scope` (kUndefined: the whole system), and a handle
    /// (its comm kUndefined when it belongs to no communicator).
    Status writeIoParadigm(uint32_t id, const std::string& name);
    Status writeIoFile(uint32_t id, const std::string& name, uint32_t scope = kUndefined);
    Status writeIoHandle(uint32_t id, const IoHandle& handle);
    /// Every global definition of `definitions`: its strings first under their own ids (call it
    /// before any other global definition), then
    /// the clock, system tree, location groups, locations, regions, calling contexts, groups,
    /// communicators and the file I/O definitions (paradigms, files, handles).
    Status writeGlobalDefinitions(const Definitions& definitions);

    /// Closes the archive (collective when opened with collectives) and stops counting
    /// libotf2's errors. Fails naming the directory.
    Status close();
    /// Forgets the archive without closing it: for when not every process could open it
    /// (closing is collective and would wait for them) or it is half open.
    void abandon() noexcept;

    bool isOpen() const noexcept { return m_archive != nullptr; }
    /// libotf2 calls that failed, and errors libotf2 reported, since open().
    const Otf2ErrorLog& errors() const noexcept { return m_errors; }

private:
    Status failed(const std::string& what, OTF2_ErrorCode code) const;
    Status beginLocalDefinitions();
    Status writeLocationDefinitions(uint64_t location, const LocalDefinitions& definitions);
    Status endLocalDefinitions();
    OTF2_GlobalDefWriter* globalWriter();
    /// Writes each text not written yet and stores its id, in order; stops at a failure.
    Status strings(std::initializer_list<std::pair<const std::string*, uint32_t*>> texts);
    Status checked(OTF2_ErrorCode code);
    void stopCountingErrors() noexcept;

    OTF2_Archive* m_archive = nullptr;
    OTF2_GlobalDefWriter* m_global = nullptr;
    std::unique_ptr<detail::Otf2ChunkPool> m_pool;
    std::map<std::string, uint32_t> m_strings; ///< the first id of each string written
    uint32_t m_stringCount = 0;
    Otf2ErrorLog m_errors;
    bool m_countingErrors = false;
    size_t m_eventChunkBytes = 0;
    std::string m_directory;
};

/// OTF2's description of an error code ("No space left on device", ...).
std::string otf2ErrorText(OTF2_ErrorCode code);

} // namespace waitscope::trace
