// The critical path with MPI from several threads of a rank (replay lanes): the walk back follows
// the threads' order (creation, join) and their MPI calls, on a generated archive whose path is
// worked out by hand (times in milliseconds).
#include "archive_builder.h"
#include "lanes_trace.h"
#include "waitscope/analysis/serial_analysis.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

using namespace waitscope;
using namespace waitscope::analysis;
using namespace waitscope::testing;
using Approx = Catch::Detail::Approx;

namespace {

enum Region : uint32_t {
    kMain,
    kInitThread,
    kSend,
    kRecv,
    kBarrier,
    kWorker,
    kWork,
    kLateWork,
    kCreate,
    kJoin,
};

ArchiveBuilder pathArchive() {
    using trace::Paradigm;
    using trace::RegionRole;
    ArchiveBuilder archive(2, 1000, 100);
    archive.region("main", RegionRole::Function, Paradigm::Compiler);
    archive.region("MPI_Init_thread", RegionRole::Function, Paradigm::Mpi);
    archive.region("MPI_Send", RegionRole::PointToPoint, Paradigm::Mpi);
    archive.region("MPI_Recv", RegionRole::PointToPoint, Paradigm::Mpi);
    archive.region("MPI_Barrier", RegionRole::Barrier, Paradigm::Mpi);
    archive.region("worker", RegionRole::Function, Paradigm::Compiler);
    archive.region("work", RegionRole::Function, Paradigm::Compiler);
    archive.region("late_work", RegionRole::Function, Paradigm::Compiler);
    archive.region("pthread_create", RegionRole::Function, Paradigm::Pthread);
    archive.region("pthread_join", RegionRole::Function, Paradigm::Pthread);
    archive.thread(0, 1);
    archive.thread(1, 1);
    return archive;
}

// Each rank's main thread creates one thread, joins it and enters a barrier; the two threads
// exchange a message each way (tag 1), rank 0's after late_work:
//
//   main    rank 0  |init 0..1| 1..5 |create 5..6| 6..10 |join 10.......51..52|Barrier 52..53| ..54
//           rank 1  |init 0..1| 1..2 |create 2..3| 3..20 |join 20...49..50|Barrier 50.....53|
//   thread  rank 0    begin 7 |late_work 7..30|Send 30..31|work 31..45|Recv 45..47..48|work ..50|
//   end
//           rank 1    begin 3 |work 3..10|Recv 10......30..31|work 31..47|Send 47..48| end 48
//
// The path, backwards from rank 0's end (54): rank 0's main location to its barrier (the last
// to enter) and back to its join's end (51); the join waited for the thread (it ended at 50), so
// the path holds the join from 50 and moves to the thread's end: its work 48..50, its receive
// from 47, when rank 1's thread entered its send (a Late Sender); rank 1's thread back to its
// receive at 30, when rank 0's thread entered its send (a Late Sender); rank 0's thread back to
// its begin at 7 (late_work), its creation at 5 on pthread_create, and the main location before
// it to the start. Rank 1's main location is off the path.
bool writePathTrace(const std::string& dir) {
    using trace::Otf2EventWriter;
    ArchiveBuilder archive = pathArchive();
    archive.open(dir);
    archive.events(0, [](Otf2EventWriter& w) {
        w.enter(0, kMain);
        w.enter(0, kInitThread);
        w.leave(1, kInitThread);
        w.enter(5, kCreate);
        w.threadCreate(5, 0, 1);
        w.leave(6, kCreate);
        w.enter(10, kJoin);
        w.threadWait(51, 0, 1);
        w.leave(52, kJoin);
        barrierCall(w, kBarrier, 52, 53);
        w.leave(54, kMain);
    });
    archive.events(1, [](Otf2EventWriter& w) {
        w.enter(0, kMain);
        w.enter(0, kInitThread);
        w.leave(1, kInitThread);
        w.enter(2, kCreate);
        w.threadCreate(2, 0, 1);
        w.leave(3, kCreate);
        w.enter(20, kJoin);
        w.threadWait(49, 0, 1);
        w.leave(50, kJoin);
        barrierCall(w, kBarrier, 50, 53);
        w.leave(53, kMain);
    });
    archive.events(threadLocationId(0, 1), [](Otf2EventWriter& w) {
        w.threadBegin(7, 0, 1);
        w.enter(7, kWorker);
        w.enter(7, kLateWork);
        w.leave(30, kLateWork);
        sendCall(w, kSend, 30, 31, 1, 1);
        w.enter(31, kWork);
        w.leave(45, kWork);
        receiveCall(w, kRecv, 45, 48, 1, 1);
        w.enter(48, kWork);
        w.leave(50, kWork);
        w.leave(50, kWorker);
        w.threadEnd(50, 0, 1);
    });
    archive.events(threadLocationId(1, 1), [](Otf2EventWriter& w) {
        w.threadBegin(3, 0, 1);
        w.enter(3, kWorker);
        w.enter(3, kWork);
        w.leave(10, kWork);
        receiveCall(w, kRecv, 10, 31, 0, 1);
        w.enter(31, kWork);
        w.leave(47, kWork);
        sendCall(w, kSend, 47, 48, 0, 1);
        w.leave(48, kWorker);
        w.threadEnd(48, 0, 1);
    });
    return archive.finish().ok();
}

double ms(double milliseconds) {
    return milliseconds / 1000.0;
}

} // namespace

TEST_CASE("the critical path follows the threads that call MPI through creations and joins",
          "[lanes][critical-path]") {
    const std::string dir =
        (std::filesystem::temp_directory_path() / "waitscope_critical_path_lanes_test").string();
    REQUIRE(writePathTrace(dir));
    const trace::Definitions defs = pathArchive().definitions();
    auto analyzed = analyzeArchiveInProcess(dir + "/traces.otf2");
    REQUIRE(analyzed.ok());
    const AnalysisResult& result = *analyzed;
    // critical_path on call path `path` of `rank`'s main location (k = 0) or its thread (k = 1).
    const auto path = [&](const std::string& callPath, uint32_t rank, uint32_t k) {
        for (NodeId n = 0; n < result.tree().size(); ++n) {
            if (result.tree().path(n, defs) != callPath) {
                continue;
            }
            if (k == 0) {
                return result.value(Metric::CriticalPath, n, rank);
            }
            for (const ThreadValues& thread : result.threads()) {
                if (thread.rank == rank && thread.location == threadLocationId(rank, k)) {
                    return thread.severities.get(Metric::CriticalPath, n);
                }
            }
        }
        return 0.0;
    };
    // Rank 0's main location: its time before the creation and after the barrier, the barrier,
    // the join after its thread's end, the creation until the thread began.
    CHECK(path("main", 0, 0) == Approx(ms(4 + 1)));
    CHECK(path("main/MPI_Init_thread", 0, 0) == Approx(ms(1)));
    CHECK(path("main/pthread_create", 0, 0) == Approx(ms(2)));
    CHECK(path("main/pthread_join", 0, 0) == Approx(ms(2)));
    CHECK(path("main/MPI_Barrier", 0, 0) == Approx(ms(1)));
    // Rank 0's thread: late_work, its receive from the partner's send, its work after it.
    CHECK(path("main/worker/late_work", 0, 1) == Approx(ms(23)));
    CHECK(path("main/worker/MPI_Recv", 0, 1) == Approx(ms(1)));
    CHECK(path("main/worker/work", 0, 1) == Approx(ms(2)));
    CHECK(path("main/worker/MPI_Send", 0, 1) == 0.0);
    // Rank 1's thread between its receive's partner and its send; its main location is off.
    CHECK(path("main/worker/work", 1, 1) == Approx(ms(16)));
    CHECK(path("main/worker/MPI_Recv", 1, 1) == Approx(ms(1)));
    CHECK(path("main/worker/MPI_Send", 1, 1) == 0.0);
    for (const char* callPath : {"main", "main/pthread_join", "main/MPI_Barrier"}) {
        CHECK(path(callPath, 1, 0) == 0.0);
    }
    // The stretches, backwards from the end: they tile the run (the main location's holds the
    // join from the thread's end, and the creation until the thread's begin).
    struct Stretch {
        uint32_t rank;
        double start;
        double end;
    };
    const std::vector<Stretch> expected = {
        {0, 50, 54}, {0, 47, 50}, {1, 30, 47}, {0, 7, 30}, {0, 0, 7}};
    std::vector<PathSegment> stretches = result.criticalPath(); // by rank: sort by time
    std::sort(stretches.begin(), stretches.end(),
              [](const PathSegment& a, const PathSegment& b) { return a.end > b.end; });
    REQUIRE(stretches.size() == expected.size());
    double length = 0.0;
    for (size_t i = 0; i < expected.size(); ++i) {
        CHECK(stretches[i].rank == expected[i].rank);
        CHECK(stretches[i].start == Approx(ms(expected[i].start)));
        CHECK(stretches[i].end == Approx(ms(expected[i].end)));
        length += stretches[i].end - stretches[i].start;
    }
    CHECK(length == Approx(ms(54)));
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
}

TEST_CASE("threads that call MPI without their creation and join leave the critical path out",
          "[lanes][critical-path]") {
    // The lanes archive has no thread order records: where the path moves between a rank's
    // threads is unknown, so no rank's share is charged and the ranks with such threads say why.
    const std::string dir =
        (std::filesystem::temp_directory_path() / "waitscope_critical_path_lanes_unknown").string();
    REQUIRE(writeLanesTrace(dir));
    auto analyzed = analyzeArchiveInProcess(dir + "/traces.otf2");
    REQUIRE(analyzed.ok());
    const AnalysisResult& result = *analyzed;
    double path = 0.0;
    for (NodeId n = 0; n < result.tree().size(); ++n) {
        for (uint32_t rank = 0; rank < 2; ++rank) {
            path += result.value(Metric::CriticalPath, n, rank);
        }
        for (const ThreadValues& thread : result.threads()) {
            path += thread.severities.get(Metric::CriticalPath, n);
        }
    }
    CHECK(path == 0.0);
    CHECK(result.criticalPath().empty());
    const std::vector<std::string> expected = {
        "rank 0: thread 1 calls MPI but has no thread begin or end; the critical path is not "
        "analyzed",
        "rank 1: thread 1 calls MPI but has no thread begin or end; the critical path is not "
        "analyzed"};
    for (const std::string& warning : expected) {
        CHECK(std::count(result.warnings().begin(), result.warnings().end(), warning) == 1);
    }
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
}
