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

Result<std::vector<double>> Deliveries::takeCollective(uint32_t self, uint32_t comm) {
    const auto it = m_collectives.find(comm);
    if (it == m_collectives.end() || it->second.empty()) {
        return Error("rank " + std::to_string(self) + ": no collective delivered on communicator " +
                     std::to_string(comm));
    }
    std::vector<double> values = std::move(it->second.front());
    it->second.pop_front();
    return values;
}

std::vector<double> PayloadQueues::take(uint32_t comm, uint32_t source, uint32_t tag) {
    auto& queue = m_queues.at({comm, source, tag});
    std::vector<double> payload = std::move(queue.front());
    queue.pop_front();
    return payload;
}

size_t PayloadQueues::pending() const {
    size_t count = 0;
    for (const auto& [key, queue] : m_queues) {
        count += queue.size();
    }
    return count;
}

uint32_t commRankOf(const trace::Definitions& definitions, uint32_t comm, uint32_t self) {
    if (comm < definitions.communicators.size()) {
        const auto& ranks = definitions.communicators[comm].worldRanks;
        const auto it = std::find(ranks.begin(), ranks.end(), self);
        if (it != ranks.end()) {
            return static_cast<uint32_t>(it - ranks.begin());
        }
    }
    return 0;
}

uint32_t worldRankOf(const trace::Definitions& definitions, uint32_t comm, uint32_t commRank,
                     uint32_t self) {
    if (comm >= definitions.communicators.size()) {
        return trace::kUndefined;
    }
    const trace::Communicator& c = definitions.communicators[comm];
    if (c.isSelf) {
        return commRank == 0 ? self : trace::kUndefined;
    }
    return commRank < c.worldRanks.size() ? c.worldRanks[commRank] : trace::kUndefined;
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
