// M:N transport: every exchange as keyed point-to-point messages between traced ranks, in memory
// within a process and batched per destination process over MPI.
#include "waitscope/analysis/co_located_transport.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <thread>

namespace waitscope::analysis {
namespace {

constexpr int kStreamTag = 11;
constexpr size_t kHeader = 6; // kind, comm, source, destination, tag, length

Error mpiError(uint32_t process, const std::string& what, int code) {
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(code, text, &length);
    return Error("analysis process " + std::to_string(process) + ": " + what + ": " +
                 std::string(text, static_cast<size_t>(length)));
}

std::string rankName(uint32_t rank) {
    return "rank " + std::to_string(rank);
}

} // namespace

uint32_t firstRankOf(uint32_t process, uint32_t processes, uint32_t ranks) {
    return static_cast<uint32_t>(uint64_t{process} * ranks / processes);
}

class CoLocatedWorld::Endpoint final : public DeliveringTransport {
public:
    Endpoint(CoLocatedWorld& world, uint32_t rank)
        : m_world(world), m_rank(rank), m_records(world.m_ranks) {}

    uint32_t rank() const override { return m_rank; }
    uint32_t size() const override { return m_world.m_ranks; }

    Status contribute(uint32_t comm, std::span<const double> values) override {
        auto list = communicatorMembers(*m_world.m_defs, comm, m_rank, m_world.m_ranks);
        if (!list) {
            return list.error();
        }
        std::vector<double>& queued = m_contributions[comm];
        queued.push_back(static_cast<double>(values.size()));
        queued.insert(queued.end(), values.begin(), values.end());
        ++m_contributionCounts[comm];
        return Status::success();
    }

    Status exchange() override {
        const uint64_t step = m_exchanges++;
        // Every rank tells every rank what it has for it (maybe nothing), so that a receiver
        // knows when the step's records are all in.
        for (uint32_t to = 0; to < m_world.m_ranks; ++to) {
            m_world.deliver(Records, kWorldComm, m_rank, to, step, m_records[to]);
            std::vector<double>().swap(m_records[to]);
        }
        std::map<uint32_t, std::vector<uint32_t>> members;
        for (const auto& [comm, queued] : m_contributions) {
            auto list = communicatorMembers(*m_world.m_defs, comm, m_rank, m_world.m_ranks);
            if (!list) {
                return list.error();
            }
            for (uint32_t member : *list) {
                m_world.deliver(Contribution, comm, m_rank, member, step, queued);
            }
            members[comm] = std::move(*list);
        }
        std::vector<double> arrived;
        for (uint32_t from = 0; from < m_world.m_ranks; ++from) {
            if (Status s = m_world.take(m_rank, Records, kWorldComm, from, step, arrived); !s) {
                return s;
            }
            for (size_t k = 0; k + 5 <= arrived.size(); k += 5) {
                m_deliveries.deliver(static_cast<uint32_t>(arrived[k]), from,
                                     static_cast<uint32_t>(arrived[k + 1]),
                                     ReplayRecord{arrived[k + 2], arrived[k + 3], arrived[k + 4]});
            }
        }
        Status status;
        for (const auto& [comm, list] : members) {
            const size_t count = m_contributionCounts[comm];
            // Per member, where its next contribution starts in what it sent.
            std::vector<std::vector<double>> parts(list.size());
            std::vector<size_t> cursor(list.size(), 0);
            for (size_t m = 0; m < list.size(); ++m) {
                if (Status s = m_world.take(m_rank, Contribution, comm, list[m], step, parts[m]);
                    !s) {
                    return s;
                }
            }
            for (size_t k = 0; k < count && status.ok(); ++k) {
                std::vector<double> all;
                for (size_t m = 0; m < list.size(); ++m) {
                    const std::vector<double>& theirs = parts[m];
                    if (cursor[m] >= theirs.size()) {
                        status = Error(rankName(m_rank) + ": " + rankName(list[m]) +
                                       " contributed to fewer collectives on communicator " +
                                       std::to_string(comm));
                        break;
                    }
                    const auto width = static_cast<size_t>(theirs[cursor[m]]);
                    const auto begin = theirs.begin() + static_cast<std::ptrdiff_t>(cursor[m] + 1);
                    all.insert(all.end(), begin, begin + static_cast<std::ptrdiff_t>(width));
                    cursor[m] += 1 + width;
                }
                m_deliveries.deliverCollective(comm, std::move(all));
            }
        }
        m_contributions.clear();
        m_contributionCounts.clear();
        return status;
    }

    Result<std::vector<double>> allGather(uint32_t comm,
                                          const std::vector<double>& values) override {
        auto list = communicatorMembers(*m_world.m_defs, comm, m_rank, m_world.m_ranks);
        if (!list) {
            return list.error();
        }
        if (std::find(list->begin(), list->end(), m_rank) == list->end()) {
            return Error(rankName(m_rank) + ": not a member of communicator " +
                         std::to_string(comm));
        }
        const uint64_t sequence = m_gathers[comm]++;
        for (uint32_t member : *list) {
            m_world.deliver(Gather, comm, m_rank, member, sequence, values);
        }
        std::vector<double> all;
        std::vector<double> part;
        for (uint32_t member : *list) {
            if (Status s = m_world.take(m_rank, Gather, comm, member, sequence, part); !s) {
                return s.error();
            }
            all.insert(all.end(), part.begin(), part.end());
        }
        return all;
    }

    // Each rank gets its own block only (a world gather of every block would cost each rank
    // O(N^2) values): block d goes to rank d as the world gather's message of this sequence.
    // The values pass through double as they do in allToAllByAllGather().
    Result<std::vector<uint64_t>> allToAll(const std::vector<uint64_t>& perRank) override {
        const uint32_t n = m_world.m_ranks;
        if (perRank.size() % n != 0) {
            return Error(rankName(m_rank) + ": all-to-all buffer not a multiple of the rank count");
        }
        const size_t block = perRank.size() / n;
        const uint64_t sequence = m_gathers[kWorldComm]++;
        std::vector<double> part(block);
        for (uint32_t to = 0; to < n; ++to) {
            for (size_t k = 0; k < block; ++k) {
                part[k] = static_cast<double>(perRank[to * block + k]);
            }
            m_world.deliver(Gather, kWorldComm, m_rank, to, sequence, part);
        }
        std::vector<uint64_t> result(perRank.size());
        for (uint32_t from = 0; from < n; ++from) {
            if (Status s = m_world.take(m_rank, Gather, kWorldComm, from, sequence, part); !s) {
                return s.error();
            }
            if (part.size() != block) {
                return Error(rankName(m_rank) + ": all-to-all block of rank " +
                             std::to_string(from) + " has the wrong size");
            }
            for (size_t k = 0; k < block; ++k) {
                result[from * block + k] = static_cast<uint64_t>(part[k]);
            }
        }
        return result;
    }

private:
    void queueRecord(uint32_t comm, uint32_t to, uint32_t tag,
                     const ReplayRecord& record) override {
        std::vector<double>& box = m_records[to];
        box.push_back(comm);
        box.push_back(tag);
        box.push_back(record.enter);
        box.push_back(record.exit);
        box.push_back(record.info);
    }

    void postTo(uint32_t comm, uint32_t to, uint32_t tag,
                const std::vector<double>& payload) override {
        m_world.deliver(Payload, comm, m_rank, to, tag, payload);
    }

    Status awaitFrom(uint32_t comm, uint32_t from, uint32_t tag,
                     std::vector<double>& payload) override {
        return m_world.takePayload(m_rank, comm, from, tag, payload);
    }

    // A rank's payloads travel ahead of its part of the barrier on the same stream: once the
    // barrier is through, every payload of this pass has arrived and the rest can go.
    void dropPayloads() override {
        std::lock_guard<std::mutex> lock(m_world.m_mutex);
        m_world.m_inboxes[m_rank - m_world.m_first].payloads = PayloadQueues();
    }

    Result<uint32_t> worldRank(uint32_t comm, uint32_t commRank) const override {
        const uint32_t world = m_world.m_defs->worldRank(comm, commRank, m_rank);
        if (comm == kWorldComm && commRank < m_world.m_ranks) {
            return commRank;
        }
        if (world == trace::kUndefined || world >= m_world.m_ranks) {
            return Error(rankName(m_rank) + ": communicator " + std::to_string(comm) +
                         " has no rank " + std::to_string(commRank));
        }
        return world;
    }

    CoLocatedWorld& m_world;
    uint32_t m_rank;
    std::vector<std::vector<double>> m_records; // per destination: comm, tag, enter, exit, info
    std::map<uint32_t, std::vector<double>> m_contributions; // per comm: (width, values...)*
    std::map<uint32_t, size_t> m_contributionCounts;
    std::map<uint32_t, uint64_t> m_gathers; // per comm: gathers so far
    uint64_t m_exchanges = 0;
};

Result<std::unique_ptr<CoLocatedWorld>>
CoLocatedWorld::create(const trace::Definitions& definitions, uint32_t ranks) {
    std::unique_ptr<CoLocatedWorld> world(new CoLocatedWorld());
    int process = 0, processes = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &process);
    MPI_Comm_size(MPI_COMM_WORLD, &processes);
    world->m_defs = &definitions;
    world->m_ranks = ranks;
    world->m_process = static_cast<uint32_t>(process);
    world->m_processes = static_cast<uint32_t>(processes);
    world->m_first = firstRankOf(world->m_process, world->m_processes, ranks);
    world->m_end = firstRankOf(world->m_process + 1, world->m_processes, ranks);
    world->m_owner.resize(ranks);
    for (uint32_t p = 0; p < world->m_processes; ++p) {
        const uint32_t end = firstRankOf(p + 1, world->m_processes, ranks);
        for (uint32_t r = firstRankOf(p, world->m_processes, ranks); r < end; ++r) {
            world->m_owner[r] = p;
        }
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &world->m_comm);
    MPI_Comm_set_errhandler(world->m_comm, MPI_ERRORS_RETURN);
    world->m_inboxes.resize(world->m_end - world->m_first);
    world->m_outgoing.resize(world->m_processes);
    world->m_batchesSent.assign(world->m_processes, 0);
    world->m_batchesReceived.assign(world->m_processes, 0);
    for (uint32_t r = world->m_first; r < world->m_end; ++r) {
        world->m_endpoints.push_back(std::make_unique<Endpoint>(*world, r));
    }
    return world;
}

CoLocatedWorld::~CoLocatedWorld() {
    for (SentBatch& batch : m_sent) {
        MPI_Cancel(&batch.request);
        MPI_Request_free(&batch.request);
    }
    if (m_comm != MPI_COMM_NULL) {
        MPI_Comm_free(&m_comm);
    }
}

Transport& CoLocatedWorld::endpoint(uint32_t rank) {
    return *m_endpoints[rank - m_first];
}

void CoLocatedWorld::fail(uint32_t rank, const Error& error) {
    std::lock_guard<std::mutex> lock(m_mutex);
    if (m_aborted) {
        return; // stopped by an earlier failure, maybe this rank's own wait
    }
    m_aborted = true;
    m_cause = error;
    for (uint32_t p = 0; p < m_processes; ++p) {
        if (p != m_process) {
            std::vector<double>& out = m_outgoing[p];
            out.insert(out.end(),
                       {static_cast<double>(Abort), 0.0, static_cast<double>(rank),
                        static_cast<double>(firstRankOf(p, m_processes, m_ranks)), 0.0, 0.0});
        }
    }
    m_changed.notify_all();
}

std::optional<Error> CoLocatedWorld::cause() {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_cause;
}

void CoLocatedWorld::store(Kind kind, uint32_t comm, uint32_t source, uint32_t destination,
                           uint64_t tag, std::span<const double> values) {
    if (kind == Abort) {
        m_aborted = true;
        return;
    }
    Inbox& inbox = m_inboxes[destination - m_first];
    if (kind == Payload) {
        inbox.payloads.deliver(comm, source, static_cast<uint32_t>(tag), values);
    } else {
        inbox.messages[{kind, comm, source, tag}].emplace_back(values.begin(), values.end());
    }
}

void CoLocatedWorld::deliver(Kind kind, uint32_t comm, uint32_t source, uint32_t destination,
                             uint64_t tag, std::span<const double> values) {
    std::lock_guard<std::mutex> lock(m_mutex);
    const uint32_t process = m_owner[destination];
    if (process == m_process) {
        store(kind, comm, source, destination, tag, values);
        m_changed.notify_all();
        return;
    }
    std::vector<double>& out = m_outgoing[process];
    out.insert(out.end(), {static_cast<double>(kind), static_cast<double>(comm),
                           static_cast<double>(source), static_cast<double>(destination),
                           static_cast<double>(tag), static_cast<double>(values.size())});
    out.insert(out.end(), values.begin(), values.end());
}

Status CoLocatedWorld::take(uint32_t self, Kind kind, uint32_t comm, uint32_t source, uint64_t tag,
                            std::vector<double>& values) {
    std::unique_lock<std::mutex> lock(m_mutex);
    auto& messages = m_inboxes[self - m_first].messages;
    const Key key{kind, comm, source, tag};
    const auto ready = [&messages, &key] {
        const auto found = messages.find(key);
        return found != messages.end() && !found->second.empty();
    };
    if (Status s = waitUntil(lock, self, ready,
                             rankName(source) + " (communicator " + std::to_string(comm) + ")");
        !s) {
        return s;
    }
    const auto found = messages.find(key);
    values = std::move(found->second.front());
    found->second.pop_front();
    if (found->second.empty()) {
        messages.erase(found);
    }
    return Status::success();
}

Status CoLocatedWorld::takePayload(uint32_t self, uint32_t comm, uint32_t source, uint32_t tag,
                                   std::vector<double>& payload) {
    std::unique_lock<std::mutex> lock(m_mutex);
    PayloadQueues& inbox = m_inboxes[self - m_first].payloads;
    const auto ready = [&inbox, comm, source, tag] { return inbox.has(comm, source, tag); };
    if (!ready()) {
        if (Status s =
                waitUntil(lock, self, ready,
                          "a message from " + rankName(source) + " with tag " +
                              std::to_string(tag) + " on communicator " + std::to_string(comm));
            !s) {
            return s;
        }
    }
    inbox.take(comm, source, tag, payload);
    return Status::success();
}

Status CoLocatedWorld::waitUntil(std::unique_lock<std::mutex>& lock, uint32_t self,
                                 const std::function<bool()>& ready, const std::string& what) {
    // Waiting threads sleep on the condition (local deliveries wake them at once) and, in
    // between, hand over and receive MPI traffic; the naps grow as in Backoff (polite_wait.h).
    std::chrono::microseconds nap{5};
    while (!ready()) {
        if (m_aborted) {
            return Error(rankName(self) + ": replay stopped waiting for " + what +
                         ": another rank failed");
        }
        lock.unlock();
        Status progressed = progress();
        lock.lock();
        if (!progressed) {
            return progressed;
        }
        if (ready()) {
            break;
        }
        m_changed.wait_for(lock, nap);
        nap = std::min(2 * nap, std::chrono::microseconds(250));
    }
    return Status::success();
}

Status CoLocatedWorld::progress() {
    std::unique_lock<std::mutex> mpi(m_mpiMutex, std::try_to_lock);
    if (!mpi.owns_lock()) {
        return Status::success(); // another thread is at it
    }
    return progressLocked();
}

Status CoLocatedWorld::progressLocked() {
    std::vector<std::pair<uint32_t, std::vector<double>>> streams;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        for (uint32_t p = 0; p < m_processes; ++p) {
            if (!m_outgoing[p].empty()) {
                streams.emplace_back(p, std::move(m_outgoing[p]));
                m_outgoing[p] = std::vector<double>();
            }
        }
    }
    for (auto& [process, buffer] : streams) {
        if (buffer.size() > static_cast<size_t>(std::numeric_limits<int>::max())) {
            return Error("analysis process " + std::to_string(m_process) +
                         ": replay batch too large");
        }
        SentBatch& sent = m_sent.emplace_back();
        sent.buffer = std::move(buffer);
        const int code =
            MPI_Isend(sent.buffer.data(), static_cast<int>(sent.buffer.size()), MPI_DOUBLE,
                      static_cast<int>(process), kStreamTag, m_comm, &sent.request);
        if (code != MPI_SUCCESS) {
            return mpiError(m_process, "replay message failed", code);
        }
        ++m_batchesSent[process];
    }
    for (;;) {
        int found = 0;
        MPI_Status status;
        int code = MPI_Iprobe(MPI_ANY_SOURCE, kStreamTag, m_comm, &found, &status);
        if (code != MPI_SUCCESS) {
            return mpiError(m_process, "replay message failed", code);
        }
        if (!found) {
            break;
        }
        int count = 0;
        MPI_Get_count(&status, MPI_DOUBLE, &count);
        m_arriving.resize(static_cast<size_t>(count));
        const int source = status.MPI_SOURCE;
        code = MPI_Recv(m_arriving.data(), count, MPI_DOUBLE, source, kStreamTag, m_comm,
                        MPI_STATUS_IGNORE);
        if (code != MPI_SUCCESS) {
            return mpiError(m_process, "replay message failed", code);
        }
        ++m_batchesReceived[static_cast<size_t>(source)];
        std::lock_guard<std::mutex> lock(m_mutex);
        for (size_t k = 0; k + kHeader <= m_arriving.size();) {
            const double* h = m_arriving.data() + k;
            const auto length = static_cast<size_t>(h[5]);
            const auto destination = static_cast<uint32_t>(h[3]);
            if (k + kHeader + length > m_arriving.size() || destination < m_first ||
                destination >= m_end) {
                return Error("analysis process " + std::to_string(m_process) +
                             ": malformed replay batch from process " + std::to_string(source));
            }
            store(static_cast<Kind>(static_cast<uint32_t>(h[0])), static_cast<uint32_t>(h[1]),
                  static_cast<uint32_t>(h[2]), destination, static_cast<uint64_t>(h[4]),
                  std::span<const double>(h + kHeader, length));
            k += kHeader + length;
        }
        m_changed.notify_all();
    }
    while (!m_sent.empty()) {
        int done = 0;
        MPI_Test(&m_sent.front().request, &done, MPI_STATUS_IGNORE);
        if (!done) {
            break;
        }
        m_sent.pop_front();
    }
    return Status::success();
}

Status CoLocatedWorld::drain() {
    // Only this thread is left: it sends the rest, learns how many batches each process sent
    // here, and receives until they are all in and its own sends are complete.
    std::lock_guard<std::mutex> mpi(m_mpiMutex);
    if (Status s = progressLocked(); !s) {
        return s;
    }
    std::vector<uint64_t> expected(m_processes);
    MPI_Request counted = MPI_REQUEST_NULL;
    int code = MPI_Ialltoall(m_batchesSent.data(), 1, MPI_UINT64_T, expected.data(), 1,
                             MPI_UINT64_T, m_comm, &counted);
    for (std::chrono::microseconds nap{5};;
         nap = std::min(2 * nap, std::chrono::microseconds(250))) {
        if (code != MPI_SUCCESS) {
            return mpiError(m_process, "replay drain failed", code);
        }
        if (Status s = progressLocked(); !s) {
            return s;
        }
        int done = 0;
        if (counted != MPI_REQUEST_NULL) {
            code = MPI_Test(&counted, &done, MPI_STATUS_IGNORE);
            if (!done) {
                std::this_thread::sleep_for(nap);
                continue;
            }
        }
        bool all = m_sent.empty();
        for (uint32_t p = 0; p < m_processes; ++p) {
            all = all && m_batchesReceived[p] >= expected[p];
        }
        if (all) {
            return Status::success();
        }
        std::this_thread::sleep_for(nap);
    }
}

} // namespace waitscope::analysis
