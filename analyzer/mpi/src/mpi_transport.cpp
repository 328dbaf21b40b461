// MPI transport: Isend/Recv of replay records on mirrored communicators, Allgather for collectives.
#include "waitscope/analysis/mpi_transport.h"

#include <algorithm>

namespace waitscope::analysis {
namespace {

// The replay record travels as two doubles.
constexpr int kRecordDoubles = 2;

Error mpiError(uint32_t rank, const std::string& what, int code) {
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(code, text, &length);
    return Error("rank " + std::to_string(rank) + ": " + what + ": " + std::string(text, length));
}

} // namespace

Result<std::unique_ptr<MpiTransport>> MpiTransport::create(const trace::Definitions& definitions) {
    std::unique_ptr<MpiTransport> t(new MpiTransport());
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    t->m_rank = static_cast<uint32_t>(rank);
    t->m_size = static_cast<uint32_t>(size);
    MPI_Comm_dup(MPI_COMM_WORLD, &t->m_world);
    MPI_Comm_set_errhandler(t->m_world, MPI_ERRORS_RETURN);
    int* tagUpper = nullptr;
    int found = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tagUpper, &found);
    if (found != 0 && tagUpper != nullptr) {
        t->m_tagLimit = *tagUpper;
    }
    for (const trace::Communicator& comm : definitions.communicators) {
        MPI_Comm mirror = MPI_COMM_NULL;
        if (comm.isSelf) {
            MPI_Comm_dup(MPI_COMM_SELF, &mirror);
        } else if (!comm.worldRanks.empty()) {
            const auto it = std::find(comm.worldRanks.begin(), comm.worldRanks.end(), t->m_rank);
            const int color = it == comm.worldRanks.end() ? MPI_UNDEFINED : 0;
            const int key = static_cast<int>(it - comm.worldRanks.begin());
            MPI_Comm_split(t->m_world, color, key, &mirror);
        }
        if (mirror != MPI_COMM_NULL) {
            MPI_Comm_set_errhandler(mirror, MPI_ERRORS_RETURN);
        }
        t->m_mirrors.push_back(mirror);
    }
    return t;
}

MpiTransport::~MpiTransport() {
    while (!m_pending.empty()) {
        MPI_Wait(&m_pending.front().request, MPI_STATUS_IGNORE);
        m_pending.pop_front();
    }
    for (MPI_Comm& comm : m_mirrors) {
        if (comm != MPI_COMM_NULL) {
            MPI_Comm_free(&comm);
        }
    }
    if (m_world != MPI_COMM_NULL) {
        MPI_Comm_free(&m_world);
    }
}

Result<MPI_Comm> MpiTransport::mirror(uint32_t comm) const {
    if (comm == kWorldComm) {
        return m_world;
    }
    if (comm >= m_mirrors.size() || m_mirrors[comm] == MPI_COMM_NULL) {
        return Error("rank " + std::to_string(m_rank) + ": no mirror of communicator " +
                     std::to_string(comm));
    }
    return m_mirrors[comm];
}

void MpiTransport::completeSomeSends() {
    // Completed sends leave from the front; their buffers must live until then.
    while (!m_pending.empty()) {
        int done = 0;
        MPI_Test(&m_pending.front().request, &done, MPI_STATUS_IGNORE);
        if (done == 0) {
            break;
        }
        m_pending.pop_front();
    }
}

Status MpiTransport::send(uint32_t comm, uint32_t destination, uint32_t tag,
                          const ReplayRecord& record) {
    auto target = mirror(comm);
    if (!target) {
        return target.error();
    }
    if (tag > static_cast<uint32_t>(m_tagLimit)) {
        return Error("rank " + std::to_string(m_rank) + ": traced tag " + std::to_string(tag) +
                     " exceeds this mpi's tag limit " + std::to_string(m_tagLimit));
    }
    m_pending.push_back(PendingSend{MPI_REQUEST_NULL, record});
    PendingSend& pending = m_pending.back();
    const int code =
        MPI_Isend(&pending.record, kRecordDoubles, MPI_DOUBLE, static_cast<int>(destination),
                  static_cast<int>(tag), *target, &pending.request);
    if (code != MPI_SUCCESS) {
        return mpiError(m_rank, "replay send failed", code);
    }
    if (m_pending.size() > 4096) {
        completeSomeSends();
    }
    return Status::success();
}

Result<ReplayRecord> MpiTransport::receive(uint32_t comm, uint32_t source, uint32_t tag) {
    auto from = mirror(comm);
    if (!from) {
        return from.error();
    }
    ReplayRecord record;
    const int code = MPI_Recv(&record, kRecordDoubles, MPI_DOUBLE, static_cast<int>(source),
                              static_cast<int>(tag), *from, MPI_STATUS_IGNORE);
    if (code != MPI_SUCCESS) {
        return mpiError(m_rank, "replay receive failed", code);
    }
    return record;
}

Result<std::vector<double>> MpiTransport::allGather(uint32_t comm,
                                                    const std::vector<double>& values) {
    auto target = mirror(comm);
    if (!target) {
        return target.error();
    }
    int members = 0;
    MPI_Comm_size(*target, &members);
    std::vector<double> all(values.size() * static_cast<size_t>(members));
    const int count = static_cast<int>(values.size());
    const int code =
        MPI_Allgather(values.data(), count, MPI_DOUBLE, all.data(), count, MPI_DOUBLE, *target);
    if (code != MPI_SUCCESS) {
        return mpiError(m_rank, "replay allgather failed", code);
    }
    return all;
}

Result<std::vector<uint64_t>> MpiTransport::allToAll(const std::vector<uint64_t>& perRank) {
    if (perRank.size() % m_size != 0) {
        return Error("rank " + std::to_string(m_rank) +
                     ": all-to-all buffer not a multiple of the rank count");
    }
    const int block = static_cast<int>(perRank.size() / m_size);
    std::vector<uint64_t> result(perRank.size());
    const int code = MPI_Alltoall(perRank.data(), block, MPI_UINT64_T, result.data(), block,
                                  MPI_UINT64_T, m_world);
    if (code != MPI_SUCCESS) {
        return mpiError(m_rank, "replay all-to-all failed", code);
    }
    return result;
}

Status MpiTransport::endPass() {
    while (!m_pending.empty()) {
        MPI_Wait(&m_pending.front().request, MPI_STATUS_IGNORE);
        m_pending.pop_front();
    }
    const int code = MPI_Barrier(m_world);
    if (code != MPI_SUCCESS) {
        return mpiError(m_rank, "replay barrier failed", code);
    }
    return Status::success();
}

} // namespace waitscope::analysis
