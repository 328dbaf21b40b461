// Writes the synthetic trace of generated_trace.h with waitscope::trace's Otf2Writer.
#include "generated_trace.h"

#include "waitscope/trace/otf2_writer.h"

#include <algorithm>
#include <filesystem>

namespace waitscope::testing {
namespace {

using trace::CollectiveOp;
using trace::Otf2EventWriter;

enum Region : uint32_t { kMain, kCompute, kSend, kRecv, kBarrier, kAllreduce, kFirstPath };
// The one-sided regions (with `rma`), after the paths.
enum RmaRegion : uint32_t {
    kWinCreate,
    kWinFence,
    kPut,
    kWinPost,
    kWinStart,
    kWinComplete,
    kWinWait,
    kWinLock,
    kWinUnlock,
    kWinFree,
    kWinLockAll,
    kWinUnlockAll,
    kIprobe,
    kRmaRegions
};
constexpr uint32_t kWindow = 0;
constexpr uint32_t kLevelProcess = 1, kLevelMemoryProcess = 3;
constexpr uint64_t kTicksPerIteration = 1000;

// The tick at which `rank` of `ranks` arrives at a collective of an iteration: `step` ticks
// after the rank before it, squeezed into `span` ticks when the ranks would not fit (the
// collective ends there, and no rank may arrive after its end).
uint64_t arrival(uint32_t rank, uint32_t ranks, uint64_t step, uint64_t span) {
    const uint64_t slots = std::max<uint64_t>(span / step, ranks > 0 ? ranks - 1 : 0);
    return rank * span / slots;
}

class Generator {
public:
    explicit Generator(const GeneratedTraceOptions& options) : m_options(options) {}

    // How far the clock of `rank` runs ahead.
    uint64_t clockOffset(uint32_t rank) const {
        return rank % 2 == 0 && rank > 0 ? m_options.clockOffset : 0;
    }

    // Events one rank writes for one iteration (and its share of barriers).
    uint64_t writeIteration(Otf2EventWriter& w, uint32_t rank, uint64_t it) const {
        const uint32_t ranks = m_options.ranks;
        const uint32_t barrierEvery = m_options.barrierEvery;
        const uint64_t base = 1000 + it * kTicksPerIteration + clockOffset(rank);
        uint64_t events = 0;
        const auto path = static_cast<uint32_t>(
            m_options.paths > 0 ? kFirstPath + it % m_options.paths : uint64_t{kCompute});
        if (m_options.paths > 0) {
            w.enter(base + 5, path);
            events += 2;
        }
        w.enter(base + 10, kCompute);
        w.leave(base + 100 + (rank % 2 == 0 ? 100 : 0), kCompute);
        events += 2;
        if (m_options.paths > 0) {
            w.leave(base + 105 + (rank % 2 == 0 ? 100 : 0), path);
        }
        const bool even = rank % 2 == 0;
        if (even && rank + 1 < ranks) {
            w.enter(base + 210, kSend);
            w.mpiSend(base + 211, rank + 1, 0, 42, 1024);
            w.leave(base + 220, kSend);
            events += 3;
        } else if (!even) {
            w.enter(base + 110, kRecv);
            w.mpiRecv(base + 230, rank - 1, 0, 42, 1024);
            w.leave(base + 240, kRecv);
            events += 3;
        }
        const bool collectives = barrierEvery > 0 && it % barrierEvery == 0;
        if (m_options.derived && collectives && !even) {
            // Arrivals 5 ticks apart within 40 ticks; the reduction ends at 290.
            const uint64_t enter = base + 250 + arrival(rank, ranks, 5, 40);
            w.enter(enter, kAllreduce);
            w.mpiCollectiveBegin(enter);
            w.mpiCollectiveEnd(base + 290, CollectiveOp::Allreduce, 1, trace::kUndefined, 8, 8);
            w.leave(base + 291, kAllreduce);
            events += 4;
        }
        if (collectives) {
            // A mismatched rank 0 calls MPI_Alltoallv (the region of the all-reduce is as good).
            const bool alltoall = m_options.mismatch && rank == 0;
            const Region region = alltoall && !m_options.misplaced ? kAllreduce : kBarrier;
            // Arrivals 10 ticks apart within 90 ticks; the barrier ends at 399.
            const uint64_t enter = base + 300 + arrival(rank, ranks, 10, 90);
            w.enter(enter, region);
            w.mpiCollectiveBegin(enter);
            w.mpiCollectiveEnd(base + 399,
                               alltoall ? CollectiveOp::Alltoallv : CollectiveOp::Barrier, 0,
                               trace::kUndefined, 0, 0);
            w.leave(base + 400, region);
            events += 4;
        }
        return events;
    }

    // The first one-sided region.
    uint32_t rmaRegion(RmaRegion region) const { return kFirstPath + m_options.paths + region; }
    // The groups PSCW names (after the others): rank 0, and every other rank.
    uint32_t targetGroup() const { return m_options.derived ? 3 : 2; }
    uint32_t originGroup() const { return targetGroup() + 1; }

    // A window collective (create, fence, free) from `enter` to `leave`.
    uint64_t windowCollective(Otf2EventWriter& w, RmaRegion region, uint64_t enter, uint64_t leave,
                              CollectiveOp op) const {
        w.enter(enter, rmaRegion(region));
        w.rmaCollectiveBegin(enter);
        if (region == kWinCreate) {
            w.rmaWinCreate(leave, kWindow);
        } else if (region == kWinFree) {
            w.rmaWinDestroy(leave, kWindow);
        }
        w.rmaCollectiveEnd(leave, op, region == kWinFence ? kLevelMemoryProcess : kLevelProcess,
                           kWindow, trace::kUndefined, 0, 0);
        w.leave(leave, rmaRegion(region));
        return region == kWinFence ? 4 : 5;
    }
    uint64_t put(Otf2EventWriter& w, uint64_t enter, uint32_t target, uint64_t id) const {
        w.enter(enter, rmaRegion(kPut));
        w.rmaPut(enter, kWindow, target, 64, id);
        w.leave(enter + 2, rmaRegion(kPut));
        return 3;
    }
    uint64_t groupSync(Otf2EventWriter& w, RmaRegion region, uint64_t enter, uint64_t leave,
                       uint32_t group) const {
        const bool closes = region == kWinComplete || region == kWinWait;
        w.enter(enter, rmaRegion(region));
        w.rmaGroupSync(leave, closes ? kLevelMemoryProcess : kLevelProcess, kWindow, group);
        w.leave(leave, rmaRegion(region));
        return 3;
    }
    uint64_t lockEpoch(Otf2EventWriter& w, uint64_t lock, uint64_t unlockEnter, uint64_t release,
                       uint64_t id) const {
        w.enter(lock, rmaRegion(kWinLock));
        w.rmaRequestLock(lock, kWindow, 0, 0, OTF2_LOCK_EXCLUSIVE);
        w.leave(lock + 1, rmaRegion(kWinLock));
        uint64_t events = 3 + put(w, lock + 2, 0, id);
        w.enter(unlockEnter, rmaRegion(kWinUnlock));
        w.rmaOpCompleteNonBlocking(release, kWindow, id);
        w.rmaOpCompleteRemote(release, kWindow, id);
        w.rmaReleaseLock(release, kWindow, 0, 0);
        w.leave(release, rmaRegion(kWinUnlock));
        return events + 5;
    }

    // One rank's one-sided epochs of an iteration (ticks 450 to 950 of it).
    uint64_t writeRmaIteration(Otf2EventWriter& w, uint32_t rank, uint64_t it) const {
        const uint32_t ranks = m_options.ranks;
        const uint64_t base = 1000 + it * kTicksPerIteration + clockOffset(rank);
        const uint64_t id = it * 4;
        uint64_t events = 0;
        // Fence epoch: arrivals 5 ticks apart within 80; the fence ends at 540.
        const uint64_t a = arrival(rank, ranks, 5, 80);
        events += put(w, base + 450 + a, (rank + 1) % ranks, id);
        w.enter(base + 453 + a, rmaRegion(kWinFence));
        w.rmaCollectiveBegin(base + 453 + a);
        w.rmaOpCompleteNonBlocking(base + 540, kWindow, id);
        w.rmaCollectiveEnd(base + 540, CollectiveOp::Barrier, kLevelMemoryProcess, kWindow,
                           trace::kUndefined, 0, 0);
        w.leave(base + 540, rmaRegion(kWinFence));
        events += 5;
        // PSCW: rank 0 posts at 601; the origins wait for it in MPI_Win_start from 560.
        if (rank == 0) {
            events += groupSync(w, kWinPost, base + 600, base + 601, originGroup());
            events += groupSync(w, kWinWait, base + 602, base + 700, originGroup());
        } else {
            events += groupSync(w, kWinStart, base + 560, base + 602, targetGroup());
            events += put(w, base + 610, 0, id + 1);
            events += groupSync(w, kWinComplete, base + 620,
                                base + 640 + arrival(rank, ranks, 2, 40), targetGroup());
        }
        // Locks: rank 1 holds rank 0's exclusive lock until 850, rank 2 waits for it.
        if (ranks >= 3 && rank == 1) {
            events += lockEpoch(w, base + 750, base + 800, base + 850, id + 2);
            // Then rank 1 computes, polling once at 900 (MPI_Iprobe).
            w.enter(base + 900, rmaRegion(kIprobe));
            w.leave(base + 901, rmaRegion(kIprobe));
            events += 2;
        } else if (ranks >= 3 && rank == 2) {
            events += lockEpoch(w, base + 760, base + 764, base + 870, id + 2);
        } else if (ranks >= 4 && rank == 3) {
            // An MPI_Win_lock_all epoch putting to rank 0: its shared lock on rank 0 waits in
            // MPI_Win_unlock_all from 855 for rank 2's release at 870, and its unlock on rank 1
            // for rank 1's next MPI call at 900.
            w.enter(base + 840, rmaRegion(kWinLockAll));
            w.rmaRequestLock(base + 840, kWindow, trace::kUndefined, 0, OTF2_LOCK_SHARED);
            w.leave(base + 841, rmaRegion(kWinLockAll));
            events += 3 + put(w, base + 842, 0, id + 3);
            w.enter(base + 855, rmaRegion(kWinUnlockAll));
            w.rmaOpCompleteNonBlocking(base + 930, kWindow, id + 3);
            w.rmaOpCompleteRemote(base + 930, kWindow, id + 3);
            w.rmaReleaseLock(base + 930, kWindow, trace::kUndefined, 0);
            w.leave(base + 930, rmaRegion(kWinUnlockAll));
            events += 5;
        }
        return events;
    }

    // The global definitions, with the events each rank wrote.
    trace::Definitions definitions(const std::vector<uint64_t>& counts, uint64_t end) const {
        using namespace trace;
        Definitions d;
        d.clock = {1000000000, 0, end + 1 + m_options.clockOffset};
        d.regions = {
            {"main", "main", "bench.c", 1, 50, RegionRole::Function, Paradigm::Compiler},
            {"compute", "compute", "bench.c", 10, 20, RegionRole::Function, Paradigm::Compiler},
            {"MPI_Send", "MPI_Send", "", 0, 0, RegionRole::PointToPoint, Paradigm::Mpi},
            {"MPI_Recv", "MPI_Recv", "", 0, 0, RegionRole::PointToPoint, Paradigm::Mpi},
            {"MPI_Barrier", "MPI_Barrier", "", 0, 0, RegionRole::Barrier, Paradigm::Mpi},
            {"MPI_Allreduce", "MPI_Allreduce", "", 0, 0, RegionRole::CollectiveAllToAll,
             Paradigm::Mpi}};
        for (uint32_t p = 0; p < m_options.paths; ++p) {
            const std::string name = "path" + std::to_string(p);
            d.regions.push_back(
                {name, name, "bench.c", 60, 70, RegionRole::Function, Paradigm::Compiler});
        }
        if (m_options.rma) {
            const char* names[] = {"MPI_Win_create", "MPI_Win_fence",    "MPI_Put",
                                   "MPI_Win_post",   "MPI_Win_start",    "MPI_Win_complete",
                                   "MPI_Win_wait",   "MPI_Win_lock",     "MPI_Win_unlock",
                                   "MPI_Win_free",   "MPI_Win_lock_all", "MPI_Win_unlock_all",
                                   "MPI_Iprobe"};
            for (const char* name : names) {
                const std::string n = name;
                const RegionRole role = n == "MPI_Put"      ? RegionRole::Rma
                                        : n == "MPI_Iprobe" ? RegionRole::PointToPoint
                                                            : RegionRole::Function;
                d.regions.push_back({name, name, "", 0, 0, role, Paradigm::Mpi});
            }
        }
        d.systemTreeNodes = {{"machine", "machine", kUndefined}};
        std::vector<uint64_t> members;
        for (uint32_t r = 0; r < m_options.ranks; ++r) {
            d.locationGroups.push_back({"MPI Rank", true, 0});
            d.locations.push_back({r, "Master thread", r, counts[r], LocationType::CpuThread});
            members.push_back(r);
        }
        d.groups = {{"", GroupKind::Locations, Paradigm::Mpi, members},
                    {"", GroupKind::CommGroup, Paradigm::Mpi, members}};
        Communicator world;
        world.name = "MPI_COMM_WORLD";
        world.group = 1;
        d.communicators = {world};
        if (m_options.derived) {
            // Members are indices into the locations group: the odd ranks.
            std::vector<uint64_t> odd;
            for (uint32_t r = 1; r < m_options.ranks; r += 2) {
                odd.push_back(r);
            }
            d.groups.push_back({"odd ranks", GroupKind::CommGroup, Paradigm::Mpi, odd});
            Communicator oddRanks;
            oddRanks.name = "odd ranks";
            oddRanks.group = 2;
            oddRanks.parent = 0;
            d.communicators.push_back(oddRanks);
        }
        if (m_options.rma) {
            std::vector<uint64_t> others(members.begin() + 1, members.end());
            d.groups.push_back({"", GroupKind::CommGroup, Paradigm::Mpi, {0}});
            d.groups.push_back({"", GroupKind::CommGroup, Paradigm::Mpi, others});
        }
        return d;
    }

private:
    GeneratedTraceOptions m_options;
};

} // namespace

Result<std::vector<uint64_t>> writeGeneratedTrace(const std::string& dir,
                                                  const GeneratedTraceOptions& options) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::remove_all(fs::path(dir) / "traces", ec);
    fs::remove(fs::path(dir) / "traces.otf2", ec);
    fs::remove(fs::path(dir) / "traces.def", ec);
    const Generator generator(options);
    // Iterations so that the busiest rank writes about `eventsPerRank` events.
    const uint64_t perIteration =
        5 + (options.paths > 0 ? 2 : 0) +
        static_cast<uint64_t>(options.barrierEvery > 0 ? 4.0 / options.barrierEvery : 0);
    const uint64_t iterations = options.eventsPerRank / perIteration;
    const uint64_t end = 1000 + iterations * kTicksPerIteration + 10;

    trace::Otf2Writer archive;
    if (Status opened = archive.open(dir); !opened) {
        return opened.error();
    }
    std::vector<uint64_t> counts(options.ranks, 0);
    for (uint32_t r = 0; r < options.ranks; ++r) {
        Otf2EventWriter w = archive.openEvents(r);
        if (!w.valid()) {
            return Error(dir + ": cannot open the event file of rank " + std::to_string(r));
        }
        const uint64_t offset = generator.clockOffset(r);
        w.enter(1 + offset, kMain);
        counts[r] = 2;
        if (options.rma) {
            counts[r] += generator.windowCollective(w, kWinCreate, 10 + offset + 5 * (r % 8),
                                                    50 + offset, CollectiveOp::CreateHandle);
        }
        for (uint64_t it = 0; it < iterations; ++it) {
            counts[r] += generator.writeIteration(w, r, it);
            if (options.rma) {
                counts[r] += generator.writeRmaIteration(w, r, it);
            }
        }
        if (options.rma) {
            counts[r] +=
                generator.windowCollective(w, kWinFree, end - 8 + offset + (r == 0 ? 2 : 0),
                                           end - 2 + offset, CollectiveOp::DestroyHandle);
        }
        w.leave(end + offset, kMain);
        archive.closeEvents(w);
    }
    std::vector<uint64_t> locations(counts.size());
    for (uint32_t r = 0; r < options.ranks; ++r) {
        locations[r] = r;
    }
    Status written = archive.writeLocalDefinitions(locations, {});
    if (written) {
        written = archive.writeGlobalDefinitions(generator.definitions(counts, end));
    }
    if (written && options.rma) {
        written = archive.writeRmaWin(kWindow, "MPI_Win_create window", 0);
    }
    if (written) {
        written = archive.close();
    }
    if (!written) {
        return written.error();
    }
    if (archive.errors().count > 0) {
        return Error(dir + ": otf2 refused " + std::to_string(archive.errors().count) +
                     " writes; the first: " + trace::otf2ErrorText(archive.errors().first));
    }
    return counts;
}

} // namespace waitscope::testing
