// Delivered records and collectives, and communicator membership, shared by the transports.
#include "waitscope/analysis/transport.h"

#include <algorithm>
#include <string>

namespace waitscope::analysis {

Result<ReplayRecord> Deliveries::take(uint32_t self, uint32_t comm, uint32_t source, uint32_t tag) {
    const auto it = m_records.find({comm, source, tag});
    if (it == m_records.end() || it->second.empty()) {
        return Error("rank " + std::to_string(self) + ": no message from rank " +
                     std::to_string(source) + " with tag " + std::to_string(tag) +
                     " on communicator " + std::to_string(comm));
    }
    const ReplayRecord record = it->second.front();
    it->second.pop_front();
    return record;
}

void Deliveries::takeAll(const Transport::RecordSink& sink) {
    for (const auto& [key, records] : m_records) {
        const auto [comm, source, tag] = key;
        for (const ReplayRecord& record : records) {
            sink(comm, source, tag, record);
        }
    }
    m_records.clear();
}

Result<std::shared_ptr<const GatheredCollective>> Deliveries::takeCollective(uint32_t self,
                                                                             uint32_t comm) {
    const auto it = m_collectives.find(comm);
    if (it == m_collectives.end() || it->second.empty()) {
        return Error("rank " + std::to_string(self) + ": no collective delivered on communicator " +
                     std::to_string(comm));
    }
    std::shared_ptr<const GatheredCollective> gathered = std::move(it->second.front());
    it->second.pop_front();
    return gathered;
}

Status DeliveringTransport::send(uint32_t comm, uint32_t destination, uint32_t tag,
                                 const ReplayRecord& record) {
    auto to = worldRank(comm, destination);
    if (!to) {
        return to.error();
    }
    ReplayRecord queued = record;
    if (!m_carryInfo) {
        queued.info = 0.0;
    }
    queueRecord(comm, *to, tag, queued);
    return Status::success();
}

Status DeliveringTransport::post(uint32_t comm, uint32_t destination, uint32_t tag,
                                 const std::vector<double>& payload) {
    auto to = worldRank(comm, destination);
    if (!to) {
        return to.error();
    }
    postTo(comm, *to, tag, payload);
    return Status::success();
}

Status DeliveringTransport::await(uint32_t comm, uint32_t source, uint32_t tag,
                                  std::vector<double>& payload) {
    auto from = worldRank(comm, source);
    if (!from) {
        return from.error();
    }
    return awaitFrom(comm, *from, tag, payload);
}

Result<ReplayRecord> DeliveringTransport::receive(uint32_t comm, uint32_t source, uint32_t tag) {
    auto from = worldRank(comm, source);
    if (!from) {
        return from.error();
    }
    return m_deliveries.take(rank(), comm, *from, tag);
}

Result<std::shared_ptr<const GatheredCollective>> DeliveringTransport::gathered(uint32_t comm) {
    return m_deliveries.takeCollective(rank(), comm);
}

Status Transport::collected(uint32_t comm, std::vector<double>& values) {
    auto taken = gathered(comm);
    if (!taken) {
        return taken.error();
    }
    values = (*taken)->values();
    return Status::success();
}

Result<std::shared_ptr<const std::vector<double>>>
Transport::sharedGather(uint32_t comm, const std::vector<double>& values) {
    auto all = allGather(comm, values);
    if (!all) {
        return all.error();
    }
    return std::make_shared<const std::vector<double>>(std::move(*all));
}

Status DeliveringTransport::finishPass() {
    if (auto done = allGather(kWorldComm, {}); !done) {
        return done.error();
    }
    dropPayloads();
    if (auto cleared = allGather(kWorldComm, {}); !cleared) {
        return cleared.error();
    }
    return Status::success();
}

PayloadQueues::Queue* PayloadQueues::find(const Key& key, bool add) {
    if (m_last == nullptr || m_lastKey != key) {
        auto it = m_queues.find(key);
        if (it == m_queues.end()) {
            if (!add) {
                return nullptr;
            }
            it = m_queues.emplace(key, Queue{}).first;
        }
        m_last = &it->second;
        m_lastKey = key;
    }
    return m_last;
}

void PayloadQueues::deliver(uint32_t comm, uint32_t source, uint32_t tag,
                            std::span<const double> payload) {
    Queue& queue = *find({comm, source, tag}, true);
    queue.values.insert(queue.values.end(), payload.begin(), payload.end());
    queue.lengths.push_back(static_cast<uint32_t>(payload.size()));
}

void PayloadQueues::take(uint32_t comm, uint32_t source, uint32_t tag,
                         std::vector<double>& payload) {
    Queue& queue = *find({comm, source, tag}, false);
    const size_t length = queue.lengths[queue.nextLength++];
    const auto first = queue.values.begin() + static_cast<std::ptrdiff_t>(queue.nextValue);
    payload.assign(first, first + static_cast<std::ptrdiff_t>(length));
    queue.nextValue += length;
    if (queue.nextLength == queue.lengths.size()) {
        // All taken: start over in the same memory.
        queue.values.clear();
        queue.lengths.clear();
        queue.nextValue = 0;
        queue.nextLength = 0;
    } else if (queue.nextValue > 4096 && 2 * queue.nextValue > queue.values.size()) {
        // Mostly taken: drop the taken part (each value moves at most once per halving).
        queue.values.erase(queue.values.begin(),
                           queue.values.begin() + static_cast<std::ptrdiff_t>(queue.nextValue));
        queue.lengths.erase(queue.lengths.begin(),
                            queue.lengths.begin() + static_cast<std::ptrdiff_t>(queue.nextLength));
        queue.nextValue = 0;
        queue.nextLength = 0;
    }
}

size_t PayloadQueues::pending() const {
    size_t count = 0;
    for (const auto& [key, queue] : m_queues) {
        count += queue.lengths.size() - queue.nextLength;
    }
    return count;
}

Result<std::vector<uint64_t>> allToAllByAllGather(Transport& transport,
                                                  const std::vector<uint64_t>& perRank) {
    const size_t n = transport.size();
    const size_t self = transport.rank();
    if (perRank.size() % n != 0) {
        return Error("rank " + std::to_string(self) +
                     ": all-to-all buffer not a multiple of the rank count");
    }
    const std::vector<double> mine(perRank.begin(), perRank.end());
    auto all = transport.allGather(kWorldComm, mine);
    if (!all) {
        return all.error();
    }
    const size_t block = perRank.size() / n;
    std::vector<uint64_t> result(perRank.size());
    for (size_t source = 0; source < n; ++source) {
        for (size_t k = 0; k < block; ++k) {
            result[source * block + k] =
                static_cast<uint64_t>((*all)[source * perRank.size() + self * block + k]);
        }
    }
    return result;
}

uint32_t commRankOf(const trace::Definitions& definitions, uint32_t comm, uint32_t self) {
    if (comm < definitions.communicators.size()) {
        const auto& ranks = definitions.communicators[comm].worldRanks;
        if (self < ranks.size() && ranks[self] == self) {
            return self; // world-ordered communicators (MPI_COMM_WORLD and its copies) at once
        }
        const auto it = std::find(ranks.begin(), ranks.end(), self);
        if (it != ranks.end()) {
            return static_cast<uint32_t>(it - ranks.begin());
        }
    }
    return 0;
}

Result<std::vector<uint32_t>> communicatorMembers(const trace::Definitions& definitions,
                                                  uint32_t comm, uint32_t self, uint32_t size) {
    if (comm == kWorldComm) {
        std::vector<uint32_t> all(size);
        for (uint32_t r = 0; r < size; ++r) {
            all[r] = r;
        }
        return all;
    }
    if (comm >= definitions.communicators.size()) {
        return Error("rank " + std::to_string(self) + ": unknown communicator " +
                     std::to_string(comm));
    }
    if (definitions.communicators[comm].isSelf) {
        return std::vector<uint32_t>{self};
    }
    return definitions.communicators[comm].worldRanks;
}

} // namespace waitscope::analysis
