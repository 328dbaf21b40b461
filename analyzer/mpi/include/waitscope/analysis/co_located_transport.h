// A transport for M:N replay: each MPI process runs a block of traced ranks as threads, which
// exchange in memory with each other and over MPI with the ranks of other processes.
#pragma once

#include "waitscope/analysis/transport.h"
#include "waitscope/base/result.h"
#include "waitscope/trace/definitions.h"

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
#include <vector>

namespace waitscope::analysis {

/// The first traced rank that process `process` of `processes` replays when `ranks` traced
/// ranks are split into contiguous blocks (ranks [k·N/M, (k+1)·N/M) on process k).
uint32_t firstRankOf(uint32_t process, uint32_t processes, uint32_t ranks);

/// The traced ranks of this process and their transport endpoints. Every operation of the
/// Transport interface becomes point-to-point messages between traced ranks, keyed by kind,
/// communicator, source and a tag or sequence number and delivered in posting order per key:
/// in memory within the process, and over MPI (all of a process's messages to another
/// process in one FIFO stream, so posting order survives) otherwise. A rank's thread that
/// must wait first hands over everything queued for other processes, and waiting threads take
/// turns receiving from MPI (one at a time: MPI_THREAD_SERIALIZED is enough).
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
    /// The failure of a local rank that stopped the replay, if one did.
    std::optional<Error> cause();
    /// Once every local rank's thread has ended: delivers what is still queued and receives
    /// everything the other processes sent. Collective over all processes.
    Status drain();

private:
    class Endpoint;
    friend class Endpoint;
    enum Kind : uint32_t { Records, Contribution, Gather, Payload, Abort };
    using Key = std::tuple<uint32_t, uint32_t, uint32_t, uint64_t>; // kind, comm, source, tag
    struct Inbox {
        std::map<Key, std::deque<std::vector<double>>> messages;
        PayloadQueues payloads;
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
    // Waits until a payload from `source` has arrived for `self` and takes it.
    Status takePayload(uint32_t self, uint32_t comm, uint32_t source, uint32_t tag,
                       std::vector<double>& payload);
    // Waits under `lock` until `ready` holds, making MPI progress meanwhile.
    Status waitUntil(std::unique_lock<std::mutex>& lock, uint32_t self,
                     const std::function<bool()>& ready, const std::string& what);
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

    std::mutex m_mutex; // guards the inboxes, the outgoing streams and the failure
    std::condition_variable m_changed;
    std::vector<Inbox> m_inboxes;                // per local rank
    std::vector<std::vector<double>> m_outgoing; // per process: framed messages not sent yet
    bool m_aborted = false;
    std::optional<Error> m_cause;

    std::mutex m_mpiMutex; // one thread at a time calls MPI
    std::deque<SentBatch> m_sent;
    std::vector<double> m_arriving;
    std::vector<uint64_t> m_batchesSent;     // per process
    std::vector<uint64_t> m_batchesReceived; // per process
};

} // namespace waitscope::analysis
