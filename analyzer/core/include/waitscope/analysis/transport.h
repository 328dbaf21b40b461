// The communication a replay needs, independent of how ranks talk to each other.
#pragma once

#include "waitscope/base/result.h"

#include <cstdint>
#include <vector>

namespace waitscope::analysis {

/// Communicator id that stands for all analysis ranks in world rank order.
inline constexpr uint32_t kWorldComm = 0xFFFFFFFEu;

/// What one replayed message carries: the timestamps of the partner's MPI call.
struct ReplayRecord {
    double enter = 0.0;
    double exit = 0.0;
};

/// Point-to-point and collective exchanges between analysis ranks, one instance per rank.
/// Communicators and tags are the traced ones; matching follows MPI's ordering rules
/// (non-overtaking per communicator, source and tag), which reproduces the traced matching.
class Transport {
public:
    virtual ~Transport() = default;

    /// This analysis rank (equal to the traced world rank).
    virtual uint32_t rank() const = 0;
    /// Number of analysis ranks.
    virtual uint32_t size() const = 0;
    /// Sends `record` to communicator rank `destination` of traced communicator `comm`; never
    /// blocks.
    virtual Status send(uint32_t comm, uint32_t destination, uint32_t tag,
                        const ReplayRecord& record) = 0;
    /// Receives the next record from communicator rank `source`; fails instead of hanging when no
    /// such message can arrive any more.
    virtual Result<ReplayRecord> receive(uint32_t comm, uint32_t source, uint32_t tag) = 0;
    /// Gathers `values` (the same count on every member) from all members of `comm`, in
    /// communicator rank order, on every member.
    virtual Result<std::vector<double>> allGather(uint32_t comm,
                                                  const std::vector<double>& values) = 0;
    /// World exchange: element d of `perRank` goes to rank d; returns what each rank sent here.
    virtual Result<std::vector<uint64_t>> allToAll(const std::vector<uint64_t>& perRank) = 0;
    /// Ends a replay pass: completes the outstanding sends and synchronizes all ranks, so that
    /// no message of one pass can be matched by a receive of the next.
    virtual Status endPass() = 0;
};

} // namespace waitscope::analysis
