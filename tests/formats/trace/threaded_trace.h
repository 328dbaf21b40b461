// A tiny OTF2 archive with sampled worker-thread locations, written for tests (archive_builder.h).
//
// Two ranks; each main location (id = rank) sends one message from rank 0 to rank 1 and
// ends in a barrier: rank 1 waits 5 ticks for the sender (Late Sender), rank 0 20 ticks in
// the barrier (Wait at Barrier). Clock: 1024 ticks per second, so every time is exact in
// binary. The further locations, id (k << 32) | rank, type CPU thread, in the rank's group:
//
//   rank 0, "thread 1": Enter worker_fn 12, samples compute 20, compute/reduce_part 36,
//                       compute 40, Leave worker_fn 48
//        -> worker_fn 0, worker_fn/compute 8+4+8 = 20, worker_fn/compute/reduce_part 16
//   rank 0, "thread 2": ThreadBegin 14, Enter worker_fn 14, sample reduce_part 30,
//                       Leave worker_fn 34, ThreadEnd 34
//        -> worker_fn/reduce_part 16+4 = 20
//   rank 1, "thread 1": Enter worker_fn 2, Enter compute 4, sample reduce_part 20,
//                       Leave compute 24, sample compute 50, Leave worker_fn 60
//        -> worker_fn 2, worker_fn/compute 36 (2 visits), worker_fn/compute/reduce_part 20
#pragma once

#include "archive_builder.h"

#include <cstdint>
#include <string>

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

/// Writes the archive described above into `dir` (replaced if it exists); `withThreads`
/// false leaves the thread locations out (the same main locations alone). Returns false when
/// the writer fails.
inline bool writeThreadedTrace(const std::string& dir, bool withThreads = true) {
    using namespace trace;
    ArchiveBuilder archive(2, kThreadedTicksPerSecond, 101);
    archive.region("main", RegionRole::Function, Paradigm::Compiler, "threaded.c");
    archive.region("MPI_Send", RegionRole::PointToPoint, Paradigm::Mpi);
    archive.region("MPI_Recv", RegionRole::PointToPoint, Paradigm::Mpi);
    archive.region("MPI_Barrier", RegionRole::Barrier, Paradigm::Mpi);
    archive.region("worker_fn", RegionRole::Function, Paradigm::Compiler, "threaded.c");
    archive.region("compute", RegionRole::Function, Paradigm::Compiler, "threaded.c");
    archive.region("reduce_part", RegionRole::Function, Paradigm::Sampling, "threaded.c");
    archive.definitions().callingContexts = {{kComputeRegion, kUndefined},
                                             {kReducePartRegion, kComputeContext},
                                             {kReducePartRegion, kUndefined}};
    if (withThreads) {
        archive.thread(0, 1);
        archive.thread(0, 2);
        archive.thread(1, 1);
    }
    archive.open(dir);
    // Rank 0 sends at 10..20 and enters the barrier at 30; rank 1 receives from 5 and enters
    // the barrier at 50.
    archive.events(0, [](Otf2EventWriter& w) {
        w.enter(0, kMainRegion);
        w.enter(10, kSendRegion);
        w.mpiSend(11, 1, 0, 7, 64);
        w.leave(20, kSendRegion);
        barrierCall(w, kBarrierRegion, 30, 60);
        w.leave(100, kMainRegion);
    });
    archive.events(1, [](Otf2EventWriter& w) {
        w.enter(0, kMainRegion);
        receiveCall(w, kRecvRegion, 5, 25, 0, 7, 64);
        barrierCall(w, kBarrierRegion, 50, 60);
        w.leave(100, kMainRegion);
    });
    if (withThreads) {
        archive.events(threadLocationId(0, 1), [](Otf2EventWriter& w) {
            w.enter(12, kWorkerRegion);
            w.callingContextSample(20, kComputeContext, 1);
            w.callingContextSample(36, kComputeReduceContext, 2);
            w.callingContextSample(40, kComputeContext, 1);
            w.leave(48, kWorkerRegion);
        });
        // Score-P's thread locations also carry thread management events: skipped.
        archive.events(threadLocationId(0, 2), [](Otf2EventWriter& w) {
            w.threadBegin(14, 0, 1);
            w.enter(14, kWorkerRegion);
            w.callingContextSample(30, kReduceContext, 1);
            w.leave(34, kWorkerRegion);
            w.threadEnd(34, 0, 1);
        });
        archive.events(threadLocationId(1, 1), [](Otf2EventWriter& w) {
            w.enter(2, kWorkerRegion);
            w.enter(4, kComputeRegion);
            w.callingContextSample(20, kReduceContext, 1);
            w.leave(24, kComputeRegion);
            w.callingContextSample(50, kComputeContext, 1);
            w.leave(60, kWorkerRegion);
        });
    }
    return archive
        .finish([](Otf2Writer& writer) {
            return writer.writeSamplingTimer(0, "sampling timer", 1000000);
        })
        .ok();
}

} // namespace waitscope::testing
