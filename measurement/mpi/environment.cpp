// MPI_Init/MPI_Finalize/MPI_Abort: the measurement's lifecycle hooked into the program's.
#include "environment.h"

#include "communicators.h"
#include "mpi_regions.h"
#include "point_to_point.h"
#include "table_lock.h"
#include "waitscope/measure/handle_map.h"

#include <new>

namespace waitscope::measure::mpi {

namespace {

HandleMap<std::uint32_t>* g_messages = nullptr;

int afterInit(std::uint32_t region, std::uint64_t enterNs, int rc) noexcept {
    if (rc != MPI_SUCCESS)
        return rc;
    std::uint64_t leaveNs = Clock::monotonicNs();
    runtimeInit(region, enterNs, leaveNs);
    registerPredefinedComms();
    return rc;
}

} // namespace

} // namespace waitscope::measure::mpi

namespace waitscope::measure {
void registerWrappedRegions(Definitions& defs) {
    mpi::registerMpiRegions(defs);
}
} // namespace waitscope::measure

namespace waitscope::measure::mpi {

void rememberMessage(MPI_Message message, MPI_Comm comm) noexcept {
    const std::uint32_t id = commInfo(comm).id;
    TableLock lock;
    if (!g_messages)
        g_messages = new (std::nothrow) HandleMap<std::uint32_t>();
    if (g_messages) // without memory, its receive is recorded on MPI_COMM_WORLD
        g_messages->insert(handleKey(message), id);
}

std::uint32_t takeMessageComm(MPI_Message message) noexcept {
    TableLock lock;
    if (!g_messages)
        return 0;
    std::uint32_t* comm = g_messages->find(handleKey(message));
    std::uint32_t id = comm ? *comm : 0;
    g_messages->erase(handleKey(message));
    return id;
}

int custom_MPI_Init(int* argc, char*** argv) noexcept {
    std::uint64_t enter = Clock::monotonicNs();
    return afterInit(kRegion_MPI_Init, enter, PMPI_Init(argc, argv));
}

int custom_MPI_Init_thread(int* argc, char*** argv, int required, int* provided) noexcept {
    std::uint64_t enter = Clock::monotonicNs();
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    // A program that asked for MPI_THREAD_MULTIPLE may call MPI from several threads at once,
    // whatever the library granted: the wrappers' tables are locked from now on.
    if (required == MPI_THREAD_MULTIPLE || (provided && *provided == MPI_THREAD_MULTIPLE))
        g_tablesShared.store(true, std::memory_order_relaxed);
    return afterInit(kRegion_MPI_Init_thread, enter, rc);
}

int custom_MPI_Finalize() noexcept {
    // Only the thread that initialized MPI ends the measurement (further threads' calls are
    // recorded on their own locations, MPI_Finalize is not theirs).
    if (g_hot.recordMask != 0 && pthread_equal(pthread_self(), g_hot.mainThread))
        runtimeFinalize(kRegion_MPI_Finalize, now());
    std::uint64_t start = now();
    int rc = PMPI_Finalize();
    runtimeAfterFinalize(now() - start);
    return rc;
}

int custom_MPI_Abort(MPI_Comm comm, int errorcode) noexcept {
    if (g_hot.recordMask != 0 && pthread_equal(pthread_self(), g_hot.mainThread)) {
        recordEnter(now(), kRegion_MPI_Abort);
        runtimeAbort(errorcode);
    }
    return PMPI_Abort(comm, errorcode);
}

} // namespace waitscope::measure::mpi
