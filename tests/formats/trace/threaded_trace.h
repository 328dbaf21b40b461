// A tiny OTF2 archive with sampled worker-thread locations, written with libotf2 for tests.
//
// Two ranks; each main location (id = rank) sends one message from rank 0 to rank 1 and
// ends in a barrier: rank 1 waits 5 ticks for the sender (Late Sender), rank 0 20 ticks in
// the barrier (Wait at Barrier). Clock: 1024 ticks per second, so every time is exact in
// binary. The further locations, id (k << 32) | rank, type CPU thread, in the rank's group:
//
//   rank 0, "thread 1": Enter worker_fn 12, samples compute 20, compute/reduce_part 36,
//                       compute 40, Leave worker_fn 48
//        -> worker_fn 0, worker_fn/compute 8+4+8 = 20, worker_fn/compute/reduce_part 16
//   rank 0, "thread 2": ThreadBegin 14 (skipped), Enter worker_fn 14, sample reduce_part 30,
//                       Leave worker_fn 34, ThreadEnd 34 (skipped)
//        -> worker_fn/reduce_part 16+4 = 20
//   rank 1, "thread 1": Enter worker_fn 2, Enter compute 4, sample reduce_part 20,
//                       Leave compute 24, sample compute 50, Leave worker_fn 60
//        -> worker_fn 2, worker_fn/compute 36 (2 visits), worker_fn/compute/reduce_part 20
#pragma once

#include <cstdint>
#include <filesystem>
#include <otf2/otf2.h>
#include <string>
#include <vector>

namespace waitscope::testing {

/// Regions of the threaded trace.
enum ThreadedRegion : uint32_t {
    kMainRegion,
    kSendRegion,
    kRecvRegion,
    kBarrierRegion,
    kWorkerRegion,
    kComputeRegion,
    kReducePartRegion,
};

/// Calling contexts: compute, compute/reduce_part, reduce_part (a root of its own).
enum ThreadedContext : uint32_t { kComputeContext, kComputeReduceContext, kReduceContext };

/// Ticks per second of the threaded trace.
inline constexpr uint64_t kThreadedTicksPerSecond = 1024;

/// The location id of further thread `k` (1, 2, ...) of `rank`.
inline uint64_t threadLocationId(uint32_t rank, uint32_t k) {
    return (static_cast<uint64_t>(k) << 32) | rank;
}

namespace detail {

inline OTF2_FlushType preFlush(void*, OTF2_FileType, OTF2_LocationRef, void*, bool) {
    return OTF2_FLUSH;
}
inline OTF2_TimeStamp postFlush(void*, OTF2_FileType, OTF2_LocationRef) {
    return 0;
}

struct ThreadedLocation {
    uint64_t id;
    uint32_t rank;
    uint32_t name; // string reference
    uint64_t events;
};

} // namespace detail

/// Writes the archive described above into `dir` (replaced if it exists); `withThreads`
/// false leaves the thread locations out (the same main locations alone). Returns false when
/// libotf2 fails.
inline bool writeThreadedTrace(const std::string& dir, bool withThreads = true) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::remove_all(dir, ec);
    fs::create_directories(fs::path(dir).parent_path(), ec);
    OTF2_Archive* archive =
        OTF2_Archive_Open(dir.c_str(), "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                          OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (archive == nullptr) {
        return false;
    }
    static const OTF2_FlushCallbacks flush = {detail::preFlush, detail::postFlush};
    OTF2_Archive_SetFlushCallbacks(archive, &flush, nullptr);
    OTF2_Archive_SetSerialCollectiveCallbacks(archive);
    OTF2_Archive_OpenEvtFiles(archive);
    // Strings: 0 "", 1 main, 2 MPI_Send, 3 MPI_Recv, 4 MPI_Barrier, 5 worker_fn, 6 compute,
    // 7 reduce_part, 8 machine, 9 node, 10 MPI Rank 0, 11 MPI Rank 1, 12 Master thread,
    // 13 thread 1, 14 thread 2, 15 MPI_COMM_WORLD, 16 threaded.c, 17 sampling timer.
    std::vector<detail::ThreadedLocation> locations = {{0, 0, 12, 9}, {1, 1, 12, 9}};
    if (withThreads) {
        locations.push_back({threadLocationId(0, 1), 0, 13, 5});
        locations.push_back({threadLocationId(0, 2), 0, 14, 5});
        locations.push_back({threadLocationId(1, 1), 1, 13, 6});
    }
    // Rank 0 sends at 10..20 and enters the barrier at 30; rank 1 receives from 5 and enters
    // the barrier at 50.
    OTF2_EvtWriter* w = OTF2_Archive_GetEvtWriter(archive, 0);
    OTF2_EvtWriter_Enter(w, nullptr, 0, kMainRegion);
    OTF2_EvtWriter_Enter(w, nullptr, 10, kSendRegion);
    OTF2_EvtWriter_MpiSend(w, nullptr, 11, 1, 0, 7, 64);
    OTF2_EvtWriter_Leave(w, nullptr, 20, kSendRegion);
    OTF2_EvtWriter_Enter(w, nullptr, 30, kBarrierRegion);
    OTF2_EvtWriter_MpiCollectiveBegin(w, nullptr, 30);
    OTF2_EvtWriter_MpiCollectiveEnd(w, nullptr, 60, OTF2_COLLECTIVE_OP_BARRIER, 0,
                                    OTF2_UNDEFINED_UINT32, 0, 0);
    OTF2_EvtWriter_Leave(w, nullptr, 60, kBarrierRegion);
    OTF2_EvtWriter_Leave(w, nullptr, 100, kMainRegion);
    OTF2_Archive_CloseEvtWriter(archive, w);
    w = OTF2_Archive_GetEvtWriter(archive, 1);
    OTF2_EvtWriter_Enter(w, nullptr, 0, kMainRegion);
    OTF2_EvtWriter_Enter(w, nullptr, 5, kRecvRegion);
    OTF2_EvtWriter_MpiRecv(w, nullptr, 25, 0, 0, 7, 64);
    OTF2_EvtWriter_Leave(w, nullptr, 25, kRecvRegion);
    OTF2_EvtWriter_Enter(w, nullptr, 50, kBarrierRegion);
    OTF2_EvtWriter_MpiCollectiveBegin(w, nullptr, 50);
    OTF2_EvtWriter_MpiCollectiveEnd(w, nullptr, 60, OTF2_COLLECTIVE_OP_BARRIER, 0,
                                    OTF2_UNDEFINED_UINT32, 0, 0);
    OTF2_EvtWriter_Leave(w, nullptr, 60, kBarrierRegion);
    OTF2_EvtWriter_Leave(w, nullptr, 100, kMainRegion);
    OTF2_Archive_CloseEvtWriter(archive, w);
    if (withThreads) {
        w = OTF2_Archive_GetEvtWriter(archive, threadLocationId(0, 1));
        OTF2_EvtWriter_Enter(w, nullptr, 12, kWorkerRegion);
        OTF2_EvtWriter_CallingContextSample(w, nullptr, 20, kComputeContext, 1, 0);
        OTF2_EvtWriter_CallingContextSample(w, nullptr, 36, kComputeReduceContext, 2, 0);
        OTF2_EvtWriter_CallingContextSample(w, nullptr, 40, kComputeContext, 1, 0);
        OTF2_EvtWriter_Leave(w, nullptr, 48, kWorkerRegion);
        OTF2_Archive_CloseEvtWriter(archive, w);
        // Score-P's thread locations also carry thread management events: skipped.
        w = OTF2_Archive_GetEvtWriter(archive, threadLocationId(0, 2));
        OTF2_EvtWriter_ThreadBegin(w, nullptr, 14, 0, 1);
        OTF2_EvtWriter_Enter(w, nullptr, 14, kWorkerRegion);
        OTF2_EvtWriter_CallingContextSample(w, nullptr, 30, kReduceContext, 1, 0);
        OTF2_EvtWriter_Leave(w, nullptr, 34, kWorkerRegion);
        OTF2_EvtWriter_ThreadEnd(w, nullptr, 34, 0, 1);
        OTF2_Archive_CloseEvtWriter(archive, w);
        w = OTF2_Archive_GetEvtWriter(archive, threadLocationId(1, 1));
        OTF2_EvtWriter_Enter(w, nullptr, 2, kWorkerRegion);
        OTF2_EvtWriter_Enter(w, nullptr, 4, kComputeRegion);
        OTF2_EvtWriter_CallingContextSample(w, nullptr, 20, kReduceContext, 1, 0);
        OTF2_EvtWriter_Leave(w, nullptr, 24, kComputeRegion);
        OTF2_EvtWriter_CallingContextSample(w, nullptr, 50, kComputeContext, 1, 0);
        OTF2_EvtWriter_Leave(w, nullptr, 60, kWorkerRegion);
        OTF2_Archive_CloseEvtWriter(archive, w);
    }
    OTF2_Archive_CloseEvtFiles(archive);
    OTF2_Archive_OpenDefFiles(archive);
    for (const detail::ThreadedLocation& location : locations) {
        OTF2_Archive_CloseDefWriter(archive, OTF2_Archive_GetDefWriter(archive, location.id));
    }
    OTF2_Archive_CloseDefFiles(archive);

    OTF2_GlobalDefWriter* g = OTF2_Archive_GetGlobalDefWriter(archive);
    OTF2_GlobalDefWriter_WriteClockProperties(g, kThreadedTicksPerSecond, 0, 101,
                                              OTF2_UNDEFINED_TIMESTAMP);
    const char* strings[] = {"",
                             "main",
                             "MPI_Send",
                             "MPI_Recv",
                             "MPI_Barrier",
                             "worker_fn",
                             "compute",
                             "reduce_part",
                             "machine",
                             "node",
                             "MPI Rank 0",
                             "MPI Rank 1",
                             "Master thread",
                             "thread 1",
                             "thread 2",
                             "MPI_COMM_WORLD",
                             "threaded.c",
                             "sampling timer"};
    for (uint32_t s = 0; s < sizeof strings / sizeof strings[0]; ++s) {
        OTF2_GlobalDefWriter_WriteString(g, s, strings[s]);
    }
    const auto region = [g](uint32_t self, uint32_t name, OTF2_RegionRole role,
                            OTF2_Paradigm paradigm, uint32_t file) {
        OTF2_GlobalDefWriter_WriteRegion(g, self, name, name, 0, role, paradigm,
                                         OTF2_REGION_FLAG_NONE, file, 0, 0);
    };
    region(kMainRegion, 1, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_COMPILER, 16);
    region(kSendRegion, 2, OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI, 0);
    region(kRecvRegion, 3, OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI, 0);
    region(kBarrierRegion, 4, OTF2_REGION_ROLE_BARRIER, OTF2_PARADIGM_MPI, 0);
    region(kWorkerRegion, 5, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_COMPILER, 16);
    region(kComputeRegion, 6, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_COMPILER, 16);
    region(kReducePartRegion, 7, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_SAMPLING, 16);
    OTF2_GlobalDefWriter_WriteInterruptGenerator(g, 0, 17, OTF2_INTERRUPT_GENERATOR_MODE_TIME,
                                                 OTF2_BASE_DECIMAL, -9, 1000000);
    OTF2_GlobalDefWriter_WriteCallingContext(g, kComputeContext, kComputeRegion,
                                             OTF2_UNDEFINED_SOURCE_CODE_LOCATION,
                                             OTF2_UNDEFINED_CALLING_CONTEXT);
    OTF2_GlobalDefWriter_WriteCallingContext(g, kComputeReduceContext, kReducePartRegion,
                                             OTF2_UNDEFINED_SOURCE_CODE_LOCATION, kComputeContext);
    OTF2_GlobalDefWriter_WriteCallingContext(g, kReduceContext, kReducePartRegion,
                                             OTF2_UNDEFINED_SOURCE_CODE_LOCATION,
                                             OTF2_UNDEFINED_CALLING_CONTEXT);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, 8, 8, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 1, 9, 9, 0);
    for (uint32_t r = 0; r < 2; ++r) {
        OTF2_GlobalDefWriter_WriteLocationGroup(g, r, 10 + r, OTF2_LOCATION_GROUP_TYPE_PROCESS, 1,
                                                OTF2_UNDEFINED_LOCATION_GROUP);
    }
    for (const detail::ThreadedLocation& location : locations) {
        OTF2_GlobalDefWriter_WriteLocation(g, location.id, location.name,
                                           OTF2_LOCATION_TYPE_CPU_THREAD, location.events,
                                           location.rank);
    }
    const uint64_t members[] = {0, 1};
    OTF2_GlobalDefWriter_WriteGroup(g, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, 2, members);
    OTF2_GlobalDefWriter_WriteGroup(g, 1, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, 2, members);
    OTF2_GlobalDefWriter_WriteComm(g, 0, 15, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    OTF2_Archive_CloseGlobalDefWriter(archive, g);
    return OTF2_Archive_Close(archive) == OTF2_SUCCESS;
}

} // namespace waitscope::testing
