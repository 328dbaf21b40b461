// Communicator ids, identities agreed at creation, and the creation/free handlers.
#include "communicators.h"

#include "table_lock.h"
#include "waitscope/measure/handle_map.h"

#include <atomic>
#include <vector>

namespace waitscope::measure::mpi {

namespace {

// Constant-initialized; the map allocates on first insert, inside MPI calls only. The map, the
// counter and the rank's communicator definitions are read and changed under TableLock.
CommInfo g_world;
CommInfo g_self{1, 1, 0};
HandleMap<CommInfo>* g_comms = nullptr;
std::uint32_t g_created = 0; ///< communicators this rank created as their rank 0
/// By local communicator id: where an intercommunicator's remote group starts in the trace's
/// group of both (-1: not an intercommunicator). Null until the first intercommunicator;
/// read and grown under TableLock.
std::vector<int>* g_remoteOffsets = nullptr;
/// Set (under TableLock) once g_remoteOffsets exists: until then tracePeer(), which every
/// point-to-point record calls, needs no lock.
std::atomic<bool> g_anyInter{false};
/// Per parent communicator (by identity): the communicators derived from it so far.
HandleMap<std::uint32_t>* g_children = nullptr;

HandleMap<CommInfo>& comms() {
    if (!g_comms)
        g_comms = new HandleMap<CommInfo>();
    return *g_comms;
}

CommInfo describe(MPI_Comm comm, std::uint32_t id) {
    CommInfo info;
    info.id = id;
    PMPI_Comm_size(comm, &info.size);
    PMPI_Comm_rank(comm, &info.rank);
    return info;
}

/// The world ranks of the members of `group` in group order; frees `group`.
std::vector<std::uint32_t> worldRanksOf(MPI_Group group) {
    MPI_Group world;
    PMPI_Comm_group(MPI_COMM_WORLD, &world);
    int n = 0;
    PMPI_Group_size(group, &n);
    std::vector<int> local(static_cast<size_t>(n)), global(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i)
        local[static_cast<size_t>(i)] = i;
    PMPI_Group_translate_ranks(group, n, local.data(), world, global.data());
    PMPI_Group_free(&group);
    PMPI_Group_free(&world);
    return {global.begin(), global.end()};
}

/// The world ranks of `comm`'s (local) group, in communicator-rank order.
std::vector<std::uint32_t> worldRanks(MPI_Comm comm) {
    MPI_Group group;
    PMPI_Comm_group(comm, &group);
    return worldRanksOf(group);
}

/// An identity for the next communicator made from the one identified by `parentKey`, agreed
/// without communication: every member of the parent makes its communicators from it in the
/// same order. The parent's creator and a hash of the parent's identity and the number of the
/// child, with the high bit set, so that it never meets the numbers agreed by broadcast (a
/// collision needs the same creator and the same 31 bits). The per-parent counts are under
/// TableLock: threads may make communicators from different parents at once.
CommKey derivedKey(CommKey parentKey) {
    std::uint64_t number = 0;
    {
        TableLock lock;
        if (!g_children)
            g_children = new HandleMap<std::uint32_t>();
        std::uint32_t* count = g_children->find(parentKey);
        if (!count)
            count = &g_children->insert(parentKey, 0);
        number = (*count)++;
    }
    // splitmix64 of the parent's identity and the child's number.
    std::uint64_t z = parentKey + 0x9e3779b97f4a7c15ull * (number + 1);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return makeCommKey(static_cast<std::uint32_t>(parentKey >> 32),
                       0x80000000u | static_cast<std::uint32_t>(z & 0x7fffffffu));
}

/// The world ranks of an intercommunicator's remote group, in remote-rank order.
std::vector<std::uint32_t> remoteWorldRanks(MPI_Comm comm) {
    MPI_Group group;
    PMPI_Comm_remote_group(comm, &group);
    return worldRanksOf(group);
}

// Tag of the leaders' exchange of identities on a new intercommunicator: nothing of the
// program's can be in flight on it before its creation returns.
constexpr int kInterKeyTag = 4711;

/// An intercommunicator as the trace has it: one communicator of both groups, the group whose
/// rank 0 has the lower world rank first, so that both sides define the same group and every
/// message on it names its partner's place there (tracePeer). Its identity is the first
/// group's: each group agrees on one in its local communicator `local` (`key`), the leaders
/// swap them over the intercommunicator, and each leader broadcasts the first group's.
CommInfo describeInter(MPI_Comm comm, MPI_Comm local, bool agreed, CommDefinition& def) {
    const std::vector<std::uint32_t> mine = worldRanks(comm);
    const std::vector<std::uint32_t> theirs = remoteWorldRanks(comm);
    const bool first = mine.empty() || theirs.empty() || mine.front() < theirs.front();
    int localRank = 0;
    PMPI_Comm_rank(comm, &localRank);
    if (local != MPI_COMM_NULL) {
        int localLeader = 0;
        PMPI_Comm_rank(local, &localLeader);
        unsigned long long own = def.key, other = def.key;
        if (localLeader == 0)
            PMPI_Sendrecv(&own, 1, MPI_UNSIGNED_LONG_LONG, 0, kInterKeyTag, &other, 1,
                          MPI_UNSIGNED_LONG_LONG, 0, kInterKeyTag, comm, MPI_STATUS_IGNORE);
        unsigned long long chosen = first ? own : other;
        PMPI_Bcast(&chosen, 1, MPI_UNSIGNED_LONG_LONG, 0, local);
        def.key = chosen;
    }
    def.members.clear();
    const std::vector<std::uint32_t>& lead = first ? mine : theirs;
    const std::vector<std::uint32_t>& follow = first ? theirs : mine;
    def.members.insert(def.members.end(), lead.begin(), lead.end());
    def.members.insert(def.members.end(), follow.begin(), follow.end());
    CommInfo info;
    info.inter = true;
    info.size = static_cast<int>(def.members.size());
    info.rank = (first ? 0 : static_cast<int>(theirs.size())) + localRank;
    // Without an agreed identity the identity is this rank's own: it describes it itself.
    def.describes = !agreed || info.rank == 0;
    if (!def.describes)
        def.members.clear();
    const int remoteOffset = first ? static_cast<int>(mine.size()) : 0;
    TableLock lock; // another thread may define a communicator meanwhile
    info.id = definitions().addComm(def);
    if (!g_remoteOffsets)
        g_remoteOffsets = new std::vector<int>();
    if (g_remoteOffsets->size() <= info.id)
        g_remoteOffsets->resize(info.id + 1, -1);
    (*g_remoteOffsets)[info.id] = remoteOffset;
    g_anyInter.store(true, std::memory_order_release);
    return info;
}

} // namespace

std::uint32_t tracePeer(std::uint32_t commId, int rank) noexcept {
    if (rank < 0 || !g_anyInter.load(std::memory_order_acquire))
        return static_cast<std::uint32_t>(rank);
    // Another thread may grow the offsets meanwhile (a new intercommunicator): under the lock,
    // which only programs with intercommunicators pay for.
    TableLock lock;
    if (commId < g_remoteOffsets->size() && (*g_remoteOffsets)[commId] >= 0)
        return static_cast<std::uint32_t>(rank + (*g_remoteOffsets)[commId]);
    return static_cast<std::uint32_t>(rank);
}

void registerPredefinedComms() noexcept {
    g_world = describe(MPI_COMM_WORLD, 0);
    g_self = describe(MPI_COMM_SELF, 1);
}

CommInfo commInfo(MPI_Comm comm) noexcept {
    if (comm == MPI_COMM_WORLD)
        return g_world;
    if (comm == MPI_COMM_SELF)
        return g_self;
    TableLock lock;
    if (CommInfo* info = comms().find(handleKey(comm)))
        return *info;
    countFromAnyThread(g_diagnostics.unknownComms);
    return g_world;
}

CommCreate::CommCreate(std::uint32_t region, std::uint32_t group, MPI_Comm parent,
                       MPI_Comm* created, MPI_Comm keyComm) noexcept
    : Call(region, group), m_parent(parent), m_created(created), m_keyComm(keyComm) {
    if (m_active) {
        enter();
        appendRecord(m_enter, EventKind::MpiCollectiveBegin, 0);
    }
}

void CommCreate::finish(int rc) noexcept {
    // Identities are agreed even when the call is not recorded, so later events can name it.
    std::uint32_t id = 0;
    bool made = false;
    // Any thread (a further thread's communicators are defined as the main thread's are).
    if (rc == MPI_SUCCESS && g_hot.recordMask != 0 && m_created && *m_created != MPI_COMM_NULL) {
        MPI_Comm comm = *m_created;
        int inter = 0;
        PMPI_Comm_test_inter(comm, &inter);
        MPI_Comm agree = inter ? m_keyComm : comm;
        int agreeInter = 0;
        if (agree != MPI_COMM_NULL)
            PMPI_Comm_test_inter(agree, &agreeInter);
        // Made from an intercommunicator (dup, split, create of one): a broadcast there would need
        // MPI_ROOT; its identity is derived from the parent's, which both groups share.
        const bool derived = agreeInter != 0;
        if (derived)
            agree = MPI_COMM_NULL;
        CommDefinition def;
        if (agree != MPI_COMM_NULL) {
            int rank = 0;
            PMPI_Comm_rank(agree, &rank);
            unsigned long long key = 0;
            if (rank == 0) {
                TableLock lock;
                key = makeCommKey(static_cast<std::uint32_t>(worldRank()), g_created++);
            }
            PMPI_Bcast(&key, 1, MPI_UNSIGNED_LONG_LONG, 0, agree);
            def.key = key;
            def.describes = rank == 0;
        } else if (derived) {
            def.key = derivedKey(commKey(m_keyComm));
            def.describes = true;
        } else {
            // No communicator to agree on: a rank-private identity (still a valid definition).
            TableLock lock;
            def.key = makeCommKey(static_cast<std::uint32_t>(worldRank()), g_created++);
            def.describes = true;
        }
        def.parent = kNoCommKey;
        const CommInfo parent = commInfo(m_parent);
        {
            TableLock lock;
            if (parent.id < definitions().comms().size())
                def.parent = definitions().comms()[parent.id].key;
        }
        if (inter) {
            // describeInter talks to the other group's leader: not under the table lock.
            const CommInfo info =
                describeInter(comm, agree, agree != MPI_COMM_NULL || derived, def);
            id = info.id;
            TableLock lock;
            comms().insert(handleKey(comm), info);
        } else {
            if (def.describes)
                def.members = worldRanks(comm);
            CommInfo described = describe(comm, 0);
            TableLock lock;
            id = definitions().addComm(std::move(def));
            described.id = id;
            comms().insert(handleKey(comm), described);
        }
        made = true;
    }
    if (!m_active)
        return;
    std::uint64_t t = now();
    if (made)
        appendRecord(t, EventKind::CommCreate, id);
    recordCollectiveEnd(t, OTF2_COLLECTIVE_OP_CREATE_HANDLE, commInfo(m_parent).id,
                        OTF2_UNDEFINED_UINT32, 0, 0);
    leave(t);
}

CommKey commKey(MPI_Comm comm) noexcept {
    const CommInfo info = commInfo(comm);
    TableLock lock; // the definitions grow when another thread makes a communicator
    return info.id < definitions().comms().size() ? definitions().comms()[info.id].key : kNoCommKey;
}

CommKey idupKey(MPI_Comm parent) noexcept {
    return derivedKey(commKey(parent));
}

std::uint32_t defineIdupComm(MPI_Comm created, CommKey key, CommKey parentKey) noexcept {
    CommDefinition def;
    def.key = key;
    def.parent = parentKey;
    int inter = 0;
    PMPI_Comm_test_inter(created, &inter);
    if (inter) {
        const CommInfo info = describeInter(created, MPI_COMM_NULL, true, def);
        TableLock lock;
        comms().insert(handleKey(created), info);
        return info.id;
    }
    int rank = 0;
    PMPI_Comm_rank(created, &rank);
    def.describes = rank == 0;
    if (def.describes)
        def.members = worldRanks(created);
    TableLock lock;
    const std::uint32_t id = definitions().addComm(std::move(def));
    comms().insert(handleKey(created), describe(created, id));
    return id;
}

CommFree::CommFree(std::uint32_t region, std::uint32_t group, MPI_Comm* comm) noexcept
    : Call(region, group), m_comm(comm ? *comm : MPI_COMM_NULL) {
    if (m_comm != MPI_COMM_NULL) {
        TableLock lock;
        if (CommInfo* info = g_comms ? g_comms->find(handleKey(m_comm)) : nullptr) {
            m_id = info->id;
            m_known = true;
        }
    }
    if (m_active) {
        enter();
        appendRecord(m_enter, EventKind::MpiCollectiveBegin, 0);
        if (m_known)
            appendRecord(m_enter, EventKind::CommDestroy, m_id);
    }
}

void CommFree::finish(int rc) noexcept {
    if (rc == MPI_SUCCESS && m_known) {
        TableLock lock;
        g_comms->erase(handleKey(m_comm));
    }
    if (!m_active)
        return;
    std::uint64_t t = now();
    recordCollectiveEnd(t, OTF2_COLLECTIVE_OP_DESTROY_HANDLE, m_known ? m_id : 0,
                        OTF2_UNDEFINED_UINT32, 0, 0);
    leave(t);
}

} // namespace waitscope::measure::mpi
