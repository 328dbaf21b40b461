// The communication a replay needs, independent of how ranks talk to each other.
#pragma once

#include "waitscope/analysis/gathered_collective.h"
#include "waitscope/base/result.h"
#include "waitscope/trace/definitions.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <tuple>
#include <vector>

namespace waitscope::analysis {

/// Communicator id that stands for all analysis ranks in world rank order.
inline constexpr uint32_t kWorldComm = 0xFFFFFFFEu;

/// What one replayed message carries: the timestamps of the partner's MPI call, and what a
/// pass adds about that call when the transport carries it (see Transport::carryRecordInfo()).
struct ReplayRecord {
    double enter = 0.0;
    double exit = 0.0;
    double info = 0.0;
};

/// Exchanges between analysis ranks, one instance per rank, in bulk-synchronous steps.
///
/// A replay pass first posts everything this rank has to tell others (one record per traced
/// message, one contribution per traced collective), then calls exchange(), then consumes
/// what arrived. Records travel per (traced communicator, source, destination, traced tag)
/// and are delivered in posting order, which is MPI's non-overtaking rule: the k-th receive
/// of a rank from a source with a tag gets the record of the source's k-th send, exactly the
/// traced matching. Because a record only holds the sender's own timestamps, posting all of
/// them before consuming any gives the same result as replaying message by message.
class Transport {
public:
    virtual ~Transport() = default;

    /// This analysis rank (equal to the traced world rank).
    virtual uint32_t rank() const = 0;
    /// Number of analysis ranks.
    virtual uint32_t size() const = 0;

    /// Whether records carry ReplayRecord::info (the root-cause replays need it); without it,
    /// info arrives as 0 and records take a third less room. Every rank sets the same, before
    /// a pass sends its first record.
    virtual void carryRecordInfo(bool carry) = 0;
    /// Queues `record` for communicator rank `destination` of traced communicator `comm`.
    virtual Status send(uint32_t comm, uint32_t destination, uint32_t tag,
                        const ReplayRecord& record) = 0;
    /// Queues this rank's contribution to its next collective on `comm`.
    virtual Status contribute(uint32_t comm, std::span<const double> values) = 0;
    /// Delivers everything queued on all ranks. Collective over all ranks.
    virtual Status exchange() = 0;
    /// The next record delivered from communicator rank `source` with `tag`; fails (naming
    /// the ranks) when the last exchange delivered no such record.
    virtual Result<ReplayRecord> receive(uint32_t comm, uint32_t source, uint32_t tag) = 0;
    /// Hands every record the exchanges delivered and receive() did not take to `sink`, with
    /// its traced communicator, the world rank of its source and its tag, in delivery order
    /// per (communicator, source, tag), and forgets them: for passes that keep records across
    /// exchanges themselves (the windowed replay).
    using RecordSink = std::function<void(uint32_t comm, uint32_t source, uint32_t tag,
                                          const ReplayRecord& record)>;
    virtual void takeRecords(const RecordSink& sink) = 0;
    /// The contributions of all members to this rank's next collective on `comm`, in
    /// communicator rank order, with their reductions; ranks replayed in one process share the
    /// instance. Fails when the last exchange delivered none.
    virtual Result<std::shared_ptr<const GatheredCollective>> gathered(uint32_t comm) = 0;
    /// gathered()'s values copied into `values` (for passes that read them all).
    Status collected(uint32_t comm, std::vector<double>& values);

    /// Immediate gather of `values` (same count everywhere) from all members of `comm`.
    virtual Result<std::vector<double>> allGather(uint32_t comm,
                                                  const std::vector<double>& values) = 0;
    /// allGather()'s result as one read-only instance that the ranks replayed in one process
    /// share (the co-located transport gathers once per process): for gathers whose result is
    /// O(members) per rank, so that a process holds it once, not once per rank. By default a
    /// copy of allGather()'s.
    virtual Result<std::shared_ptr<const std::vector<double>>>
    sharedGather(uint32_t comm, const std::vector<double>& values);
    /// Immediate world exchange: element block d of `perRank` goes to rank d.
    virtual Result<std::vector<uint64_t>> allToAll(const std::vector<uint64_t>& perRank) = 0;

    // Message-driven exchange, for passes in which what a rank sends depends on what it has
    // received (the root-cause backward replay, the clock-correcting forward replay). A rank
    // walks its events in order, post()s without blocking and await()s what it needs; before
    // blocking it hands over everything it has posted, so a pass over a consistent trace
    // cannot deadlock (the traced happens-before order is acyclic, in either direction).

    /// Queues `payload` for communicator rank `destination` of traced communicator `comm`.
    /// Payloads from one rank to another with one (comm, tag) arrive in posting order.
    virtual Status post(uint32_t comm, uint32_t destination, uint32_t tag,
                        const std::vector<double>& payload) = 0;
    /// Replaces `payload` with the next payload from communicator rank `source` of `comm` with
    /// `tag` (reusing its memory), blocking until it arrives; fails naming the ranks when it
    /// cannot arrive (in-process transport) or the exchange fails.
    virtual Status await(uint32_t comm, uint32_t source, uint32_t tag,
                         std::vector<double>& payload) = 0;
    /// Hands over `values` to all members of `comm` and returns the members' values in
    /// communicator rank order (same count everywhere), within a message-driven pass.
    virtual Result<std::vector<double>> awaitAll(uint32_t comm,
                                                 const std::vector<double>& values) = 0;
    /// Ends a message-driven pass: hands over what is still queued and waits until all ranks
    /// have received everything they awaited. Collective over all ranks.
    virtual Status finishPass() = 0;
};

/// Payloads of the message-driven exchange that arrived but were not awaited yet: per (comm,
/// source, tag) one list of values and one of lengths, so that a payload costs no allocation of
/// its own and runs of payloads on one channel find their queue without a lookup.
class PayloadQueues {
public:
    /// Stores a payload from world rank `source`.
    void deliver(uint32_t comm, uint32_t source, uint32_t tag, std::span<const double> payload);
    /// Whether a payload from world rank `source` is waiting.
    bool has(uint32_t comm, uint32_t source, uint32_t tag) {
        const Queue* queue = find({comm, source, tag}, false);
        return queue != nullptr && queue->nextLength < queue->lengths.size();
    }
    /// Replaces `payload` with the next payload from world rank `source`; it must be there
    /// (see has()).
    void take(uint32_t comm, uint32_t source, uint32_t tag, std::vector<double>& payload);
    /// Number of payloads waiting.
    size_t pending() const;

private:
    using Key = std::tuple<uint32_t, uint32_t, uint32_t>;
    struct Queue {
        std::vector<double> values;
        std::vector<uint32_t> lengths;
        size_t nextValue = 0; ///< the first value not taken
        size_t nextLength = 0;
    };
    Queue* find(const Key& key, bool add);

    std::map<Key, Queue> m_queues; ///< a node map: the cached pointer stays valid
    Key m_lastKey{};
    Queue* m_last = nullptr; ///< m_queues[m_lastKey], if any
};

/// The receiving side shared by the transports: delivered records and gathered collectives.
class Deliveries {
public:
    /// Stores a record from world rank `source`.
    void deliver(uint32_t comm, uint32_t source, uint32_t tag, const ReplayRecord& record) {
        m_records[{comm, source, tag}].push_back(record);
    }
    /// Stores the gathered contributions of one collective on `comm`.
    void deliverCollective(uint32_t comm, std::shared_ptr<const GatheredCollective> gathered) {
        m_collectives[comm].push_back(std::move(gathered));
    }
    /// Hands every stored record to `sink` and forgets them (Transport::takeRecords()).
    void takeAll(const Transport::RecordSink& sink);
    /// Pops the next record from world rank `source`; fails naming `self` and the source.
    Result<ReplayRecord> take(uint32_t self, uint32_t comm, uint32_t source, uint32_t tag);
    /// Pops the next gathered collective on `comm`.
    Result<std::shared_ptr<const GatheredCollective>> takeCollective(uint32_t self, uint32_t comm);

private:
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::deque<ReplayRecord>> m_records;
    std::map<uint32_t, std::deque<std::shared_ptr<const GatheredCollective>>> m_collectives;
};

/// Transport::allToAll for transports that have an all-gather of their own (in-process,
/// co-located): every rank gathers all buffers over the world and keeps its blocks, in rank
/// order; fails when `perRank` is not a whole number of blocks per rank.
Result<std::vector<uint64_t>> allToAllByAllGather(Transport& transport,
                                                  const std::vector<uint64_t>& perRank);

/// A transport whose exchange() stores what arrives in Deliveries (in-process, co-located):
/// receive() and gathered() take from them; a message-driven pass ends on its all-gather.
class DeliveringTransport : public Transport {
public:
    void carryRecordInfo(bool carry) final { m_carryInfo = carry; }
    /// Resolves the destination (worldRank()) and queues the record by queueRecord(), with its
    /// info as 0 unless carried (as over MPI, where the info is then not sent).
    Status send(uint32_t comm, uint32_t destination, uint32_t tag,
                const ReplayRecord& record) final;
    /// Resolves the destination and hands the payload to postTo().
    Status post(uint32_t comm, uint32_t destination, uint32_t tag,
                const std::vector<double>& payload) final;
    /// Resolves the source and waits in awaitFrom().
    Status await(uint32_t comm, uint32_t source, uint32_t tag, std::vector<double>& payload) final;
    Result<ReplayRecord> receive(uint32_t comm, uint32_t source, uint32_t tag) final;
    void takeRecords(const RecordSink& sink) final { m_deliveries.takeAll(sink); }
    Result<std::shared_ptr<const GatheredCollective>> gathered(uint32_t comm) final;
    /// By their all-gather (allToAllByAllGather).
    Result<std::vector<uint64_t>> allToAll(const std::vector<uint64_t>& perRank) override {
        return allToAllByAllGather(*this, perRank);
    }
    /// The all-gathers of these transports are immediate within a message-driven pass too.
    Result<std::vector<double>> awaitAll(uint32_t comm, const std::vector<double>& values) final {
        return allGather(comm, values);
    }
    /// A world barrier (every payload of the pass has arrived), dropPayloads(), and a second
    /// barrier: nobody posts the next pass's payloads before everyone has dropped this pass's.
    Status finishPass() final;

protected:
    /// Queues `record` for world rank `to` until the next exchange().
    virtual void queueRecord(uint32_t comm, uint32_t to, uint32_t tag,
                             const ReplayRecord& record) = 0;
    /// Sends `payload` to world rank `to` of a message-driven pass.
    virtual void postTo(uint32_t comm, uint32_t to, uint32_t tag,
                        const std::vector<double>& payload) = 0;
    /// Waits for the next payload from world rank `from` (see Transport::await()).
    virtual Status awaitFrom(uint32_t comm, uint32_t from, uint32_t tag,
                             std::vector<double>& payload) = 0;
    /// Drops this rank's payloads of the message-driven pass that nobody awaited.
    virtual void dropPayloads() = 0;
    /// The world rank of communicator rank `commRank` of traced communicator `comm`; fails
    /// naming this rank when there is none.
    virtual Result<uint32_t> worldRank(uint32_t comm, uint32_t commRank) const = 0;

    Deliveries m_deliveries;

private:
    bool m_carryInfo = false;
};

/// The communicator rank of world rank `self` in traced communicator `comm` (0 for a self
/// communicator, an unknown one, or one `self` is not a member of).
uint32_t commRankOf(const trace::Definitions& definitions, uint32_t comm, uint32_t self);

/// World ranks of the members of traced communicator `comm` (kWorldComm: all `size` ranks;
/// a self communicator: only `self`).
Result<std::vector<uint32_t>> communicatorMembers(const trace::Definitions& definitions,
                                                  uint32_t comm, uint32_t self, uint32_t size);

} // namespace waitscope::analysis
