// Checksums by which ranks compare what they exchanged before a replay relies on it.
#pragma once

#include "waitscope/trace/event_stream.h"

#include <cstdint>

namespace waitscope::analysis {

/// Checksums travel as doubles: they keep to 52 bits, which doubles hold exactly.
inline constexpr uint64_t kSignatureMask = (uint64_t{1} << 52) - 1;

/// A well-mixed 64-bit value of `x` (splitmix64's finalizer).
inline uint64_t mixSignature(uint64_t x) {
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 31;
    return x;
}

/// The checksum of one message's channel: summed per rank pair (modulo 2^52), equal sums on
/// both ends mean equal multisets of channels, whatever the order (unlike a sum of the
/// communicators and tags themselves, in which swapped tags cancel out).
inline uint64_t messageSignature(uint32_t comm, uint32_t tag) {
    return mixSignature(static_cast<uint64_t>(comm) << 32 | tag) & kSignatureMask;
}

/// The chained checksum of a communicator's collectives after one more, with `record`'s
/// operation and root and `call` (what the MPI call is to the analysis, e.g. 1 for MPI_Init):
/// every member must arrive at the same value, or the members would disagree about who waits
/// for whom (and a message-driven pass would wait for a message nobody sends).
inline uint64_t collectiveSignature(uint64_t previous, const trace::CollectiveRecord& record,
                                    uint32_t call) {
    const uint64_t value =
        static_cast<uint64_t>(record.op) << 40 ^ static_cast<uint64_t>(call) << 32 ^ record.root;
    return mixSignature(previous * 0x9E3779B97F4A7C15ull ^ value) & kSignatureMask;
}

} // namespace waitscope::analysis
