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
        w.enter(1 + generator.clockOffset(r), kMain);
        counts[r] = 2;
        for (uint64_t it = 0; it < iterations; ++it) {
            counts[r] += generator.writeIteration(w, r, it);
        }
        w.leave(end + generator.clockOffset(r), kMain);
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
