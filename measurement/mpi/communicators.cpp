// Communicator ids, identities agreed at creation, and the creation/free handlers.
#include "communicators.h"

#include "table_lock.h"
#include "waitscope/measure/handle_map.h"

#include <vector>

namespace waitscope::measure::mpi {

namespace {

// Constant-initialized; the map allocates on first insert, inside MPI calls only. The map, the
// counter and the rank's communicator definitions are read and changed under TableLock.
CommInfo g_world;
CommInfo g_self{1, 1, 0};
HandleMap<CommInfo>* g_comms = nullptr;
std::uint32_t g_created = 0; ///< communicators this rank created as their rank 0

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

/// The world ranks of `comm`'s (local) group, in communicator-rank order.
std::vector<std::uint32_t> worldRanks(MPI_Comm comm) {
    MPI_Group group, world;
    PMPI_Comm_group(comm, &group);
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

} // namespace

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
        } else {
            // No communicator to agree on: a rank-private identity (still a valid definition).
            TableLock lock;
            def.key = makeCommKey(static_cast<std::uint32_t>(worldRank()), g_created++);
            def.describes = true;
        }
        def.parent = kNoCommKey;
        const CommInfo parent = commInfo(m_parent);
        if (def.describes)
            def.members = worldRanks(comm);
        CommInfo described = describe(comm, 0);
        TableLock lock;
        if (parent.id < definitions().comms().size())
            def.parent = definitions().comms()[parent.id].key;
        id = definitions().addComm(std::move(def));
        described.id = id;
        comms().insert(handleKey(comm), described);
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
