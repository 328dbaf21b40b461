// Threads as ranks: outboxes read by every rank during an exchange, gather slots for the rest.
#include "waitscope/analysis/in_process_transport.h"

#include <algorithm>

namespace waitscope::analysis {

class InProcessWorld::Endpoint final : public DeliveringTransport {
public:
    Endpoint(InProcessWorld& world, uint32_t rank) : m_world(world), m_rank(rank) {}

    uint32_t rank() const override { return m_rank; }
    uint32_t size() const override { return m_world.m_size; }

    Status contribute(uint32_t comm, std::span<const double> values) override {
        auto list = m_world.members(comm, m_rank);
        if (!list) {
            return list.error();
        }
        m_world.m_contributions[m_rank][comm].emplace_back(values.begin(), values.end());
        return Status::success();
    }

    Status exchange() override {
        // Everyone has posted: read the others' outboxes (nobody writes them until the
        // second barrier), then clear the own ones, then wait until all have cleared.
        if (auto ready = allGather(kWorldComm, {}); !ready) {
            return ready.error();
        }
        for (uint32_t from = 0; from < m_world.m_size; ++from) {
            for (const Posted& posted : m_world.m_outboxes[from]) {
                if (posted.to == m_rank) {
                    m_deliveries.deliver(posted.comm, from, posted.tag, posted.record);
                }
            }
        }
        // The first member to get here builds each collective once for all members.
        Status status;
        for (const auto& [comm, mine] : m_world.m_contributions[m_rank]) {
            auto built = m_world.collectives(comm, m_rank);
            if (!built) {
                status = built.error();
                break;
            }
            for (const auto& collective : **built) {
                m_deliveries.deliverCollective(comm, collective);
            }
        }
        if (auto done = allGather(kWorldComm, {}); !done) {
            return done.error();
        }
        // Freed rather than cleared: a replay pass posts one record per message at once, and
        // the memory is wanted by the passes after it (the delay pass's ledger, its records).
        std::vector<Posted>().swap(m_world.m_outboxes[m_rank]);
        m_world.m_contributions[m_rank].clear();
        if (m_rank == 0) {
            std::lock_guard<std::mutex> lock(m_world.m_mutex);
            m_world.m_collectives.clear();
            m_world.m_selfCollectives.clear();
        }
        if (auto cleared = allGather(kWorldComm, {}); !cleared) {
            return cleared.error();
        }
        return status;
    }

    Result<std::vector<double>> allGather(uint32_t comm,
                                          const std::vector<double>& values) override {
        auto members = m_world.members(comm, m_rank);
        if (!members) {
            return members.error();
        }
        const auto self = std::find(members->begin(), members->end(), m_rank);
        if (self == members->end()) {
            return Error("rank " + std::to_string(m_rank) + ": not a member of communicator " +
                         std::to_string(comm));
        }
        const auto position = static_cast<size_t>(self - members->begin());
        std::unique_lock<std::mutex> lock(m_world.m_mutex);
        const uint64_t sequence = m_world.m_sequence[m_rank][comm]++;
        const auto key = std::make_pair(comm, sequence);
        Slot& slot = m_world.m_slots[key];
        if (slot.values.empty()) {
            slot.values.resize(members->size());
        }
        slot.values[position] = values;
        const size_t expected = members->size();
        if (++slot.arrived == expected) {
            // The others have arrived and wait for this slot: only they can go on now.
            for (uint32_t member : *members) {
                if (member != m_rank) {
                    m_world.wake(member);
                }
            }
        }
        const auto ready = [&slot, expected] { return slot.arrived == expected; };
        if (Status status = m_world.waitUntil(lock, m_rank, ready,
                                              "collective " + std::to_string(sequence) +
                                                  " on communicator " + std::to_string(comm));
            !status) {
            return status.error();
        }
        std::vector<double> all;
        for (const auto& part : slot.values) {
            all.insert(all.end(), part.begin(), part.end());
        }
        if (++slot.taken == expected) {
            m_world.m_slots.erase(key);
        }
        return all;
    }

private:
    void queueRecord(uint32_t comm, uint32_t to, uint32_t tag,
                     const ReplayRecord& record) override {
        m_world.m_outboxes[m_rank].push_back(Posted{comm, to, tag, record});
    }

    void postTo(uint32_t comm, uint32_t to, uint32_t tag,
                const std::vector<double>& payload) override {
        std::lock_guard<std::mutex> lock(m_world.m_mutex);
        m_world.m_inboxes[to].deliver(comm, m_rank, tag, payload);
        m_world.m_peakPayloads = std::max(m_world.m_peakPayloads, ++m_world.m_payloads);
        m_world.wake(to);
    }

    Status awaitFrom(uint32_t comm, uint32_t sender, uint32_t tag,
                     std::vector<double>& payload) override {
        std::unique_lock<std::mutex> lock(m_world.m_mutex);
        PayloadQueues& inbox = m_world.m_inboxes[m_rank];
        const auto ready = [&inbox, comm, sender, tag] { return inbox.has(comm, sender, tag); };
        if (Status status = m_world.waitUntil(lock, m_rank, ready,
                                              "a message from rank " + std::to_string(sender) +
                                                  " with tag " + std::to_string(tag) +
                                                  " on communicator " + std::to_string(comm));
            !status) {
            return status;
        }
        inbox.take(comm, sender, tag, payload);
        --m_world.m_payloads;
        return Status::success();
    }

    void dropPayloads() override {
        std::lock_guard<std::mutex> lock(m_world.m_mutex);
        m_world.m_payloads -= m_world.m_inboxes[m_rank].pending();
        m_world.m_inboxes[m_rank] = PayloadQueues();
    }

    Result<uint32_t> worldRank(uint32_t comm, uint32_t commRank) const override {
        return m_world.worldRankOf(comm, commRank, m_rank);
    }

    InProcessWorld& m_world;
    uint32_t m_rank;
};

Result<const InProcessWorld::Collectives*> InProcessWorld::collectives(uint32_t comm,
                                                                       uint32_t self) {
    auto list = members(comm, self);
    if (!list) {
        return list.error();
    }
    std::lock_guard<std::mutex> lock(m_mutex);
    const bool isSelf = list->size() == 1;
    if (const auto found = m_collectives.find(comm); found != m_collectives.end() && !isSelf) {
        return &found->second;
    }
    // Everyone has contributed (the exchange's first barrier is behind), and nobody changes the
    // contributions before its second one.
    Collectives built;
    const auto& mine = m_contributions[self][comm];
    for (size_t k = 0; k < mine.size(); ++k) {
        std::vector<double> all;
        for (uint32_t member : *list) {
            const auto& theirs = m_contributions[member][comm];
            if (k >= theirs.size()) {
                return Error("rank " + std::to_string(self) + ": rank " + std::to_string(member) +
                             " contributed to fewer collectives on communicator " +
                             std::to_string(comm));
            }
            all.insert(all.end(), theirs[k].begin(), theirs[k].end());
        }
        built.push_back(std::make_shared<const GatheredCollective>(std::move(all), mine[k].size()));
    }
    if (isSelf) {
        // A self communicator's collectives are each rank's own: kept apart per rank.
        m_selfCollectives[self][comm] = std::move(built);
        return &m_selfCollectives[self][comm];
    }
    return &m_collectives.emplace(comm, std::move(built)).first->second;
}

InProcessWorld::InProcessWorld(const trace::Definitions& definitions, uint32_t ranks)
    : m_size(ranks), m_defs(definitions), m_outboxes(ranks), m_contributions(ranks),
      m_sequence(ranks), m_inboxes(ranks), m_waiting(ranks), m_finished(ranks, false) {
    for (uint32_t r = 0; r < ranks; ++r) {
        m_endpoints.push_back(std::make_unique<Endpoint>(*this, r));
        m_changed.push_back(std::make_unique<std::condition_variable>());
    }
}

InProcessWorld::~InProcessWorld() = default;

Transport& InProcessWorld::endpoint(uint32_t rank) {
    return *m_endpoints[rank];
}

void InProcessWorld::finish(uint32_t rank) {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_finished[rank] = true;
    // The ranks still waiting may have waited for this one: if none of them can go on now,
    // nothing will wake them, so they fail here.
    if (!anyoneCanMove()) {
        failAll();
    }
}

bool InProcessWorld::anyoneCanMove() const {
    for (uint32_t r = 0; r < m_size; ++r) {
        if (!m_finished[r] && (!m_waiting[r] || m_waiting[r]())) {
            return true;
        }
    }
    return false;
}

void InProcessWorld::wake(uint32_t rank) {
    // One thread per rank waits, and only while m_waiting holds its condition.
    if (m_waiting[rank]) {
        m_changed[rank]->notify_one();
    }
}

void InProcessWorld::failAll() {
    m_deadlock = true;
    for (const auto& changed : m_changed) {
        changed->notify_all();
    }
}

size_t InProcessWorld::peakPayloads() {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_peakPayloads;
}

Result<std::vector<uint32_t>> InProcessWorld::members(uint32_t comm, uint32_t self) const {
    return communicatorMembers(m_defs, comm, self, m_size);
}
Result<uint32_t> InProcessWorld::worldRankOf(uint32_t comm, uint32_t commRank,
                                             uint32_t self) const {
    // Fast path, looked up per record and payload: a traced communicator's members without
    // copying the list.
    if (comm < m_defs.communicators.size() && !m_defs.communicators[comm].isSelf) {
        const std::vector<uint32_t>& ranks = m_defs.communicators[comm].worldRanks;
        if (commRank < ranks.size() && ranks[commRank] < m_size) {
            return ranks[commRank];
        }
    }
    auto list = members(comm, self);
    if (!list) {
        return list.error();
    }
    if (commRank >= list->size() || (*list)[commRank] >= m_size) {
        return Error("rank " + std::to_string(self) + ": communicator " + std::to_string(comm) +
                     " has no rank " + std::to_string(commRank));
    }
    return (*list)[commRank];
}

Status InProcessWorld::waitUntil(std::unique_lock<std::mutex>& lock, uint32_t rank,
                                 const std::function<bool()>& ready, const std::string& what) {
    m_waiting[rank] = ready;
    // A deadlock can only begin when the last rank able to move starts waiting (here) or
    // finishes (finish()): both check, so a waiting rank is woken only by what it waits for
    // or by the failure.
    while (!ready()) {
        if (!m_deadlock && !anyoneCanMove()) {
            failAll();
        }
        if (m_deadlock) {
            m_waiting[rank] = nullptr;
            return Error("rank " + std::to_string(rank) + ": replay stalled waiting for " + what);
        }
        m_changed[rank]->wait(lock);
    }
    m_waiting[rank] = nullptr;
    return Status::success();
}

} // namespace waitscope::analysis
