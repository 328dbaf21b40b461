// OTF2 reading through libotf2: global definitions and one location's events.
#include "waitscope/trace/otf2_archive.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <otf2/otf2.h>

namespace waitscope::trace {
namespace {

// The reader is closed on every path out of a function.
struct ReaderCloser {
    void operator()(OTF2_Reader* reader) const { OTF2_Reader_Close(reader); }
};
using ReaderPtr = std::unique_ptr<OTF2_Reader, ReaderCloser>;

// The global definitions being read, and what bounds their references: a valid archive
// numbers each kind of definition densely, so no reference reaches the number of definitions
// it holds. A damaged one could otherwise make a table of billions of entries.
struct GlobalReading {
    Definitions defs;
    uint64_t limit = 0;
    std::string error; ///< the first reference beyond the limit
};

Definitions* defsOf(void* user) {
    return &static_cast<GlobalReading*>(user)->defs;
}

template <class T> void putAt(void* user, std::vector<T>& table, uint64_t index, T value) {
    auto* reading = static_cast<GlobalReading*>(user);
    if (index >= reading->limit) {
        if (reading->error.empty()) {
            reading->error = "a definition numbered " + std::to_string(index) +
                             " in an archive of " + std::to_string(reading->limit) + " definitions";
        }
        return;
    }
    if (index >= table.size()) {
        table.resize(index + 1);
    }
    table[index] = std::move(value);
}

RegionRole toRole(OTF2_RegionRole role) {
    switch (role) {
    case OTF2_REGION_ROLE_FUNCTION:
        return RegionRole::Function;
    case OTF2_REGION_ROLE_WRAPPER:
        return RegionRole::Wrapper;
    case OTF2_REGION_ROLE_LOOP:
        return RegionRole::Loop;
    case OTF2_REGION_ROLE_CODE:
        return RegionRole::Code;
    case OTF2_REGION_ROLE_ARTIFICIAL:
        return RegionRole::Artificial;
    case OTF2_REGION_ROLE_POINT2POINT:
        return RegionRole::PointToPoint;
    case OTF2_REGION_ROLE_BARRIER:
        return RegionRole::Barrier;
    // The OpenMP roles the analysis distinguishes (openmp_analysis.cpp).
    case OTF2_REGION_ROLE_IMPLICIT_BARRIER:
        return RegionRole::ImplicitBarrier;
    case OTF2_REGION_ROLE_PARALLEL:
        return RegionRole::Parallel;
    case OTF2_REGION_ROLE_SECTIONS:
        return RegionRole::Sections;
    case OTF2_REGION_ROLE_SINGLE:
        return RegionRole::Single;
    case OTF2_REGION_ROLE_CRITICAL:
        return RegionRole::Critical;
    case OTF2_REGION_ROLE_CRITICAL_SBLOCK:
        return RegionRole::CriticalSblock;
    case OTF2_REGION_ROLE_FLUSH:
        return RegionRole::Flush;
    case OTF2_REGION_ROLE_ORDERED:
        return RegionRole::Ordered;
    case OTF2_REGION_ROLE_ORDERED_SBLOCK:
        return RegionRole::OrderedSblock;
    case OTF2_REGION_ROLE_TASK:
        return RegionRole::Task;
    case OTF2_REGION_ROLE_TASK_CREATE:
        return RegionRole::TaskCreate;
    case OTF2_REGION_ROLE_TASK_WAIT:
        return RegionRole::TaskWait;
    case OTF2_REGION_ROLE_THREAD_CREATE:
        return RegionRole::ThreadCreate;
    case OTF2_REGION_ROLE_THREAD_WAIT:
        return RegionRole::ThreadWait;
    case OTF2_REGION_ROLE_COLL_ONE2ALL:
        return RegionRole::CollectiveOneToAll;
    case OTF2_REGION_ROLE_COLL_ALL2ONE:
        return RegionRole::CollectiveAllToOne;
    case OTF2_REGION_ROLE_COLL_ALL2ALL:
        return RegionRole::CollectiveAllToAll;
    case OTF2_REGION_ROLE_COLL_OTHER:
        return RegionRole::CollectiveOther;
    case OTF2_REGION_ROLE_FILE_IO:
        return RegionRole::FileIo;
    case OTF2_REGION_ROLE_FILE_IO_METADATA:
        return RegionRole::FileIoMetadata;
    case OTF2_REGION_ROLE_RMA:
        return RegionRole::Rma;
    case OTF2_REGION_ROLE_ATOMIC:
        return RegionRole::Atomic;
    case OTF2_REGION_ROLE_UNKNOWN:
        return RegionRole::Unknown;
    default:
        return RegionRole::Other;
    }
}

Paradigm toParadigm(OTF2_Paradigm paradigm) {
    switch (paradigm) {
    case OTF2_PARADIGM_USER:
        return Paradigm::User;
    case OTF2_PARADIGM_COMPILER:
        return Paradigm::Compiler;
    case OTF2_PARADIGM_OPENMP:
        return Paradigm::OpenMp;
    case OTF2_PARADIGM_PTHREAD:
        return Paradigm::Pthread;
    case OTF2_PARADIGM_MPI:
        return Paradigm::Mpi;
    case OTF2_PARADIGM_MEASUREMENT_SYSTEM:
        return Paradigm::MeasurementSystem;
    case OTF2_PARADIGM_SAMPLING:
        return Paradigm::Sampling;
    case OTF2_PARADIGM_UNKNOWN:
        return Paradigm::Unknown;
    default:
        return Paradigm::Other;
    }
}

std::string stringAt(const Definitions& defs, OTF2_StringRef ref) {
    return ref < defs.strings.size() ? defs.strings[ref] : std::string();
}

// --- global definition callbacks -------------------------------------------------------------

OTF2_CallbackCode onString(void* user, OTF2_StringRef self, const char* string) {
    putAt(user, defsOf(user)->strings, self, std::string(string));
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode onRegion(void* user, OTF2_RegionRef self, OTF2_StringRef name,
                           OTF2_StringRef canonicalName, OTF2_StringRef, OTF2_RegionRole role,
                           OTF2_Paradigm paradigm, OTF2_RegionFlag, OTF2_StringRef sourceFile,
                           uint32_t beginLine, uint32_t endLine) {
    auto* defs = defsOf(user);
    Region region;
    region.name = stringAt(*defs, name);
    region.canonicalName = stringAt(*defs, canonicalName);
    region.file = sourceFile == OTF2_UNDEFINED_STRING ? std::string() : stringAt(*defs, sourceFile);
    region.beginLine = beginLine;
    region.endLine = endLine;
    region.role = toRole(role);
    region.paradigm = toParadigm(paradigm);
    putAt(user, defs->regions, self, std::move(region));
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode onLocationGroup(void* user, OTF2_LocationGroupRef self, OTF2_StringRef name,
                                  OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef parent,
                                  OTF2_LocationGroupRef) {
    auto* defs = defsOf(user);
    putAt(user, defs->locationGroups, self,
          LocationGroup{stringAt(*defs, name), type == OTF2_LOCATION_GROUP_TYPE_PROCESS,
                        parent == OTF2_UNDEFINED_SYSTEM_TREE_NODE ? kUndefined : parent});
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode onSystemTreeNode(void* user, OTF2_SystemTreeNodeRef self, OTF2_StringRef name,
                                   OTF2_StringRef className, OTF2_SystemTreeNodeRef parent) {
    auto* defs = defsOf(user);
    putAt(user, defs->systemTreeNodes, self,
          SystemTreeNode{stringAt(*defs, name), stringAt(*defs, className),
                         parent == OTF2_UNDEFINED_SYSTEM_TREE_NODE ? kUndefined : parent});
    return OTF2_CALLBACK_SUCCESS;
}

LocationType toLocationType(OTF2_LocationType type) {
    switch (type) {
    case OTF2_LOCATION_TYPE_CPU_THREAD:
        return LocationType::CpuThread;
    case OTF2_LOCATION_TYPE_ACCELERATOR_STREAM:
        return LocationType::AcceleratorStream;
    case OTF2_LOCATION_TYPE_METRIC:
        return LocationType::Metric;
    default:
        return LocationType::Other;
    }
}

OTF2_CallbackCode onLocation(void* user, OTF2_LocationRef self, OTF2_StringRef name,
                             OTF2_LocationType type, uint64_t events, OTF2_LocationGroupRef group) {
    auto* defs = defsOf(user);
    defs->locations.push_back(
        Location{self, stringAt(*defs, name), group, events, toLocationType(type)});
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode onGroup(void* user, OTF2_GroupRef self, OTF2_StringRef name, OTF2_GroupType type,
                          OTF2_Paradigm paradigm, OTF2_GroupFlag, uint32_t count,
                          const uint64_t* members) {
    auto* defs = defsOf(user);
    Group group;
    group.name = stringAt(*defs, name);
    group.paradigm = toParadigm(paradigm);
    switch (type) {
    case OTF2_GROUP_TYPE_COMM_LOCATIONS:
        group.kind = GroupKind::Locations;
        break;
    case OTF2_GROUP_TYPE_COMM_GROUP:
        group.kind = GroupKind::CommGroup;
        break;
    case OTF2_GROUP_TYPE_COMM_SELF:
        group.kind = GroupKind::CommSelf;
        break;
    default:
        group.kind = GroupKind::Other;
        break;
    }
    group.members.assign(members, members + count);
    putAt(user, defs->groups, self, std::move(group));
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode onComm(void* user, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group,
                         OTF2_CommRef parent, OTF2_CommFlag) {
    auto* defs = defsOf(user);
    Communicator comm;
    comm.name = stringAt(*defs, name);
    comm.group = group;
    comm.parent = parent;
    putAt(user, defs->communicators, self, std::move(comm));
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode onRmaWin(void* user, OTF2_RmaWinRef self, OTF2_StringRef name, OTF2_CommRef comm,
                           OTF2_RmaWinFlag) {
    auto* defs = defsOf(user);
    putAt(user, defs->rmaWindows, self,
          RmaWindow{stringAt(*defs, name), comm == OTF2_UNDEFINED_COMM ? kUndefined : comm});
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode onClock(void* user, uint64_t resolution, uint64_t offset, uint64_t length,
                          uint64_t) {
    auto* defs = defsOf(user);
    defs->clock = ClockProperties{resolution == 0 ? 1 : resolution, offset, length};
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode onCallingContext(void* user, OTF2_CallingContextRef self, OTF2_RegionRef region,
                                   OTF2_SourceCodeLocationRef, OTF2_CallingContextRef parent) {
    putAt(user, defsOf(user)->callingContexts, self, CallingContext{region, parent});
    return OTF2_CALLBACK_SUCCESS;
}

// File I/O definitions (MPI-IO as Score-P and the measurement write them).
OTF2_CallbackCode onIoParadigm(void* user, OTF2_IoParadigmRef self, OTF2_StringRef,
                               OTF2_StringRef name, OTF2_IoParadigmClass, OTF2_IoParadigmFlag,
                               uint8_t, const OTF2_IoParadigmProperty*, const OTF2_Type*,
                               const OTF2_AttributeValue*) {
    auto* defs = defsOf(user);
    putAt(user, defs->ioParadigms, self, stringAt(*defs, name));
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode onIoRegularFile(void* user, OTF2_IoFileRef self, OTF2_StringRef name,
                                  OTF2_SystemTreeNodeRef) {
    auto* defs = defsOf(user);
    putAt(user, defs->ioFiles, self, stringAt(*defs, name));
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode onIoHandle(void* user, OTF2_IoHandleRef self, OTF2_StringRef name,
                             OTF2_IoFileRef file, OTF2_IoParadigmRef paradigm, OTF2_IoHandleFlag,
                             OTF2_CommRef comm, OTF2_IoHandleRef) {
    auto* defs = defsOf(user);
    putAt(user, defs->ioHandles, self, IoHandle{stringAt(*defs, name), file, paradigm, comm});
    return OTF2_CALLBACK_SUCCESS;
}

// Resolves communicator groups (indices into the MPI locations group) into world ranks.
Status resolveCommunicators(Definitions& defs, const std::string& file) {
    const Group* mpiLocations = nullptr;
    for (const Group& group : defs.groups) {
        if (group.kind == GroupKind::Locations && group.paradigm == Paradigm::Mpi) {
            mpiLocations = &group;
        }
    }
    for (size_t c = 0; c < defs.communicators.size(); ++c) {
        Communicator& comm = defs.communicators[c];
        if (comm.group >= defs.groups.size()) {
            continue; // A hole in the table, or a non-MPI communicator without group.
        }
        const Group& group = defs.groups[comm.group];
        if (group.kind == GroupKind::CommSelf) {
            comm.isSelf = true;
            continue;
        }
        if (group.kind != GroupKind::CommGroup || group.paradigm != Paradigm::Mpi) {
            continue;
        }
        if (mpiLocations == nullptr) {
            return Error(file + ": communicator " + std::to_string(c) +
                         " has no mpi locations group");
        }
        for (uint64_t member : group.members) {
            if (member >= mpiLocations->members.size()) {
                return Error(file + ": communicator " + std::to_string(c) + " names member " +
                             std::to_string(member) + " outside the mpi locations group");
            }
            const uint64_t locationId = mpiLocations->members[member];
            uint32_t rank = kUndefined;
            for (const Location& location : defs.locations) {
                if (location.id == locationId) {
                    rank = location.group;
                }
            }
            if (rank == kUndefined) {
                return Error(file + ": communicator " + std::to_string(c) +
                             " names unknown location " + std::to_string(locationId));
            }
            comm.worldRanks.push_back(rank);
        }
    }
    // The world ranks of the MPI groups (the groups of one-sided synchronizations), by the same
    // rule; a member outside the locations group is left out (the analysis names it).
    for (Group& group : defs.groups) {
        if (group.kind != GroupKind::CommGroup || group.paradigm != Paradigm::Mpi ||
            mpiLocations == nullptr) {
            continue;
        }
        for (uint64_t member : group.members) {
            if (member < mpiLocations->members.size()) {
                for (const Location& location : defs.locations) {
                    if (location.id == mpiLocations->members[member]) {
                        group.worldRanks.push_back(location.group);
                        break;
                    }
                }
            }
        }
    }
    return Status::success();
}

// --- event callbacks ------------------------------------------------------------------------

// One kind of reference (region, communicator, ...) as a rank's local definitions map it to the
// global definitions. libotf2 passes an id that its table lacks through unchanged, which turns
// a damaged or missing table into wrong but plausible ids; the reader maps itself instead and
// refuses what does not resolve.
class LocalMapping {
public:
    /// Records one pair of a mapping table (local definitions).
    void add(uint64_t local, uint64_t global) {
        m_present = true;
        if (local < kDenseLimit) {
            if (local >= m_dense.size()) {
                m_dense.resize(local + 1, kUnmapped);
            }
            m_dense[local] = global;
        } else {
            m_sparse[local] = global;
        }
    }
    /// The global id of `local`, or kUnmapped when a table exists and lacks it; without a table
    /// the local ids are the global ones. The result must still be checked against the global
    /// definitions.
    uint64_t map(uint64_t local) const {
        if (!m_present) {
            return local;
        }
        if (local < m_dense.size()) {
            return m_dense[local];
        }
        const auto it = m_sparse.find(local);
        return it == m_sparse.end() ? kUnmapped : it->second;
    }
    static constexpr uint64_t kUnmapped = ~uint64_t{0};

private:
    static constexpr uint64_t kDenseLimit = uint64_t{1} << 22;
    bool m_present = false;
    std::vector<uint64_t> m_dense;
    std::map<uint64_t, uint64_t> m_sparse;
};

// The mapping tables of one location's local definitions, for the references the reader keeps.
struct LocalMappings {
    LocalMapping strings, regions, comms, contexts, windows, groups, ioHandles;
    LocalMapping* of(OTF2_MappingType type) {
        switch (type) {
        case OTF2_MAPPING_IO_HANDLE:
            return &ioHandles;
        case OTF2_MAPPING_RMA_WIN:
            return &windows;
        case OTF2_MAPPING_GROUP:
            return &groups;
        case OTF2_MAPPING_STRING:
            return &strings;
        case OTF2_MAPPING_REGION:
            return &regions;
        case OTF2_MAPPING_COMM:
            return &comms;
        case OTF2_MAPPING_CALLING_CONTEXT:
            return &contexts;
        default:
            return nullptr;
        }
    }
};

OTF2_CallbackCode onMappingTable(void* user, OTF2_MappingType type, const OTF2_IdMap* idMap) {
    LocalMapping* mapping = static_cast<LocalMappings*>(user)->of(type);
    if (mapping != nullptr) {
        OTF2_IdMap_Traverse(
            idMap,
            [](uint64_t local, uint64_t global, void* data) {
                static_cast<LocalMapping*>(data)->add(local, global);
            },
            mapping);
    }
    return OTF2_CALLBACK_SUCCESS;
}

struct EventSink {
    EventStream* stream = nullptr;
    /// Events read into earlier windows (RankEventWindows): the first of `stream` is this one.
    uint64_t base = 0;
    uint64_t lastTime = 0;
    const LocalMappings* mappings = nullptr;
    /// Sizes of the global tables the references must fall into (0: not checked).
    uint64_t regionCount = 0, commCount = 0, contextCount = 0, stringCount = 0;
    uint64_t windowCount = 0, groupCount = 0;
    /// The first reference that did not resolve: what it named, as text, and its event.
    std::string unresolved;
    uint64_t unresolvedCount = 0;
    /// With the global regions: the regions entered and not left, innermost last, and the
    /// first communication event whose MPI call has a role that contradicts it.
    const std::vector<Region>* regions = nullptr;
    std::vector<uint32_t> stack;
    std::string misplaced;
    uint64_t misplacedCount = 0;
    /// With the global definitions: the I/O handles, and the mode of each file operation
    /// begun and not completed yet, by handle and matching id.
    const std::vector<IoHandle>* ioHandles = nullptr;
    std::map<std::pair<uint32_t, uint64_t>, uint8_t> ioModes;

    void add(EventKind kind, uint64_t time, uint32_t ref) {
        check(time);
        stream->append(kind, time, ref);
    }
    void check(uint64_t time) {
        if (time < lastTime) {
            stream->countNonMonotonic();
        }
        lastTime = time;
    }
    // The global id of local `ref` of `mapping`, checked against `count` global definitions;
    // one that does not resolve is remembered and kept as it came.
    uint32_t resolve(const LocalMapping& mapping, uint64_t count, uint32_t ref, const char* what) {
        const uint64_t global = mapping.map(ref);
        if (global != LocalMapping::kUnmapped && (count == 0 || global < count)) {
            return static_cast<uint32_t>(global);
        }
        if (unresolvedCount++ == 0) {
            unresolved = "event " + std::to_string(base + stream->size()) + " names " + what + " " +
                         std::to_string(ref) +
                         (global == LocalMapping::kUnmapped
                              ? std::string(", which its mapping table lacks")
                              : ", mapped to " + std::to_string(global) +
                                    ", which the global definitions do not define");
        }
        return ref;
    }
    uint32_t region(uint32_t ref) { return resolve(mappings->regions, regionCount, ref, "region"); }
    void enter(uint32_t region) { stack.push_back(region); }
    void leave() {
        if (!stack.empty()) {
            stack.pop_back();
        }
    }
    // Whether the innermost entered region is a user's or compiler-instrumented function: no
    // MPI call, whatever its role.
    bool innermostIsUserCode() const {
        if (regions == nullptr || stack.empty() || stack.back() >= regions->size()) {
            return false;
        }
        const Paradigm paradigm = (*regions)[stack.back()].paradigm;
        return paradigm == Paradigm::User || paradigm == Paradigm::Compiler;
    }
    // The role of the innermost entered region, or Unknown.
    RegionRole innermostRole() const {
        if (regions == nullptr || stack.empty() || stack.back() >= regions->size()) {
            return RegionRole::Unknown;
        }
        return (*regions)[stack.back()].role;
    }
    void misplacedEvent(const std::string& what) {
        if (misplacedCount++ == 0) {
            misplaced = "event " + std::to_string(base + stream->size()) + " is " + what +
                        " inside region " + std::to_string(stack.back()) + " (" +
                        (*regions)[stack.back()].name + ")";
        }
    }
    // A message inside a collective MPI call or a user's function: the region mapping does not
    // fit the events.
    void checkMessage() {
        if (isCollectiveRole(innermostRole()) || innermostIsUserCode()) {
            misplacedEvent("a point-to-point message");
        }
    }
    // A collective whose operation contradicts the role of its MPI call (an MPI_Barrier
    // recorded inside MPI_Alltoallw).
    void checkCollective(OTF2_CollectiveOp op) {
        const RegionRole role = innermostRole();
        const RegionRole expected = roleOf(op);
        if ((isCollectiveRole(role) && expected != RegionRole::Unknown && role != expected) ||
            innermostIsUserCode()) {
            misplacedEvent("collective operation " + std::to_string(op));
        }
    }
    static bool isCollectiveRole(RegionRole role) {
        return role == RegionRole::Barrier || role == RegionRole::CollectiveOneToAll ||
               role == RegionRole::CollectiveAllToOne || role == RegionRole::CollectiveAllToAll;
    }
    // The role of the MPI call that performs `op`, Unknown where calls of several roles may.
    static RegionRole roleOf(OTF2_CollectiveOp op) {
        switch (op) {
        case OTF2_COLLECTIVE_OP_BARRIER:
            return RegionRole::Barrier;
        case OTF2_COLLECTIVE_OP_BCAST:
        case OTF2_COLLECTIVE_OP_SCATTER:
        case OTF2_COLLECTIVE_OP_SCATTERV:
            return RegionRole::CollectiveOneToAll;
        case OTF2_COLLECTIVE_OP_GATHER:
        case OTF2_COLLECTIVE_OP_GATHERV:
        case OTF2_COLLECTIVE_OP_REDUCE:
            return RegionRole::CollectiveAllToOne;
        case OTF2_COLLECTIVE_OP_ALLGATHER:
        case OTF2_COLLECTIVE_OP_ALLGATHERV:
        case OTF2_COLLECTIVE_OP_ALLTOALL:
        case OTF2_COLLECTIVE_OP_ALLTOALLV:
        case OTF2_COLLECTIVE_OP_ALLTOALLW:
        case OTF2_COLLECTIVE_OP_ALLREDUCE:
        case OTF2_COLLECTIVE_OP_REDUCE_SCATTER:
        case OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK:
            return RegionRole::CollectiveAllToAll;
        default:
            return RegionRole::Unknown;
        }
    }
    uint32_t comm(uint32_t ref) { return resolve(mappings->comms, commCount, ref, "communicator"); }
    uint32_t ioHandle(uint32_t ref) {
        return resolve(mappings->ioHandles, ioHandles == nullptr ? 0 : ioHandles->size(), ref,
                       "I/O handle");
    }
    // The communicator of global I/O handle `handle`, or kUndefined.
    uint32_t commOfHandle(uint32_t handle) const {
        return ioHandles != nullptr && handle < ioHandles->size() ? (*ioHandles)[handle].comm
                                                                  : kUndefined;
    }
    uint32_t context(uint32_t ref) {
        return resolve(mappings->contexts, contextCount, ref, "calling context");
    }
    uint32_t window(uint32_t ref) { return resolve(mappings->windows, windowCount, ref, "window"); }
    uint32_t group(uint32_t ref) { return resolve(mappings->groups, groupCount, ref, "group"); }
    // A program's name (ProgramBegin) passes through when the table lacks it, as libotf2 lets
    // it: Score-P's string tables leave it out. It must name a global string all the same.
    uint32_t string(uint32_t ref) {
        if (ref == OTF2_UNDEFINED_STRING) {
            return ref;
        }
        const uint64_t global = mappings->strings.map(ref);
        return resolve(LocalMapping(), stringCount,
                       static_cast<uint32_t>(global == LocalMapping::kUnmapped ? ref : global),
                       "string");
    }
};

EventSink& sink(void* user) {
    return *static_cast<EventSink*>(user);
}

OTF2_CallbackCode evEnter(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* u,
                          OTF2_AttributeList*, OTF2_RegionRef region) {
    const uint32_t global = sink(u).region(region);
    sink(u).enter(global);
    sink(u).add(EventKind::Enter, t, global);
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode evLeave(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* u,
                          OTF2_AttributeList*, OTF2_RegionRef region) {
    sink(u).leave();
    sink(u).add(EventKind::Leave, t, sink(u).region(region));
    return OTF2_CALLBACK_SUCCESS;
}
void addMessage(void* u, EventKind kind, uint64_t t, const MessageRecord& m) {
    if (kind == EventKind::MpiSend || kind == EventKind::MpiIsend || kind == EventKind::MpiRecv ||
        kind == EventKind::MpiIrecv) {
        sink(u).checkMessage();
    }
    sink(u).check(t);
    sink(u).stream->appendMessage(kind, t, m);
}
OTF2_CallbackCode evSend(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* u, OTF2_AttributeList*,
                         uint32_t receiver, OTF2_CommRef comm, uint32_t tag, uint64_t length) {
    addMessage(u, EventKind::MpiSend, t,
               MessageRecord{length, 0, receiver, sink(u).comm(comm), tag});
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode evIsend(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* u,
                          OTF2_AttributeList*, uint32_t receiver, OTF2_CommRef comm, uint32_t tag,
                          uint64_t length, uint64_t request) {
    addMessage(u, EventKind::MpiIsend, t,
               MessageRecord{length, request, receiver, sink(u).comm(comm), tag});
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode evRecv(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* u, OTF2_AttributeList*,
                         uint32_t sender, OTF2_CommRef comm, uint32_t tag, uint64_t length) {
    addMessage(u, EventKind::MpiRecv, t, MessageRecord{length, 0, sender, sink(u).comm(comm), tag});
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode evIrecv(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* u,
                          OTF2_AttributeList*, uint32_t sender, OTF2_CommRef comm, uint32_t tag,
                          uint64_t length, uint64_t request) {
    addMessage(u, EventKind::MpiIrecv, t,
               MessageRecord{length, request, sender, sink(u).comm(comm), tag});
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode evIsendComplete(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* u,
                                  OTF2_AttributeList*, uint64_t request) {
    addMessage(u, EventKind::MpiIsendComplete, t, MessageRecord{0, request, 0, 0, 0});
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode evIrecvRequest(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* u,
                                 OTF2_AttributeList*, uint64_t request) {
    addMessage(u, EventKind::MpiIrecvRequest, t, MessageRecord{0, request, 0, 0, 0});
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode evRequestTest(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* u,
                                OTF2_AttributeList*, uint64_t request) {
    addMessage(u, EventKind::MpiRequestTest, t, MessageRecord{0, request, 0, 0, 0});
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode evRequestCancelled(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* u,
                                     OTF2_AttributeList*, uint64_t request) {
    addMessage(u, EventKind::MpiRequestCancelled, t, MessageRecord{0, request, 0, 0, 0});
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode evCollBegin(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* u,
                              OTF2_AttributeList*) {
    sink(u).add(EventKind::MpiCollectiveBegin, t, 0);
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode evCollEnd(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* u,
                            OTF2_AttributeList*, OTF2_CollectiveOp op, OTF2_CommRef comm,
                            uint32_t root, uint64_t sent, uint64_t received) {
    CollectiveRecord record;
    record.sent = sent;
    record.received = received;
    record.comm = sink(u).comm(comm);
    record.root = root;
    sink(u).checkCollective(op);
    record.op = op <= OTF2_COLLECTIVE_OP_DESTROY_HANDLE_AND_DEALLOCATE
                    ? static_cast<CollectiveOp>(op)
                    : CollectiveOp::Other;
    sink(u).check(t);
    sink(u).stream->appendCollective(t, record);
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode evProgramBegin(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* u,
                                 OTF2_AttributeList*, OTF2_StringRef name, uint32_t,
                                 const OTF2_StringRef*) {
    sink(u).add(EventKind::ProgramBegin, t, sink(u).string(name));
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode evProgramEnd(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* u,
                               OTF2_AttributeList*, int64_t) {
    sink(u).add(EventKind::ProgramEnd, t, 0);
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode evCcEnter(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* u,
                            OTF2_AttributeList*, OTF2_CallingContextRef context, uint32_t) {
    sink(u).add(EventKind::CallingContextEnter, t, sink(u).context(context));
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode evCcLeave(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* u,
                            OTF2_AttributeList*, OTF2_CallingContextRef context) {
    sink(u).add(EventKind::CallingContextLeave, t, sink(u).context(context));
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode evCcSample(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* u,
                             OTF2_AttributeList*, OTF2_CallingContextRef context, uint32_t,
                             OTF2_InterruptGeneratorRef) {
    sink(u).add(EventKind::CallingContextSample, t, sink(u).context(context));
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode evFlush(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* u,
                          OTF2_AttributeList*, OTF2_TimeStamp stop) {
    // The flush's duration is kept as an Enter-like pair so the overhead lands on the call path.
    sink(u).add(EventKind::BufferFlush, t,
                static_cast<uint32_t>(stop > t ? std::min<uint64_t>(stop - t, 0xFFFFFFFEu) : 0));
    return OTF2_CALLBACK_SUCCESS;
}

// --- the order of threads ----------------------------------------------------------------------
// The contingent is left out: Waitscope and Score-P write one per process, so the sequence
// number alone pairs the records of a rank's threads (numbers beyond 32 bits are clamped).

template <EventKind kind>
OTF2_CallbackCode evThreadOrder(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* u,
                                OTF2_AttributeList*, OTF2_CommRef, uint64_t sequence) {
    sink(u).add(kind, t, static_cast<uint32_t>(std::min<uint64_t>(sequence, 0xFFFFFFFFu)));
    return OTF2_CALLBACK_SUCCESS;
}

// --- one-sided (RMA) records -----------------------------------------------------------------

void addRma(void* u, EventKind kind, uint64_t t, RmaRecord record) {
    // A failed window creation names no window (Score-P writes it undefined).
    record.window =
        record.window == OTF2_UNDEFINED_RMA_WIN ? kUndefined : sink(u).window(record.window);
    sink(u).check(t);
    sink(u).stream->appendRma(kind, t, record);
}
// A target rank as the analysis keeps it: OTF2's "all targets" (MPI_Win_lock_all) as kUndefined.
uint32_t targetOf(uint32_t remote) {
    return remote == OTF2_UNDEFINED_UINT32 ? kUndefined : remote;
}
OTF2_CallbackCode evRmaWinCreate(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* u,
                                 OTF2_AttributeList*, OTF2_RmaWinRef win) {
    RmaRecord r;
    r.window = win;
    addRma(u, EventKind::RmaWinCreate, t, r);
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode evRmaWinDestroy(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* u,
                                  OTF2_AttributeList*, OTF2_RmaWinRef win) {
    RmaRecord r;
    r.window = win;
    addRma(u, EventKind::RmaWinDestroy, t, r);
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode evRmaCollectiveBegin(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* u,
                                       OTF2_AttributeList*) {
    sink(u).check(t);
    sink(u).stream->appendRma(EventKind::RmaCollectiveBegin, t, RmaRecord{});
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode evRmaCollectiveEnd(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* u,
                                     OTF2_AttributeList*, OTF2_CollectiveOp op,
                                     OTF2_RmaSyncLevel level, OTF2_RmaWinRef win, uint32_t root,
                                     uint64_t sent, uint64_t received) {
    RmaRecord r;
    r.window = win;
    r.op = op <= OTF2_COLLECTIVE_OP_DESTROY_HANDLE_AND_DEALLOCATE ? static_cast<CollectiveOp>(op)
                                                                  : CollectiveOp::Other;
    r.level = level;
    r.remote = targetOf(root);
    r.sent = sent;
    r.received = received;
    addRma(u, EventKind::RmaCollectiveEnd, t, r);
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode evRmaGroupSync(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* u,
                                 OTF2_AttributeList*, OTF2_RmaSyncLevel level, OTF2_RmaWinRef win,
                                 OTF2_GroupRef group) {
    RmaRecord r;
    r.window = win;
    r.level = level;
    r.remote = group == OTF2_UNDEFINED_GROUP ? kUndefined : sink(u).group(group);
    addRma(u, EventKind::RmaGroupSync, t, r);
    return OTF2_CALLBACK_SUCCESS;
}
void addLock(void* u, EventKind kind, uint64_t t, OTF2_RmaWinRef win, uint32_t remote,
             uint64_t lockId, bool exclusive) {
    RmaRecord r;
    r.window = win;
    r.remote = targetOf(remote);
    r.id = lockId;
    r.exclusive = exclusive;
    addRma(u, kind, t, r);
}
OTF2_CallbackCode evRmaRequestLock(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* u,
                                   OTF2_AttributeList*, OTF2_RmaWinRef win, uint32_t remote,
                                   uint64_t lockId, OTF2_LockType type) {
    addLock(u, EventKind::RmaRequestLock, t, win, remote, lockId, type == OTF2_LOCK_EXCLUSIVE);
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode evRmaAcquireLock(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* u,
                                   OTF2_AttributeList*, OTF2_RmaWinRef win, uint32_t remote,
                                   uint64_t lockId, OTF2_LockType type) {
    addLock(u, EventKind::RmaAcquireLock, t, win, remote, lockId, type == OTF2_LOCK_EXCLUSIVE);
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode evRmaTryLock(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* u,
                               OTF2_AttributeList*, OTF2_RmaWinRef win, uint32_t remote,
                               uint64_t lockId, OTF2_LockType type) {
    addLock(u, EventKind::RmaTryLock, t, win, remote, lockId, type == OTF2_LOCK_EXCLUSIVE);
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode evRmaReleaseLock(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* u,
                                   OTF2_AttributeList*, OTF2_RmaWinRef win, uint32_t remote,
                                   uint64_t lockId) {
    addLock(u, EventKind::RmaReleaseLock, t, win, remote, lockId, false);
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode evRmaSync(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* u,
                            OTF2_AttributeList*, OTF2_RmaWinRef win, uint32_t remote,
                            OTF2_RmaSyncType type) {
    RmaRecord r;
    r.window = win;
    r.remote = targetOf(remote);
    r.level = type;
    addRma(u, EventKind::RmaSync, t, r);
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode evRmaWaitChange(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* u,
                                  OTF2_AttributeList*, OTF2_RmaWinRef win) {
    RmaRecord r;
    r.window = win;
    addRma(u, EventKind::RmaWaitChange, t, r);
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode evRmaPut(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* u,
                           OTF2_AttributeList*, OTF2_RmaWinRef win, uint32_t remote, uint64_t bytes,
                           uint64_t matchingId) {
    RmaRecord r;
    r.window = win;
    r.remote = targetOf(remote);
    r.sent = bytes;
    r.id = matchingId;
    addRma(u, EventKind::RmaPut, t, r);
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode evRmaGet(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* u,
                           OTF2_AttributeList*, OTF2_RmaWinRef win, uint32_t remote, uint64_t bytes,
                           uint64_t matchingId) {
    RmaRecord r;
    r.window = win;
    r.remote = targetOf(remote);
    r.received = bytes;
    r.id = matchingId;
    addRma(u, EventKind::RmaGet, t, r);
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode evRmaAtomic(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* u,
                              OTF2_AttributeList*, OTF2_RmaWinRef win, uint32_t remote,
                              OTF2_RmaAtomicType type, uint64_t sent, uint64_t received,
                              uint64_t matchingId) {
    RmaRecord r;
    r.window = win;
    r.remote = targetOf(remote);
    r.level = type;
    r.sent = sent;
    r.received = received;
    r.id = matchingId;
    addRma(u, EventKind::RmaAtomic, t, r);
    return OTF2_CALLBACK_SUCCESS;
}
void addCompletion(void* u, EventKind kind, uint64_t t, OTF2_RmaWinRef win, uint64_t matchingId) {
    RmaRecord r;
    r.window = win;
    r.id = matchingId;
    addRma(u, kind, t, r);
}
OTF2_CallbackCode evRmaOpCompleteBlocking(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* u,
                                          OTF2_AttributeList*, OTF2_RmaWinRef win, uint64_t id) {
    addCompletion(u, EventKind::RmaOpCompleteBlocking, t, win, id);
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode evRmaOpCompleteNonBlocking(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* u,
                                             OTF2_AttributeList*, OTF2_RmaWinRef win, uint64_t id) {
    addCompletion(u, EventKind::RmaOpCompleteNonBlocking, t, win, id);
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode evRmaOpTest(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* u,
                              OTF2_AttributeList*, OTF2_RmaWinRef win, uint64_t id) {
    addCompletion(u, EventKind::RmaOpTest, t, win, id);
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode evRmaOpCompleteRemote(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* u,
                                        OTF2_AttributeList*, OTF2_RmaWinRef win, uint64_t id) {
    addCompletion(u, EventKind::RmaOpCompleteRemote, t, win, id);
    return OTF2_CALLBACK_SUCCESS;
}

// Registers the one-sided records (appended after the others: their event kinds are too).
void setRmaCallbacks(OTF2_EvtReaderCallbacks* callbacks) {
    OTF2_EvtReaderCallbacks_SetRmaWinCreateCallback(callbacks, evRmaWinCreate);
    OTF2_EvtReaderCallbacks_SetRmaWinDestroyCallback(callbacks, evRmaWinDestroy);
    OTF2_EvtReaderCallbacks_SetRmaCollectiveBeginCallback(callbacks, evRmaCollectiveBegin);
    OTF2_EvtReaderCallbacks_SetRmaCollectiveEndCallback(callbacks, evRmaCollectiveEnd);
    OTF2_EvtReaderCallbacks_SetRmaGroupSyncCallback(callbacks, evRmaGroupSync);
    OTF2_EvtReaderCallbacks_SetRmaRequestLockCallback(callbacks, evRmaRequestLock);
    OTF2_EvtReaderCallbacks_SetRmaAcquireLockCallback(callbacks, evRmaAcquireLock);
    OTF2_EvtReaderCallbacks_SetRmaTryLockCallback(callbacks, evRmaTryLock);
    OTF2_EvtReaderCallbacks_SetRmaReleaseLockCallback(callbacks, evRmaReleaseLock);
    OTF2_EvtReaderCallbacks_SetRmaSyncCallback(callbacks, evRmaSync);
    OTF2_EvtReaderCallbacks_SetRmaWaitChangeCallback(callbacks, evRmaWaitChange);
    OTF2_EvtReaderCallbacks_SetRmaPutCallback(callbacks, evRmaPut);
    OTF2_EvtReaderCallbacks_SetRmaGetCallback(callbacks, evRmaGet);
    OTF2_EvtReaderCallbacks_SetRmaAtomicCallback(callbacks, evRmaAtomic);
    OTF2_EvtReaderCallbacks_SetRmaOpCompleteBlockingCallback(callbacks, evRmaOpCompleteBlocking);
    OTF2_EvtReaderCallbacks_SetRmaOpCompleteNonBlockingCallback(callbacks,
                                                                evRmaOpCompleteNonBlocking);
    OTF2_EvtReaderCallbacks_SetRmaOpTestCallback(callbacks, evRmaOpTest);
    OTF2_EvtReaderCallbacks_SetRmaOpCompleteRemoteCallback(callbacks, evRmaOpCompleteRemote);
}

// File I/O (MPI-IO). A completed read or write is kept with its bytes and mode. The operations
// that are collective over the handle's communicator (opening and closing it, a blocking
// collective read, write or flush) are kept as collectives of CollectiveOp::FileIo on that
// communicator, which the replay matches across its members like any other collective.
void addFileCollective(void* u, uint64_t t, uint32_t handle) {
    const uint32_t comm = sink(u).commOfHandle(handle);
    if (comm == kUndefined) {
        return;
    }
    CollectiveRecord record;
    record.comm = comm;
    record.root = kUndefined;
    record.op = CollectiveOp::FileIo;
    sink(u).check(t);
    sink(u).stream->appendCollective(t, record);
}
OTF2_CallbackCode evIoCreateHandle(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* u,
                                   OTF2_AttributeList*, OTF2_IoHandleRef handle, OTF2_IoAccessMode,
                                   OTF2_IoCreationFlag, OTF2_IoStatusFlag) {
    addFileCollective(u, t, sink(u).ioHandle(handle));
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode evIoDestroyHandle(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* u,
                                    OTF2_AttributeList*, OTF2_IoHandleRef handle) {
    addFileCollective(u, t, sink(u).ioHandle(handle));
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode evIoOperationBegin(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* u,
                                     OTF2_AttributeList*, OTF2_IoHandleRef handle,
                                     OTF2_IoOperationMode mode, OTF2_IoOperationFlag flags,
                                     uint64_t, uint64_t matchingId) {
    const uint32_t global = sink(u).ioHandle(handle);
    sink(u).ioModes[{global, matchingId}] = mode;
    if ((flags & OTF2_IO_OPERATION_FLAG_COLLECTIVE) != 0 &&
        (flags & OTF2_IO_OPERATION_FLAG_NON_BLOCKING) == 0) {
        addFileCollective(u, t, global);
    }
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode evIoOperationComplete(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* u,
                                        OTF2_AttributeList*, OTF2_IoHandleRef handle,
                                        uint64_t bytes, uint64_t matchingId) {
    const uint32_t global = sink(u).ioHandle(handle);
    auto& modes = sink(u).ioModes;
    const auto begun = modes.find({global, matchingId});
    if (begun == modes.end()) {
        return OTF2_CALLBACK_SUCCESS; // a completion without its begin: only counted as skipped
    }
    const uint8_t mode = begun->second;
    modes.erase(begun);
    sink(u).check(t);
    sink(u).stream->appendIoOperation(t, IoOperationRecord{bytes, global, mode});
    return OTF2_CALLBACK_SUCCESS;
}

} // namespace

Result<std::string> findAnchorFile(const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
        const fs::path anchor = fs::path(path) / "traces.otf2";
        if (fs::is_regular_file(anchor, ec)) {
            return anchor.string();
        }
        return Error(path + ": no traces.otf2 in this directory");
    }
    if (fs::is_regular_file(path, ec)) {
        return path;
    }
    return Error(path + ": no such trace archive");
}

Result<ArchiveDefinitions> readArchiveDefinitions(const std::string& path) {
    auto anchor = findAnchorFile(path);
    if (!anchor) {
        return anchor.error();
    }
    auto definitions = readDefinitions(*anchor);
    if (!definitions) {
        return definitions.error();
    }
    return ArchiveDefinitions{std::move(*anchor), std::move(*definitions)};
}

namespace {

// libotf2 trusts the numbers of the anchor file before it checks them: a damaged chunk size
// or property count makes it allocate (and walk) gigabytes for minutes. An anchor written by
// libotf2 on a little-endian machine is 0x03 'B' "OTF2" 0, the anchor format, the trace
// format, three version bytes, the event and definition chunk sizes (64-bit little-endian),
// substrate, compression, the numbers of locations and global definitions (64-bit), three
// strings (machine, creator, description) and, from anchor format 2, the number of properties
// (32-bit) and the properties as pairs of strings. Those numbers are checked here; anchors of
// another layout are left to libotf2.
Status checkAnchorHeader(const std::string& anchorFile) {
    // Its first MiB at most, sized by the file: an anchor file takes a few hundred bytes, and a
    // buffer filled for a whole MiB cost every analysis process about a millisecond.
    constexpr std::streamoff kMostBytes = std::streamoff{1} << 20;
    std::ifstream in(anchorFile, std::ios::binary | std::ios::ate);
    const std::streamoff length = in ? std::clamp<std::streamoff>(in.tellg(), 0, kMostBytes) : 0;
    in.seekg(0);
    std::string bytes(static_cast<size_t>(length), '\0');
    in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    bytes.resize(static_cast<size_t>(std::max<std::streamsize>(in.gcount(), 0)));
    if (bytes.size() < 46 || bytes.compare(0, 7,
                                           std::string("\x03"
                                                       "BOTF2\0",
                                                       7)) != 0) {
        return Status::success();
    }
    const auto number = [&bytes](size_t at, size_t width) {
        uint64_t value = 0;
        for (size_t b = width; b-- > 0;) {
            value = value << 8 | static_cast<unsigned char>(bytes[at + b]);
        }
        return value;
    };
    const auto corrupt = [&anchorFile](const std::string& what) {
        return Error(anchorFile + ": corrupt anchor file: " + what);
    };
    for (const size_t at : {size_t{12}, size_t{20}}) {
        const uint64_t size = number(at, 8);
        if (size < OTF2_CHUNK_SIZE_MIN || size > OTF2_CHUNK_SIZE_MAX) {
            return corrupt("a chunk size of " + std::to_string(size) + " bytes (otf2 allows " +
                           std::to_string(OTF2_CHUNK_SIZE_MIN) + " to " +
                           std::to_string(OTF2_CHUNK_SIZE_MAX) + ")");
        }
    }
    if (number(30, 8) > 0xFFFFFFFFull) {
        return corrupt(std::to_string(number(30, 8)) + " locations");
    }
    const uint8_t anchorFormat = static_cast<uint8_t>(bytes[7]);
    size_t at = 46;
    for (int string = 0; string < 3; ++string) {
        const size_t end = bytes.find('\0', at);
        if (end == std::string::npos) {
            return corrupt("a string without its end");
        }
        at = end + 1;
    }
    if (anchorFormat > 1 && at + 4 <= bytes.size()) {
        // Each property takes at least two bytes (two empty strings).
        const uint64_t properties = number(at, 4);
        if (properties > (bytes.size() - at) / 2) {
            return corrupt(std::to_string(properties) + " properties in " +
                           std::to_string(bytes.size()) + " bytes");
        }
    }
    return Status::success();
}

} // namespace

Result<Definitions> readDefinitions(const std::string& anchorFile) {
    if (Status status = checkAnchorHeader(anchorFile); !status) {
        return status.error();
    }
    ReaderPtr reader(OTF2_Reader_Open(anchorFile.c_str()));
    if (!reader) {
        return Error(anchorFile + ": cannot open otf2 archive");
    }
    OTF2_Reader_SetSerialCollectiveCallbacks(reader.get());
    OTF2_GlobalDefReader* defReader = OTF2_Reader_GetGlobalDefReader(reader.get());
    if (defReader == nullptr) {
        return Error(anchorFile + ": cannot read global definitions");
    }
    GlobalReading reading;
    OTF2_Reader_GetNumberOfGlobalDefinitions(reader.get(), &reading.limit);
    Definitions& defs = reading.defs;
    OTF2_GlobalDefReaderCallbacks* callbacks = OTF2_GlobalDefReaderCallbacks_New();
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(callbacks, onString);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(callbacks, onRegion);
    OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(callbacks, onLocationGroup);
    OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeCallback(callbacks, onSystemTreeNode);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(callbacks, onLocation);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(callbacks, onGroup);
    OTF2_GlobalDefReaderCallbacks_SetCommCallback(callbacks, onComm);
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(callbacks, onClock);
    OTF2_GlobalDefReaderCallbacks_SetCallingContextCallback(callbacks, onCallingContext);
    OTF2_GlobalDefReaderCallbacks_SetRmaWinCallback(callbacks, onRmaWin);
    OTF2_GlobalDefReaderCallbacks_SetIoParadigmCallback(callbacks, onIoParadigm);
    OTF2_GlobalDefReaderCallbacks_SetIoRegularFileCallback(callbacks, onIoRegularFile);
    OTF2_GlobalDefReaderCallbacks_SetIoHandleCallback(callbacks, onIoHandle);
    OTF2_Reader_RegisterGlobalDefCallbacks(reader.get(), defReader, callbacks, &reading);
    OTF2_GlobalDefReaderCallbacks_Delete(callbacks);
    uint64_t read = 0;
    if (OTF2_Reader_ReadAllGlobalDefinitions(reader.get(), defReader, &read) != OTF2_SUCCESS) {
        return Error(anchorFile + ": global definitions are truncated or corrupt");
    }
    if (!reading.error.empty()) {
        return Error(anchorFile + ": global definitions are corrupt: " + reading.error);
    }
    if (Status status = resolveCommunicators(defs, anchorFile); !status) {
        return status.error();
    }
    return std::move(reading.defs);
}

namespace {

// Whether the archive directory `dir` holds a local definition file other than `own`.
bool hasOtherDefinitionFiles(const std::filesystem::path& dir, const std::filesystem::path& own) {
    std::error_code ec;
    for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        if (it->path().extension() == ".def" && it->path().filename() != own.filename()) {
            return true;
        }
    }
    return false;
}

// Reads the local definitions of `location` (mapping tables and clock offsets) into `mappings`;
// libotf2 keeps the clock offsets for the event reader. A missing file is an error when other
// locations have theirs (a writer that maps writes one per location), a damaged one always.
Status readLocalDefinitions(OTF2_Reader* reader, const std::string& anchorFile,
                            const Location& location, const std::string& where,
                            LocalMappings& mappings) {
    const std::filesystem::path dir = std::filesystem::path(anchorFile).replace_extension("");
    const std::filesystem::path defFile = dir / (std::to_string(location.id) + ".def");
    std::error_code ec;
    if (!std::filesystem::is_regular_file(defFile, ec)) {
        if (hasOtherDefinitionFiles(dir, defFile)) {
            return Error(where + ": local definitions " + defFile.string() +
                         " are missing (the other locations have theirs)");
        }
        return Status::success();
    }
    if (OTF2_Reader_OpenDefFiles(reader) != OTF2_SUCCESS) {
        return Error(where + ": cannot open the local definitions " + defFile.string());
    }
    OTF2_DefReader* localDefs = OTF2_Reader_GetDefReader(reader, location.id);
    if (localDefs == nullptr) {
        OTF2_Reader_CloseDefFiles(reader);
        return Error(where + ": cannot open the local definitions " + defFile.string());
    }
    OTF2_DefReaderCallbacks* callbacks = OTF2_DefReaderCallbacks_New();
    OTF2_DefReaderCallbacks_SetMappingTableCallback(callbacks, onMappingTable);
    OTF2_Reader_RegisterDefCallbacks(reader, localDefs, callbacks, &mappings);
    OTF2_DefReaderCallbacks_Delete(callbacks);
    uint64_t read = 0;
    const OTF2_ErrorCode code = OTF2_Reader_ReadAllLocalDefinitions(reader, localDefs, &read);
    OTF2_Reader_CloseDefReader(reader, localDefs);
    OTF2_Reader_CloseDefFiles(reader);
    if (code != OTF2_SUCCESS) {
        return Error(where + ": local definitions " + defFile.string() +
                     " are truncated or corrupt after definition " + std::to_string(read));
    }
    return Status::success();
}

// An opened event reader of one location, its mappings and the sink its callbacks fill: read
// whole (readEvents()) or in windows (RankEventWindows).
struct OpenedEvents {
    ReaderPtr reader;
    OTF2_EvtReader* evtReader = nullptr;
    LocalMappings mappings;
    EventSink sink;
    const Location* location = nullptr;
    std::string where;
    std::filesystem::path evtFile;
    uint64_t read = 0;   ///< event records read so far
    uint64_t stored = 0; ///< events appended to streams so far
    bool done = false;

    OpenedEvents() = default;
    OpenedEvents(const OpenedEvents&) = delete;
    OpenedEvents& operator=(const OpenedEvents&) = delete;
    ~OpenedEvents() {
        if (evtReader != nullptr) {
            OTF2_Reader_CloseEvtReader(reader.get(), evtReader);
            OTF2_Reader_CloseEvtFiles(reader.get());
        }
    }
};

// Opens the events of `location`; `where` starts every error message. With `defs`, every
// reference must resolve to one of its definitions.
Result<std::unique_ptr<OpenedEvents>> openEvents(const std::string& anchorFile,
                                                 const Location* location, const Definitions* defs,
                                                 const std::string& where) {
    auto opened = std::make_unique<OpenedEvents>();
    opened->reader.reset(OTF2_Reader_Open(anchorFile.c_str()));
    if (!opened->reader) {
        return Error(anchorFile + ": cannot open otf2 archive");
    }
    OTF2_Reader* reader = opened->reader.get();
    OTF2_Reader_SetSerialCollectiveCallbacks(reader);
    // The event file must exist; libotf2 would otherwise report an empty stream.
    opened->evtFile = std::filesystem::path(anchorFile).replace_extension("") /
                      (std::to_string(location->id) + ".evt");
    std::error_code ec;
    if (!std::filesystem::is_regular_file(opened->evtFile, ec)) {
        return Error(where + ": event file " + opened->evtFile.string() + " is missing");
    }
    OTF2_Reader_SelectLocation(reader, location->id);
    if (Status status =
            readLocalDefinitions(reader, anchorFile, *location, where, opened->mappings);
        !status) {
        return status.error();
    }
    OTF2_Reader_OpenEvtFiles(reader);
    opened->evtReader = OTF2_Reader_GetEvtReader(reader, location->id);
    if (opened->evtReader == nullptr) {
        OTF2_Reader_CloseEvtFiles(reader);
        return Error(where + ": cannot open the event stream");
    }
    // The reader maps the references itself (LocalMapping); libotf2 still applies the clock
    // offsets.
    OTF2_EvtReader_ApplyMappingTables(opened->evtReader, false);
    opened->location = location;
    opened->where = where;
    EventSink& eventSink = opened->sink;
    eventSink.mappings = &opened->mappings;
    if (defs != nullptr) {
        eventSink.regionCount = defs->regions.size();
        eventSink.commCount = defs->communicators.size();
        eventSink.contextCount = defs->callingContexts.size();
        eventSink.stringCount = defs->strings.size();
        eventSink.regions = &defs->regions;
        eventSink.windowCount = defs->rmaWindows.size();
        eventSink.groupCount = defs->groups.size();
        eventSink.ioHandles = &defs->ioHandles;
    }
    OTF2_EvtReaderCallbacks* callbacks = OTF2_EvtReaderCallbacks_New();
    OTF2_EvtReaderCallbacks_SetEnterCallback(callbacks, evEnter);
    OTF2_EvtReaderCallbacks_SetLeaveCallback(callbacks, evLeave);
    OTF2_EvtReaderCallbacks_SetMpiSendCallback(callbacks, evSend);
    OTF2_EvtReaderCallbacks_SetMpiIsendCallback(callbacks, evIsend);
    OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(callbacks, evIsendComplete);
    OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(callbacks, evIrecvRequest);
    OTF2_EvtReaderCallbacks_SetMpiRecvCallback(callbacks, evRecv);
    OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(callbacks, evIrecv);
    OTF2_EvtReaderCallbacks_SetMpiRequestTestCallback(callbacks, evRequestTest);
    OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback(callbacks, evRequestCancelled);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(callbacks, evCollBegin);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(callbacks, evCollEnd);
    OTF2_EvtReaderCallbacks_SetProgramBeginCallback(callbacks, evProgramBegin);
    OTF2_EvtReaderCallbacks_SetProgramEndCallback(callbacks, evProgramEnd);
    OTF2_EvtReaderCallbacks_SetCallingContextEnterCallback(callbacks, evCcEnter);
    OTF2_EvtReaderCallbacks_SetCallingContextLeaveCallback(callbacks, evCcLeave);
    OTF2_EvtReaderCallbacks_SetCallingContextSampleCallback(callbacks, evCcSample);
    OTF2_EvtReaderCallbacks_SetBufferFlushCallback(callbacks, evFlush);
    OTF2_EvtReaderCallbacks_SetThreadCreateCallback(callbacks,
                                                    evThreadOrder<EventKind::ThreadCreate>);
    OTF2_EvtReaderCallbacks_SetThreadBeginCallback(callbacks,
                                                   evThreadOrder<EventKind::ThreadBegin>);
    OTF2_EvtReaderCallbacks_SetThreadWaitCallback(callbacks, evThreadOrder<EventKind::ThreadWait>);
    OTF2_EvtReaderCallbacks_SetThreadEndCallback(callbacks, evThreadOrder<EventKind::ThreadEnd>);
    setRmaCallbacks(callbacks);
    OTF2_EvtReaderCallbacks_SetIoCreateHandleCallback(callbacks, evIoCreateHandle);
    OTF2_EvtReaderCallbacks_SetIoDestroyHandleCallback(callbacks, evIoDestroyHandle);
    OTF2_EvtReaderCallbacks_SetIoOperationBeginCallback(callbacks, evIoOperationBegin);
    OTF2_EvtReaderCallbacks_SetIoOperationCompleteCallback(callbacks, evIoOperationComplete);
    OTF2_Reader_RegisterEvtCallbacks(reader, opened->evtReader, callbacks, &opened->sink);
    OTF2_EvtReaderCallbacks_Delete(callbacks);
    return opened;
}

// Appends up to `count` further events of `opened` to `stream` (all that are left when
// `count` is 0); fails naming the location and the event where the file is damaged. Marks
// `opened` done at the end of the file, where a trace that lost its end is refused.
Status readMore(OpenedEvents& opened, EventStream& stream, uint64_t count) {
    EventSink& eventSink = opened.sink;
    eventSink.stream = &stream;
    const size_t before = stream.size();
    // Messages name events by their index among the location's stored events (modular
    // arithmetic: a caller may have put events of its own first).
    eventSink.base = opened.stored - before;
    uint64_t read = 0;
    const OTF2_ErrorCode code =
        count == 0
            ? OTF2_Reader_ReadAllLocalEvents(opened.reader.get(), opened.evtReader, &read)
            : OTF2_Reader_ReadLocalEvents(opened.reader.get(), opened.evtReader, count, &read);
    opened.read += read;
    opened.stored += stream.size() - before;
    if (code != OTF2_SUCCESS) {
        return Error(opened.where + ": event file truncated or corrupt after event " +
                     std::to_string(opened.read));
    }
    stream.setSkippedEvents(stream.skippedEvents() + read - (stream.size() - before));
    opened.done = count == 0 || read < count;
    // More events than announced is fine (libotf2 adds buffer-flush records); fewer means the
    // file lost its end.
    if (opened.done && opened.read < opened.location->announcedEvents) {
        return Error(opened.where + ": trace truncated after event " + std::to_string(opened.read) +
                     " of " + std::to_string(opened.location->announcedEvents));
    }
    if (eventSink.unresolvedCount > 0) {
        return Error(opened.where + ": " + std::to_string(eventSink.unresolvedCount) +
                     " event references do not resolve through the local definitions of " +
                     opened.evtFile.filename().replace_extension(".def").string() +
                     " (damaged or missing?); the first: " + eventSink.unresolved);
    }
    if (eventSink.misplacedCount > 0) {
        return Error(opened.where + ": " + std::to_string(eventSink.misplacedCount) +
                     " communication events sit in MPI calls of another kind (a damaged event "
                     "file, or local definitions " +
                     opened.evtFile.filename().replace_extension(".def").string() +
                     " of another location?); the first: " + eventSink.misplaced);
    }
    return Status::success();
}

// Reads the events of `location` whole; fails as openEvents() and readMore() do.
Result<EventStream> readEvents(const std::string& anchorFile, const Location* location,
                               const Definitions* defs, const std::string& where) {
    auto opened = openEvents(anchorFile, location, defs, where);
    if (!opened) {
        return opened.error();
    }
    EventStream stream;
    // Room for the announced events, but no more than the event file can hold (a record takes
    // at least a byte): a damaged count must not reserve terabytes.
    std::error_code ec;
    const uint64_t fileBytes = std::filesystem::file_size((*opened)->evtFile, ec);
    stream.reserve(std::min<uint64_t>(location->announcedEvents, ec ? 0 : fileBytes));
    if (Status status = readMore(**opened, stream, 0); !status) {
        return status.error();
    }
    stream.shrink();
    return stream;
}

} // namespace

Result<EventStream> readRankEvents(const std::string& anchorFile, const Definitions& defs,
                                   uint32_t rank) {
    const std::string where = anchorFile + ": rank " + std::to_string(rank);
    const Location* location = defs.locationOfRank(rank);
    if (location == nullptr) {
        return Error(where + ": no location defined for this rank");
    }
    return readEvents(anchorFile, location, &defs, where);
}

struct RankEventWindows::State {
    std::unique_ptr<OpenedEvents> opened;
};

Result<std::unique_ptr<RankEventWindows>> RankEventWindows::open(const std::string& anchorFile,
                                                                 const Definitions& definitions,
                                                                 uint32_t rank) {
    const std::string where = anchorFile + ": rank " + std::to_string(rank);
    const Location* location = definitions.locationOfRank(rank);
    if (location == nullptr) {
        return Error(where + ": no location defined for this rank");
    }
    auto opened = openEvents(anchorFile, location, &definitions, where);
    if (!opened) {
        return opened.error();
    }
    auto windows = std::unique_ptr<RankEventWindows>(new RankEventWindows());
    windows->m_state = std::make_unique<State>();
    windows->m_state->opened = std::move(*opened);
    return windows;
}

RankEventWindows::RankEventWindows() = default;
RankEventWindows::~RankEventWindows() = default;

Status RankEventWindows::next(EventStream& into, uint64_t count) {
    if (m_state->opened->done) {
        return Status::success();
    }
    return readMore(*m_state->opened, into, std::max<uint64_t>(count, 1));
}

bool RankEventWindows::done() const {
    return m_state->opened->done;
}

uint64_t RankEventWindows::read() const {
    return m_state->opened->read;
}

Result<EventStream> readLocationEvents(const std::string& anchorFile, const Location& location,
                                       const Definitions* definitions) {
    const std::string where = anchorFile + ": rank " + std::to_string(location.group) +
                              ": location " + std::to_string(location.id) + " (" + location.name +
                              ")";
    return readEvents(anchorFile, &location, definitions, where);
}

} // namespace waitscope::trace
