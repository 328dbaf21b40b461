// Writes the lanes archive of lanes_trace.h with waitscope::trace's Otf2Writer.
#include "lanes_trace.h"

#include "waitscope/trace/otf2_writer.h"

#include <filesystem>
#include <vector>

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

} // namespace

trace::Definitions lanesDefinitions() {
    using namespace trace;
    Definitions d;
    d.clock = {1000, 0, 200};
    const auto region = [&d](const char* name, RegionRole role, Paradigm paradigm) {
        d.regions.push_back({name, name, "", 0, 0, role, paradigm});
    };
    region("main", RegionRole::Function, Paradigm::Compiler);
    region("MPI_Init_thread", RegionRole::Function, Paradigm::Mpi);
    region("MPI_Send", RegionRole::PointToPoint, Paradigm::Mpi);
    region("MPI_Recv", RegionRole::PointToPoint, Paradigm::Mpi);
    region("MPI_Barrier", RegionRole::Barrier, Paradigm::Mpi);
    region("worker", RegionRole::Function, Paradigm::Compiler);
    region("work", RegionRole::Function, Paradigm::Compiler);
    region("late_work", RegionRole::Function, Paradigm::Compiler);
    region("MPI_Ssend", RegionRole::PointToPoint, Paradigm::Mpi);
    d.systemTreeNodes = {{"machine", "machine", kUndefined}, {"node", "node", 0}};
    d.locationGroups = {{"MPI Rank 0", true, 1}, {"MPI Rank 1", true, 1}};
    for (uint32_t r = 0; r < 2; ++r) {
        d.locations.push_back({r, "Master thread", r, 0});
    }
    for (uint32_t r = 0; r < 2; ++r) {
        for (uint32_t k = 1; k <= 2; ++k) {
            d.locations.push_back({lanesThreadId(r, k), "thread " + std::to_string(k), r, 0});
        }
    }
    d.groups = {{"", GroupKind::Locations, Paradigm::Mpi, {0, 1}},
                {"", GroupKind::CommGroup, Paradigm::Mpi, {0, 1}}};
    Communicator world;
    world.name = "MPI_COMM_WORLD";
    world.group = 1;
    d.communicators = {world};
    return d;
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
    namespace fs = std::filesystem;
    using trace::CollectiveOp;
    std::error_code ec;
    fs::remove_all(dir, ec);
    fs::create_directories(dir, ec);
    trace::Otf2Writer archive;
    if (!archive.open(dir)) {
        return false;
    }
    for (uint32_t r = 0; r < 2; ++r) {
        trace::Otf2EventWriter w = archive.openEvents(r);
        const uint64_t barrier = r == 0 ? 100 : 90;
        w.enter(0, kMain);
        w.enter(0, kInitThread);
        w.leave(1, kInitThread);
        w.enter(barrier, kBarrier);
        w.mpiCollectiveBegin(barrier);
        w.mpiCollectiveEnd(101, CollectiveOp::Barrier, 0, trace::kUndefined, 0, 0);
        w.leave(101, kBarrier);
        w.leave(110, kMain);
        archive.closeEvents(w);
    }
    trace::Otf2EventWriter w = archive.openEvents(lanesThreadId(0, 1));
    w.enter(2, kWorker);
    w.enter(2, kWork);
    w.leave(12, kWork);
    w.enter(12, kSend);
    w.mpiSend(12, 1, 0, 1, 8);
    w.leave(13, kSend);
    w.enter(13, kWork);
    w.leave(20, kWork);
    w.enter(20, kSsend);
    w.mpiSend(20, 1, 0, 1, 8);
    w.leave(34, kSsend);
    w.leave(40, kWorker);
    archive.closeEvents(w);
    w = archive.openEvents(lanesThreadId(1, 1));
    w.enter(2, kWorker);
    w.enter(2, kWork);
    w.leave(7, kWork);
    w.enter(7, kRecv);
    w.mpiRecv(13, 0, 0, 1, 8);
    w.leave(13, kRecv);
    w.enter(13, kWork);
    w.leave(33, kWork);
    w.enter(33, kRecv);
    w.mpiRecv(34, 0, 0, 1, 8);
    w.leave(34, kRecv);
    w.leave(40, kWorker);
    archive.closeEvents(w);
    w = archive.openEvents(lanesThreadId(0, 2));
    w.enter(2, kWorker);
    w.enter(2, kLateWork);
    w.leave(42, kLateWork);
    w.enter(42, kSend);
    w.mpiSend(42, 1, 0, 2, 8);
    w.leave(43, kSend);
    w.enter(43, kRecv);
    w.mpiRecv(44, 1, 0, 2, 8);
    w.leave(44, kRecv);
    w.leave(50, kWorker);
    archive.closeEvents(w);
    w = archive.openEvents(lanesThreadId(1, 2));
    w.enter(2, kWorker);
    w.enter(2, kWork);
    w.leave(12, kWork);
    w.enter(12, kRecv);
    w.mpiRecv(43, 0, 0, 2, 8);
    w.leave(43, kRecv);
    w.enter(43, kSend);
    w.mpiSend(43, 0, 0, 2, 8);
    w.leave(44, kSend);
    w.leave(50, kWorker);
    archive.closeEvents(w);
    const trace::Definitions defs = lanesDefinitions();
    std::vector<uint64_t> locations;
    for (const trace::Location& location : defs.locations) {
        locations.push_back(location.id);
    }
    return archive.writeLocalDefinitions(locations, {}) && archive.writeGlobalDefinitions(defs) &&
           archive.close() && archive.errors().count == 0;
}

} // namespace waitscope::testing
