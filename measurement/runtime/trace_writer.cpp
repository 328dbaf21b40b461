// Writes OTF2 through waitscope::trace's Otf2Writer: record translation, the rank's local and
// the job's global definitions.
#include "trace_writer.h"

#include "waitscope/measure/event_buffer.h"
#include "waitscope/measure/runtime.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <mpi.h>
#include <unistd.h>

#define OTF2_MPI_USE_PMPI
#include <otf2/OTF2_MPI_Collectives.h>

namespace waitscope::measure {

static_assert(static_cast<int>(Paradigm::Mpi) == OTF2_PARADIGM_MPI);
static_assert(static_cast<int>(Paradigm::MeasurementSystem) == OTF2_PARADIGM_MEASUREMENT_SYSTEM);
static_assert(static_cast<int>(Paradigm::Compiler) == OTF2_PARADIGM_COMPILER);
static_assert(static_cast<int>(Paradigm::Sampling) == OTF2_PARADIGM_SAMPLING);
static_assert(static_cast<int>(RegionRole::PointToPoint) == OTF2_REGION_ROLE_POINT2POINT);
static_assert(static_cast<int>(RegionRole::FileIoMetadata) == OTF2_REGION_ROLE_FILE_IO_METADATA);

namespace {

OTF2_ErrorCode g_firstError = OTF2_SUCCESS;

/// The archive's event chunk size (libotf2's files and ours alike).
constexpr std::size_t kEventChunkBytes = 1u << 20;

/// The definitions' chunk size: libotf2's smallest (256 KiB). libotf2 touches a whole chunk of
/// memory for each definition file it writes, and a reader allocates one for each it reads: at
/// its default of 4 MiB that was 1,024 page faults, about 2.7 ms of CPU per rank and as much
/// again on rank 0 for the global definitions, for files of a few hundred bytes (issue 21).
/// Larger definitions take several chunks.
constexpr std::size_t kDefinitionChunkBytes = OTF2_CHUNK_SIZE_MIN;

// An MPI job writes one archive together: libotf2's collectives over PMPI on MPI_COMM_WORLD.
OTF2_ErrorCode useMpiCollectives(OTF2_Archive* archive, void*) {
    return OTF2_MPI_Archive_SetCollectiveCallbacks(archive, MPI_COMM_WORLD, MPI_COMM_NULL);
}

/// The unwind distance OTF2 gives a calling-context record (see OTF2's CallingContext
/// definition): one more than the number of nodes of the context's path newly entered since
/// the location's previous calling-context record, so 1 when the context was already on the
/// path (regions below it left) and its depth + 1 after a leave of the whole path. Scalasca
/// rebuilds the call stack from it; 0 ("nothing changed") made SCOUT walk past the root.
std::uint32_t unwindDistance(const UnwindState& state, std::uint32_t context) noexcept {
    constexpr std::size_t kMaxDepth = 256;
    std::uint32_t previousPath[kMaxDepth];
    std::size_t depth = 0;
    for (std::uint32_t c = state.previous; c != kNoContext && depth < kMaxDepth;
         c = state.parentOf(c))
        previousPath[depth++] = c;
    std::uint32_t distance = 1;
    for (std::uint32_t c = context; c != kNoContext && distance <= kMaxDepth;
         c = state.parentOf(c)) {
        if (std::find(previousPath, previousPath + depth, c) != previousPath + depth)
            return distance;
        ++distance;
    }
    return distance;
}

/// The words a record of `kind` takes.
constexpr std::ptrdiff_t recordWords(EventKind kind) {
    return 1 + kExtraWords[static_cast<std::uint32_t>(kind)];
}
/// The most words a record takes (a TimeBase apart).
constexpr std::ptrdiff_t kLongestRecord = 5;

/// Translates records [begin, end) into events of `encoder`; `decodeTime` carries the delta
/// base, `unwind` the location's last calling context. Returns where the whole records end (a
/// record cut by `end` or damaged ends the walk, as RecordCursor does). One tight loop:
/// - the encoder's position and the delta base are locals (a Run and `time`), which the compiler
///   keeps in registers; stored where the caller sees them, each written byte could alias them;
/// - each kind's case moves on by the kind's constant size, so that the next record's address
///   does not wait for the load of this one's header and a size table (the chain from one
///   record to the next is then a predicted jump, not two loads);
/// - every call in it is inlined (flatten): one left out would take the Run's address, out of
///   the registers; GCC's pairing of its fields into vector registers is off (no-tree-slp: it
///   cost a third more time).
[[gnu::flatten, gnu::optimize("no-tree-slp-vectorize")]] const std::uint64_t*
translate(trace::Otf2EventEncoder& encoder, const std::uint64_t* begin, const std::uint64_t* end,
          std::uint64_t& decodeTime, UnwindState& unwind) noexcept {
    trace::Otf2EventEncoder::Run w(encoder);
    std::uint64_t time = decodeTime;
    auto comm = [](std::uint64_t word) { return static_cast<uint32_t>(word); };
    auto high = [](std::uint64_t word) { return static_cast<uint32_t>(word >> 32); };
    auto op = [](std::uint32_t a) { return static_cast<trace::CollectiveOp>(a); };
    const std::uint64_t* p = begin;
    while (p < end) {
        const std::uint64_t word = p[0];
        const auto kind = static_cast<EventKind>(word & 0x3f);
        if (kind >= EventKind::Count)
            break;
        // Only near the end is the record's size looked up: it may be cut there.
        if (end - p < kLongestRecord && end - p < recordWords(kind))
            break;
        const std::uint64_t* const x = p + 1;
        const std::uint32_t a = static_cast<std::uint32_t>(word >> 6) & kOperandMask;
        time += word >> 32;
        const std::uint64_t t = time;
        switch (kind) {
        case EventKind::Enter:
            p += recordWords(EventKind::Enter);
            w.enter(t, a);
            break;
        case EventKind::Leave:
            p += recordWords(EventKind::Leave);
            w.leave(t, a);
            break;
        case EventKind::MpiSend:
            p += recordWords(EventKind::MpiSend);
            w.mpiSend(t, a, comm(x[0]), high(x[0]), x[1]);
            break;
        case EventKind::MpiIsend:
            p += recordWords(EventKind::MpiIsend);
            w.mpiIsend(t, a, comm(x[0]), high(x[0]), x[1], x[2]);
            break;
        case EventKind::MpiIsendComplete:
            p += recordWords(EventKind::MpiIsendComplete);
            w.mpiIsendComplete(t, x[0]);
            break;
        case EventKind::MpiIrecvRequest:
            p += recordWords(EventKind::MpiIrecvRequest);
            w.mpiIrecvRequest(t, x[0]);
            break;
        case EventKind::MpiRecv:
            p += recordWords(EventKind::MpiRecv);
            w.mpiRecv(t, a, comm(x[0]), high(x[0]), x[1]);
            break;
        case EventKind::MpiIrecv:
            p += recordWords(EventKind::MpiIrecv);
            w.mpiIrecv(t, a, comm(x[0]), high(x[0]), x[1], x[2]);
            break;
        case EventKind::MpiRequestTest:
            p += recordWords(EventKind::MpiRequestTest);
            w.mpiRequestTest(t, x[0]);
            break;
        case EventKind::MpiRequestCancelled:
            p += recordWords(EventKind::MpiRequestCancelled);
            w.mpiRequestCancelled(t, x[0]);
            break;
        case EventKind::MpiCollectiveBegin:
            p += recordWords(EventKind::MpiCollectiveBegin);
            w.mpiCollectiveBegin(t);
            break;
        case EventKind::MpiCollectiveEnd:
            p += recordWords(EventKind::MpiCollectiveEnd);
            w.mpiCollectiveEnd(t, op(a), comm(x[0]), high(x[0]), comm(x[1]), high(x[1]));
            break;
        case EventKind::MpiCollectiveEndLarge:
            p += recordWords(EventKind::MpiCollectiveEndLarge);
            w.mpiCollectiveEnd(t, op(a), comm(x[0]), high(x[0]), x[1], x[2]);
            break;
        case EventKind::NbCollRequest:
            p += recordWords(EventKind::NbCollRequest);
            w.nonBlockingCollectiveRequest(t, x[0]);
            break;
        case EventKind::NbCollComplete:
            p += recordWords(EventKind::NbCollComplete);
            w.nonBlockingCollectiveComplete(t, op(a), comm(x[0]), high(x[0]), x[1], x[2], x[3]);
            break;
        case EventKind::CommCreate:
            p += recordWords(EventKind::CommCreate);
            w.commCreate(t, a);
            break;
        case EventKind::CommDestroy:
            p += recordWords(EventKind::CommDestroy);
            w.commDestroy(t, a);
            break;
        case EventKind::ProgramBegin:
            p += recordWords(EventKind::ProgramBegin);
            // The program's name is global string 0 (see writeGlobalDefinitions).
            w.programBegin(t, 0);
            break;
        case EventKind::ProgramEnd:
            p += recordWords(EventKind::ProgramEnd);
            w.programEnd(t,
                         a == kUnknownExit ? trace::kUnknownExitStatus : static_cast<int64_t>(a));
            break;
        case EventKind::CallingContextEnter:
            p += recordWords(EventKind::CallingContextEnter);
            w.callingContextEnter(t, a, unwindDistance(unwind, a));
            unwind.previous = a;
            break;
        case EventKind::CallingContextLeave:
            p += recordWords(EventKind::CallingContextLeave);
            w.callingContextLeave(t, a);
            unwind.previous = unwind.parentOf(a);
            break;
        case EventKind::CallingContextSample:
            p += recordWords(EventKind::CallingContextSample);
            // Interrupt generator 0 is the sampling timer (see writeGlobalDefinitions).
            w.callingContextSample(t, a, unwindDistance(unwind, a), 0);
            unwind.previous = a;
            break;
        case EventKind::RmaWinCreate:
            p += recordWords(EventKind::RmaWinCreate);
            w.rmaWinCreate(t, a);
            break;
        case EventKind::RmaWinDestroy:
            p += recordWords(EventKind::RmaWinDestroy);
            w.rmaWinDestroy(t, a);
            break;
        case EventKind::RmaCollectiveBegin:
            p += recordWords(EventKind::RmaCollectiveBegin);
            w.rmaCollectiveBegin(t);
            break;
        case EventKind::RmaCollectiveEnd:
            p += recordWords(EventKind::RmaCollectiveEnd);
            w.rmaCollectiveEnd(t, op(a & 0xff), a >> 8, comm(x[0]), high(x[0]), x[1], x[2]);
            break;
        case EventKind::RmaGroupSync:
            p += recordWords(EventKind::RmaGroupSync);
            w.rmaGroupSync(t, a, comm(x[0]), high(x[0]));
            break;
        case EventKind::RmaRequestLock:
            p += recordWords(EventKind::RmaRequestLock);
            w.rmaRequestLock(t, comm(x[0]), high(x[0]), x[1], static_cast<uint8_t>(a));
            break;
        case EventKind::RmaReleaseLock:
            p += recordWords(EventKind::RmaReleaseLock);
            w.rmaReleaseLock(t, comm(x[0]), high(x[0]), x[1]);
            break;
        case EventKind::RmaPut:
            p += recordWords(EventKind::RmaPut);
            w.rmaPut(t, comm(x[0]), high(x[0]), x[1], x[2]);
            break;
        case EventKind::RmaGet:
            p += recordWords(EventKind::RmaGet);
            w.rmaGet(t, comm(x[0]), high(x[0]), x[1], x[2]);
            break;
        case EventKind::RmaAtomic:
            p += recordWords(EventKind::RmaAtomic);
            w.rmaAtomic(t, comm(x[0]), high(x[0]), static_cast<uint8_t>(a), x[1], x[2], x[3]);
            break;
        case EventKind::RmaOpCompleteNonBlocking:
            p += recordWords(EventKind::RmaOpCompleteNonBlocking);
            w.rmaOpCompleteNonBlocking(t, comm(x[0]), x[1]);
            break;
        case EventKind::RmaOpCompleteRemote:
            p += recordWords(EventKind::RmaOpCompleteRemote);
            w.rmaOpCompleteRemote(t, comm(x[0]), x[1]);
            break;
        case EventKind::IoCreateHandle:
            p += recordWords(EventKind::IoCreateHandle);
            w.ioCreateHandle(t, a, static_cast<std::uint8_t>(x[0]),
                             static_cast<std::uint32_t>(x[0] >> 8) & 0xFFFFFFu, high(x[0]));
            break;
        case EventKind::IoDestroyHandle:
            p += recordWords(EventKind::IoDestroyHandle);
            w.ioDestroyHandle(t, a);
            break;
        case EventKind::IoOperationBegin:
            p += recordWords(EventKind::IoOperationBegin);
            w.ioOperationBegin(t, a, static_cast<std::uint8_t>(x[0]),
                               static_cast<std::uint32_t>(x[0] >> 8), x[1], x[2]);
            break;
        case EventKind::IoOperationIssued:
            p += recordWords(EventKind::IoOperationIssued);
            w.ioOperationIssued(t, a, x[0]);
            break;
        case EventKind::IoOperationComplete:
            p += recordWords(EventKind::IoOperationComplete);
            w.ioOperationComplete(t, a, x[0], x[1]);
            break;
        case EventKind::IoSeek:
            p += recordWords(EventKind::IoSeek);
            w.ioSeek(t, a, static_cast<int64_t>(x[0]), static_cast<std::uint8_t>(x[2]), x[1]);
            break;
        case EventKind::ThreadCreate:
            p += recordWords(EventKind::ThreadCreate);
            w.threadCreate(t, kThreadContingentLocal, a);
            break;
        case EventKind::ThreadBegin:
            p += recordWords(EventKind::ThreadBegin);
            w.threadBegin(t, kThreadContingentLocal, a);
            break;
        case EventKind::ThreadWait:
            p += recordWords(EventKind::ThreadWait);
            w.threadWait(t, kThreadContingentLocal, a);
            break;
        case EventKind::ThreadEnd:
            p += recordWords(EventKind::ThreadEnd);
            w.threadEnd(t, kThreadContingentLocal, a);
            break;
        case EventKind::TimeBase: // the absolute time of the next record
            p += recordWords(EventKind::TimeBase);
            time = x[0];
            break;
        case EventKind::Count: // left the loop above
            break;
        }
    }
    decodeTime = time;
    return p;
}

/// The thread contingent of each rank with further threads (the thread order records name it),
/// as OTF2 defines one for POSIX threads: a locations group of the pthread paradigm with the
/// locations of every such rank (`group`), and per rank a communicator (threadContingentId
/// after the `comms` communicators) of a group listing the rank's locations in it.
Status writeThreadContingents(trace::Otf2Writer& w, const GlobalDefinitions& d, std::uint32_t group,
                              std::size_t comms) {
    std::vector<uint64_t> locations;
    for (size_t r = 0; r < d.ranks.size(); ++r) {
        if (d.ranks[r].threads.empty())
            continue;
        locations.push_back(threadLocationId(0, static_cast<int>(r)));
        for (const ThreadLocation& t : d.ranks[r].threads)
            locations.push_back(threadLocationId(t.number, static_cast<int>(r)));
    }
    if (locations.empty())
        return Status::success();
    Status st =
        w.writeGroup(group, {"", trace::GroupKind::Locations, trace::Paradigm::Pthread, locations});
    size_t first = 0;
    for (size_t r = 0; r < d.ranks.size() && st; ++r) {
        if (d.ranks[r].threads.empty())
            continue;
        std::vector<uint64_t> members(d.ranks[r].threads.size() + 1);
        for (size_t k = 0; k < members.size(); ++k)
            members[k] = first + k;
        first += members.size();
        const std::uint32_t contingent = threadContingentId(comms, static_cast<int>(r));
        st = w.writeGroup(group + 1 + static_cast<std::uint32_t>(r),
                          {"", trace::GroupKind::CommGroup, trace::Paradigm::Pthread, members});
        trace::Communicator out;
        out.name = "Pthread threads of rank " + std::to_string(r);
        out.group = group + 1 + static_cast<std::uint32_t>(r);
        if (st)
            st = w.writeComm(contingent, out);
    }
    return st;
}

std::vector<std::uint64_t> widen(const std::vector<std::uint32_t>& map) {
    return std::vector<std::uint64_t>(map.begin(), map.end());
}

} // namespace

OTF2_ErrorCode firstOtf2Error() noexcept {
    return g_firstError;
}

TraceWriter::~TraceWriter() = default;

void TraceWriter::countErrors() noexcept {
    const trace::Otf2ErrorLog& errors = m_archive.errors();
    if (m_runErrors.count > m_countedRunErrors) {
        g_diagnostics.otf2Errors += m_runErrors.count - m_countedRunErrors;
        m_countedRunErrors = m_runErrors.count;
        if (g_firstError == OTF2_SUCCESS)
            g_firstError = m_runErrors.first;
    }
    if (errors.count > m_countedErrors) {
        g_diagnostics.otf2Errors += errors.count - m_countedErrors;
        m_countedErrors = errors.count;
        if (g_firstError == OTF2_SUCCESS)
            g_firstError = errors.first;
    }
}

bool TraceWriter::encodeDuringRun(const std::string& path, int rank, const std::uint64_t* begin,
                                  const std::uint64_t* end,
                                  const std::vector<std::uint32_t>* parents) noexcept {
    if (m_runEncodingFailed)
        return false;
    if (!m_events.valid()) {
        try {
            m_runPath = path;
            m_events = trace::Otf2Writer::encodeEventsBeforeOpen(
                path, static_cast<std::uint64_t>(rank), kEventChunkBytes, &m_runErrors);
        } catch (...) {
        }
        // A file that cannot be created counts an error at once: finalize writes the events.
        if (!m_events.valid() || m_runErrors.count > 0) {
            m_events = trace::Otf2EventEncoder();
            m_runErrors = trace::Otf2ErrorLog();
            m_runEncodingFailed = true;
            return false;
        }
        m_rank = rank;
    }
    m_unwind.parents = parents;
    translate(m_events, begin, end, m_decodeTime, m_unwind);
    m_unwind.parents = nullptr; // the running measurement's own tree from here on
    return true;
}

bool TraceWriter::writeRunEvents(std::uint64_t& fileBytes, std::uint64_t& chunkBytes) noexcept {
    if (m_runEncodingFailed || !m_events.valid() || !m_events.writePending())
        return false;
    fileBytes = m_events.fileBytes();
    chunkBytes = kEventChunkBytes;
    return true;
}

Status TraceWriter::open(const std::string& directory, int rank, std::size_t poolBytes,
                         MPI_Comm comm) {
    m_rank = rank;
    m_directory = directory;
    trace::Otf2WriterOptions options;
    options.eventChunkBytes = kEventChunkBytes;
    options.definitionChunkBytes = kDefinitionChunkBytes;
    options.eventPoolBytes = std::max<std::size_t>(poolBytes, 1); // at least the 2-chunk pool
    options.creator = "Waitscope";
    if (comm != MPI_COMM_NULL)
        options.collectives = useMpiCollectives;
    Status opened = m_archive.open(directory, options);
    countErrors();
    if (!opened)
        return opened;
    if (m_events.valid()) {
        // Encoded during the run: the file goes into the archive and goes on. Linked, so that
        // its name beside the records stays for `waitscope recover` until the rank completes
        // (finish_run.cpp removes it then); moved where the file system has no links.
        const std::string path =
            trace::Otf2Writer::eventFilePath(directory, static_cast<std::uint64_t>(rank));
        ::unlink(path.c_str()); // nothing of this archive's yet: a leftover of an earlier one
        if (::link(m_runPath.c_str(), path.c_str()) != 0 &&
            ::rename(m_runPath.c_str(), path.c_str()) != 0)
            return Error("cannot move '" + m_runPath + "' to '" + path +
                         "': " + std::strerror(errno));
        return Status::success();
    }
    m_events = m_archive.encodeEvents(static_cast<std::uint64_t>(rank));
    if (!m_events.valid())
        return Error("cannot open the event file of rank " + std::to_string(rank) + " in '" +
                     directory + "'");
    return Status::success();
}

const std::uint64_t* TraceWriter::write(const std::uint64_t* begin,
                                        const std::uint64_t* end) noexcept {
    const std::uint64_t* consumed = end;
    if (m_events.valid())
        consumed = translate(m_events, begin, end, m_decodeTime, m_unwind);
    countErrors();
    return consumed;
}

std::uint64_t TraceWriter::beginRank(int rank) noexcept {
    std::uint64_t events = eventsWritten();
    if (!m_archive.isOpen())
        return events;
    if (m_events.valid())
        m_archive.closeEvents(m_events);
    m_earlierRanks.push_back(static_cast<std::uint64_t>(m_rank));
    m_rank = rank;
    m_decodeTime = 0;
    m_unwind.previous = kNoContext;
    m_mainEvents = 0;
    m_events = m_archive.encodeEvents(static_cast<std::uint64_t>(rank));
    if (!m_events.valid())
        ++g_diagnostics.otf2Errors;
    countErrors();
    return events;
}

std::uint64_t TraceWriter::writeThread(std::uint32_t number, const std::uint64_t* begin,
                                       const std::uint64_t* end) noexcept {
    if (!m_archive.isOpen())
        return 0;
    // The chunk pool serves one event buffer at a time: the main location's is done first.
    if (m_events.valid()) {
        m_mainEvents = eventsWritten();
        m_archive.closeEvents(m_events);
    }
    const std::uint64_t location = threadLocationId(number, m_rank);
    trace::Otf2EventEncoder w = m_archive.encodeEvents(location);
    if (!w.valid()) {
        ++g_diagnostics.otf2Errors;
        countErrors();
        return 0;
    }
    std::uint64_t decodeTime = 0;
    UnwindState unwind;
    unwind.parents = m_unwind.parents;
    translate(w, begin, end, decodeTime, unwind);
    const std::uint64_t events = w.eventCount();
    m_archive.closeEvents(w);
    m_threadLocations.push_back(location);
    countErrors();
    return events;
}

std::vector<std::uint32_t> contextParents(const DefinitionSet& contexts) {
    std::vector<std::uint32_t> parents(contexts.entries.size(), kNoContext);
    for (size_t i = 0; i < contexts.entries.size(); ++i) {
        const std::string& key = contexts.entries[i].first;
        std::vector<std::string> path = splitCallingContextKey(key);
        if (path.size() < 2)
            continue;
        const long parent = contexts.find(key.substr(0, key.size() - 4 - path.back().size()));
        if (parent >= 0)
            parents[i] = static_cast<std::uint32_t>(parent);
    }
    return parents;
}

std::uint32_t UnwindState::parentOf(std::uint32_t context) const noexcept {
    if (parents)
        return context < parents->size() ? (*parents)[context] : kNoContext;
    const std::vector<CallingContextDefinition>& contexts = definitions().callingContexts();
    return context < contexts.size() ? contexts[context].parent : kNoContext;
}

std::uint64_t TraceWriter::eventsWritten() const {
    return m_events.valid() ? m_events.eventCount() : m_mainEvents;
}

Status TraceWriter::writeLocalDefinitions(const std::vector<std::uint32_t>& regionMap,
                                          const std::vector<std::uint32_t>& commMap,
                                          const std::vector<std::uint32_t>& contextMap,
                                          const std::vector<ClockOffset>& offsets,
                                          const std::vector<std::uint32_t>& rmaWindowMap,
                                          const std::vector<std::uint32_t>& rmaGroupMap,
                                          const std::vector<std::uint32_t>& ioHandleMap) {
    if (m_events.valid()) {
        OTF2_ErrorCode rc = m_archive.closeEvents(m_events);
        countErrors();
        if (rc != OTF2_SUCCESS)
            return Error("cannot close the event file of rank " + std::to_string(m_rank) + ": " +
                         trace::otf2ErrorText(rc));
    }
    // Every location of the rank uses the rank's local ids: the same tables for each.
    std::vector<std::uint64_t> locations = {static_cast<std::uint64_t>(m_rank)};
    locations.insert(locations.end(), m_threadLocations.begin(), m_threadLocations.end());
    locations.insert(locations.end(), m_earlierRanks.begin(), m_earlierRanks.end());
    trace::LocalDefinitions local;
    local.regions = widen(regionMap);
    local.comms = widen(commMap);
    if (m_threadContingent != 0xFFFFFFFFu)
        local.extraComms.emplace_back(kThreadContingentLocal, m_threadContingent);
    local.callingContexts = widen(contextMap);
    local.rmaWins = widen(rmaWindowMap);
    local.groups = widen(rmaGroupMap);
    local.ioHandles = widen(ioHandleMap);
    for (const ClockOffset& o : offsets)
        local.clockOffsets.push_back({o.localTime, o.offset, o.deviation});
    Status written = m_archive.writeLocalDefinitions(locations, local);
    countErrors();
    return written;
}

Status TraceWriter::writeGlobalDefinitions(const GlobalDefinitions& d) {
    Status status = writeGlobalDefinitionRecords(d);
    countErrors();
    return status;
}

Status TraceWriter::writeGlobalDefinitionRecords(const GlobalDefinitions& d) {
    trace::Otf2Writer& w = m_archive;
    // String 0: the ProgramBegin events name it.
    if (Result<std::uint32_t> program = w.string(d.programPath); !program)
        return program.error();
    Status st = w.writeClockProperties({d.ticksPerSecond, d.globalOffset, d.traceLength});
    if (st)
        st = w.writeParadigm(trace::Paradigm::Mpi, "MPI");
    // OpenMP (measurement/openmp): its paradigm when any of its regions was recorded.
    bool openmp = false;
    for (size_t i = 0; i < d.regions.entries.size() && !openmp; ++i)
        openmp = regionFromKey(d.regions.entries[i].first).paradigm == Paradigm::OpenMp;
    if (st && openmp)
        st = w.writeParadigm(trace::Paradigm::OpenMp, "OpenMP");
    // System tree: one machine, its nodes, one process per rank, one thread per process.
    if (st)
        st = w.writeSystemTreeNode(0, {"Linux", "machine", trace::kUndefined});
    for (size_t n = 0; n < d.nodeNames.size() && st; ++n)
        st = w.writeSystemTreeNode(static_cast<uint32_t>(n + 1), {d.nodeNames[n], "node", 0});
    const std::string thread = "Master thread";
    if (st) {
        if (Result<std::uint32_t> id = w.string(thread); !id)
            return id.error();
    }
    for (size_t r = 0; r < d.ranks.size() && st; ++r)
        st = w.writeLocationGroup(static_cast<uint32_t>(r), {"MPI Rank " + std::to_string(r), true,
                                                             d.ranks[r].nodeIndex + 1});
    for (size_t r = 0; r < d.ranks.size() && st; ++r)
        st = w.writeLocation({r, thread, static_cast<uint32_t>(r), d.ranks[r].events,
                              trace::LocationType::CpuThread});
    // Sampled threads after every main thread (readers take a group's first location as the
    // rank's main one).
    for (size_t r = 0; r < d.ranks.size() && st; ++r)
        for (const ThreadLocation& t : d.ranks[r].threads)
            if (st)
                st =
                    w.writeLocation({threadLocationId(t.number, static_cast<int>(r)),
                                     "thread " + std::to_string(t.number), static_cast<uint32_t>(r),
                                     t.events, trace::LocationType::CpuThread});
    // Regions, in the order unification gave them their global ids.
    for (size_t i = 0; i < d.regions.entries.size() && st; ++i) {
        RegionDefinition region = regionFromKey(d.regions.entries[i].first);
        trace::Region out;
        out.name = region.name;
        out.canonicalName = region.canonicalName.empty() ? region.name : region.canonicalName;
        out.file = region.file;
        out.beginLine = region.beginLine;
        out.endLine = region.endLine;
        out.role = region.role;
        out.paradigm = region.paradigm;
        st = w.writeRegion(static_cast<uint32_t>(i), out);
    }
    // The program's own region, as Score-P defines it: Scalasca's reader finds the region of a
    // ProgramBegin by its name (the path's last component) and canonical name (the path).
    if (st) {
        const std::string& path = d.programPath;
        trace::Region program;
        program.name = path.substr(path.find_last_of('/') + 1);
        program.canonicalName = path;
        program.role = RegionRole::Artificial;
        program.paradigm = Paradigm::MeasurementSystem;
        st = w.writeRegion(static_cast<uint32_t>(d.regions.entries.size()), program);
    }
    // Calling contexts (sampling, unwinding): a parent's key is a prefix of its children's, so
    // in the sorted set parents come first; a context's region is the last one on its path.
    if (!d.contexts.entries.empty() && st)
        st = w.writeSamplingTimer(0, "sampling timer", d.samplingPeriodNs);
    const std::vector<std::uint32_t> parents = contextParents(d.contexts);
    for (size_t i = 0; i < d.contexts.entries.size() && st; ++i) {
        std::vector<std::string> path = splitCallingContextKey(d.contexts.entries[i].first);
        if (path.empty())
            continue;
        long region = d.regions.find(path.back());
        st = w.writeCallingContext(static_cast<uint32_t>(i),
                                   {region < 0 ? trace::kUndefined : static_cast<uint32_t>(region),
                                    parents[i] == kNoContext ? trace::kUndefined : parents[i]});
    }
    // Groups: 0 lists every location (communicator ranks index it); then one per communicator.
    std::vector<uint64_t> locations(d.ranks.size());
    for (size_t r = 0; r < locations.size(); ++r)
        locations[r] = r;
    if (st)
        st = w.writeGroup(kLocationsGroup,
                          {"", trace::GroupKind::Locations, trace::Paradigm::Mpi, locations});
    // Communicators are written in the order of their global ids, which put parents first
    // (commIdsParentsFirst: every rank maps its local ids the same way).
    std::vector<CommDefinition> comms;
    std::map<CommKey, uint32_t> commIds;
    const std::vector<std::uint32_t> ids = commIdsParentsFirst(d.comms);
    std::vector<size_t> byId(ids.size());
    for (size_t i = 0; i < d.comms.entries.size(); ++i) {
        comms.push_back(commFromEntry(d.comms.entries[i].first, d.comms.entries[i].second));
        commIds[comms.back().key] = ids[i];
        byId[ids[i]] = i;
    }
    for (size_t id = 0; id < byId.size() && st; ++id) {
        const CommDefinition& comm = comms[byId[id]];
        auto parentIt = commIds.find(comm.parent);
        bool hasParent = parentIt != commIds.end() && parentIt->second < id;
        uint32_t group = kLocationsGroup + 1 + static_cast<uint32_t>(id);
        if (comm.key == kSelfKey) {
            st = w.writeGroup(group, {"", trace::GroupKind::CommSelf, trace::Paradigm::Mpi, {}});
        } else {
            std::vector<uint64_t> members(comm.members.begin(), comm.members.end());
            if (comm.key == kWorldKey)
                members = locations;
            st = w.writeGroup(group,
                              {"", trace::GroupKind::CommGroup, trace::Paradigm::Mpi, members});
        }
        trace::Communicator out;
        out.name = comm.key == kWorldKey  ? "MPI_COMM_WORLD"
                   : comm.key == kSelfKey ? "MPI_COMM_SELF"
                   : comm.name.empty()    ? "Comm " + std::to_string(id)
                                          : comm.name;
        out.group = group;
        out.parent = hasParent ? parentIt->second : trace::kUndefined;
        if (st)
            st = w.writeComm(static_cast<uint32_t>(id), out, true);
    }
    // One-sided communication: the groups of MPI_Win_post/MPI_Win_start (members are world
    // ranks, positions in the locations group), then the windows with their communicators.
    const std::uint32_t firstGroup = firstRmaGroupId(byId.size());
    for (size_t i = 0; i < d.rmaGroups.entries.size() && st; ++i) {
        std::vector<std::uint32_t> members = rmaGroupFromKey(d.rmaGroups.entries[i].first);
        st = w.writeGroup(firstGroup + static_cast<uint32_t>(i),
                          {"", trace::GroupKind::CommGroup, trace::Paradigm::Mpi,
                           std::vector<uint64_t>(members.begin(), members.end())});
    }
    for (size_t i = 0; i < d.rmaWindows.entries.size() && st; ++i) {
        RmaWindowDefinition window =
            rmaWindowFromEntry(d.rmaWindows.entries[i].first, d.rmaWindows.entries[i].second);
        auto comm = commIds.find(window.comm);
        st = w.writeRmaWin(static_cast<uint32_t>(i), window.name,
                           comm == commIds.end() ? trace::kUndefined : comm->second);
    }
    // File I/O (MPI-IO), as Score-P defines it: one paradigm, a regular file per name, a
    // handle per unified handle with its communicator's global id.
    if (!d.ioHandles.entries.empty() && st)
        st = w.writeIoParadigm(0, "MPI-IO");
    std::vector<std::string> files;
    for (size_t i = 0; i < d.ioHandles.entries.size() && st; ++i) {
        const IoHandleDefinition handle = ioHandleFromKey(d.ioHandles.entries[i].first);
        auto file = std::find(files.begin(), files.end(), handle.file);
        if (file == files.end()) {
            st = w.writeIoFile(static_cast<uint32_t>(files.size()), handle.file);
            file = files.insert(files.end(), handle.file);
        }
        const auto comm = commIds.find(handle.comm);
        trace::IoHandle out;
        out.name = handle.file;
        out.file = static_cast<uint32_t>(file - files.begin());
        out.paradigm = 0;
        out.comm = comm == commIds.end() ? trace::kUndefined : comm->second;
        if (st)
            st = w.writeIoHandle(static_cast<uint32_t>(i), out);
    }
    if (st)
        st = writeThreadContingents(
            w, d, firstGroup + static_cast<uint32_t>(d.rmaGroups.entries.size()), byId.size());
    return st;
}

Status TraceWriter::close() {
    Status closed = m_archive.close();
    countErrors();
    return closed;
}

void TraceWriter::abandon() noexcept {
    m_archive.abandon();
    m_events = trace::Otf2EventEncoder();
}

void TraceWriter::closeEventsAlone() noexcept {
    if (m_archive.isOpen() && m_events.valid()) {
        m_archive.closeEvents(m_events);
        countErrors();
    }
}

} // namespace waitscope::measure
