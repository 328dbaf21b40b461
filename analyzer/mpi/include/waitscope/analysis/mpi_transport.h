// The replay transport over MPI: one analysis rank per traced rank, mirrored communicators.
#pragma once

#include "waitscope/analysis/transport.h"
#include "waitscope/trace/definitions.h"

#include <deque>
#include <memory>
#include <mpi.h>

namespace waitscope::analysis {

/// Mirrors every traced MPI communicator (same members, same rank order) with
/// MPI_Comm_split, and replays messages on the mirror with the traced tag, so MPI's
/// non-overtaking rule reproduces the traced matching. Collective over MPI_COMM_WORLD.
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
    Result<ReplayRecord> receive(uint32_t comm, uint32_t source, uint32_t tag) override;
    Result<std::vector<double>> allGather(uint32_t comm,
                                          const std::vector<double>& values) override;
    Result<std::vector<uint64_t>> allToAll(const std::vector<uint64_t>& perRank) override;
    Status endPass() override;

private:
    MpiTransport() = default;
    Result<MPI_Comm> mirror(uint32_t comm) const;
    void completeSomeSends();

    struct PendingSend {
        MPI_Request request;
        ReplayRecord record;
    };

    uint32_t m_rank = 0;
    uint32_t m_size = 0;
    int m_tagLimit = 32767;
    MPI_Comm m_world = MPI_COMM_NULL;
    std::vector<MPI_Comm> m_mirrors;
    std::deque<PendingSend> m_pending;
};

} // namespace waitscope::analysis
