// The payload a waiter posts to its delayer in the root-cause pass (see delay_payload.h).
#include "delay_payload.h"

#include <algorithm>
#include <limits>
#include <string>

namespace waitscope::analysis::delay {
namespace {

constexpr uint64_t kKeyMask = (uint64_t{1} << 53) - 1; // keys travel exactly as doubles

uint64_t mixKey(uint64_t parent, uint32_t region) {
    uint64_t x = parent ^ (0x9E3779B97F4A7C15ull + region + (parent << 6) + (parent >> 2));
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 31;
    return x & kKeyMask;
}

} // namespace

TimesPayload::TimesPayload(const CallTree& tree) : m_keys(tree.size()) {
    for (NodeId n = 0; n < tree.size(); ++n) {
        const NodeId parent = tree.node(n).parent;
        m_keys[n] = mixKey(parent == kNoNode ? 0x5EED : m_keys[parent], tree.node(n).region);
    }
}

const std::vector<double>& TimesPayload::write(double wait, const Costs& costs,
                                               const Interval& times) {
    std::vector<double>& payload = m_payload;
    payload.clear();
    payload.push_back(wait);
    payload.push_back(0.0);
    uint32_t mask = 0;
    for (size_t x = 0; x < kKinds; ++x) {
        if (costs[x] != 0.0) {
            mask |= 1u << x;
            payload.push_back(costs[x]);
        }
    }
    payload[1] = mask;
    payload.push_back(static_cast<double>(times.times.size()));
    for (const auto& [node, t] : times.times) {
        payload.push_back(static_cast<double>(m_keys[node]));
        payload.push_back(t);
    }
    return payload;
}

// The times are sorted by key when there are more than a few.
Status TimesPayload::read(const std::vector<double>& payload, uint32_t self, uint32_t from,
                          Inputs& inputs) {
    const auto malformed = [&] {
        return Error("rank " + std::to_string(self) + ": malformed delay payload from rank " +
                     std::to_string(from));
    };
    if (payload.size() < 3) {
        return malformed();
    }
    inputs.fill(0.0);
    inputs[0] = payload[0];
    const auto mask = static_cast<uint32_t>(payload[1]);
    size_t next = 2;
    for (size_t x = 0; x < kKinds; ++x) {
        if ((mask & (1u << x)) != 0) {
            if (next >= payload.size()) {
                return malformed();
            }
            inputs[1 + x] = payload[next++];
        }
    }
    if (next >= payload.size()) {
        return malformed();
    }
    const auto count = static_cast<size_t>(payload[next++]);
    if (next + 2 * count != payload.size()) {
        return malformed();
    }
    m_remote.clear();
    for (const double* p = payload.data() + next; p != payload.data() + payload.size(); p += 2) {
        m_remote.emplace_back(static_cast<uint64_t>(p[0]), p[1]);
    }
    if (m_remote.size() > kScannedTimes) {
        std::sort(m_remote.begin(), m_remote.end());
    }
    return Status::success();
}

double TimesPayload::remoteTime(NodeId node) const {
    const uint64_t key = m_keys[node];
    if (m_remote.size() <= kScannedTimes) { // the usual few call paths: no sort, no search
        for (const auto& [k, t] : m_remote) {
            if (k == key) {
                return t;
            }
        }
        return 0.0;
    }
    const auto it = std::lower_bound(m_remote.begin(), m_remote.end(),
                                     std::make_pair(key, -std::numeric_limits<double>::infinity()));
    return it != m_remote.end() && it->first == key ? it->second : 0.0;
}

} // namespace waitscope::analysis::delay
