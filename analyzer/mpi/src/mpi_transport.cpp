// MPI transport: bulk Alltoallv of replay records, Allgather per mirrored communicator.
#include "waitscope/analysis/mpi_transport.h"

#include <algorithm>
#include <limits>

namespace waitscope::analysis {
namespace {

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
    t->m_defs = &definitions;
    t->m_rank = static_cast<uint32_t>(rank);
    t->m_size = static_cast<uint32_t>(size);
    t->m_outbox.resize(t->m_size);
    t->m_members.resize(definitions.communicators.size());
    MPI_Comm_dup(MPI_COMM_WORLD, &t->m_world);
    MPI_Comm_set_errhandler(t->m_world, MPI_ERRORS_RETURN);
    MPI_Comm_dup(MPI_COMM_WORLD, &t->m_messages);
    MPI_Comm_set_errhandler(t->m_messages, MPI_ERRORS_RETURN);
    t->m_batches.resize(t->m_size);
    t->m_batchesSent.assign(t->m_size, 0);
    t->m_batchesReceived.assign(t->m_size, 0);
    for (const trace::Communicator& comm : definitions.communicators) {
        MPI_Comm mirror = MPI_COMM_NULL;
        if (!comm.isSelf && !comm.worldRanks.empty()) {
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
    for (MPI_Comm& comm : m_mirrors) {
        if (comm != MPI_COMM_NULL) {
            MPI_Comm_free(&comm);
        }
    }
    if (m_world != MPI_COMM_NULL) {
        MPI_Comm_free(&m_world);
    }
    for (SentBatch& batch : m_sent) {
        MPI_Cancel(&batch.request);
        MPI_Request_free(&batch.request);
    }
    if (m_messages != MPI_COMM_NULL) {
        MPI_Comm_free(&m_messages);
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

Result<const std::vector<uint32_t>*> MpiTransport::membersOf(uint32_t comm) {
    // Looked up per message: the lists are built once per communicator, not copied per call.
    if (comm == kWorldComm) {
        if (m_worldMembers.empty()) {
            for (uint32_t r = 0; r < m_size; ++r) {
                m_worldMembers.push_back(r);
            }
        }
        return &m_worldMembers;
    }
    if (comm < m_members.size() && !m_members[comm]) {
        auto members = communicatorMembers(*m_defs, comm, m_rank, m_size);
        if (!members) {
            return members.error();
        }
        m_members[comm] = std::move(*members);
    }
    if (comm >= m_members.size()) {
        return Error("rank " + std::to_string(m_rank) + ": unknown communicator " +
                     std::to_string(comm));
    }
    return &*m_members[comm];
}

Result<uint32_t> MpiTransport::worldRankOf(uint32_t comm, uint32_t commRank) {
    // Fast path, looked up per record and payload: a known traced communicator.
    if (comm < m_members.size() && m_members[comm] && commRank < m_members[comm]->size() &&
        (*m_members[comm])[commRank] < m_size) {
        return (*m_members[comm])[commRank];
    }
    auto members = membersOf(comm);
    if (!members) {
        return members.error();
    }
    if (commRank >= (*members)->size() || (**members)[commRank] >= m_size) {
        return Error("rank " + std::to_string(m_rank) + ": communicator " + std::to_string(comm) +
                     " has no rank " + std::to_string(commRank));
    }
    return (**members)[commRank];
}

Status MpiTransport::send(uint32_t comm, uint32_t destination, uint32_t tag,
                          const ReplayRecord& record) {
    auto world = worldRankOf(comm, destination);
    if (!world) {
        return world.error();
    }
    m_outbox[*world].push_back(WireRecord{comm, tag, record.enter, record.exit});
    return Status::success();
}

Status MpiTransport::contribute(uint32_t comm, const std::vector<double>& values) {
    if (!mirror(comm)) {
        return mirror(comm).error();
    }
    auto& queue = m_contributions[comm];
    queue.insert(queue.end(), values.begin(), values.end());
    m_contributionWidth[comm] = values.size();
    return Status::success();
}

Status MpiTransport::exchange() {
    if (Status s = exchangeRecords(); !s) {
        return s;
    }
    return exchangeCollectives();
}

Status MpiTransport::exchangeRecords() {
    // The records of the previous exchange have all been consumed by now.
    std::vector<WireRecord>().swap(m_incoming);
    m_cursors.clear();
    m_lastCursor = nullptr;
    const int n = static_cast<int>(m_size);
    std::vector<int> sendCounts(n), receiveCounts(n), sendOffsets(n), receiveOffsets(n);
    size_t total = 0;
    for (int r = 0; r < n; ++r) {
        const size_t bytes = m_outbox[r].size() * sizeof(WireRecord);
        if (bytes > static_cast<size_t>(std::numeric_limits<int>::max()) ||
            total + bytes > static_cast<size_t>(std::numeric_limits<int>::max())) {
            return Error("rank " + std::to_string(m_rank) +
                         ": more than 2 GiB of replay records in one exchange");
        }
        sendCounts[r] = static_cast<int>(bytes);
        sendOffsets[r] = static_cast<int>(total);
        total += bytes;
    }
    std::vector<WireRecord> outgoing;
    outgoing.reserve(total / sizeof(WireRecord));
    for (auto& box : m_outbox) {
        outgoing.insert(outgoing.end(), box.begin(), box.end());
        std::vector<WireRecord>().swap(box);
    }
    int code =
        MPI_Alltoall(sendCounts.data(), 1, MPI_INT, receiveCounts.data(), 1, MPI_INT, m_world);
    if (code != MPI_SUCCESS) {
        return mpiError(m_rank, "replay exchange failed", code);
    }
    size_t incomingBytes = 0;
    for (int r = 0; r < n; ++r) {
        receiveOffsets[r] = static_cast<int>(incomingBytes);
        incomingBytes += static_cast<size_t>(receiveCounts[r]);
    }
    if (incomingBytes > static_cast<size_t>(std::numeric_limits<int>::max())) {
        return Error("rank " + std::to_string(m_rank) +
                     ": more than 2 GiB of replay records in one exchange");
    }
    std::vector<WireRecord> incoming(incomingBytes / sizeof(WireRecord));
    code = MPI_Alltoallv(outgoing.data(), sendCounts.data(), sendOffsets.data(), MPI_BYTE,
                         incoming.data(), receiveCounts.data(), receiveOffsets.data(), MPI_BYTE,
                         m_world);
    if (code != MPI_SUCCESS) {
        return mpiError(m_rank, "replay exchange failed", code);
    }
    std::vector<WireRecord>().swap(outgoing);
    // Records stay in the receive buffer: within each source's block they are ordered by
    // (communicator, tag) keeping posting order, and every (communicator, source, tag) gets a
    // cursor into its run. No per-record copies.
    m_cursors.clear();
    for (int source = 0; source < n; ++source) {
        const size_t first = static_cast<size_t>(receiveOffsets[source]) / sizeof(WireRecord);
        const size_t count = static_cast<size_t>(receiveCounts[source]) / sizeof(WireRecord);
        const auto begin = incoming.begin() + static_cast<std::ptrdiff_t>(first);
        const auto end = begin + static_cast<std::ptrdiff_t>(count);
        std::stable_sort(begin, end, [](const WireRecord& a, const WireRecord& b) {
            return a.comm != b.comm ? a.comm < b.comm : a.tag < b.tag;
        });
        for (size_t k = first; k < first + count;) {
            size_t stop = k;
            while (stop < first + count && incoming[stop].comm == incoming[k].comm &&
                   incoming[stop].tag == incoming[k].tag) {
                ++stop;
            }
            m_cursors[{incoming[k].comm, static_cast<uint32_t>(source), incoming[k].tag}] = {k,
                                                                                             stop};
            k = stop;
        }
    }
    m_incoming = std::move(incoming);
    return Status::success();
}

Status MpiTransport::exchangeCollectives() {
    // Every member of a communicator queued the same number of contributions (checked before
    // the replay), so members agree on which communicators to gather, in id order.
    for (uint32_t comm = 0; comm < m_mirrors.size(); ++comm) {
        const auto queued = m_contributions.find(comm);
        if (m_mirrors[comm] == MPI_COMM_NULL || queued == m_contributions.end()) {
            continue;
        }
        const std::vector<double>& mine = queued->second;
        const size_t width = m_contributionWidth[comm];
        int members = 0;
        MPI_Comm_size(m_mirrors[comm], &members);
        std::vector<double> all(mine.size() * static_cast<size_t>(members));
        const int count = static_cast<int>(mine.size());
        const int code = MPI_Allgather(mine.data(), count, MPI_DOUBLE, all.data(), count,
                                       MPI_DOUBLE, m_mirrors[comm]);
        if (code != MPI_SUCCESS) {
            return mpiError(m_rank, "replay collective exchange failed", code);
        }
        const size_t collectives = width == 0 ? 0 : mine.size() / width;
        for (size_t k = 0; k < collectives; ++k) {
            std::vector<double> values;
            values.reserve(width * static_cast<size_t>(members));
            for (int m = 0; m < members; ++m) {
                const double* part = all.data() + static_cast<size_t>(m) * mine.size() + k * width;
                values.insert(values.end(), part, part + width);
            }
            m_deliveries.deliverCollective(comm, std::move(values));
        }
    }
    m_contributions.clear();
    return Status::success();
}

Result<ReplayRecord> MpiTransport::receive(uint32_t comm, uint32_t source, uint32_t tag) {
    auto world = worldRankOf(comm, source);
    if (!world) {
        return world.error();
    }
    const uint32_t from = *world;
    // Receives often come in runs from one partner and tag: remember the last cursor.
    const std::tuple<uint32_t, uint32_t, uint32_t> key{comm, from, tag};
    if (m_lastCursor == nullptr || m_lastKey != key) {
        const auto found = m_cursors.find(key);
        m_lastCursor = found == m_cursors.end() ? nullptr : &found->second;
        m_lastKey = key;
    }
    if (m_lastCursor == nullptr || m_lastCursor->first == m_lastCursor->second) {
        return Error("rank " + std::to_string(m_rank) + ": no message from rank " +
                     std::to_string(from) + " with tag " + std::to_string(tag) +
                     " on communicator " + std::to_string(comm));
    }
    const WireRecord& w = m_incoming[m_lastCursor->first++];
    return ReplayRecord{w.enter, w.exit};
}

Result<std::vector<double>> MpiTransport::collected(uint32_t comm) {
    return m_deliveries.takeCollective(m_rank, comm);
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

// --- message-driven exchange ------------------------------------------------------------------

namespace {
constexpr int kBatchTag = 7;
// A batch is sent once it holds this many values (512 KiB), to bound memory and latency.
constexpr size_t kBatchValues = 64 * 1024;
} // namespace

Status MpiTransport::post(uint32_t comm, uint32_t destination, uint32_t tag,
                          const std::vector<double>& payload) {
    auto world = worldRankOf(comm, destination);
    if (!world) {
        return world.error();
    }
    const uint32_t to = *world;
    std::vector<double>& batch = m_batches[to];
    batch.push_back(comm);
    batch.push_back(tag);
    batch.push_back(static_cast<double>(payload.size()));
    batch.insert(batch.end(), payload.begin(), payload.end());
    return batch.size() >= kBatchValues ? sendBatch(to) : Status::success();
}

Status MpiTransport::sendBatch(uint32_t destination) {
    std::vector<double>& batch = m_batches[destination];
    if (batch.empty()) {
        return Status::success();
    }
    if (batch.size() > static_cast<size_t>(std::numeric_limits<int>::max())) {
        return Error("rank " + std::to_string(m_rank) + ": replay batch too large");
    }
    SentBatch& sent = m_sent.emplace_back();
    sent.buffer.swap(batch);
    const int code = MPI_Isend(sent.buffer.data(), static_cast<int>(sent.buffer.size()), MPI_DOUBLE,
                               static_cast<int>(destination), kBatchTag, m_messages, &sent.request);
    if (code != MPI_SUCCESS) {
        return mpiError(m_rank, "replay message failed", code);
    }
    ++m_batchesSent[destination];
    reapSent();
    return Status::success();
}

Status MpiTransport::sendAllBatches() {
    for (uint32_t to = 0; to < m_size; ++to) {
        if (Status s = sendBatch(to); !s) {
            return s;
        }
    }
    return Status::success();
}

void MpiTransport::reapSent() {
    while (!m_sent.empty()) {
        int done = 0;
        MPI_Test(&m_sent.front().request, &done, MPI_STATUS_IGNORE);
        if (!done) {
            return;
        }
        m_sent.pop_front();
    }
}

Status MpiTransport::receiveBatch() {
    MPI_Status status;
    int code = MPI_Probe(MPI_ANY_SOURCE, kBatchTag, m_messages, &status);
    if (code != MPI_SUCCESS) {
        return mpiError(m_rank, "replay message failed", code);
    }
    int count = 0;
    MPI_Get_count(&status, MPI_DOUBLE, &count);
    std::vector<double> batch(static_cast<size_t>(count));
    const int source = status.MPI_SOURCE;
    code =
        MPI_Recv(batch.data(), count, MPI_DOUBLE, source, kBatchTag, m_messages, MPI_STATUS_IGNORE);
    if (code != MPI_SUCCESS) {
        return mpiError(m_rank, "replay message failed", code);
    }
    ++m_batchesReceived[static_cast<size_t>(source)];
    for (size_t k = 0; k + 3 <= batch.size();) {
        const auto comm = static_cast<uint32_t>(batch[k]);
        const auto tag = static_cast<uint32_t>(batch[k + 1]);
        const auto length = static_cast<size_t>(batch[k + 2]);
        k += 3;
        if (k + length > batch.size()) {
            return Error("rank " + std::to_string(m_rank) + ": malformed replay batch from rank " +
                         std::to_string(source));
        }
        m_payloads.deliver(
            comm, static_cast<uint32_t>(source), tag,
            std::vector<double>(batch.begin() + static_cast<std::ptrdiff_t>(k),
                                batch.begin() + static_cast<std::ptrdiff_t>(k + length)));
        k += length;
    }
    return Status::success();
}

Result<std::vector<double>> MpiTransport::await(uint32_t comm, uint32_t source, uint32_t tag) {
    auto world = worldRankOf(comm, source);
    if (!world) {
        return world.error();
    }
    const uint32_t from = *world;
    if (!m_payloads.has(comm, from, tag)) {
        // About to block: whoever waits for this rank must get what it posted first.
        if (Status s = sendAllBatches(); !s) {
            return s.error();
        }
        while (!m_payloads.has(comm, from, tag)) {
            if (Status s = receiveBatch(); !s) {
                return s.error();
            }
        }
    }
    return m_payloads.take(comm, from, tag);
}

Result<std::vector<double>> MpiTransport::awaitAll(uint32_t comm,
                                                   const std::vector<double>& values) {
    // Blocking inside MPI_Allgather is safe once the own batches are out: MPI progresses
    // their delivery while this rank waits.
    if (Status s = sendAllBatches(); !s) {
        return s.error();
    }
    return allGather(comm, values);
}

Status MpiTransport::finishPass() {
    if (Status s = sendAllBatches(); !s) {
        return s;
    }
    // Batches nobody awaited are still received (and dropped), so every send completes.
    auto expected = allToAll(m_batchesSent);
    if (!expected) {
        return expected.error();
    }
    for (uint32_t source = 0; source < m_size; ++source) {
        while (m_batchesReceived[source] < (*expected)[source]) {
            if (Status s = receiveBatch(); !s) {
                return s;
            }
        }
    }
    for (SentBatch& batch : m_sent) {
        MPI_Wait(&batch.request, MPI_STATUS_IGNORE);
    }
    m_sent.clear();
    m_payloads = PayloadQueues();
    m_batchesSent.assign(m_size, 0);
    m_batchesReceived.assign(m_size, 0);
    // Nobody starts the next pass (and sends its batches) before all have drained this one.
    const int code = MPI_Barrier(m_messages);
    if (code != MPI_SUCCESS) {
        return mpiError(m_rank, "replay barrier failed", code);
    }
    return Status::success();
}

} // namespace waitscope::analysis
