// MPI transport: bulk point-to-point exchange of replay records, Allgather per mirrored
// communicator, and batched message-driven payloads.
#include "waitscope/analysis/mpi_transport.h"

#include "polite_wait.h"
#include "stall_watch.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <span>

namespace waitscope::analysis {
namespace {

Error mpiError(uint32_t rank, const std::string& what, int code) {
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(code, text, &length);
    return Error("rank " + std::to_string(rank) + ": " + what + ": " + std::string(text, length));
}

constexpr int kRecordTag = 5;
// Records per outbox chunk and per message of the bulk exchange (1 MiB).
constexpr size_t kChunkRecords = 64 * 1024;
constexpr uint32_t kEnd = 0xFFFFFFFFu;

} // namespace

void MpiTransport::Outbox::push(double enter, double exit, double info, size_t width) {
    if (count % kChunkRecords == 0) {
        chunks.emplace_back();
        chunks.back().reserve(kChunkRecords * width);
    }
    std::vector<double>& chunk = chunks.back();
    chunk.push_back(enter);
    chunk.push_back(exit);
    if (width > 2) {
        chunk.push_back(info);
    }
    ++count;
}

MpiTransport::MpiTransport() = default;

Status MpiTransport::complete(std::span<MPI_Request> requests, const WaitTarget& target,
                              const char* failure) {
    int done = 0;
    int code =
        MPI_Testall(static_cast<int>(requests.size()), requests.data(), &done, MPI_STATUSES_IGNORE);
    if (code == MPI_SUCCESS && done) {
        return Status::success(); // the common case: no wait to watch
    }
    m_watch->begin(target);
    for (Backoff backoff; code == MPI_SUCCESS && !done;) {
        if (Status watched = m_watch->poll(m_totalSent, m_totalReceived, m_calls); !watched) {
            m_watch->end();
            return watched;
        }
        backoff.pause();
        code = MPI_Testall(static_cast<int>(requests.size()), requests.data(), &done,
                           MPI_STATUSES_IGNORE);
    }
    m_watch->end();
    return code == MPI_SUCCESS ? Status::success() : mpiError(m_rank, failure, code);
}

WaitTarget MpiTransport::collectiveCall(uint32_t channel, const char* label) {
    WaitTarget target;
    target.kind = WaitTarget::Kind::Collective;
    target.channel = channel;
    target.sequence = m_calls[channel]++;
    target.label = label;
    return target;
}

void MpiTransport::abandon() {
    m_watch->abandon();
}

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
    // Duplicated without polling (a process that is still reading waits here).
    MPI_Request duplicated[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Comm_idup(MPI_COMM_WORLD, &t->m_world, &duplicated[0]);
    MPI_Comm_idup(MPI_COMM_WORLD, &t->m_messages, &duplicated[1]);
    waitPolitely(duplicated);
    MPI_Comm_set_errhandler(t->m_world, MPI_ERRORS_RETURN);
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
    // Channels of the watch: the mirrors, then the world and the message-driven traffic.
    std::vector<std::vector<uint32_t>> channels;
    for (size_t c = 0; c < t->m_mirrors.size(); ++c) {
        channels.push_back(t->m_mirrors[c] == MPI_COMM_NULL && definitions.communicators[c].isSelf
                               ? std::vector<uint32_t>{}
                               : definitions.communicators[c].worldRanks);
    }
    std::vector<uint32_t> all(t->m_size);
    for (uint32_t r = 0; r < t->m_size; ++r) {
        all[r] = r;
    }
    channels.push_back(all);
    channels.push_back(all);
    t->m_calls.assign(channels.size(), 0);
    t->m_watch = std::make_unique<StallWatch>(MPI_COMM_WORLD, std::move(channels));
    t->m_totalSent.assign(t->m_size, 0);
    t->m_totalReceived.assign(t->m_size, 0);
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
    Outbox& box = m_outbox[*world];
    if (!box.keyed || box.comm != comm || box.tag != tag) {
        const uint64_t key = static_cast<uint64_t>(comm) << 32 | tag;
        box.push(std::numeric_limits<double>::quiet_NaN(), std::bit_cast<double>(key), 0.0,
                 m_width);
        box.keyed = true;
        box.comm = comm;
        box.tag = tag;
    }
    box.push(record.enter, record.exit, record.info, m_width);
    return Status::success();
}

Status MpiTransport::contribute(uint32_t comm, std::span<const double> values) {
    // Collectives come in runs on one communicator: its queue is looked up once per run.
    if (m_contributing == nullptr || m_contributingComm != comm) {
        if (auto target = mirror(comm); !target) {
            return target.error();
        }
        m_contributing = &m_contributions[comm];
        m_contributingComm = comm;
        m_contributionWidth[comm] = values.size(); // the same for all of a pass's collectives
    }
    m_contributing->insert(m_contributing->end(), values.begin(), values.end());
    return Status::success();
}

Status MpiTransport::exchange() {
    if (Status s = exchangeRecords(); !s) {
        return s;
    }
    return exchangeCollectives();
}

Status MpiTransport::exchangeRecords() {
    releaseIncoming(); // all consumed by now
    const int n = static_cast<int>(m_size);
    std::vector<uint64_t> sendCounts(n), receiveCounts(n);
    for (int r = 0; r < n; ++r) {
        sendCounts[r] = m_outbox[r].count;
    }
    MPI_Request counted = MPI_REQUEST_NULL;
    int code = MPI_Ialltoall(sendCounts.data(), 1, MPI_UINT64_T, receiveCounts.data(), 1,
                             MPI_UINT64_T, m_world, &counted);
    if (code != MPI_SUCCESS) {
        return mpiError(m_rank, "replay exchange failed", code);
    }
    if (Status s = complete(std::span<MPI_Request>(&counted, 1),
                            collectiveCall(worldChannel(), "the replay exchange's counts"),
                            "replay exchange failed");
        !s) {
        return s;
    }
    std::vector<uint64_t> receiveOffsets(n + 1, 0);
    for (int r = 0; r < n; ++r) {
        receiveOffsets[r + 1] = receiveOffsets[r] + receiveCounts[r];
    }
    const uint64_t total = receiveOffsets[n];
    if (total >= kEnd) {
        return Error("rank " + std::to_string(m_rank) + ": more than " + std::to_string(kEnd) +
                     " replay records in one exchange");
    }
    // Chunks go out as they were queued and land in place: no copy on either side, so the
    // exchange holds this rank's outgoing and incoming records once each.
    const size_t w = m_width;
    std::vector<double> incoming(total * w);
    std::vector<MPI_Request> requests;
    for (int source = 0; source < n; ++source) {
        if (source == static_cast<int>(m_rank)) {
            continue;
        }
        for (uint64_t done = 0; done < receiveCounts[source]; done += kChunkRecords) {
            const uint64_t count = std::min<uint64_t>(kChunkRecords, receiveCounts[source] - done);
            requests.emplace_back();
            code = MPI_Irecv(incoming.data() + (receiveOffsets[source] + done) * w,
                             static_cast<int>(count * w), MPI_DOUBLE, source, kRecordTag, m_world,
                             &requests.back());
            if (code != MPI_SUCCESS) {
                return mpiError(m_rank, "replay exchange failed", code);
            }
        }
    }
    for (int destination = 0; destination < n; ++destination) {
        uint64_t done = 0;
        for (const std::vector<double>& chunk : m_outbox[destination].chunks) {
            if (destination == static_cast<int>(m_rank)) {
                std::copy(chunk.begin(), chunk.end(),
                          incoming.begin() + static_cast<std::ptrdiff_t>(
                                                 (receiveOffsets[destination] + done) * w));
            } else {
                requests.emplace_back();
                code = MPI_Isend(chunk.data(), static_cast<int>(chunk.size()), MPI_DOUBLE,
                                 destination, kRecordTag, m_world, &requests.back());
                if (code != MPI_SUCCESS) {
                    return mpiError(m_rank, "replay exchange failed", code);
                }
            }
            done += chunk.size() / w;
        }
    }
    // Every rank posts its part of this step once it knows the counts: a collective step.
    if (Status s =
            complete(requests, collectiveCall(worldChannel(), "the replay exchange's records"),
                     "replay exchange failed");
        !s) {
        return s;
    }
    for (Outbox& box : m_outbox) {
        box = Outbox();
    }
    // Chain every source's records per (communicator, tag), in arrival (= posting) order.
    std::vector<uint32_t> next(total, kEnd);
    for (int source = 0; source < n; ++source) {
        Cursor* cursor = nullptr;
        for (uint64_t k = receiveOffsets[source]; k < receiveOffsets[source + 1]; ++k) {
            const double* record = &incoming[k * w];
            if (std::isnan(record[0])) {
                const auto key = std::bit_cast<uint64_t>(record[1]);
                const auto inserted = m_cursors.try_emplace({static_cast<uint32_t>(key >> 32),
                                                             static_cast<uint32_t>(source),
                                                             static_cast<uint32_t>(key)},
                                                            Cursor{kEnd, kEnd});
                cursor = &inserted.first->second;
                continue;
            }
            if (cursor == nullptr) {
                return Error("rank " + std::to_string(m_rank) + ": replay records from rank " +
                             std::to_string(source) + " without communicator and tag");
            }
            const auto index = static_cast<uint32_t>(k);
            if (cursor->tail == kEnd) {
                cursor->head = index;
            } else {
                next[cursor->tail] = index;
            }
            cursor->tail = index;
            ++m_unconsumed;
        }
    }
    m_incoming = std::move(incoming);
    m_next = std::move(next);
    if (m_unconsumed == 0) {
        releaseIncoming();
    }
    return Status::success();
}

void MpiTransport::releaseIncoming() {
    std::vector<double>().swap(m_incoming);
    std::vector<uint32_t>().swap(m_next);
    m_cursors.clear();
    m_lastCursor = nullptr;
    m_unconsumed = 0;
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
        MPI_Request gathered = MPI_REQUEST_NULL;
        const int code = MPI_Iallgather(mine.data(), count, MPI_DOUBLE, all.data(), count,
                                        MPI_DOUBLE, m_mirrors[comm], &gathered);
        if (code != MPI_SUCCESS) {
            return mpiError(m_rank, "replay collective exchange failed", code);
        }
        if (Status s = complete(std::span<MPI_Request>(&gathered, 1),
                                collectiveCall(comm, "the replay's collective exchange"),
                                "replay collective exchange failed");
            !s) {
            return s;
        }
        // Kept as gathered; gathered() cuts out one collective at a time.
        m_gathered[comm] =
            Gathered{std::move(all), width, static_cast<size_t>(members), mine.size(), 0};
    }
    m_contributions.clear();
    m_contributing = nullptr;
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
    if (m_lastCursor == nullptr || m_lastCursor->head == kEnd) {
        return Error("rank " + std::to_string(m_rank) + ": no message from rank " +
                     std::to_string(from) + " with tag " + std::to_string(tag) +
                     " on communicator " + std::to_string(comm));
    }
    const uint32_t index = m_lastCursor->head;
    m_lastCursor->head = m_next[index];
    const double* values = &m_incoming[size_t{index} * m_width];
    const ReplayRecord record{values[0], values[1], m_width > 2 ? values[2] : 0.0};
    if (--m_unconsumed == 0) {
        releaseIncoming(); // the last record of the exchange: its memory goes back now
    }
    return record;
}

void MpiTransport::takeRecords(const RecordSink& sink) {
    for (const auto& [key, cursor] : m_cursors) {
        const auto [comm, source, tag] = key;
        for (uint32_t index = cursor.head; index != kEnd; index = m_next[index]) {
            const double* values = &m_incoming[size_t{index} * m_width];
            sink(comm, source, tag,
                 ReplayRecord{values[0], values[1], m_width > 2 ? values[2] : 0.0});
        }
    }
    releaseIncoming();
}

Result<std::shared_ptr<const GatheredCollective>> MpiTransport::gathered(uint32_t comm) {
    const auto found = m_gathered.find(comm);
    if (found == m_gathered.end() ||
        found->second.next * found->second.width >= found->second.perMember) {
        return Error("rank " + std::to_string(m_rank) +
                     ": no collective delivered on communicator " + std::to_string(comm));
    }
    Gathered& g = found->second;
    std::vector<double> values(g.width * g.members);
    for (size_t m = 0; m < g.members; ++m) {
        const double* part = g.values.data() + m * g.perMember + g.next * g.width;
        std::copy(part, part + g.width, values.begin() + static_cast<std::ptrdiff_t>(m * g.width));
    }
    auto collective = std::make_shared<const GatheredCollective>(std::move(values), g.width);
    if (++g.next * g.width >= g.perMember) {
        m_gathered.erase(found); // the last one: the memory goes back now
    }
    return collective;
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
    MPI_Request gathered = MPI_REQUEST_NULL;
    const int code = MPI_Iallgather(values.data(), count, MPI_DOUBLE, all.data(), count, MPI_DOUBLE,
                                    *target, &gathered);
    if (code != MPI_SUCCESS) {
        return mpiError(m_rank, "replay allgather failed", code);
    }
    if (Status s = complete(std::span<MPI_Request>(&gathered, 1),
                            collectiveCall(channelOf(comm), "an allgather of the replay"),
                            "replay allgather failed");
        !s) {
        return s.error();
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
    MPI_Request exchanged = MPI_REQUEST_NULL;
    const int code = MPI_Ialltoall(perRank.data(), block, MPI_UINT64_T, result.data(), block,
                                   MPI_UINT64_T, m_world, &exchanged);
    if (code != MPI_SUCCESS) {
        return mpiError(m_rank, "replay all-to-all failed", code);
    }
    if (Status s = complete(std::span<MPI_Request>(&exchanged, 1),
                            collectiveCall(worldChannel(), "an all-to-all of the replay"),
                            "replay all-to-all failed");
        !s) {
        return s.error();
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
    ++m_totalSent[destination];
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

Status MpiTransport::receiveBatch(const WaitTarget& target) {
    MPI_Status status;
    // A probe that waits as Backoff does, watched.
    int found = 0;
    int code = MPI_Iprobe(MPI_ANY_SOURCE, kBatchTag, m_messages, &found, &status);
    if (code == MPI_SUCCESS && !found) {
        m_watch->begin(target);
        for (Backoff backoff; code == MPI_SUCCESS && !found;) {
            if (Status watched = m_watch->poll(m_totalSent, m_totalReceived, m_calls); !watched) {
                m_watch->end();
                return watched;
            }
            backoff.pause();
            code = MPI_Iprobe(MPI_ANY_SOURCE, kBatchTag, m_messages, &found, &status);
        }
        m_watch->end();
    }
    if (code != MPI_SUCCESS) {
        return mpiError(m_rank, "replay message failed", code);
    }
    int count = 0;
    MPI_Get_count(&status, MPI_DOUBLE, &count);
    std::vector<double>& batch = m_arriving; // its memory serves every batch
    batch.resize(static_cast<size_t>(count));
    const int source = status.MPI_SOURCE;
    code =
        MPI_Recv(batch.data(), count, MPI_DOUBLE, source, kBatchTag, m_messages, MPI_STATUS_IGNORE);
    if (code != MPI_SUCCESS) {
        return mpiError(m_rank, "replay message failed", code);
    }
    ++m_batchesReceived[static_cast<size_t>(source)];
    ++m_totalReceived[static_cast<size_t>(source)];
    for (size_t k = 0; k + 3 <= batch.size();) {
        const auto comm = static_cast<uint32_t>(batch[k]);
        const auto tag = static_cast<uint32_t>(batch[k + 1]);
        const auto length = static_cast<size_t>(batch[k + 2]);
        k += 3;
        if (k + length > batch.size()) {
            return Error("rank " + std::to_string(m_rank) + ": malformed replay batch from rank " +
                         std::to_string(source));
        }
        m_payloads.deliver(comm, static_cast<uint32_t>(source), tag,
                           std::span<const double>(batch.data() + k, length));
        k += length;
    }
    return Status::success();
}

Status MpiTransport::await(uint32_t comm, uint32_t source, uint32_t tag,
                           std::vector<double>& payload) {
    auto world = worldRankOf(comm, source);
    if (!world) {
        return world.error();
    }
    const uint32_t from = *world;
    if (!m_payloads.has(comm, from, tag)) {
        // About to block: whoever waits for this rank must get what it posted first.
        if (Status s = sendAllBatches(); !s) {
            return s;
        }
        WaitTarget target;
        target.kind = WaitTarget::Kind::Payload;
        target.source = from;
        target.comm = comm;
        target.tag = tag;
        target.label = "a message";
        while (!m_payloads.has(comm, from, tag)) {
            if (Status s = receiveBatch(target); !s) {
                return s;
            }
        }
    }
    m_payloads.take(comm, from, tag, payload);
    return Status::success();
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
        WaitTarget target;
        target.kind = WaitTarget::Kind::Payload;
        target.source = source;
        target.label = "the last batches of a message-driven pass";
        while (m_batchesReceived[source] < (*expected)[source]) {
            if (Status s = receiveBatch(target); !s) {
                return s;
            }
        }
    }
    std::vector<MPI_Request> sends;
    for (SentBatch& batch : m_sent) {
        sends.push_back(batch.request);
    }
    if (Status s =
            complete(sends, collectiveCall(messagesChannel(), "the sends of a message-driven pass"),
                     "replay message failed");
        !s) {
        return s;
    }
    m_sent.clear();
    m_payloads = PayloadQueues();
    m_batchesSent.assign(m_size, 0);
    m_batchesReceived.assign(m_size, 0);
    // Nobody starts the next pass (and sends its batches) before all have drained this one.
    MPI_Request barrier = MPI_REQUEST_NULL;
    const int code = MPI_Ibarrier(m_messages, &barrier);
    if (code != MPI_SUCCESS) {
        return mpiError(m_rank, "replay barrier failed", code);
    }
    return complete(std::span<MPI_Request>(&barrier, 1),
                    collectiveCall(messagesChannel(), "the end of a message-driven pass"),
                    "replay barrier failed");
}

} // namespace waitscope::analysis
