// Writes the lanes archive of lanes_trace.h with the tests' archive builder.
#include "lanes_trace.h"

#include "archive_builder.h"

namespace waitscope::testing {
namespace {

enum LanesRegion : uint32_t {
    kMain,
    kInitThread,
    kSend,
    kRecv,
    kBarrier,
    kWorker,
    kWork,
    kLateWork,
    kSsend,
};

// The lanes archive's definitions; the regions' ids are LanesRegion's.
ArchiveBuilder lanesArchive() {
    using trace::Paradigm;
    using trace::RegionRole;
    ArchiveBuilder archive(2, 1000, 200);
    archive.region("main", RegionRole::Function, Paradigm::Compiler);
    archive.region("MPI_Init_thread", RegionRole::Function, Paradigm::Mpi);
    archive.region("MPI_Send", RegionRole::PointToPoint, Paradigm::Mpi);
    archive.region("MPI_Recv", RegionRole::PointToPoint, Paradigm::Mpi);
    archive.region("MPI_Barrier", RegionRole::Barrier, Paradigm::Mpi);
    archive.region("worker", RegionRole::Function, Paradigm::Compiler);
    archive.region("work", RegionRole::Function, Paradigm::Compiler);
    archive.region("late_work", RegionRole::Function, Paradigm::Compiler);
    archive.region("MPI_Ssend", RegionRole::PointToPoint, Paradigm::Mpi);
    for (uint32_t r = 0; r < 2; ++r) {
        for (uint32_t k = 1; k <= 2; ++k) {
            archive.thread(r, k);
        }
    }
    return archive;
}

} // namespace

trace::Definitions lanesDefinitions() {
    return lanesArchive().definitions();
}

// Two ranks that call MPI_Init_thread and start two threads each, which talk to the same thread
// of the other rank, each on its own tag:
//
//   main      rank 0  |init|------------ 99 ---------------------|Barrier 100..101|
//             rank 1  |init|------------ 89 ----------|Barrier 90......101|       waits 10
//   thread 1  rank 0  |work 2..12|Send 12|work 13..20|Ssend 20..........34|       waits 13
//             rank 1  |work 2..7|Recv 7......13|work 13..........33|Recv 33..34|   waits 5
//   thread 2  rank 0  |late_work 2..42|Send 42|Recv 43..44|
//             rank 1  |work 2..12|Recv 12..........43|Send 43|                      waits 30
//
// Thread 1: rank 0's work exceeds rank 1's by 5 for a wait of 5: delay 5 on work; then rank 1
// receives late (Late Receiver of 13 in MPI_Ssend), after 20 of work against rank 0's 7 since
// they met: a delay of 13 on rank 1's work (the receive that opened its interval is left out
// of it up to its completion, here its exit). Thread 2:
// rank 0's late_work (40) has no counterpart on rank 1, whose work (10) is not excess: the
// wait of 30 is charged to late_work in full (40 x 30 / 40). Main: 99 against 89 for a wait of
// 10 in the barrier. Thread 1's events come first in time, then thread 2's, then the main
// locations': a pass over one timeline per rank would mix them.
bool writeLanesTrace(const std::string& dir) {
    using trace::Otf2EventWriter;
    ArchiveBuilder archive = lanesArchive();
    archive.open(dir);
    for (uint32_t r = 0; r < 2; ++r) {
        const uint64_t barrier = r == 0 ? 100 : 90;
        archive.events(r, [barrier](Otf2EventWriter& w) {
            w.enter(0, kMain);
            w.enter(0, kInitThread);
            w.leave(1, kInitThread);
            barrierCall(w, kBarrier, barrier, 101);
            w.leave(110, kMain);
        });
    }
    archive.events(lanesThreadId(0, 1), [](Otf2EventWriter& w) {
        w.enter(2, kWorker);
        w.enter(2, kWork);
        w.leave(12, kWork);
        sendCall(w, kSend, 12, 13, 1, 1);
        w.enter(13, kWork);
        w.leave(20, kWork);
        sendCall(w, kSsend, 20, 34, 1, 1);
        w.leave(40, kWorker);
    });
    archive.events(lanesThreadId(1, 1), [](Otf2EventWriter& w) {
        w.enter(2, kWorker);
        w.enter(2, kWork);
        w.leave(7, kWork);
        receiveCall(w, kRecv, 7, 13, 0, 1);
        w.enter(13, kWork);
        w.leave(33, kWork);
        receiveCall(w, kRecv, 33, 34, 0, 1);
        w.leave(40, kWorker);
    });
    archive.events(lanesThreadId(0, 2), [](Otf2EventWriter& w) {
        w.enter(2, kWorker);
        w.enter(2, kLateWork);
        w.leave(42, kLateWork);
        sendCall(w, kSend, 42, 43, 1, 2);
        receiveCall(w, kRecv, 43, 44, 1, 2);
        w.leave(50, kWorker);
    });
    archive.events(lanesThreadId(1, 2), [](Otf2EventWriter& w) {
        w.enter(2, kWorker);
        w.enter(2, kWork);
        w.leave(12, kWork);
        receiveCall(w, kRecv, 12, 43, 0, 2);
        sendCall(w, kSend, 43, 44, 0, 2);
        w.leave(50, kWorker);
    });
    return archive.finish().ok();
}

} // namespace waitscope::testing
