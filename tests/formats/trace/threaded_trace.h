// A tiny OTF2 archive with sampled worker-thread locations, written with Otf2Writer for tests.
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

#include "waitscope/trace/otf2_writer.h"

#include <cstdint>
#include <filesystem>
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

// The global definitions of the threaded trace; `withThreads` adds the thread locations.
inline trace::Definitions threadedDefinitions(bool withThreads) {
    using namespace trace;
    Definitions d;
    d.clock = {kThreadedTicksPerSecond, 0, 101};
    const auto region = [&d](const char* name, RegionRole role, Paradigm paradigm,
                             const char* file) {
        d.regions.push_back({name, name, file, 0, 0, role, paradigm});
    };
    region("main", RegionRole::Function, Paradigm::Compiler, "threaded.c");
    region("MPI_Send", RegionRole::PointToPoint, Paradigm::Mpi, "");
    region("MPI_Recv", RegionRole::PointToPoint, Paradigm::Mpi, "");
    region("MPI_Barrier", RegionRole::Barrier, Paradigm::Mpi, "");
    region("worker_fn", RegionRole::Function, Paradigm::Compiler, "threaded.c");
    region("compute", RegionRole::Function, Paradigm::Compiler, "threaded.c");
    region("reduce_part", RegionRole::Function, Paradigm::Sampling, "threaded.c");
    d.callingContexts = {{kComputeRegion, kUndefined},
                         {kReducePartRegion, kComputeContext},
                         {kReducePartRegion, kUndefined}};
    d.systemTreeNodes = {{"machine", "machine", kUndefined}, {"node", "node", 0}};
    d.locationGroups = {{"MPI Rank 0", true, 1}, {"MPI Rank 1", true, 1}};
    d.locations = {{0, "Master thread", 0, 9}, {1, "Master thread", 1, 9}};
    if (withThreads) {
        d.locations.push_back({threadLocationId(0, 1), "thread 1", 0, 5});
        d.locations.push_back({threadLocationId(0, 2), "thread 2", 0, 5});
        d.locations.push_back({threadLocationId(1, 1), "thread 1", 1, 6});
    }
    d.groups = {{"", GroupKind::Locations, Paradigm::Mpi, {0, 1}},
                {"", GroupKind::CommGroup, Paradigm::Mpi, {0, 1}}};
    Communicator world;
    world.name = "MPI_COMM_WORLD";
    world.group = 1;
    d.communicators = {world};
    return d;
}

} // namespace detail

/// Writes the archive described above into `dir` (replaced if it exists); `withThreads`
/// false leaves the thread locations out (the same main locations alone). Returns false when
/// the writer fails.
inline bool writeThreadedTrace(const std::string& dir, bool withThreads = true) {
    namespace fs = std::filesystem;
    using trace::CollectiveOp;
    std::error_code ec;
    fs::remove_all(dir, ec);
    fs::create_directories(fs::path(dir).parent_path(), ec);
    trace::Otf2Writer archive;
    if (!archive.open(dir)) {
        return false;
    }
    const trace::Definitions defs = detail::threadedDefinitions(withThreads);
    // Rank 0 sends at 10..20 and enters the barrier at 30; rank 1 receives from 5 and enters
    // the barrier at 50.
    trace::Otf2EventWriter w = archive.openEvents(0);
    if (!w.valid()) {
        return false;
    }
    w.enter(0, kMainRegion);
    w.enter(10, kSendRegion);
    w.mpiSend(11, 1, 0, 7, 64);
    w.leave(20, kSendRegion);
    w.enter(30, kBarrierRegion);
    w.mpiCollectiveBegin(30);
    w.mpiCollectiveEnd(60, CollectiveOp::Barrier, 0, trace::kUndefined, 0, 0);
    w.leave(60, kBarrierRegion);
    w.leave(100, kMainRegion);
    archive.closeEvents(w);
    w = archive.openEvents(1);
    if (!w.valid()) {
        return false;
    }
    w.enter(0, kMainRegion);
    w.enter(5, kRecvRegion);
    w.mpiRecv(25, 0, 0, 7, 64);
    w.leave(25, kRecvRegion);
    w.enter(50, kBarrierRegion);
    w.mpiCollectiveBegin(50);
    w.mpiCollectiveEnd(60, CollectiveOp::Barrier, 0, trace::kUndefined, 0, 0);
    w.leave(60, kBarrierRegion);
    w.leave(100, kMainRegion);
    archive.closeEvents(w);
    if (withThreads) {
        w = archive.openEvents(threadLocationId(0, 1));
        if (!w.valid()) {
            return false;
        }
        w.enter(12, kWorkerRegion);
        w.callingContextSample(20, kComputeContext, 1);
        w.callingContextSample(36, kComputeReduceContext, 2);
        w.callingContextSample(40, kComputeContext, 1);
        w.leave(48, kWorkerRegion);
        archive.closeEvents(w);
        // Score-P's thread locations also carry thread management events: skipped.
        w = archive.openEvents(threadLocationId(0, 2));
        if (!w.valid()) {
            return false;
        }
        w.threadBegin(14, 0, 1);
        w.enter(14, kWorkerRegion);
        w.callingContextSample(30, kReduceContext, 1);
        w.leave(34, kWorkerRegion);
        w.threadEnd(34, 0, 1);
        archive.closeEvents(w);
        w = archive.openEvents(threadLocationId(1, 1));
        if (!w.valid()) {
            return false;
        }
        w.enter(2, kWorkerRegion);
        w.enter(4, kComputeRegion);
        w.callingContextSample(20, kReduceContext, 1);
        w.leave(24, kComputeRegion);
        w.callingContextSample(50, kComputeContext, 1);
        w.leave(60, kWorkerRegion);
        archive.closeEvents(w);
    }
    std::vector<uint64_t> locations;
    for (const trace::Location& location : defs.locations) {
        locations.push_back(location.id);
    }
    return archive.writeLocalDefinitions(locations, {}) &&
           archive.writeSamplingTimer(0, "sampling timer", 1000000) &&
           archive.writeGlobalDefinitions(defs) && archive.close() && archive.errors().count == 0;
}

} // namespace waitscope::testing
