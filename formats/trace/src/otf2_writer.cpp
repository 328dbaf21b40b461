// OTF2 writing through libotf2: the archive, its memory pool and flush callbacks, local and
// global definitions.
#include "waitscope/trace/otf2_writer.h"

#include <algorithm>
#include <cstdarg>
#include <cstdlib>
#include <fcntl.h>
#include <otf2/otf2.h>

namespace waitscope::trace {

static_assert(static_cast<int>(CollectiveOp::Barrier) == OTF2_COLLECTIVE_OP_BARRIER);
static_assert(static_cast<int>(CollectiveOp::Allreduce) == OTF2_COLLECTIVE_OP_ALLREDUCE);
static_assert(static_cast<int>(CollectiveOp::DestroyHandleAndDeallocate) ==
              OTF2_COLLECTIVE_OP_DESTROY_HANDLE_AND_DEALLOCATE);
static_assert(kUnknownExitStatus == OTF2_UNDEFINED_INT64);
static_assert(kUndefined == OTF2_UNDEFINED_UINT32);

// libotf2 keeps event chunks in memory until its allocator says no; a fixed pool bounds them.
// Chunks of another size (definitions: small and few) come from malloc.
struct detail::Otf2ChunkPool {
    size_t chunkSize = 0;
    size_t chunkLimit = 0;
    std::vector<void*> chunks;
    size_t used = 0;
};

static_assert(static_cast<int>(RegionRole::FileIoMetadata) == OTF2_REGION_ROLE_FILE_IO_METADATA);
static_assert(static_cast<int>(Paradigm::Sampling) == OTF2_PARADIGM_SAMPLING);

namespace {

void* poolAllocate(void* user, OTF2_FileType, OTF2_LocationRef, void**, uint64_t chunkSize) {
    auto* pool = static_cast<detail::Otf2ChunkPool*>(user);
    if (chunkSize != pool->chunkSize) {
        return std::malloc(chunkSize);
    }
    if (pool->used == pool->chunks.size()) {
        if (pool->chunks.size() >= pool->chunkLimit) {
            return nullptr; // libotf2 flushes and frees, then asks again
        }
        void* chunk = std::malloc(chunkSize);
        if (chunk == nullptr) {
            return nullptr;
        }
        // Room for every chunk was reserved when the pool was made: no reallocation here.
        pool->chunks.push_back(chunk);
    }
    return pool->chunks[pool->used++];
}

void poolFreeAll(void* user, OTF2_FileType fileType, OTF2_LocationRef, void**, bool final) {
    auto* pool = static_cast<detail::Otf2ChunkPool*>(user);
    if (fileType != OTF2_FILETYPE_EVENTS) {
        return;
    }
    pool->used = 0;
    if (final) {
        for (void* chunk : pool->chunks) {
            std::free(chunk);
        }
        pool->chunks.clear();
    }
}

OTF2_FlushType preFlush(void*, OTF2_FileType, OTF2_LocationRef, void*, bool) {
    return OTF2_FLUSH;
}
OTF2_TimeStamp postFlush(void*, OTF2_FileType, OTF2_LocationRef) {
    return 0;
}

OTF2_FlushCallbacks kFlushCallbacks = {preFlush, postFlush};
OTF2_MemoryCallbacks kMemoryCallbacks = {poolAllocate, poolFreeAll};

// libotf2 reports errors by printing them; a writer counts them instead (the program whose
// stderr it would print into is not ours, in the measurement).
OTF2_ErrorCode countError(void* user, const char*, uint64_t, const char*, OTF2_ErrorCode code,
                          const char*, va_list) {
    if (user != nullptr) {
        static_cast<Otf2ErrorLog*>(user)->note(code);
    }
    return code;
}

// RegionRole and Paradigm carry OTF2's values (base/region_role.h); only Other, which the
// reader uses for what it does not distinguish, has no OTF2 value.
OTF2_RegionRole toOtf2(RegionRole role) {
    return role == RegionRole::Other ? OTF2_RegionRole{OTF2_REGION_ROLE_UNKNOWN}
                                     : static_cast<OTF2_RegionRole>(role);
}

OTF2_Paradigm toOtf2(Paradigm paradigm) {
    return paradigm == Paradigm::Other ? OTF2_Paradigm{OTF2_PARADIGM_UNKNOWN}
                                       : static_cast<OTF2_Paradigm>(paradigm);
}

OTF2_LocationType toOtf2(LocationType type) {
    switch (type) {
    case LocationType::CpuThread:
        return OTF2_LOCATION_TYPE_CPU_THREAD;
    case LocationType::AcceleratorStream:
        return OTF2_LOCATION_TYPE_ACCELERATOR_STREAM;
    case LocationType::Metric:
        return OTF2_LOCATION_TYPE_METRIC;
    case LocationType::Other:
        break;
    }
    return OTF2_LOCATION_TYPE_UNKNOWN;
}

OTF2_GroupType toOtf2(GroupKind kind) {
    switch (kind) {
    case GroupKind::Locations:
        return OTF2_GROUP_TYPE_COMM_LOCATIONS;
    case GroupKind::CommGroup:
        return OTF2_GROUP_TYPE_COMM_GROUP;
    case GroupKind::CommSelf:
        return OTF2_GROUP_TYPE_COMM_SELF;
    case GroupKind::Other:
        break;
    }
    return OTF2_GROUP_TYPE_UNKNOWN;
}

// Whether `map` names every id as itself (no table needed).
bool isIdentity(const std::vector<uint64_t>& map) {
    for (size_t i = 0; i < map.size(); ++i) {
        if (map[i] != i) {
            return false;
        }
    }
    return true;
}

} // namespace

std::string otf2ErrorText(OTF2_ErrorCode code) {
    return OTF2_Error_GetDescription(code);
}

Otf2Writer::Otf2Writer() = default;

Otf2Writer::~Otf2Writer() {
    if (m_archive != nullptr) {
        OTF2_Archive_Close(m_archive);
    }
    stopCountingErrors();
}

Status Otf2Writer::failed(const std::string& what, OTF2_ErrorCode code) const {
    return Error(what + ": " + OTF2_Error_GetDescription(code));
}

void Otf2Writer::stopCountingErrors() noexcept {
    if (m_countingErrors) {
        OTF2_Error_RegisterCallback(nullptr, nullptr);
        m_countingErrors = false;
    }
}

Status Otf2Writer::open(const std::string& directory, const Otf2WriterOptions& options) {
    m_directory = directory;
    m_eventChunkBytes = options.eventChunkBytes;
    m_errors = Otf2ErrorLog();
    m_strings.clear();
    m_stringCount = 0;
    OTF2_Error_RegisterCallback(countError, &m_errors);
    m_countingErrors = true;
    m_archive = OTF2_Archive_Open(directory.c_str(), "traces", OTF2_FILEMODE_WRITE,
                                  options.eventChunkBytes, options.definitionChunkBytes,
                                  OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (m_archive == nullptr) {
        return Error("cannot create the OTF2 archive in '" + directory + "'");
    }
    OTF2_ErrorCode rc = OTF2_Archive_SetFlushCallbacks(m_archive, &kFlushCallbacks, nullptr);
    if (rc == OTF2_SUCCESS && options.eventPoolBytes > 0) {
        m_pool = std::make_unique<detail::Otf2ChunkPool>();
        m_pool->chunkSize = options.eventChunkBytes;
        m_pool->chunkLimit = std::max<size_t>(2, options.eventPoolBytes / options.eventChunkBytes);
        m_pool->chunks.reserve(m_pool->chunkLimit);
        rc = OTF2_Archive_SetMemoryCallbacks(m_archive, &kMemoryCallbacks, m_pool.get());
    }
    bool closable = false;
    if (rc == OTF2_SUCCESS) {
        rc = options.collectives != nullptr
                 ? options.collectives(m_archive, options.collectivesContext)
                 : OTF2_Archive_SetSerialCollectiveCallbacks(m_archive);
        closable = rc == OTF2_SUCCESS;
    }
    if (rc == OTF2_SUCCESS && !options.creator.empty()) {
        rc = OTF2_Archive_SetCreator(m_archive, options.creator.c_str());
    }
    if (rc == OTF2_SUCCESS) {
        rc = OTF2_Archive_OpenEvtFiles(m_archive);
    }
    if (rc != OTF2_SUCCESS) {
        // An archive with its collective callbacks closes cleanly; without them closing it
        // crashes inside libotf2: then leave it unclosed (a small leak) rather than crash.
        if (closable) {
            OTF2_Archive_Close(m_archive);
        }
        abandon();
        return failed("cannot open the OTF2 archive in '" + directory + "'", rc);
    }
    return Status::success();
}

Otf2EventWriter Otf2Writer::openEvents(uint64_t location) noexcept {
    OTF2_EvtWriter* writer =
        m_archive != nullptr ? OTF2_Archive_GetEvtWriter(m_archive, location) : nullptr;
    if (writer == nullptr) {
        return {};
    }
    return Otf2EventWriter(writer, location, &m_errors);
}

Otf2EventEncoder Otf2Writer::encodeEvents(uint64_t location) noexcept {
    if (m_archive == nullptr) {
        return {};
    }
    // In the archive's directory, created when the archive was opened.
    const std::string path = eventFilePath(m_directory, location);
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    return Otf2EventEncoder(fd, location, m_eventChunkBytes, &m_errors);
}

Otf2EventEncoder Otf2Writer::encodeEventsBeforeOpen(const std::string& path, uint64_t location,
                                                    size_t chunkBytes,
                                                    Otf2ErrorLog* errors) noexcept {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    return Otf2EventEncoder(fd, location, chunkBytes, errors);
}

std::string Otf2Writer::eventFilePath(const std::string& directory, uint64_t location) {
    // libotf2's POSIX substrate names a location's event file so.
    return directory + "/traces/" + std::to_string(location) + ".evt";
}

OTF2_ErrorCode Otf2Writer::closeEvents(Otf2EventEncoder& events) noexcept {
    const OTF2_ErrorCode rc = events.finish();
    events = Otf2EventEncoder();
    return rc;
}

OTF2_ErrorCode Otf2Writer::closeEvents(Otf2EventWriter& events) noexcept {
    if (!events.valid() || m_archive == nullptr) {
        return OTF2_ERROR_INVALID_ARGUMENT;
    }
    const OTF2_ErrorCode rc = OTF2_Archive_CloseEvtWriter(m_archive, events.m_writer);
    events = Otf2EventWriter();
    m_errors.check(rc);
    return rc;
}

Status Otf2Writer::beginLocalDefinitions() {
    if (m_archive == nullptr) {
        return Error("cannot write local definitions: no OTF2 archive open in '" + m_directory +
                     "'");
    }
    OTF2_ErrorCode rc = OTF2_Archive_CloseEvtFiles(m_archive);
    if (rc != OTF2_SUCCESS) {
        return failed("cannot close the event files", rc);
    }
    rc = OTF2_Archive_OpenDefFiles(m_archive);
    if (rc != OTF2_SUCCESS) {
        return failed("cannot open the local definition files", rc);
    }
    return Status::success();
}

Status Otf2Writer::writeLocationDefinitions(uint64_t location,
                                            const LocalDefinitions& definitions) {
    const std::string where = "location " + std::to_string(location);
    OTF2_DefWriter* defs = OTF2_Archive_GetDefWriter(m_archive, location);
    if (defs == nullptr) {
        return Error("cannot open the definition file of " + where);
    }
    const auto writeMap = [defs](OTF2_MappingType type, const std::vector<uint64_t>& map) {
        if (map.empty() || isIdentity(map)) {
            return OTF2_SUCCESS;
        }
        OTF2_IdMap* idMap = OTF2_IdMap_CreateFromUint64Array(map.size(), map.data(), false);
        if (idMap == nullptr) {
            return OTF2_ERROR_MEM_ALLOC_FAILED;
        }
        const OTF2_ErrorCode code = OTF2_DefWriter_WriteMappingTable(defs, type, idMap);
        OTF2_IdMap_Free(idMap);
        return code;
    };
    // The communicators with further pairs: a sparse map of the dense ones and the pairs.
    const auto writeCommMap = [defs, &writeMap](const LocalDefinitions& d) {
        if (d.extraComms.empty()) {
            return writeMap(OTF2_MAPPING_COMM, d.comms);
        }
        OTF2_IdMap* idMap =
            OTF2_IdMap_Create(OTF2_ID_MAP_SPARSE, d.comms.size() + d.extraComms.size());
        if (idMap == nullptr) {
            return OTF2_ERROR_MEM_ALLOC_FAILED;
        }
        OTF2_ErrorCode code = OTF2_SUCCESS;
        for (size_t i = 0; i < d.comms.size() && code == OTF2_SUCCESS; ++i) {
            code = OTF2_IdMap_AddIdPair(idMap, i, d.comms[i]);
        }
        for (const auto& [local, global] : d.extraComms) {
            if (code == OTF2_SUCCESS) {
                code = OTF2_IdMap_AddIdPair(idMap, local, global);
            }
        }
        if (code == OTF2_SUCCESS) {
            code = OTF2_DefWriter_WriteMappingTable(defs, OTF2_MAPPING_COMM, idMap);
        }
        OTF2_IdMap_Free(idMap);
        return code;
    };
    OTF2_ErrorCode rc = writeMap(OTF2_MAPPING_STRING, definitions.strings);
    if (rc == OTF2_SUCCESS) {
        rc = writeMap(OTF2_MAPPING_REGION, definitions.regions);
    }
    if (rc == OTF2_SUCCESS) {
        rc = writeCommMap(definitions);
    }
    if (rc == OTF2_SUCCESS) {
        rc = writeMap(OTF2_MAPPING_CALLING_CONTEXT, definitions.callingContexts);
    }
    if (rc == OTF2_SUCCESS) {
        rc = writeMap(OTF2_MAPPING_RMA_WIN, definitions.rmaWins);
    }
    if (rc == OTF2_SUCCESS) {
        rc = writeMap(OTF2_MAPPING_GROUP, definitions.groups);
    }
    if (rc == OTF2_SUCCESS) {
        rc = writeMap(OTF2_MAPPING_IO_HANDLE, definitions.ioHandles);
    }
    for (const LocalDefinitions::ClockOffset& offset : definitions.clockOffsets) {
        if (rc == OTF2_SUCCESS) {
            rc = OTF2_DefWriter_WriteClockOffset(defs, offset.localTime, offset.offset,
                                                 offset.deviation);
        }
    }
    if (rc != OTF2_SUCCESS) {
        return failed("cannot write the definitions of " + where, rc);
    }
    rc = OTF2_Archive_CloseDefWriter(m_archive, defs);
    if (rc != OTF2_SUCCESS) {
        return failed("cannot close the definition file of " + where, rc);
    }
    return Status::success();
}

Status Otf2Writer::endLocalDefinitions() {
    const OTF2_ErrorCode rc = OTF2_Archive_CloseDefFiles(m_archive);
    if (rc != OTF2_SUCCESS) {
        return failed("cannot close the definition files in '" + m_directory + "'", rc);
    }
    return Status::success();
}

Status Otf2Writer::writeLocalDefinitions(const std::vector<LocationDefinitions>& locations) {
    Status status = beginLocalDefinitions();
    for (size_t i = 0; status && i < locations.size(); ++i) {
        status = writeLocationDefinitions(locations[i].location, locations[i].definitions);
    }
    return status ? endLocalDefinitions() : status;
}

Status Otf2Writer::writeLocalDefinitions(const std::vector<uint64_t>& locations,
                                         const LocalDefinitions& definitions) {
    Status status = beginLocalDefinitions();
    for (size_t i = 0; status && i < locations.size(); ++i) {
        status = writeLocationDefinitions(locations[i], definitions);
    }
    return status ? endLocalDefinitions() : status;
}

OTF2_GlobalDefWriter* Otf2Writer::globalWriter() {
    if (m_global == nullptr && m_archive != nullptr) {
        m_global = OTF2_Archive_GetGlobalDefWriter(m_archive);
    }
    return m_global;
}

Status Otf2Writer::checked(OTF2_ErrorCode code) {
    if (code != OTF2_SUCCESS) {
        return failed("cannot write the global definitions in '" + m_directory + "'", code);
    }
    return Status::success();
}

Result<uint32_t> Otf2Writer::string(const std::string& text) {
    const auto it = m_strings.find(text);
    if (it != m_strings.end()) {
        return it->second;
    }
    OTF2_GlobalDefWriter* g = globalWriter();
    if (g == nullptr) {
        return Error("cannot open the global definition file in '" + m_directory + "'");
    }
    const uint32_t id = m_stringCount;
    if (Status written = checked(OTF2_GlobalDefWriter_WriteString(g, id, text.c_str())); !written) {
        return written.error();
    }
    ++m_stringCount;
    m_strings.emplace(text, id);
    return id;
}

Status Otf2Writer::strings(std::initializer_list<std::pair<const std::string*, uint32_t*>> texts) {
    for (const auto& [text, id] : texts) {
        const Result<uint32_t> written = string(*text);
        if (!written) {
            return written.error();
        }
        *id = written.value();
    }
    return Status::success();
}

Status Otf2Writer::writeClockProperties(const ClockProperties& clock) {
    OTF2_GlobalDefWriter* g = globalWriter();
    if (g == nullptr) {
        return Error("cannot open the global definition file in '" + m_directory + "'");
    }
    return checked(OTF2_GlobalDefWriter_WriteClockProperties(
        g, clock.ticksPerSecond, clock.globalOffset, clock.traceLength, OTF2_UNDEFINED_TIMESTAMP));
}

Status Otf2Writer::writeParadigm(Paradigm paradigm, const std::string& name) {
    uint32_t nameId = 0;
    if (Status written = strings({{&name, &nameId}}); !written) {
        return written;
    }
    // OpenMP forks and joins thread teams; POSIX threads create and wait for threads.
    OTF2_ParadigmClass kind = OTF2_PARADIGM_CLASS_PROCESS;
    if (paradigm == Paradigm::OpenMp) {
        kind = OTF2_PARADIGM_CLASS_THREAD_FORK_JOIN;
    } else if (paradigm == Paradigm::Pthread) {
        kind = OTF2_PARADIGM_CLASS_THREAD_CREATE_WAIT;
    }
    return checked(
        OTF2_GlobalDefWriter_WriteParadigm(globalWriter(), toOtf2(paradigm), nameId, kind));
}

Status Otf2Writer::writeSystemTreeNode(uint32_t id, const SystemTreeNode& node) {
    // The class first, as the measurement always wrote them (its archives stay the same).
    uint32_t className = 0, name = 0;
    if (Status written = strings({{&node.className, &className}, {&node.name, &name}}); !written) {
        return written;
    }
    return checked(
        OTF2_GlobalDefWriter_WriteSystemTreeNode(globalWriter(), id, name, className, node.parent));
}

Status Otf2Writer::writeLocationGroup(uint32_t id, const LocationGroup& group) {
    uint32_t name = 0;
    if (Status written = strings({{&group.name, &name}}); !written) {
        return written;
    }
    return checked(OTF2_GlobalDefWriter_WriteLocationGroup(
        globalWriter(), id, name,
        group.isProcess ? OTF2_LOCATION_GROUP_TYPE_PROCESS : OTF2_LOCATION_GROUP_TYPE_UNKNOWN,
        group.systemTreeParent, OTF2_UNDEFINED_LOCATION_GROUP));
}

Status Otf2Writer::writeLocation(const Location& location) {
    uint32_t name = 0;
    if (Status written = strings({{&location.name, &name}}); !written) {
        return written;
    }
    return checked(OTF2_GlobalDefWriter_WriteLocation(globalWriter(), location.id, name,
                                                      toOtf2(location.type),
                                                      location.announcedEvents, location.group));
}

Status Otf2Writer::writeRegion(uint32_t id, const Region& region) {
    // Strings in the order the measurement always wrote them (name, canonical name, file,
    // description), so its archives stay the same byte for byte.
    const std::string noDescription;
    uint32_t name = 0, canonical = 0, file = OTF2_UNDEFINED_STRING, description = 0;
    Status written = strings({{&region.name, &name}, {&region.canonicalName, &canonical}});
    if (written && !region.file.empty()) {
        written = strings({{&region.file, &file}});
    }
    if (written) {
        written = strings({{&noDescription, &description}});
    }
    if (!written) {
        return written;
    }
    return checked(OTF2_GlobalDefWriter_WriteRegion(
        globalWriter(), id, name, canonical, description, toOtf2(region.role),
        toOtf2(region.paradigm), OTF2_REGION_FLAG_NONE, file, region.beginLine, region.endLine));
}

Status Otf2Writer::writeSamplingTimer(uint32_t id, const std::string& name, uint64_t periodNs) {
    uint32_t nameId = 0;
    if (Status written = strings({{&name, &nameId}}); !written) {
        return written;
    }
    return checked(OTF2_GlobalDefWriter_WriteInterruptGenerator(globalWriter(), id, nameId,
                                                                OTF2_INTERRUPT_GENERATOR_MODE_TIME,
                                                                OTF2_BASE_DECIMAL, -9, periodNs));
}

Status Otf2Writer::writeCallingContext(uint32_t id, const CallingContext& context) {
    OTF2_GlobalDefWriter* g = globalWriter();
    if (g == nullptr) {
        return Error("cannot open the global definition file in '" + m_directory + "'");
    }
    return checked(OTF2_GlobalDefWriter_WriteCallingContext(
        g, id, context.region, OTF2_UNDEFINED_SOURCE_CODE_LOCATION, context.parent));
}

Status Otf2Writer::writeGroup(uint32_t id, const Group& group) {
    uint32_t name = 0;
    if (Status written = strings({{&group.name, &name}}); !written) {
        return written;
    }
    return checked(OTF2_GlobalDefWriter_WriteGroup(
        globalWriter(), id, name, toOtf2(group.kind), toOtf2(group.paradigm), OTF2_GROUP_FLAG_NONE,
        static_cast<uint32_t>(group.members.size()), group.members.data()));
}

Status Otf2Writer::writeComm(uint32_t id, const Communicator& comm, bool createDestroyEvents) {
    uint32_t name = 0;
    if (Status written = strings({{&comm.name, &name}}); !written) {
        return written;
    }
    return checked(OTF2_GlobalDefWriter_WriteComm(
        globalWriter(), id, name, comm.group, comm.parent,
        createDestroyEvents ? OTF2_COMM_FLAG_CREATE_DESTROY_EVENTS : OTF2_COMM_FLAG_NONE));
}

Status Otf2Writer::writeRmaWin(uint32_t id, const std::string& name, uint32_t comm) {
    uint32_t nameId = 0;
    if (Status written = strings({{&name, &nameId}}); !written) {
        return written;
    }
    return checked(OTF2_GlobalDefWriter_WriteRmaWin(globalWriter(), id, nameId, comm,
                                                    OTF2_RMA_WIN_FLAG_CREATE_DESTROY_EVENTS));
}

Status Otf2Writer::writeGlobalDefinitions(const Definitions& d) {
    OTF2_GlobalDefWriter* g = globalWriter();
    if (g == nullptr) {
        return Error("cannot open the global definition file in '" + m_directory + "'");
    }
    Status status = Status::success();
    for (size_t i = 0; status && i < d.strings.size(); ++i) {
        status = checked(OTF2_GlobalDefWriter_WriteString(g, m_stringCount, d.strings[i].c_str()));
        m_strings.emplace(d.strings[i], m_stringCount++);
    }
    if (status) {
        status = writeClockProperties(d.clock);
    }
    for (size_t i = 0; status && i < d.systemTreeNodes.size(); ++i) {
        status = writeSystemTreeNode(static_cast<uint32_t>(i), d.systemTreeNodes[i]);
    }
    for (size_t i = 0; status && i < d.locationGroups.size(); ++i) {
        status = writeLocationGroup(static_cast<uint32_t>(i), d.locationGroups[i]);
    }
    for (size_t i = 0; status && i < d.locations.size(); ++i) {
        status = writeLocation(d.locations[i]);
    }
    for (size_t i = 0; status && i < d.regions.size(); ++i) {
        status = writeRegion(static_cast<uint32_t>(i), d.regions[i]);
    }
    for (size_t i = 0; status && i < d.callingContexts.size(); ++i) {
        status = writeCallingContext(static_cast<uint32_t>(i), d.callingContexts[i]);
    }
    for (size_t i = 0; status && i < d.groups.size(); ++i) {
        status = writeGroup(static_cast<uint32_t>(i), d.groups[i]);
    }
    for (size_t i = 0; status && i < d.communicators.size(); ++i) {
        status = writeComm(static_cast<uint32_t>(i), d.communicators[i]);
    }
    for (size_t i = 0; status && i < d.ioParadigms.size(); ++i) {
        status = writeIoParadigm(static_cast<uint32_t>(i), d.ioParadigms[i]);
    }
    for (size_t i = 0; status && i < d.ioFiles.size(); ++i) {
        status = writeIoFile(static_cast<uint32_t>(i), d.ioFiles[i]);
    }
    for (size_t i = 0; status && i < d.ioHandles.size(); ++i) {
        status = writeIoHandle(static_cast<uint32_t>(i), d.ioHandles[i]);
    }
    return status;
}

Status Otf2Writer::writeIoParadigm(uint32_t id, const std::string& name) {
    uint32_t text = 0;
    if (Status written = strings({{&name, &text}}); !written) {
        return written;
    }
    // Score-P's MPI-IO paradigm: identified and named "MPI-IO", a parallel paradigm, no
    // properties.
    return checked(OTF2_GlobalDefWriter_WriteIoParadigm(
        globalWriter(), id, text, text, OTF2_IO_PARADIGM_CLASS_PARALLEL, OTF2_IO_PARADIGM_FLAG_NONE,
        0, nullptr, nullptr, nullptr));
}

Status Otf2Writer::writeIoFile(uint32_t id, const std::string& name, uint32_t scope) {
    uint32_t text = 0;
    if (Status written = strings({{&name, &text}}); !written) {
        return written;
    }
    return checked(OTF2_GlobalDefWriter_WriteIoRegularFile(globalWriter(), id, text, scope));
}

Status Otf2Writer::writeIoHandle(uint32_t id, const IoHandle& handle) {
    uint32_t text = 0;
    if (Status written = strings({{&handle.name, &text}}); !written) {
        return written;
    }
    return checked(OTF2_GlobalDefWriter_WriteIoHandle(globalWriter(), id, text, handle.file,
                                                      handle.paradigm, OTF2_IO_HANDLE_FLAG_NONE,
                                                      handle.comm, OTF2_UNDEFINED_IO_HANDLE));
}

Status Otf2Writer::close() {
    if (m_archive == nullptr) {
        stopCountingErrors();
        return Status::success();
    }
    const OTF2_ErrorCode rc = OTF2_Archive_Close(m_archive);
    m_archive = nullptr;
    m_global = nullptr;
    stopCountingErrors();
    if (rc != OTF2_SUCCESS) {
        return failed("cannot close the OTF2 archive in '" + m_directory + "'", rc);
    }
    return Status::success();
}

void Otf2Writer::abandon() noexcept {
    m_archive = nullptr;
    m_global = nullptr;
    stopCountingErrors();
}

} // namespace waitscope::trace
