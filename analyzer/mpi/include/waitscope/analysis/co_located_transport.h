// A transport for M:N replay: each MPI process runs a block of traced ranks as threads, which
// exchange in memory with each other and over MPI with the ranks of other processes.
#pragma once

#include "waitscope/analysis/gathered_collective.h"
#include "waitscope/analysis/transport.h"
#include "waitscope/base/result.h"
#include "waitscope/trace/definitions.h"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mpi.h>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace waitscope::analysis {

class StallWatch;

/// The first traced rank that process `process` of `processes` replays when `ranks` traced
/// ranks are split into contiguous blocks (ranks [k·N/M, (k+1)·N/M) on process k).
uint32_t firstRankOf(uint32_t process, uint32_t processes, uint32_t ranks);

/// The traced ranks of this process and their transport endpoints. Every operation of the
/// Transport interface becomes messages keyed by kind, communicator, source and a tag or
/// sequence number and delivered in posting order per key: in memory within the process, and
/// over MPI (all of a process's messages to another process in one FIFO stream, so posting
/// order survives) otherwise. A rank's thread that must wait first hands over everything
/// queued for other processes, and waiting threads take turns receiving from MPI (one at a
/// time: MPI_THREAD_SERIALIZED is enough).
///
/// What all members of a communicator need (collective contributions, gathers) goes to each
/// process once, not to each member: the process keeps one copy per member and builds the
/// collectives once (GatheredCollective, shared by its members). Records go only where there
/// are some; an exchange step ends for a process when every other process's end-of-step
/// marker has come down its stream. So an exchange costs a process O(its records + the
/// members' contributions), not O(N^2 / M) messages.
///
/// Nothing hangs: a failing rank stops every rank's waits (fail()), and a StallWatch among the
/// processes ends the waits when none can go on (every local rank waits for something not
/// there or has finished, in every process, with no batch in flight: a trace whose ranks
/// disagree); each waiting rank then fails naming what it waited for.
class CoLocatedWorld {
public:
    /// Collective over MPI_COMM_WORLD: every process replays its block of `ranks` traced ranks.
    static Result<std::unique_ptr<CoLocatedWorld>> create(const trace::Definitions& definitions,
                                                          uint32_t ranks);
    ~CoLocatedWorld();
    CoLocatedWorld(const CoLocatedWorld&) = delete;
    CoLocatedWorld& operator=(const CoLocatedWorld&) = delete;

    /// The first traced rank of this process and one past its last.
    uint32_t firstRank() const { return m_first; }
    uint32_t endRank() const { return m_end; }
    /// The endpoint of local traced rank `rank`; valid while the world lives.
    Transport& endpoint(uint32_t rank);
    /// Records that local rank `rank` failed with `error`: every rank's waits (in all
    /// processes) end with an error instead of hanging. The first failure is the cause().
    void fail(uint32_t rank, const Error& error);
    /// Records that local rank `rank`'s thread is done with the transport (for the stall
    /// watch: a finished rank waits for nothing).
    void finish(uint32_t rank);
    /// Records that local rank `rank` could not read its events (RankInput::readFailed):
    /// the failures of the others that follow from it name it only, and are not the cause().
    void readFailed(uint32_t rank, const Error& error);
    /// Why the replay stopped, if it did: the read error of the lowest local rank that could
    /// not read its events, else the first failure of a local rank. The same whichever
    /// rank's thread failed first.
    std::optional<Error> cause();
    /// Once every local rank's thread has ended: delivers what is still queued and receives
    /// everything the other processes sent. Collective over all processes.
    Status drain();

private:
    class Endpoint;
    friend class Endpoint;
    enum Kind : uint32_t { Records, Contribution, Gather, Payload, Abort, StepDone, Block };
    using Key = std::tuple<uint32_t, uint32_t, uint32_t, uint64_t>; // kind, comm, source, tag
    struct Inbox {
        std::map<Key, std::deque<std::vector<double>>> messages;
        PayloadQueues payloads;
        std::condition_variable changed; // something arrived for this rank
    };
    /// The members of a communicator as this process sees them.
    struct Members {
        std::vector<uint32_t> ranks;    // world ranks, in communicator rank order
        std::vector<uint32_t> position; // per world rank: its communicator rank, or none
        std::vector<uint32_t> firstOn;  // per process: its first member, or none
        size_t local = 0;               // members replayed here
    };
    /// The parts of one shared exchange (kind, communicator, step or sequence) and what is
    /// built of them once all are in.
    struct Shared {
        std::vector<std::vector<double>> parts; // per member
        std::vector<char> present;              // per member: its part arrived
        size_t arrived = 0;
        bool built = false;
        std::vector<std::shared_ptr<const GatheredCollective>> collectives; // Contribution
        std::shared_ptr<const std::vector<double>> all;                     // Gather
        std::optional<Error> error;                                         // as built
        size_t taken = 0;
    };
    using SharedKey = std::tuple<uint32_t, uint32_t, uint64_t>; // kind, comm, tag
    /// Per exchange step: local ranks that posted their records, other processes that sent
    /// their end of the step, local ranks that took their records.
    struct Step {
        size_t posted = 0;
        size_t processesDone = 0;
        size_t taken = 0;
    };
    struct SentBatch {
        std::vector<double> buffer;
        MPI_Request request = MPI_REQUEST_NULL;
    };

    CoLocatedWorld() = default;
    // Queues (or delivers in memory) one message from traced rank `source` to `destination`.
    void deliver(Kind kind, uint32_t comm, uint32_t source, uint32_t destination, uint64_t tag,
                 std::span<const double> values);
    // Stores a message for local rank `destination`; the caller holds m_mutex.
    void store(Kind kind, uint32_t comm, uint32_t source, uint32_t destination, uint64_t tag,
               std::span<const double> values);
    // Waits until the message keyed (kind, comm, source, tag) has arrived for local rank
    // `self` and moves it into `values`.
    Status take(uint32_t self, Kind kind, uint32_t comm, uint32_t source, uint64_t tag,
                std::vector<double>& values);
    // The members of traced communicator `comm` (not a self communicator); the caller holds
    // m_mutex.
    Result<const Members*> membersOf(uint32_t comm);
    // Posts member `source`'s part of the shared exchange (kind, comm, tag): kept here once,
    // and sent once to each other process that replays a member.
    Status share(Kind kind, uint32_t comm, uint32_t source, uint64_t tag,
                 std::span<const double> values);
    // Stores a part of a shared exchange; the caller holds m_mutex.
    void storeShared(Kind kind, uint32_t comm, uint32_t source, uint64_t tag,
                     std::span<const double> values);
    // Waits until every member's part of (kind, comm, tag) is in, builds what they make once,
    // and calls `use` with it (under m_mutex) for local rank `self`.
    Status takeShared(uint32_t self, Kind kind, uint32_t comm, uint64_t tag,
                      const std::function<Status(const Shared&)>& use);
    // Builds the collectives (Contribution) or the gathered values (Gather) of `shared`.
    static void build(Kind kind, uint32_t comm, const Members& members, Shared& shared);
    // Ends local rank `self`'s posting of the records of exchange step `step`, waits until the
    // step's records from everywhere are in, and hands them to `deliver` (source, values).
    Status takeRecords(uint32_t self, uint64_t step,
                       const std::function<void(uint32_t, const std::vector<double>&)>& deliver);
    // Waits until a payload from `source` has arrived for `self` and takes it.
    Status takePayload(uint32_t self, uint32_t comm, uint32_t source, uint32_t tag,
                       std::vector<double>& payload);
    // Waits under `lock` until `ready` holds, making MPI progress meanwhile; `what` names
    // what it waits for, in the error when the replay stops.
    Status waitUntil(std::unique_lock<std::mutex>& lock, uint32_t self,
                     const std::function<bool()>& ready, const std::function<std::string()>& what);
    // Wakes the waiting threads of every local rank; the caller holds m_mutex.
    void wakeAll();
    // Whether no local rank can go on: each has finished or waits for what is not there; the
    // caller holds m_mutex.
    bool idle() const;
    // Tells the stall watch whether this process is idle and asks it whether all are; the
    // caller holds m_mpiMutex.
    void watchForStall();
    // Sends what is queued for other processes and receives what arrived, if no other thread
    // is doing so; returns MPI's error, if any.
    Status progress();
    Status progressLocked(); // the caller holds m_mpiMutex

    const trace::Definitions* m_defs = nullptr;
    uint32_t m_ranks = 0;
    uint32_t m_process = 0;
    uint32_t m_processes = 0;
    uint32_t m_first = 0;
    uint32_t m_end = 0;
    std::vector<uint32_t> m_owner; // per traced rank: its process
    MPI_Comm m_comm = MPI_COMM_NULL;
    std::vector<std::unique_ptr<Endpoint>> m_endpoints;

    std::mutex m_mutex; // guards the inboxes, the shared parts, the streams and the failure
    std::vector<std::unique_ptr<Inbox>> m_inboxes; // per local rank
    std::map<uint32_t, Members> m_members;         // per communicator, as asked for
    std::map<SharedKey, Shared> m_shared;
    std::map<uint64_t, Step> m_steps;
    std::vector<std::vector<double>> m_outgoing; // per process: framed messages not sent yet
    bool m_aborted = false;
    std::optional<Error> m_cause;
    std::optional<std::pair<uint32_t, Error>> m_readError; // the lowest rank's
    std::vector<const std::function<bool()>*> m_waits;     // per local rank: what it waits for
    size_t m_finished = 0;                                 // local ranks done with the transport
    static constexpr uint32_t kNoPoller = 0xFFFFFFFFu;
    uint32_t m_poller = kNoPoller; // the local rank whose waiting thread polls MPI
    bool m_stalled = false;        // no process can go on

    std::mutex m_mpiMutex; // one thread at a time calls MPI
    std::deque<SentBatch> m_sent;
    std::vector<double> m_arriving;
    std::vector<uint64_t> m_batchesSent;     // per process
    std::vector<uint64_t> m_batchesReceived; // per process
    std::unique_ptr<StallWatch> m_watch;
    bool m_watching = false;                           // this process is idle and told the watch so
    std::chrono::steady_clock::time_point m_lastWatch; // when watchForStall() last looked
};

} // namespace waitscope::analysis
