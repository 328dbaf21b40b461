// A transport that runs every rank of a small trace as a thread of one process.
#pragma once

#include "waitscope/analysis/transport.h"
#include "waitscope/trace/definitions.h"

#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

namespace waitscope::analysis {

/// Shared outboxes and collective slots of all ranks. Detects deadlock (every live rank
/// waiting for something that cannot arrive) and fails the waiting calls instead of hanging.
class InProcessWorld {
public:
    /// Takes the communicator membership from `definitions`; `ranks` analysis ranks take part.
    InProcessWorld(const trace::Definitions& definitions, uint32_t ranks);
    ~InProcessWorld();
    InProcessWorld(const InProcessWorld&) = delete;
    InProcessWorld& operator=(const InProcessWorld&) = delete;

    /// The transport endpoint of `rank`; valid while the world lives.
    Transport& endpoint(uint32_t rank);
    /// Marks `rank` as done, so that ranks still waiting for it fail instead of hanging.
    void finish(uint32_t rank);
    /// The most payloads of the message-driven passes that were posted and not yet awaited at
    /// one moment, over all ranks (what the passes hold in flight at most).
    size_t peakPayloads();

private:
    class Endpoint;
    friend class Endpoint;
    struct Slot {
        std::vector<std::vector<double>> values;
        uint32_t arrived = 0;
        uint32_t taken = 0;
    };

    struct Posted {
        uint32_t comm;
        uint32_t to;
        uint32_t tag;
        ReplayRecord record;
    };

    Result<uint32_t> worldRankOf(uint32_t comm, uint32_t commRank, uint32_t self) const;
    Result<std::vector<uint32_t>> members(uint32_t comm, uint32_t self) const;
    using Collectives = std::vector<std::shared_ptr<const GatheredCollective>>;
    // The collectives of this exchange on `comm` from all members' contributions, built by the
    // first member to ask (member `self`); fails when a member contributed to fewer.
    Result<const Collectives*> collectives(uint32_t comm, uint32_t self);
    // Waits under `lock` until `ready` holds; fails when every live rank waits unsatisfied.
    Status waitUntil(std::unique_lock<std::mutex>& lock, uint32_t rank,
                     const std::function<bool()>& ready, const std::string& what);
    // Whether some rank that has not finished runs or waits for something that is there; the
    // caller holds m_mutex. False is a deadlock: nothing can change any more.
    bool anyoneCanMove() const;
    // Wakes `rank` if it waits (what it waits for may have arrived); the caller holds m_mutex.
    void wake(uint32_t rank);
    // Marks the deadlock and wakes every waiting rank to fail; the caller holds m_mutex.
    void failAll();

    uint32_t m_size;
    trace::Definitions m_defs;
    // Per rank, written only by that rank between exchanges and read by all during one.
    std::vector<std::vector<Posted>> m_outboxes;
    std::vector<std::map<uint32_t, std::vector<std::vector<double>>>> m_contributions;
    std::vector<std::unique_ptr<Endpoint>> m_endpoints;
    std::mutex m_mutex;
    // Per rank: signalled when something it may wait for arrives, so a message wakes its
    // receiver only, not every waiting thread.
    std::vector<std::unique_ptr<std::condition_variable>> m_changed;
    std::map<std::pair<uint32_t, uint64_t>, Slot> m_slots;
    std::map<uint32_t, Collectives> m_collectives; // this exchange's, per communicator
    std::map<uint32_t, std::map<uint32_t, Collectives>> m_selfCollectives; // per rank, comm
    std::vector<std::map<uint32_t, uint64_t>> m_sequence; // per rank: comm -> collectives so far
    std::vector<PayloadQueues> m_inboxes;                 // per rank: message-driven payloads
    size_t m_payloads = 0;                                // posted and not yet awaited, all ranks
    size_t m_peakPayloads = 0;
    std::vector<std::function<bool()>> m_waiting; // per rank: what it waits for, if anything
    std::vector<bool> m_finished;
    bool m_deadlock = false;
};

} // namespace waitscope::analysis
