// Communicator definitions for the tests and benchmarks of the measurement's definitions and
// records: a communicator as the rank that describes it (rank 0 of the communicator) holds it.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>
#include <waitscope/measure/definitions.h>

namespace waitscope::measure::testing {

/// Communicator `key` derived from `parent` (kNoCommKey: MPI_COMM_WORLD or MPI_COMM_SELF) with
/// `members` (world ranks) and `name`, described by this rank.
inline CommDefinition describedComm(CommKey key, CommKey parent = kNoCommKey,
                                    std::vector<std::uint32_t> members = {},
                                    std::string name = {}) {
    CommDefinition comm;
    comm.key = key;
    comm.parent = parent;
    comm.name = std::move(name);
    comm.members = std::move(members);
    comm.describes = true;
    return comm;
}

} // namespace waitscope::measure::testing
