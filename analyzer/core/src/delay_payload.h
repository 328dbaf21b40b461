// What a waiter posts to its delayer in the root-cause pass: its wait, its costs and its
// interval's times by rank-independent call-path key.
#pragma once

#include "delay_interval.h"
#include "waitscope/analysis/call_tree.h"
#include "waitscope/base/result.h"

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

namespace waitscope::analysis::delay {

/// Inputs of a delay computation: the waiter's wait, then its costs per type.
inline constexpr size_t kInputs = 1 + kKinds;
using Inputs = std::array<double, kInputs>;

/// Writes and reads the payload
/// [wait, mask of the types with costs, those costs, count, (call-path key, seconds) x count];
/// costs are rare, so a payload usually carries none of them. Keys are the same on every rank
/// for the same call path, and travel exactly as doubles.
class TimesPayload {
public:
    explicit TimesPayload(const CallTree& tree);

    /// The payload for a waiter that waited `wait`, with `costs`, over `times`; valid until
    /// the next call.
    const std::vector<double>& write(double wait, const Costs& costs, const Interval& times);
    /// Reads a payload that rank `self` got from world rank `from`: the wait and costs into
    /// `inputs`, the times for remoteTime(). Fails when the payload is malformed.
    Status read(const std::vector<double>& payload, uint32_t self, uint32_t from, Inputs& inputs);
    /// The time the payload read last holds for the call path of `node` (0 when none).
    double remoteTime(NodeId node) const;

private:
    /// Up to this many times m_remote is scanned rather than sorted and searched.
    static constexpr size_t kScannedTimes = 8;

    std::vector<uint64_t> m_keys;                      ///< per node: its call-path key
    std::vector<double> m_payload;                     ///< the payload being posted
    std::vector<std::pair<uint64_t, double>> m_remote; ///< the payload read: times by key
};

} // namespace waitscope::analysis::delay
