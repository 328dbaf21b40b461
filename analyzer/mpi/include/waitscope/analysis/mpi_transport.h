// The replay transport over MPI: one analysis rank per traced rank, mirrored communicators.
#pragma once

#include "waitscope/analysis/transport.h"
#include "waitscope/trace/definitions.h"

#include <deque>
#include <map>
#include <memory>
#include <mpi.h>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

namespace waitscope::analysis {

/// Mirrors every traced MPI communicator (same members, same rank order) with
/// MPI_Comm_split. An exchange moves all queued records with one MPI_Alltoallv (records keep
/// their traced communicator and tag and arrive in posting order, which reproduces the traced
/// matching) and each communicator's collective contributions with one MPI_Allgather on its
/// mirror. Collective over MPI_COMM_WORLD.
class MpiTransport final : public Transport {
public:
    /// Builds the mirrors; every rank must call it with the same definitions.
    static Result<std::unique_ptr<MpiTransport>> create(const trace::Definitions& definitions);
    ~MpiTransport() override;
    MpiTransport(const MpiTransport&) = delete;
    MpiTransport& operator=(const MpiTransport&) = delete;

    uint32_t rank() const override { return m_rank; }
    uint32_t size() const override { return m_size; }
    Status send(uint32_t comm, uint32_t destination, uint32_t tag,
                const ReplayRecord& record) override;
    Status contribute(uint32_t comm, const std::vector<double>& values) override;
    Status exchange() override;
    Result<ReplayRecord> receive(uint32_t comm, uint32_t source, uint32_t tag) override;
    Result<std::vector<double>> collected(uint32_t comm) override;
    Result<std::vector<double>> allGather(uint32_t comm,
                                          const std::vector<double>& values) override;
    Result<std::vector<uint64_t>> allToAll(const std::vector<uint64_t>& perRank) override;
    Status post(uint32_t comm, uint32_t destination, uint32_t tag,
                const std::vector<double>& payload) override;
    Result<std::vector<double>> await(uint32_t comm, uint32_t source, uint32_t tag) override;
    Result<std::vector<double>> awaitAll(uint32_t comm, const std::vector<double>& values) override;
    Status finishPass() override;

private:
    /// A record on the wire: traced communicator and tag, then the sender's call times.
    struct WireRecord {
        uint32_t comm;
        uint32_t tag;
        double enter;
        double exit;
    };

    MpiTransport() = default;
    Result<MPI_Comm> mirror(uint32_t comm) const;
    /// World ranks of the members of traced communicator `comm`, cached.
    Result<const std::vector<uint32_t>*> membersOf(uint32_t comm);
    /// World rank of communicator rank `commRank` of `comm`; fails naming both.
    Result<uint32_t> worldRankOf(uint32_t comm, uint32_t commRank);
    Status exchangeRecords();
    Status exchangeCollectives();
    // Message-driven exchange: payloads are batched per destination and a batch leaves when
    // it is full or when this rank is about to block.
    Status sendBatch(uint32_t destination);
    Status sendAllBatches();
    Status receiveBatch();
    void reapSent();

    const trace::Definitions* m_defs = nullptr;
    uint32_t m_rank = 0;
    uint32_t m_size = 0;
    MPI_Comm m_world = MPI_COMM_NULL;
    std::vector<std::optional<std::vector<uint32_t>>> m_members; // per communicator
    std::vector<uint32_t> m_worldMembers;
    std::vector<MPI_Comm> m_mirrors;
    std::vector<std::vector<WireRecord>> m_outbox;           // per destination world rank
    std::map<uint32_t, std::vector<double>> m_contributions; // per communicator, concatenated
    std::map<uint32_t, size_t> m_contributionWidth;          // values per contribution
    Deliveries m_deliveries;                                 // collectives
    std::vector<WireRecord> m_incoming;                      // records of the last exchange
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::pair<size_t, size_t>>
        m_cursors; // (comm, source, tag) -> next and end in m_incoming
    std::tuple<uint32_t, uint32_t, uint32_t> m_lastKey;
    std::pair<size_t, size_t>* m_lastCursor = nullptr; // m_cursors[m_lastKey], if any

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
};

} // namespace waitscope::analysis
