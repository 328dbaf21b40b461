// Builds tiny traces in memory (definitions and per-rank event streams) for diff tests.
#pragma once

#include "waitscope/trace/definitions.h"
#include "waitscope/trace/event_stream.h"

#include <map>
#include <string>
#include <vector>

namespace waitscope::testing {

/// A trace of `ranks` ranks with a millisecond clock. Communicator 0 is MPI_COMM_WORLD,
/// 1 is MPI_COMM_SELF; more can be added. Regions are created by name on first use (MPI
/// roles are derived from the name, and OpenMP's from the constructs' "!$omp ..." names).
class TinyTrace {
public:
    explicit TinyTrace(uint32_t ranks) : m_streams(ranks) {
        defs.clock = trace::ClockProperties{1000, 0, 0};
        for (uint32_t r = 0; r < ranks; ++r) {
            defs.locationGroups.push_back(
                trace::LocationGroup{"MPI Rank " + std::to_string(r), true});
            defs.locations.push_back(trace::Location{r, "Master thread", r, 0});
        }
        trace::Communicator world;
        world.name = "MPI_COMM_WORLD";
        for (uint32_t r = 0; r < ranks; ++r) {
            world.worldRanks.push_back(r);
        }
        defs.communicators.push_back(world);
        trace::Communicator self;
        self.name = "MPI_COMM_SELF";
        self.isSelf = true;
        defs.communicators.push_back(self);
    }

    /// Adds a communicator over `worldRanks` (in communicator rank order); returns its id.
    uint32_t addComm(std::vector<uint32_t> worldRanks) {
        trace::Communicator comm;
        comm.name = "derived";
        comm.worldRanks = std::move(worldRanks);
        defs.communicators.push_back(comm);
        return static_cast<uint32_t>(defs.communicators.size() - 1);
    }

    /// Adds an RMA window on communicator `comm`; returns its id.
    uint32_t addWindow(uint32_t comm = 0) {
        defs.rmaWindows.push_back(trace::RmaWindow{"window", comm});
        return static_cast<uint32_t>(defs.rmaWindows.size() - 1);
    }

    /// Adds an MPI group of `worldRanks` (as one-sided synchronizations name them); returns its
    /// id.
    uint32_t addGroup(std::vector<uint32_t> worldRanks) {
        trace::Group group;
        group.kind = trace::GroupKind::CommGroup;
        group.paradigm = trace::Paradigm::Mpi;
        group.members.assign(worldRanks.begin(), worldRanks.end());
        group.worldRanks = std::move(worldRanks);
        defs.groups.push_back(group);
        return static_cast<uint32_t>(defs.groups.size() - 1);
    }

    /// Adds a calling context for region `name` below `parent` (kUndefined: a root); returns its
    /// id.
    uint32_t addContext(const std::string& name, uint32_t parent) {
        defs.callingContexts.push_back(trace::CallingContext{region(name), parent});
        return static_cast<uint32_t>(defs.callingContexts.size() - 1);
    }

    /// Appends to the events of `rank`; times in milliseconds.
    class Rank {
    public:
        Rank(TinyTrace& trace, uint32_t rank) : m_trace(trace), m_rank(rank) {}
        Rank& enter(uint64_t ms, const std::string& region) {
            stream().append(trace::EventKind::Enter, ms, m_trace.region(region));
            return *this;
        }
        Rank& leave(uint64_t ms, const std::string& region) {
            stream().append(trace::EventKind::Leave, ms, m_trace.region(region));
            return *this;
        }
        Rank& context(trace::EventKind kind, uint64_t ms, uint32_t context) {
            stream().append(kind, ms, context);
            return *this;
        }
        /// An MPI call with one record inside: enter at `from`, record at `at`, leave at `to`.
        Rank& send(uint64_t from, uint64_t to, uint32_t dest, uint32_t tag, uint64_t bytes = 8,
                   uint32_t comm = 0, const std::string& region = "MPI_Send") {
            enter(from, region);
            stream().appendMessage(trace::EventKind::MpiSend, from, {bytes, 0, dest, comm, tag});
            return leave(to, region);
        }
        Rank& recv(uint64_t from, uint64_t at, uint64_t to, uint32_t source, uint32_t tag,
                   uint64_t bytes = 8, uint32_t comm = 0, const std::string& region = "MPI_Recv") {
            enter(from, region);
            stream().appendMessage(trace::EventKind::MpiRecv, at, {bytes, 0, source, comm, tag});
            return leave(to, region);
        }
        Rank& isendRecord(uint64_t at, uint32_t dest, uint32_t tag, uint64_t request,
                          uint64_t bytes = 8, uint32_t comm = 0) {
            stream().appendMessage(trace::EventKind::MpiIsend, at,
                                   {bytes, request, dest, comm, tag});
            return *this;
        }
        Rank& irecvRequestRecord(uint64_t at, uint64_t request) {
            stream().appendMessage(trace::EventKind::MpiIrecvRequest, at, {0, request, 0, 0, 0});
            return *this;
        }
        Rank& isendCompleteRecord(uint64_t at, uint64_t request) {
            stream().appendMessage(trace::EventKind::MpiIsendComplete, at, {0, request, 0, 0, 0});
            return *this;
        }
        Rank& irecvRecord(uint64_t at, uint32_t source, uint32_t tag, uint64_t request,
                          uint64_t bytes = 8, uint32_t comm = 0) {
            stream().appendMessage(trace::EventKind::MpiIrecv, at,
                                   {bytes, request, source, comm, tag});
            return *this;
        }
        Rank& sendRecord(uint64_t at, uint32_t dest, uint32_t tag, uint64_t bytes = 8,
                         uint32_t comm = 0) {
            stream().appendMessage(trace::EventKind::MpiSend, at, {bytes, 0, dest, comm, tag});
            return *this;
        }
        Rank& recvRecord(uint64_t at, uint32_t source, uint32_t tag, uint64_t bytes = 8,
                         uint32_t comm = 0) {
            stream().appendMessage(trace::EventKind::MpiRecv, at, {bytes, 0, source, comm, tag});
            return *this;
        }
        /// A collective call `region` from `from` to `to` on `comm`. Unless told otherwise it
        /// moves 8 bytes each way, as a data-moving operation must to synchronize (movesData());
        /// barriers and communicator creation and destruction move none.
        Rank& collective(uint64_t from, uint64_t to, const std::string& region,
                         trace::CollectiveOp op, uint32_t comm = 0,
                         uint32_t root = trace::kUndefined, uint64_t sent = kDefaultBytes,
                         uint64_t received = kDefaultBytes) {
            const bool dataless = op == trace::CollectiveOp::Barrier ||
                                  op == trace::CollectiveOp::CreateHandle ||
                                  op == trace::CollectiveOp::DestroyHandle;
            sent = sent != kDefaultBytes ? sent : dataless ? 0 : 8;
            received = received != kDefaultBytes ? received : dataless ? 0 : 8;
            enter(from, region);
            stream().append(trace::EventKind::MpiCollectiveBegin, from, 0);
            stream().appendCollective(to, trace::CollectiveRecord{sent, received, comm, root, op});
            return leave(to, region);
        }

        /// A one-sided record (RmaPut, RmaGroupSync, ...) at `at`.
        Rank& rma(trace::EventKind kind, uint64_t at, const trace::RmaRecord& record) {
            stream().appendRma(kind, at, record);
            return *this;
        }
        /// A window's collective call as Score-P records it: enter, RmaCollectiveBegin,
        /// RmaCollectiveEnd of `op` on `window` at `to`, leave.
        Rank& windowCollective(uint64_t from, uint64_t to, const std::string& region,
                               trace::CollectiveOp op, uint32_t window) {
            enter(from, region);
            stream().appendRma(trace::EventKind::RmaCollectiveBegin, from, trace::RmaRecord{});
            trace::RmaRecord end;
            end.window = window;
            end.op = op;
            end.level = 3;
            end.remote = trace::kUndefined;
            stream().appendRma(trace::EventKind::RmaCollectiveEnd, to, end);
            return leave(to, region);
        }
        /// A put or get call of `bytes` to `target` (a rank of the window's communicator).
        Rank& transfer(uint64_t from, uint64_t to, uint32_t window, uint32_t target, uint64_t bytes,
                       const std::string& region = "MPI_Put") {
            enter(from, region);
            trace::RmaRecord r;
            r.window = window;
            r.remote = target;
            const bool get = region == "MPI_Get";
            (get ? r.received : r.sent) = bytes;
            stream().appendRma(get ? trace::EventKind::RmaGet : trace::EventKind::RmaPut, from, r);
            return leave(to, region);
        }
        /// An MPI_Win_post/_start/_complete/_wait call with its RmaGroupSync at the end.
        Rank& groupSync(uint64_t from, uint64_t to, const std::string& region, uint32_t window,
                        uint32_t group) {
            enter(from, region);
            trace::RmaRecord r;
            r.window = window;
            r.remote = group;
            r.level = 3;
            stream().appendRma(trace::EventKind::RmaGroupSync, to, r);
            return leave(to, region);
        }

    private:
        static constexpr uint64_t kDefaultBytes = ~0ULL;
        trace::EventStream& stream() { return m_trace.m_streams[m_rank]; }
        TinyTrace& m_trace;
        uint32_t m_rank;
    };

    Rank rank(uint32_t r) { return Rank(*this, r); }
    const std::vector<trace::EventStream>& streams() const { return m_streams; }

    trace::Definitions defs;

private:
    uint32_t region(const std::string& name) {
        const auto it = m_regions.find(name);
        if (it != m_regions.end()) {
            return it->second;
        }
        trace::Region r;
        r.name = name;
        r.canonicalName = name;
        const bool mpi = name.rfind("MPI_", 0) == 0;
        r.paradigm = mpi ? trace::Paradigm::Mpi : trace::Paradigm::User;
        r.role = trace::RegionRole::Function;
        if (name == "MPI_Send" || name == "MPI_Recv" || name == "MPI_Isend" ||
            name == "MPI_Irecv" || name == "MPI_Sendrecv" || name == "MPI_Ssend") {
            r.role = trace::RegionRole::PointToPoint;
        } else if (name == "MPI_Barrier") {
            r.role = trace::RegionRole::Barrier;
        } else if (name == "MPI_Bcast" || name == "MPI_Scatter") {
            r.role = trace::RegionRole::CollectiveOneToAll;
        } else if (name == "MPI_Reduce" || name == "MPI_Gather") {
            r.role = trace::RegionRole::CollectiveAllToOne;
        } else if (name == "MPI_Allreduce" || name == "MPI_Alltoall") {
            r.role = trace::RegionRole::CollectiveAllToAll;
        } else if (name == "MPI_Scan" || name == "MPI_Exscan") {
            r.role = trace::RegionRole::CollectiveOther;
        } else if (name == "MPI_Put" || name == "MPI_Get") {
            r.role = trace::RegionRole::Rma;
        } else if (name == "MPI_Accumulate") {
            r.role = trace::RegionRole::Atomic;
        } else if (name.rfind("!$omp", 0) == 0) {
            r.paradigm = trace::Paradigm::OpenMp;
            r.role = openmpRole(name);
        }
        defs.regions.push_back(r);
        const auto id = static_cast<uint32_t>(defs.regions.size() - 1);
        m_regions[name] = id;
        return id;
    }

    // The role of an OpenMP construct named as Waitscope's measurement names it ("!$omp ...").
    static trace::RegionRole openmpRole(const std::string& name) {
        if (name == "!$omp parallel") {
            return trace::RegionRole::Parallel;
        }
        if (name == "!$omp implicit barrier") {
            return trace::RegionRole::ImplicitBarrier;
        }
        if (name == "!$omp task") {
            return trace::RegionRole::Task;
        }
        if (name == "!$omp critical") {
            return trace::RegionRole::Critical;
        }
        if (name == "!$omp critical sblock") {
            return trace::RegionRole::CriticalSblock;
        }
        return trace::RegionRole::Function;
    }

    std::vector<trace::EventStream> m_streams;
    std::map<std::string, uint32_t> m_regions;
};

/// The id of the region named `name` in `defs`, or trace::kUndefined.
inline uint32_t regionOf(const trace::Definitions& defs, const std::string& name) {
    for (uint32_t r = 0; r < defs.regions.size(); ++r) {
        if (defs.regions[r].name == name) {
            return r;
        }
    }
    return trace::kUndefined;
}

/// A Late Receiver at a nonblocking send, which Scalasca 2.6 synchronizes at the completing
/// MPI_Wait: rank 0 main | MPI_Isend 10-11 of a large message | MPI_Wait 12-50 (waits 28 for
/// the receive) | main to 100; rank 1 main | work 0-40 | MPI_Recv 40-50 | main to `receiverEnd`.
inline TinyTrace lateReceiverAtIsendWait(uint64_t receiverEnd) {
    TinyTrace t(2);
    t.rank(0).enter(0, "main").enter(10, "MPI_Isend").isendRecord(10, 1, 7, 1, 100000);
    t.rank(0).leave(11, "MPI_Isend").enter(12, "MPI_Wait").isendCompleteRecord(50, 1);
    t.rank(0).leave(50, "MPI_Wait").leave(100, "main");
    t.rank(1).enter(0, "main").enter(0, "work").leave(40, "work");
    t.rank(1).recv(40, 45, 50, 0, 7, 100000).leave(receiverEnd, "main");
    return t;
}

} // namespace waitscope::testing
