// Writes OTF2: event translation, memory pool and flush callbacks, local and global definitions.
#include "trace_writer.h"

#include "waitscope/measure/event_buffer.h"
#include "waitscope/measure/runtime.h"

#include <algorithm>
#include <cstdarg>
#include <cstdlib>
#include <map>
#include <mpi.h>

#define OTF2_MPI_USE_PMPI
#include <otf2/OTF2_MPI_Collectives.h>

namespace waitscope::measure {

static_assert(static_cast<int>(Paradigm::Mpi) == OTF2_PARADIGM_MPI);
static_assert(static_cast<int>(Paradigm::MeasurementSystem) == OTF2_PARADIGM_MEASUREMENT_SYSTEM);
static_assert(static_cast<int>(Paradigm::Compiler) == OTF2_PARADIGM_COMPILER);
static_assert(static_cast<int>(Paradigm::Sampling) == OTF2_PARADIGM_SAMPLING);
static_assert(static_cast<int>(RegionRole::Point2Point) == OTF2_REGION_ROLE_POINT2POINT);
static_assert(static_cast<int>(RegionRole::FileIoMetadata) == OTF2_REGION_ROLE_FILE_IO_METADATA);

namespace {

// OTF2 keeps event chunks in memory until its allocator says no; a fixed pool bounds it.
struct ChunkPool {
    std::size_t chunkSize = 0;
    std::size_t chunkLimit = 0;
    std::vector<void*> chunks;
    std::size_t used = 0;
};
void* poolAllocate(void* user, OTF2_FileType, OTF2_LocationRef, void**, uint64_t chunkSize) {
    auto* pool = static_cast<ChunkPool*>(user);
    if (chunkSize != pool->chunkSize)
        return std::malloc(chunkSize); // definition chunks: small and few
    if (pool->used == pool->chunks.size()) {
        if (pool->chunks.size() >= pool->chunkLimit)
            return nullptr; // OTF2 flushes and frees, then asks again
        void* chunk = std::malloc(chunkSize);
        if (!chunk)
            return nullptr;
        pool->chunks.push_back(chunk);
    }
    return pool->chunks[pool->used++];
}

void poolFreeAll(void* user, OTF2_FileType fileType, OTF2_LocationRef, void**, bool final) {
    auto* pool = static_cast<ChunkPool*>(user);
    if (fileType == OTF2_FILETYPE_EVENTS)
        pool->used = 0;
    if (final && fileType == OTF2_FILETYPE_EVENTS) {
        for (void* c : pool->chunks)
            std::free(c);
        pool->chunks.clear();
    }
}

OTF2_ErrorCode g_firstError = OTF2_SUCCESS;

// OTF2 reports errors by printing them; the program's stderr is not ours to print into.
OTF2_ErrorCode countError(void*, const char*, uint64_t, const char*, OTF2_ErrorCode code,
                          const char*, va_list) {
    ++g_diagnostics.otf2Errors;
    if (g_firstError == OTF2_SUCCESS)
        g_firstError = code;
    return code;
}

OTF2_FlushType preFlush(void*, OTF2_FileType, OTF2_LocationRef, void*, bool) {
    return OTF2_FLUSH;
}
OTF2_TimeStamp postFlush(void*, OTF2_FileType, OTF2_LocationRef) {
    return 0;
}

OTF2_FlushCallbacks kFlushCallbacks = {preFlush, postFlush};
OTF2_MemoryCallbacks kMemoryCallbacks = {poolAllocate, poolFreeAll};

void count(OTF2_ErrorCode code) {
    if (code != OTF2_SUCCESS) {
        ++g_diagnostics.otf2Errors;
        if (g_firstError == OTF2_SUCCESS)
            g_firstError = code;
    }
}

Status fail(const std::string& what, OTF2_ErrorCode code) {
    return Error(what + ": " + OTF2_Error_GetDescription(code));
}

} // namespace

OTF2_ErrorCode firstOtf2Error() noexcept {
    return g_firstError;
}

TraceWriter::~TraceWriter() {
    if (m_archive)
        OTF2_Archive_Close(m_archive);
}

Status TraceWriter::open(const std::string& directory, int rank, std::size_t poolBytes,
                         MPI_Comm comm) {
    m_rank = rank;
    m_directory = directory;
    constexpr std::size_t kChunk = 1u << 20;
    static ChunkPool pool; // trivially destructible members aside from the vector: freed at close
    pool.chunkSize = kChunk;
    pool.chunkLimit = std::max<std::size_t>(2, poolBytes / kChunk);
    OTF2_Error_RegisterCallback(countError, nullptr);
    m_archive = OTF2_Archive_Open(directory.c_str(), "traces", OTF2_FILEMODE_WRITE, kChunk,
                                  OTF2_CHUNK_SIZE_DEFINITIONS_DEFAULT, OTF2_SUBSTRATE_POSIX,
                                  OTF2_COMPRESSION_NONE);
    if (!m_archive)
        return Error("cannot create the OTF2 archive in '" + directory + "'");
    OTF2_ErrorCode rc = OTF2_Archive_SetFlushCallbacks(m_archive, &kFlushCallbacks, nullptr);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_Archive_SetMemoryCallbacks(m_archive, &kMemoryCallbacks, &pool);
    if (rc == OTF2_SUCCESS)
        rc =
            comm == MPI_COMM_NULL
                ? OTF2_Archive_SetSerialCollectiveCallbacks(m_archive)
                : OTF2_MPI_Archive_SetCollectiveCallbacks(m_archive, MPI_COMM_WORLD, MPI_COMM_NULL);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_Archive_SetCreator(m_archive, "Waitscope");
    if (rc == OTF2_SUCCESS)
        rc = OTF2_Archive_OpenEvtFiles(m_archive);
    if (rc != OTF2_SUCCESS) {
        // A half-opened archive may lack its collective callbacks, and closing it then
        // crashes inside OTF2: leave it unclosed (a small leak) rather than crash the program.
        abandon();
        return fail("cannot open the OTF2 archive in '" + directory + "'", rc);
    }
    m_events = OTF2_Archive_GetEvtWriter(m_archive, static_cast<OTF2_LocationRef>(rank));
    if (!m_events)
        return Error("cannot open the event file of rank " + std::to_string(rank) + " in '" +
                     directory + "'");
    return Status::success();
}

namespace {

/// Translates records [begin, end) into events of `w`; `decodeTime` carries the delta base.
void translate(OTF2_EvtWriter* w, const std::uint64_t* begin, const std::uint64_t* end,
               std::uint64_t& decodeTime) noexcept {
    RecordCursor cursor(begin, end, decodeTime);
    RecordHeader h;
    const std::uint64_t* x = nullptr;
    auto comm = [](std::uint64_t word) { return static_cast<uint32_t>(word); };
    auto high = [](std::uint64_t word) { return static_cast<uint32_t>(word >> 32); };
    while (cursor.next(h, x)) {
        const OTF2_TimeStamp t = h.time;
        switch (static_cast<EventKind>(h.kind)) {
        case EventKind::Enter:
            count(OTF2_EvtWriter_Enter(w, nullptr, t, h.a));
            break;
        case EventKind::Leave:
            count(OTF2_EvtWriter_Leave(w, nullptr, t, h.a));
            break;
        case EventKind::MpiSend:
            count(OTF2_EvtWriter_MpiSend(w, nullptr, t, h.a, comm(x[0]), high(x[0]), x[1]));
            break;
        case EventKind::MpiIsend:
            count(OTF2_EvtWriter_MpiIsend(w, nullptr, t, h.a, comm(x[0]), high(x[0]), x[1], x[2]));
            break;
        case EventKind::MpiIsendComplete:
            count(OTF2_EvtWriter_MpiIsendComplete(w, nullptr, t, x[0]));
            break;
        case EventKind::MpiIrecvRequest:
            count(OTF2_EvtWriter_MpiIrecvRequest(w, nullptr, t, x[0]));
            break;
        case EventKind::MpiRecv:
            count(OTF2_EvtWriter_MpiRecv(w, nullptr, t, h.a, comm(x[0]), high(x[0]), x[1]));
            break;
        case EventKind::MpiIrecv:
            count(OTF2_EvtWriter_MpiIrecv(w, nullptr, t, h.a, comm(x[0]), high(x[0]), x[1], x[2]));
            break;
        case EventKind::MpiRequestTest:
            count(OTF2_EvtWriter_MpiRequestTest(w, nullptr, t, x[0]));
            break;
        case EventKind::MpiRequestCancelled:
            count(OTF2_EvtWriter_MpiRequestCancelled(w, nullptr, t, x[0]));
            break;
        case EventKind::MpiCollectiveBegin:
            count(OTF2_EvtWriter_MpiCollectiveBegin(w, nullptr, t));
            break;
        case EventKind::MpiCollectiveEnd:
            count(OTF2_EvtWriter_MpiCollectiveEnd(w, nullptr, t,
                                                  static_cast<OTF2_CollectiveOp>(h.a), comm(x[0]),
                                                  high(x[0]), comm(x[1]), high(x[1])));
            break;
        case EventKind::MpiCollectiveEndLarge:
            count(OTF2_EvtWriter_MpiCollectiveEnd(w, nullptr, t,
                                                  static_cast<OTF2_CollectiveOp>(h.a), comm(x[0]),
                                                  high(x[0]), x[1], x[2]));
            break;
        case EventKind::NbCollRequest:
            count(OTF2_EvtWriter_NonBlockingCollectiveRequest(w, nullptr, t, x[0]));
            break;
        case EventKind::NbCollComplete:
            count(OTF2_EvtWriter_NonBlockingCollectiveComplete(
                w, nullptr, t, static_cast<OTF2_CollectiveOp>(h.a), comm(x[0]), high(x[0]), x[1],
                x[2], x[3]));
            break;
        case EventKind::CommCreate:
            count(OTF2_EvtWriter_CommCreate(w, nullptr, t, h.a));
            break;
        case EventKind::CommDestroy:
            count(OTF2_EvtWriter_CommDestroy(w, nullptr, t, h.a));
            break;
        case EventKind::ProgramBegin:
            // The program's name is global string 0 (see writeGlobalDefinitions).
            count(OTF2_EvtWriter_ProgramBegin(w, nullptr, t, 0, 0, nullptr));
            break;
        case EventKind::ProgramEnd:
            count(OTF2_EvtWriter_ProgramEnd(w, nullptr, t,
                                            h.a == kUnknownExit ? OTF2_UNDEFINED_INT64
                                                                : static_cast<int64_t>(h.a)));
            break;
        case EventKind::CallingContextEnter:
            count(OTF2_EvtWriter_CallingContextEnter(w, nullptr, t, h.a, 0));
            break;
        case EventKind::CallingContextLeave:
            count(OTF2_EvtWriter_CallingContextLeave(w, nullptr, t, h.a));
            break;
        case EventKind::CallingContextSample:
            // Interrupt generator 0 is the sampling timer (see writeGlobalDefinitions).
            count(OTF2_EvtWriter_CallingContextSample(w, nullptr, t, h.a, 0, 0));
            break;
        case EventKind::TimeBase: // consumed by the cursor
        case EventKind::Count:
            break;
        }
    }
}

} // namespace

void TraceWriter::write(const std::uint64_t* begin, const std::uint64_t* end) noexcept {
    if (m_events)
        translate(m_events, begin, end, m_decodeTime);
}

std::uint64_t TraceWriter::beginRank(int rank) noexcept {
    std::uint64_t events = eventsWritten();
    if (!m_archive)
        return events;
    if (m_events)
        count(OTF2_Archive_CloseEvtWriter(m_archive, m_events));
    m_earlierRanks.push_back(static_cast<std::uint64_t>(m_rank));
    m_rank = rank;
    m_decodeTime = 0;
    m_mainEvents = 0;
    m_events = OTF2_Archive_GetEvtWriter(m_archive, static_cast<OTF2_LocationRef>(rank));
    if (!m_events)
        ++g_diagnostics.otf2Errors;
    return events;
}

std::uint64_t TraceWriter::writeThread(std::uint32_t number, const std::uint64_t* begin,
                                       const std::uint64_t* end) noexcept {
    if (!m_archive)
        return 0;
    // The chunk pool serves one event buffer at a time: the main location's is done first.
    if (m_events) {
        m_mainEvents = eventsWritten();
        count(OTF2_Archive_CloseEvtWriter(m_archive, m_events));
        m_events = nullptr;
    }
    const std::uint64_t location = threadLocationId(number, m_rank);
    OTF2_EvtWriter* w = OTF2_Archive_GetEvtWriter(m_archive, location);
    if (!w) {
        ++g_diagnostics.otf2Errors;
        return 0;
    }
    std::uint64_t decodeTime = 0;
    translate(w, begin, end, decodeTime);
    uint64_t events = 0;
    OTF2_EvtWriter_GetNumberOfEvents(w, &events);
    count(OTF2_Archive_CloseEvtWriter(m_archive, w));
    m_threadLocations.push_back(location);
    return events;
}

std::uint64_t TraceWriter::eventsWritten() const {
    uint64_t n = m_mainEvents;
    if (m_events)
        OTF2_EvtWriter_GetNumberOfEvents(m_events, &n);
    return n;
}

Status TraceWriter::writeLocalDefinitions(const std::vector<std::uint32_t>& regionMap,
                                          const std::vector<std::uint32_t>& commMap,
                                          const std::vector<std::uint32_t>& contextMap,
                                          const std::vector<ClockOffset>& offsets) {
    if (m_events) {
        OTF2_ErrorCode rc = OTF2_Archive_CloseEvtWriter(m_archive, m_events);
        m_events = nullptr;
        if (rc != OTF2_SUCCESS)
            return fail("cannot close the event file of rank " + std::to_string(m_rank), rc);
    }
    OTF2_ErrorCode rc = OTF2_Archive_CloseEvtFiles(m_archive);
    if (rc != OTF2_SUCCESS)
        return fail("cannot close the event files", rc);
    rc = OTF2_Archive_OpenDefFiles(m_archive);
    if (rc != OTF2_SUCCESS)
        return fail("cannot open the local definition files", rc);
    // Every location of the rank uses the rank's local ids: the same tables for each.
    std::vector<std::uint64_t> locations = {static_cast<std::uint64_t>(m_rank)};
    locations.insert(locations.end(), m_threadLocations.begin(), m_threadLocations.end());
    locations.insert(locations.end(), m_earlierRanks.begin(), m_earlierRanks.end());
    for (std::uint64_t location : locations) {
        Status written =
            writeLocationDefinitions(location, regionMap, commMap, contextMap, offsets);
        if (!written.ok())
            return written;
    }
    rc = OTF2_Archive_CloseDefFiles(m_archive);
    if (rc != OTF2_SUCCESS)
        return fail("cannot close the definition files of rank " + std::to_string(m_rank), rc);
    return Status::success();
}

Status TraceWriter::writeLocationDefinitions(std::uint64_t location,
                                             const std::vector<std::uint32_t>& regionMap,
                                             const std::vector<std::uint32_t>& commMap,
                                             const std::vector<std::uint32_t>& contextMap,
                                             const std::vector<ClockOffset>& offsets) {
    const std::string where = location == static_cast<std::uint64_t>(m_rank)
                                  ? "rank " + std::to_string(m_rank)
                                  : "location " + std::to_string(location);
    OTF2_DefWriter* defs = OTF2_Archive_GetDefWriter(m_archive, location);
    if (!defs)
        return Error("cannot open the definition file of " + where);
    OTF2_ErrorCode rc = OTF2_SUCCESS;
    auto writeMap = [&](OTF2_MappingType type, const std::vector<std::uint32_t>& map) {
        if (map.empty())
            return OTF2_SUCCESS;
        std::vector<uint64_t> wide(map.begin(), map.end());
        bool identity = true;
        for (size_t i = 0; i < wide.size(); ++i)
            identity = identity && wide[i] == i;
        if (identity)
            return OTF2_SUCCESS; // no table: local ids are the global ones
        OTF2_IdMap* idMap = OTF2_IdMap_CreateFromUint64Array(wide.size(), wide.data(), false);
        if (!idMap)
            return OTF2_ERROR_MEM_ALLOC_FAILED;
        OTF2_ErrorCode code = OTF2_DefWriter_WriteMappingTable(defs, type, idMap);
        OTF2_IdMap_Free(idMap);
        return code;
    };
    rc = writeMap(OTF2_MAPPING_REGION, regionMap);
    if (rc == OTF2_SUCCESS)
        rc = writeMap(OTF2_MAPPING_COMM, commMap);
    if (rc == OTF2_SUCCESS)
        rc = writeMap(OTF2_MAPPING_CALLING_CONTEXT, contextMap);
    for (const ClockOffset& o : offsets)
        if (rc == OTF2_SUCCESS)
            rc = OTF2_DefWriter_WriteClockOffset(defs, o.localTime, o.offset, o.deviation);
    if (rc != OTF2_SUCCESS)
        return fail("cannot write the definitions of " + where, rc);
    rc = OTF2_Archive_CloseDefWriter(m_archive, defs);
    if (rc != OTF2_SUCCESS)
        return fail("cannot close the definition file of " + where, rc);
    return Status::success();
}

Status TraceWriter::writeGlobalDefinitions(const GlobalDefinitions& d) {
    OTF2_GlobalDefWriter* g = OTF2_Archive_GetGlobalDefWriter(m_archive);
    if (!g)
        return Error("cannot open the global definition file in '" + m_directory + "'");
    std::map<std::string, uint32_t> strings;
    OTF2_ErrorCode rc = OTF2_SUCCESS;
    auto str = [&](const std::string& s) -> uint32_t {
        auto it = strings.find(s);
        if (it != strings.end())
            return it->second;
        uint32_t id = static_cast<uint32_t>(strings.size());
        strings.emplace(s, id);
        if (rc == OTF2_SUCCESS)
            rc = OTF2_GlobalDefWriter_WriteString(g, id, s.c_str());
        return id;
    };
    str(d.programPath); // string 0: the ProgramBegin events name it
    rc = OTF2_GlobalDefWriter_WriteClockProperties(g, d.ticksPerSecond, d.globalOffset,
                                                   d.traceLength, OTF2_UNDEFINED_TIMESTAMP);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_GlobalDefWriter_WriteParadigm(g, OTF2_PARADIGM_MPI, str("MPI"),
                                                OTF2_PARADIGM_CLASS_PROCESS);
    // System tree: one machine, its nodes, one process per rank, one thread per process.
    if (rc == OTF2_SUCCESS)
        rc = OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, str("Linux"), str("machine"),
                                                      OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    for (size_t n = 0; n < d.nodeNames.size() && rc == OTF2_SUCCESS; ++n)
        rc = OTF2_GlobalDefWriter_WriteSystemTreeNode(g, static_cast<uint32_t>(n + 1),
                                                      str(d.nodeNames[n]), str("node"), 0);
    const uint32_t thread = str("Master thread");
    for (size_t r = 0; r < d.ranks.size() && rc == OTF2_SUCCESS; ++r) {
        rc = OTF2_GlobalDefWriter_WriteLocationGroup(
            g, static_cast<uint32_t>(r), str("MPI Rank " + std::to_string(r)),
            OTF2_LOCATION_GROUP_TYPE_PROCESS, d.ranks[r].nodeIndex + 1,
            OTF2_UNDEFINED_LOCATION_GROUP);
    }
    for (size_t r = 0; r < d.ranks.size() && rc == OTF2_SUCCESS; ++r)
        rc = OTF2_GlobalDefWriter_WriteLocation(g, r, thread, OTF2_LOCATION_TYPE_CPU_THREAD,
                                                d.ranks[r].events, static_cast<uint32_t>(r));
    // Sampled threads after every main thread (readers take a group's first location as the
    // rank's main one).
    for (size_t r = 0; r < d.ranks.size() && rc == OTF2_SUCCESS; ++r)
        for (const ThreadLocation& t : d.ranks[r].threads)
            if (rc == OTF2_SUCCESS)
                rc = OTF2_GlobalDefWriter_WriteLocation(
                    g, threadLocationId(t.number, static_cast<int>(r)),
                    str("thread " + std::to_string(t.number)), OTF2_LOCATION_TYPE_CPU_THREAD,
                    t.events, static_cast<uint32_t>(r));
    // Regions, in the order unification gave them their global ids.
    for (size_t i = 0; i < d.regions.entries.size() && rc == OTF2_SUCCESS; ++i) {
        RegionDefinition region = regionFromKey(d.regions.entries[i].first);
        uint32_t name = str(region.name);
        uint32_t canonical = str(region.canonicalName.empty() ? region.name : region.canonicalName);
        uint32_t file = region.file.empty() ? OTF2_UNDEFINED_STRING : str(region.file);
        rc = OTF2_GlobalDefWriter_WriteRegion(
            g, static_cast<uint32_t>(i), name, canonical, str(""),
            static_cast<OTF2_RegionRole>(region.role), static_cast<OTF2_Paradigm>(region.paradigm),
            OTF2_REGION_FLAG_NONE, file, region.beginLine, region.endLine);
    }
    // The program's own region, as Score-P defines it: Scalasca's reader finds the region of a
    // ProgramBegin by its name (the path's last component) and canonical name (the path).
    if (rc == OTF2_SUCCESS) {
        const std::string& path = d.programPath;
        rc = OTF2_GlobalDefWriter_WriteRegion(g, static_cast<uint32_t>(d.regions.entries.size()),
                                              str(path.substr(path.find_last_of('/') + 1)),
                                              str(path), str(""), OTF2_REGION_ROLE_ARTIFICIAL,
                                              OTF2_PARADIGM_MEASUREMENT_SYSTEM,
                                              OTF2_REGION_FLAG_NONE, OTF2_UNDEFINED_STRING, 0, 0);
    }
    // Calling contexts (sampling, unwinding): a parent's key is a prefix of its children's, so
    // in the sorted set parents come first; a context's region is the last one on its path.
    if (!d.contexts.entries.empty() && rc == OTF2_SUCCESS)
        rc = OTF2_GlobalDefWriter_WriteInterruptGenerator(
            g, 0, str("sampling timer"), OTF2_INTERRUPT_GENERATOR_MODE_TIME, OTF2_BASE_DECIMAL, -9,
            d.samplingPeriodNs);
    for (size_t i = 0; i < d.contexts.entries.size() && rc == OTF2_SUCCESS; ++i) {
        const std::string& key = d.contexts.entries[i].first;
        std::vector<std::string> path = splitCallingContextKey(key);
        if (path.empty())
            continue;
        long region = d.regions.find(path.back());
        size_t parentLength = key.size() - 4 - path.back().size();
        long parent = path.size() > 1 ? d.contexts.find(key.substr(0, parentLength)) : -1;
        rc = OTF2_GlobalDefWriter_WriteCallingContext(
            g, static_cast<uint32_t>(i),
            region < 0 ? OTF2_UNDEFINED_REGION : static_cast<uint32_t>(region),
            OTF2_UNDEFINED_SOURCE_CODE_LOCATION,
            parent < 0 ? OTF2_UNDEFINED_CALLING_CONTEXT : static_cast<uint32_t>(parent));
    }
    // Groups: 0 lists every location (communicator ranks index it); then one per communicator.
    std::vector<uint64_t> locations(d.ranks.size());
    for (size_t r = 0; r < locations.size(); ++r)
        locations[r] = r;
    if (rc == OTF2_SUCCESS)
        rc = OTF2_GlobalDefWriter_WriteGroup(
            g, kLocationsGroup, str(""), OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
            OTF2_GROUP_FLAG_NONE, locations.size(), locations.data());
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
    for (size_t id = 0; id < byId.size() && rc == OTF2_SUCCESS; ++id) {
        const CommDefinition& comm = comms[byId[id]];
        auto parentIt = commIds.find(comm.parent);
        bool hasParent = parentIt != commIds.end() && parentIt->second < id;
        uint32_t group = kLocationsGroup + 1 + static_cast<uint32_t>(id);
        if (comm.key == kSelfKey) {
            rc = OTF2_GlobalDefWriter_WriteGroup(g, group, str(""), OTF2_GROUP_TYPE_COMM_SELF,
                                                 OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 0,
                                                 nullptr);
        } else {
            std::vector<uint64_t> members(comm.members.begin(), comm.members.end());
            if (comm.key == kWorldKey)
                members = locations;
            rc = OTF2_GlobalDefWriter_WriteGroup(g, group, str(""), OTF2_GROUP_TYPE_COMM_GROUP,
                                                 OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                                 members.size(), members.data());
        }
        std::string name = comm.key == kWorldKey  ? "MPI_COMM_WORLD"
                           : comm.key == kSelfKey ? "MPI_COMM_SELF"
                           : comm.name.empty()    ? "Comm " + std::to_string(id)
                                                  : comm.name;
        if (rc == OTF2_SUCCESS)
            rc = OTF2_GlobalDefWriter_WriteComm(g, static_cast<uint32_t>(id), str(name), group,
                                                hasParent ? parentIt->second : OTF2_UNDEFINED_COMM,
                                                OTF2_COMM_FLAG_CREATE_DESTROY_EVENTS);
    }
    if (rc != OTF2_SUCCESS)
        return fail("cannot write the global definitions in '" + m_directory + "'", rc);
    return Status::success();
}

Status TraceWriter::close() {
    if (!m_archive)
        return Status::success();
    OTF2_ErrorCode rc = OTF2_Archive_Close(m_archive);
    m_archive = nullptr;
    if (rc != OTF2_SUCCESS)
        return fail("cannot close the OTF2 archive in '" + m_directory + "'", rc);
    return Status::success();
}

void TraceWriter::abandon() noexcept {
    m_archive = nullptr;
    m_events = nullptr;
}

void TraceWriter::closeEventsAlone() noexcept {
    if (m_archive && m_events) {
        count(OTF2_Archive_CloseEvtWriter(m_archive, m_events));
        m_events = nullptr;
    }
}

} // namespace waitscope::measure
