// The replay transport over MPI: one analysis rank per traced rank, mirrored communicators.
#pragma once

#include "waitscope/analysis/transport.h"
#include "waitscope/trace/definitions.h"

#include <deque>
#include <map>
#include <memory>
#include <mpi.h>
#include <optional>
#include <span>
#include <tuple>
#include <utility>
#include <vector>

namespace waitscope::analysis {

class StallWatch;
struct WaitTarget;

/// Mirrors every traced MPI communicator (same members, same rank order) with
/// MPI_Comm_split. An exchange moves all queued records point to point, in chunks straight
/// from where they were queued (records keep their traced communicator and tag and arrive in
/// posting order, which reproduces the traced matching), and each communicator's collective
/// contributions with one MPI_Allgather on its mirror. Collective over MPI_COMM_WORLD.
/// Every wait is watched (StallWatch): when no rank can progress, or a rank abandon()ed the
/// replay, the waits fail with a message naming the rank and what it waited for.
class MpiTransport final : public Transport {
public:
    /// Builds the mirrors; every rank must call it with the same definitions.
    static Result<std::unique_ptr<MpiTransport>> create(const trace::Definitions& definitions);
    ~MpiTransport() override;
    MpiTransport(const MpiTransport&) = delete;
    MpiTransport& operator=(const MpiTransport&) = delete;

    uint32_t rank() const override { return m_rank; }
    uint32_t size() const override { return m_size; }
    void carryRecordInfo(bool carry) override { m_width = carry ? 3 : 2; }
    Status send(uint32_t comm, uint32_t destination, uint32_t tag,
                const ReplayRecord& record) override;
    Status contribute(uint32_t comm, std::span<const double> values) override;
    Status exchange() override;
    Result<ReplayRecord> receive(uint32_t comm, uint32_t source, uint32_t tag) override;
    void takeRecords(const RecordSink& sink) override;
    Result<std::shared_ptr<const GatheredCollective>> gathered(uint32_t comm) override;
    Result<std::vector<double>> allGather(uint32_t comm,
                                          const std::vector<double>& values) override;
    Result<std::vector<uint64_t>> allToAll(const std::vector<uint64_t>& perRank) override;
    Status post(uint32_t comm, uint32_t destination, uint32_t tag,
                const std::vector<double>& payload) override;
    Status await(uint32_t comm, uint32_t source, uint32_t tag,
                 std::vector<double>& payload) override;
    Result<std::vector<double>> awaitAll(uint32_t comm, const std::vector<double>& values) override;
    Status finishPass() override;
    /// Tells the other ranks that this rank leaves the replay with an error, so that their
    /// waits for it fail instead of lasting forever.
    void abandon();

private:
    /// Records queued for one destination, in fixed-size chunks that are sent as they are. On
    /// the wire a record is its enter, its exit and (when carried) its info: 16 or 24 bytes. A
    /// record whose enter is NaN is a key record instead: its exit carries the traced
    /// communicator and tag of the records that follow it (a sender writes one whenever they
    /// change), so runs of messages with one communicator and tag, the common case, cost no
    /// more than their times.
    struct Outbox {
        std::vector<std::vector<double>> chunks;
        uint64_t count = 0; ///< records
        bool keyed = false;
        uint32_t comm = 0;
        uint32_t tag = 0;
        void push(double enter, double exit, double info, size_t width);
    };
    /// The unconsumed records of one (communicator, source, tag): a chain through m_next.
    struct Cursor {
        uint32_t head;
        uint32_t tail;
    };

    MpiTransport();
    /// Completes `requests`, waiting politely and watching for a stall (StallWatch); fails
    /// with `failure` and MPI's message when MPI fails.
    Status complete(std::span<MPI_Request> requests, const WaitTarget& target, const char* failure);
    /// The target of the next collective call on `channel` (a traced communicator's mirror,
    /// worldChannel() or messagesChannel()).
    WaitTarget collectiveCall(uint32_t channel, const char* label);
    uint32_t channelOf(uint32_t comm) const { return comm == kWorldComm ? worldChannel() : comm; }
    uint32_t worldChannel() const { return static_cast<uint32_t>(m_mirrors.size()); }
    uint32_t messagesChannel() const { return static_cast<uint32_t>(m_mirrors.size()) + 1; }
    Result<MPI_Comm> mirror(uint32_t comm) const;
    /// World ranks of the members of traced communicator `comm`, cached.
    Result<const std::vector<uint32_t>*> membersOf(uint32_t comm);
    /// World rank of communicator rank `commRank` of `comm`; fails naming both.
    Result<uint32_t> worldRankOf(uint32_t comm, uint32_t commRank);
    Status exchangeRecords();
    /// Frees the records of the last exchange and their index.
    void releaseIncoming();
    Status exchangeCollectives();
    // Message-driven exchange: payloads are batched per destination and a batch leaves when
    // it is full or when this rank is about to block.
    Status sendBatch(uint32_t destination);
    Status sendAllBatches();
    Status receiveBatch(const WaitTarget& target);
    void reapSent();

    const trace::Definitions* m_defs = nullptr;
    uint32_t m_rank = 0;
    uint32_t m_size = 0;
    MPI_Comm m_world = MPI_COMM_NULL;
    std::vector<std::optional<std::vector<uint32_t>>> m_members; // per communicator
    std::vector<uint32_t> m_worldMembers;
    std::vector<MPI_Comm> m_mirrors;
    std::vector<Outbox> m_outbox;                            // per destination world rank
    std::map<uint32_t, std::vector<double>> m_contributions; // per communicator, concatenated
    std::map<uint32_t, size_t> m_contributionWidth;          // values per contribution
    std::vector<double>* m_contributing = nullptr;           // the queue contributed to last
    uint32_t m_contributingComm = 0;                         // ... and its communicator
    /// One exchange's collectives on one communicator: every member's contributions as
    /// gathered (member-major), consumed one collective at a time.
    struct Gathered {
        std::vector<double> values;
        size_t width = 0; // values per contribution
        size_t members = 0;
        size_t perMember = 0; // values per member
        size_t next = 0;      // the next collective to hand out
    };
    std::map<uint32_t, Gathered> m_gathered;
    size_t m_width = 2;             // values per record on the wire
    std::vector<double> m_incoming; // records of the last exchange
    std::vector<uint32_t> m_next;   // per incoming record: the next one of its key, or kEnd
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, Cursor> m_cursors; // (comm, source, tag)
    std::tuple<uint32_t, uint32_t, uint32_t> m_lastKey;
    Cursor* m_lastCursor = nullptr; // m_cursors[m_lastKey], if any
    uint64_t m_unconsumed = 0;      // incoming records not yet received; at 0 they are freed

    struct SentBatch {
        std::vector<double> buffer;
        MPI_Request request = MPI_REQUEST_NULL;
    };
    MPI_Comm m_messages = MPI_COMM_NULL;        // message-driven traffic only
    std::vector<std::vector<double>> m_batches; // per destination: [comm, tag, count, values]...
    std::deque<SentBatch> m_sent;               // batches whose sends may still be running
    std::vector<uint64_t> m_batchesSent;        // per destination, this pass
    std::vector<uint64_t> m_batchesReceived;    // per source, this pass
    PayloadQueues m_payloads;
    std::vector<double> m_arriving; // the batch being received

    std::unique_ptr<StallWatch> m_watch;
    std::vector<uint64_t> m_calls;         // per channel: collective calls made
    std::vector<uint64_t> m_totalSent;     // per destination: batches ever sent
    std::vector<uint64_t> m_totalReceived; // per source: batches ever received
};

} // namespace waitscope::analysis
