// M:N transport: every exchange as keyed point-to-point messages between traced ranks, in memory
// within a process and batched per destination process over MPI.
#include "waitscope/analysis/co_located_transport.h"

#include "polite_wait.h"
#include "stall_watch.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <thread>

namespace waitscope::analysis {
namespace {

constexpr int kStreamTag = 11;
// The longest nap of the thread that polls MPI while it waits: a message from another process
// waits at most that long to be taken in.
constexpr std::chrono::microseconds kLongestNap{1000};
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
        // Records only where there are some; the step's end tells a receiver they are all in.
        for (uint32_t to = 0; to < m_world.m_ranks; ++to) {
            if (!m_records[to].empty()) {
                m_world.deliver(Records, kWorldComm, m_rank, to, step, m_records[to]);
                std::vector<double>().swap(m_records[to]);
            }
        }
        // Contributions once per process (see CoLocatedWorld), a self communicator's at once.
        std::vector<uint32_t> shared;
        for (const auto& [comm, queued] : m_contributions) {
            if (isSelfComm(comm)) {
                deliverOwn(comm, queued);
                continue;
            }
            if (Status s = m_world.share(Contribution, comm, m_rank, step, queued); !s) {
                return s;
            }
            shared.push_back(comm);
        }
        m_contributions.clear();
        m_contributionCounts.clear();
        Status status = m_world.takeRecords(
            m_rank, step, [this](uint32_t from, const std::vector<double>& arrived) {
                for (size_t k = 0; k + 5 <= arrived.size(); k += 5) {
                    m_deliveries.deliver(
                        static_cast<uint32_t>(arrived[k]), from,
                        static_cast<uint32_t>(arrived[k + 1]),
                        ReplayRecord{arrived[k + 2], arrived[k + 3], arrived[k + 4]});
                }
            });
        if (!status) {
            return status;
        }
        for (const uint32_t comm : shared) {
            status = m_world.takeShared(m_rank, Contribution, comm, step,
                                        [this, comm](const Shared& built) -> Status {
                                            if (built.error) {
                                                return *built.error;
                                            }
                                            for (const auto& c : built.collectives) {
                                                m_deliveries.deliverCollective(comm, c);
                                            }
                                            return Status::success();
                                        });
            if (!status) {
                return status;
            }
        }
        return Status::success();
    }

    Result<std::vector<double>> allGather(uint32_t comm,
                                          const std::vector<double>& values) override {
        auto all = sharedGather(comm, values);
        if (!all) {
            return all.error();
        }
        return **all;
    }

    // The process's one instance of the gathered values, shared by its members.
    Result<std::shared_ptr<const std::vector<double>>>
    sharedGather(uint32_t comm, const std::vector<double>& values) override {
        auto list = communicatorMembers(*m_world.m_defs, comm, m_rank, m_world.m_ranks);
        if (!list) {
            return list.error();
        }
        if (std::find(list->begin(), list->end(), m_rank) == list->end()) {
            return Error(rankName(m_rank) + ": not a member of communicator " +
                         std::to_string(comm));
        }
        if (isSelfComm(comm)) {
            return std::make_shared<const std::vector<double>>(values);
        }
        const uint64_t sequence = m_gathers[comm]++;
        if (Status s = m_world.share(Gather, comm, m_rank, sequence, values); !s) {
            return s.error();
        }
        std::shared_ptr<const std::vector<double>> all;
        if (Status s = m_world.takeShared(m_rank, Gather, comm, sequence,
                                          [&all](const Shared& built) -> Status {
                                              all = built.all;
                                              return Status::success();
                                          });
            !s) {
            return s.error();
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
            m_world.deliver(Block, kWorldComm, m_rank, to, sequence, part);
        }
        std::vector<uint64_t> result(perRank.size());
        for (uint32_t from = 0; from < n; ++from) {
            if (Status s = m_world.take(m_rank, Block, kWorldComm, from, sequence, part); !s) {
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

    bool isSelfComm(uint32_t comm) const {
        return comm != kWorldComm && comm < m_world.m_defs->communicators.size() &&
               m_world.m_defs->communicators[comm].isSelf;
    }

    // The collectives of a self communicator: this rank's contributions alone.
    void deliverOwn(uint32_t comm, const std::vector<double>& queued) {
        for (size_t k = 0; k < queued.size();) {
            const auto width = static_cast<size_t>(queued[k]);
            const auto begin = queued.begin() + static_cast<std::ptrdiff_t>(k + 1);
            m_deliveries.deliverCollective(
                comm,
                std::make_shared<const GatheredCollective>(
                    std::vector<double>(begin, begin + static_cast<std::ptrdiff_t>(width)), width));
            k += 1 + width;
        }
    }

    // A rank's payloads travel ahead of its part of the barrier on the same stream: once the
    // barrier is through, every payload of this pass has arrived and the rest can go.
    void dropPayloads() override {
        std::lock_guard<std::mutex> lock(m_world.m_mutex);
        m_world.m_inboxes[m_rank - m_world.m_first]->payloads = PayloadQueues();
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
    MPI_Request duplicated = MPI_REQUEST_NULL;
    waitPolitely(MPI_Comm_idup(MPI_COMM_WORLD, &world->m_comm, &duplicated), duplicated);
    MPI_Comm_set_errhandler(world->m_comm, MPI_ERRORS_RETURN);
    for (uint32_t r = world->m_first; r < world->m_end; ++r) {
        world->m_inboxes.push_back(std::make_unique<Inbox>());
    }
    world->m_waits.assign(world->m_end - world->m_first, nullptr);
    world->m_watch =
        std::make_unique<StallWatch>(MPI_COMM_WORLD, std::vector<std::vector<uint32_t>>());
    world->m_outgoing.resize(world->m_processes);
    world->m_batchesSent.assign(world->m_processes, 0);
    world->m_batchesReceived.assign(world->m_processes, 0);
    for (uint32_t r = world->m_first; r < world->m_end; ++r) {
        world->m_endpoints.push_back(std::make_unique<Endpoint>(*world, r));
    }
    return world;
}

CoLocatedWorld::~CoLocatedWorld() {
    m_watch.reset();
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
    wakeAll();
}

void CoLocatedWorld::finish(uint32_t /*rank*/) {
    std::lock_guard<std::mutex> lock(m_mutex);
    ++m_finished;
}

bool CoLocatedWorld::idle() const {
    size_t waiting = 0;
    for (const std::function<bool()>* ready : m_waits) {
        if (ready != nullptr) {
            if ((*ready)()) {
                return false; // woken, or about to be
            }
            ++waiting;
        }
    }
    return waiting + m_finished == m_waits.size();
}

void CoLocatedWorld::watchForStall() {
    // The watch only looks at waits that last (StallWatch::kReportAfter): looking 20 times a
    // second is enough, and spares the poller the look at every local rank's wait.
    const auto now = std::chrono::steady_clock::now();
    if (now - m_lastWatch < std::chrono::milliseconds(50)) {
        return;
    }
    m_lastWatch = now;
    bool quiet = false;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        quiet = idle() && !m_stalled;
    }
    if (quiet && !m_watching) {
        WaitTarget target;
        target.kind = WaitTarget::Kind::Payload;
        target.label = "replay batches";
        m_watch->begin(target);
        m_watching = true;
    } else if (!quiet && m_watching) {
        m_watch->end();
        m_watching = false;
    }
    if (!m_watching) {
        return;
    }
    // Nothing in flight between processes while all are idle: the batch counts say so.
    if (Status s = m_watch->poll(m_batchesSent, m_batchesReceived, {}); !s) {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_stalled = true;
        wakeAll();
    }
}

void CoLocatedWorld::readFailed(uint32_t rank, const Error& error) {
    std::lock_guard<std::mutex> lock(m_mutex);
    if (!m_readError || rank < m_readError->first) {
        m_readError.emplace(rank, error);
    }
}

std::optional<Error> CoLocatedWorld::cause() {
    std::lock_guard<std::mutex> lock(m_mutex);
    if (m_readError) {
        return m_readError->second;
    }
    return m_cause;
}

void CoLocatedWorld::wakeAll() {
    for (const auto& inbox : m_inboxes) {
        inbox->changed.notify_all();
    }
}

void CoLocatedWorld::store(Kind kind, uint32_t comm, uint32_t source, uint32_t destination,
                           uint64_t tag, std::span<const double> values) {
    switch (kind) {
    case Abort:
        m_aborted = true;
        wakeAll();
        return;
    case StepDone:
        ++m_steps[tag].processesDone;
        if (m_steps[tag].processesDone + 1 == m_processes) {
            wakeAll();
        }
        return;
    case Contribution:
    case Gather:
        storeShared(kind, comm, source, tag, values);
        return;
    default:
        break;
    }
    Inbox& inbox = *m_inboxes[destination - m_first];
    if (kind == Payload) {
        inbox.payloads.deliver(comm, source, static_cast<uint32_t>(tag), values);
    } else {
        inbox.messages[{kind, comm, source, tag}].emplace_back(values.begin(), values.end());
    }
    inbox.changed.notify_all();
}

void CoLocatedWorld::deliver(Kind kind, uint32_t comm, uint32_t source, uint32_t destination,
                             uint64_t tag, std::span<const double> values) {
    std::lock_guard<std::mutex> lock(m_mutex);
    const uint32_t process = m_owner[destination];
    if (process == m_process) {
        store(kind, comm, source, destination, tag, values);
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
    auto& messages = m_inboxes[self - m_first]->messages;
    const Key key{kind, comm, source, tag};
    const auto ready = [&messages, &key] {
        const auto found = messages.find(key);
        return found != messages.end() && !found->second.empty();
    };
    if (Status s = waitUntil(lock, self, ready,
                             [source, comm] {
                                 return rankName(source) + " (communicator " +
                                        std::to_string(comm) + ")";
                             });
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
    PayloadQueues& inbox = m_inboxes[self - m_first]->payloads;
    const auto ready = [&inbox, comm, source, tag] { return inbox.has(comm, source, tag); };
    if (!ready()) {
        if (Status s = waitUntil(lock, self, ready,
                                 [source, tag, comm] {
                                     return "a message from " + rankName(source) + " with tag " +
                                            std::to_string(tag) + " on communicator " +
                                            std::to_string(comm);
                                 });
            !s) {
            return s;
        }
    }
    inbox.take(comm, source, tag, payload);
    return Status::success();
}

Result<const CoLocatedWorld::Members*> CoLocatedWorld::membersOf(uint32_t comm) {
    if (const auto found = m_members.find(comm); found != m_members.end()) {
        return &found->second;
    }
    // `self` only matters for self communicators, which are not shared.
    auto ranks = communicatorMembers(*m_defs, comm, m_first, m_ranks);
    if (!ranks) {
        return ranks.error();
    }
    Members members;
    members.ranks = std::move(*ranks);
    members.position.assign(m_ranks, trace::kUndefined);
    members.firstOn.assign(m_processes, trace::kUndefined);
    for (size_t m = 0; m < members.ranks.size(); ++m) {
        const uint32_t rank = members.ranks[m];
        if (rank >= m_ranks) {
            return Error("communicator " + std::to_string(comm) + " names rank " +
                         std::to_string(rank) + " of " + std::to_string(m_ranks));
        }
        members.position[rank] = static_cast<uint32_t>(m);
        uint32_t& first = members.firstOn[m_owner[rank]];
        first = std::min(first, rank);
        members.local += m_owner[rank] == m_process ? 1 : 0;
    }
    return &m_members.emplace(comm, std::move(members)).first->second;
}

Status CoLocatedWorld::share(Kind kind, uint32_t comm, uint32_t source, uint64_t tag,
                             std::span<const double> values) {
    std::lock_guard<std::mutex> lock(m_mutex);
    auto members = membersOf(comm);
    if (!members) {
        return members.error();
    }
    for (uint32_t p = 0; p < m_processes; ++p) {
        const uint32_t first = (*members)->firstOn[p];
        if (p == m_process || first == trace::kUndefined) {
            continue;
        }
        std::vector<double>& out = m_outgoing[p];
        out.insert(out.end(), {static_cast<double>(kind), static_cast<double>(comm),
                               static_cast<double>(source), static_cast<double>(first),
                               static_cast<double>(tag), static_cast<double>(values.size())});
        out.insert(out.end(), values.begin(), values.end());
    }
    storeShared(kind, comm, source, tag, values);
    return Status::success();
}

void CoLocatedWorld::storeShared(Kind kind, uint32_t comm, uint32_t source, uint64_t tag,
                                 std::span<const double> values) {
    auto members = membersOf(comm);
    if (!members || source >= m_ranks || (*members)->position[source] == trace::kUndefined) {
        return; // a part nobody here can take: the takers stop with the missing member
    }
    Shared& shared = m_shared[{kind, comm, tag}];
    const size_t count = (*members)->ranks.size();
    if (shared.parts.empty()) {
        shared.parts.resize(count);
        shared.present.assign(count, 0);
    }
    const uint32_t position = (*members)->position[source];
    shared.parts[position].assign(values.begin(), values.end());
    shared.present[position] = 1;
    if (++shared.arrived == count) {
        wakeAll();
    }
}

void CoLocatedWorld::build(Kind kind, uint32_t comm, const Members& members, Shared& shared) {
    shared.built = true;
    if (kind == Gather) {
        size_t total = 0;
        for (const std::vector<double>& part : shared.parts) {
            total += part.size();
        }
        auto all = std::make_shared<std::vector<double>>();
        all->reserve(total);
        for (const std::vector<double>& part : shared.parts) {
            all->insert(all->end(), part.begin(), part.end());
        }
        shared.all = std::move(all);
        shared.parts = {};
        return;
    }
    // Per member, where its next contribution starts (each is its width, then its values).
    const size_t count = members.ranks.size();
    std::vector<size_t> cursor(count, 0);
    std::vector<double> all;
    while (cursor[0] < shared.parts[0].size()) {
        const auto width = static_cast<size_t>(shared.parts[0][cursor[0]]);
        all.clear();
        all.reserve(width * count);
        for (size_t m = 0; m < count; ++m) {
            const std::vector<double>& theirs = shared.parts[m];
            if (cursor[m] >= theirs.size() || static_cast<size_t>(theirs[cursor[m]]) != width ||
                cursor[m] + 1 + width > theirs.size()) {
                shared.error = Error(rankName(members.ranks[m]) +
                                     " contributed to fewer collectives on communicator " +
                                     std::to_string(comm) + " than " + rankName(members.ranks[0]));
                shared.collectives.clear();
                shared.parts = {};
                return;
            }
            const auto begin = theirs.begin() + static_cast<std::ptrdiff_t>(cursor[m] + 1);
            all.insert(all.end(), begin, begin + static_cast<std::ptrdiff_t>(width));
            cursor[m] += 1 + width;
        }
        shared.collectives.push_back(std::make_shared<const GatheredCollective>(all, width));
    }
    for (size_t m = 1; m < count; ++m) {
        if (cursor[m] < shared.parts[m].size()) {
            shared.error = Error(rankName(members.ranks[0]) +
                                 " contributed to fewer collectives on communicator " +
                                 std::to_string(comm) + " than " + rankName(members.ranks[m]));
            shared.collectives.clear();
            break;
        }
    }
    shared.parts = {};
}

Status CoLocatedWorld::takeShared(uint32_t self, Kind kind, uint32_t comm, uint64_t tag,
                                  const std::function<Status(const Shared&)>& use) {
    std::unique_lock<std::mutex> lock(m_mutex);
    auto members = membersOf(comm);
    if (!members) {
        return members.error();
    }
    const Members& list = **members;
    const SharedKey key{kind, comm, tag};
    const auto ready = [this, &key, &list] {
        const auto found = m_shared.find(key);
        return found != m_shared.end() && found->second.arrived == list.ranks.size();
    };
    const auto what = [this, &key, &list, kind, comm, tag] {
        // The first member whose part is missing.
        std::string missing = "all members";
        const auto found = m_shared.find(key);
        for (size_t m = 0; m < list.ranks.size(); ++m) {
            if (found == m_shared.end() || found->second.present.size() <= m ||
                found->second.present[m] == 0) {
                missing = rankName(list.ranks[m]);
                break;
            }
        }
        return (kind == Gather ? "gather " + std::to_string(tag)
                               : "the collectives of exchange step " + std::to_string(tag)) +
               " on communicator " + std::to_string(comm) + " from " + missing;
    };
    if (Status s = waitUntil(lock, self, ready, what); !s) {
        return s;
    }
    Shared& shared = m_shared.find(key)->second;
    if (!shared.built) {
        build(kind, comm, list, shared);
        if (shared.error) {
            shared.error = Error(rankName(self) + ": " + shared.error->message());
        }
    }
    Status status = use(shared);
    if (++shared.taken == list.local) {
        m_shared.erase(key);
    }
    return status;
}

Status CoLocatedWorld::takeRecords(
    uint32_t self, uint64_t step,
    const std::function<void(uint32_t, const std::vector<double>&)>& deliver) {
    std::unique_lock<std::mutex> lock(m_mutex);
    const size_t local = m_end - m_first;
    if (++m_steps[step].posted == local) {
        // Everything this process's ranks sent in this step is queued ahead of this marker.
        for (uint32_t p = 0; p < m_processes; ++p) {
            if (p != m_process) {
                std::vector<double>& out = m_outgoing[p];
                out.insert(out.end(),
                           {static_cast<double>(StepDone), 0.0, static_cast<double>(m_first),
                            static_cast<double>(firstRankOf(p, m_processes, m_ranks)),
                            static_cast<double>(step), 0.0});
            }
        }
        wakeAll();
    }
    const auto ready = [this, step, local] {
        const Step& counts = m_steps[step];
        return counts.posted == local && counts.processesDone + 1 == m_processes;
    };
    if (Status s = waitUntil(lock, self, ready,
                             [this, step, local] {
                                 const Step& counts = m_steps[step];
                                 return "the records of exchange step " + std::to_string(step) +
                                        " (" + std::to_string(counts.posted) + " of " +
                                        std::to_string(local) + " ranks here posted, " +
                                        std::to_string(counts.processesDone) + " of " +
                                        std::to_string(m_processes - 1) + " other processes done)";
                             });
        !s) {
        return s;
    }
    auto& messages = m_inboxes[self - m_first]->messages;
    for (auto it = messages.lower_bound({Records, 0, 0, 0});
         it != messages.end() && std::get<0>(it->first) == Records;) {
        if (std::get<3>(it->first) != step) {
            ++it;
            continue;
        }
        for (const std::vector<double>& values : it->second) {
            deliver(std::get<2>(it->first), values);
        }
        it = messages.erase(it);
    }
    if (++m_steps[step].taken == local) {
        m_steps.erase(step);
    }
    return Status::success();
}

Status CoLocatedWorld::waitUntil(std::unique_lock<std::mutex>& lock, uint32_t self,
                                 const std::function<bool()>& ready,
                                 const std::function<std::string()>& what) {
    // One waiting thread at a time, the poller, hands over and receives MPI traffic between
    // naps that grow as in Backoff (polite_wait.h); the others sleep on their condition until a
    // delivery wakes them (local ones and those the poller receives), or the poller leaves and
    // wakes one of them to take its place. So the polling costs one thread, not one per rank.
    std::chrono::microseconds nap{5};
    const uint32_t local = self - m_first;
    // Registered for the stall watch while this rank waits.
    m_waits[local] = &ready;
    struct Unregister {
        CoLocatedWorld& world;
        uint32_t local;
        ~Unregister() {
            world.m_waits[local] = nullptr;
            if (world.m_poller != local) {
                return;
            }
            world.m_poller = kNoPoller;
            for (uint32_t other = 0; other < world.m_waits.size(); ++other) {
                if (world.m_waits[other] != nullptr) {
                    world.m_inboxes[other]->changed.notify_all();
                    break;
                }
            }
        }
    } unregister{*this, local};
    while (!ready()) {
        if (m_stalled) {
            return Error(rankName(self) + ": replay stalled waiting for " + what() +
                         ": no analysis process can go on (the ranks' records of their "
                         "communication disagree)");
        }
        if (m_aborted) {
            return Error(rankName(self) + ": replay stopped waiting for " + what() +
                         ": another rank failed");
        }
        if (m_poller != kNoPoller && m_poller != local) {
            m_inboxes[local]->changed.wait_for(lock, std::chrono::milliseconds(20));
            continue;
        }
        m_poller = local;
        lock.unlock();
        Status progressed = progress();
        lock.lock();
        if (!progressed) {
            return progressed;
        }
        if (ready()) {
            break;
        }
        m_inboxes[local]->changed.wait_for(lock, nap);
        nap = std::min(2 * nap, kLongestNap);
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
    }
    while (!m_sent.empty()) {
        int done = 0;
        MPI_Test(&m_sent.front().request, &done, MPI_STATUS_IGNORE);
        if (!done) {
            break;
        }
        m_sent.pop_front();
    }
    watchForStall();
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
        if (std::lock_guard<std::mutex> lock(m_mutex); m_stalled) {
            return Error("analysis process " + std::to_string(m_process) +
                         ": replay stalled: no analysis process can go on");
        }
        std::this_thread::sleep_for(nap);
    }
}

} // namespace waitscope::analysis
