// Clock offsets between ranks, measured by ping-pong with rank 0.
#include "clock_offsets.h"

#include "runtime_state.h"
#include "unification.h"

#include <cstdio>
#include <cstring>

namespace waitscope::measure {

namespace {
constexpr int kOffsetTag = 7302;
} // namespace

/// Ranks on rank 0's host read rank 0's clock (CLOCK_MONOTONIC, or an invariant TSC, is one
/// clock per host): only the others need their offset measured. Collective on s.comm.
void decideClockProbes(RuntimeState& s) {
    char rootHost[64] = {0};
    if (s.rank == 0)
        std::snprintf(rootHost, sizeof(rootHost), "%s", s.identity.host.c_str());
    broadcastFromRoot(rootHost, sizeof(rootHost), MPI_CHAR, s.comm);
    char mine[64] = {0};
    std::snprintf(mine, sizeof(mine), "%s", s.identity.host.c_str());
    const bool oneClock = !g_hot.clock.usesTsc() || hasInvariantTsc();
    s.probeClock = s.rank != 0 && !(oneClock && std::strncmp(rootHost, mine, 64) == 0);
    char probe = s.probeClock ? 1 : 0;
    s.probedRanks.assign(s.rank == 0 ? static_cast<size_t>(s.size) : 0, 0);
    gatherToRoot(&probe, s.probedRanks.data(), 1, MPI_CHAR, 1, s.comm);
}

/// Ping-pong with every rank from rank 0 whose clock may differ; each such rank keeps the
/// offset of its fastest round, and only if it exceeds that round's uncertainty (half its
/// round trip). The others record offset 0.
void measureClockOffset(RuntimeState& s) {
    constexpr int kRounds = 10;
    if (s.rank == 0) {
        for (int peer = 1; peer < s.size; ++peer) {
            if (!s.probedRanks[static_cast<size_t>(peer)])
                continue;
            std::int64_t best = 0;
            std::uint64_t bestRtt = ~0ull;
            for (int i = 0; i < kRounds; ++i) {
                std::uint64_t t0 = now();
                std::uint64_t remote = 0;
                PMPI_Send(&t0, 1, MPI_UINT64_T, peer, kOffsetTag, s.comm);
                PMPI_Recv(&remote, 1, MPI_UINT64_T, peer, kOffsetTag, s.comm, MPI_STATUS_IGNORE);
                std::uint64_t t1 = now();
                if (t1 - t0 < bestRtt) {
                    bestRtt = t1 - t0;
                    best = static_cast<std::int64_t>(t0 + (t1 - t0) / 2) -
                           static_cast<std::int64_t>(remote);
                }
            }
            double deviation = static_cast<double>(bestRtt) / 2.0;
            best = significantOffset(best, deviation);
            PMPI_Send(&best, 1, MPI_INT64_T, peer, kOffsetTag, s.comm);
            PMPI_Send(&deviation, 1, MPI_DOUBLE, peer, kOffsetTag, s.comm);
        }
        s.offsets.push_back({now(), 0, 0.0});
        return;
    }
    if (!s.probeClock) {
        s.offsets.push_back({now(), 0, 0.0});
        return;
    }
    std::uint64_t probe = 0;
    std::uint64_t lastReply = 0;
    for (int i = 0; i < kRounds; ++i) {
        PMPI_Recv(&probe, 1, MPI_UINT64_T, 0, kOffsetTag, s.comm, MPI_STATUS_IGNORE);
        lastReply = now();
        PMPI_Send(&lastReply, 1, MPI_UINT64_T, 0, kOffsetTag, s.comm);
    }
    ClockOffset offset;
    offset.localTime = lastReply;
    PMPI_Recv(&offset.offset, 1, MPI_INT64_T, 0, kOffsetTag, s.comm, MPI_STATUS_IGNORE);
    PMPI_Recv(&offset.deviation, 1, MPI_DOUBLE, 0, kOffsetTag, s.comm, MPI_STATUS_IGNORE);
    s.offsets.push_back(offset);
}

} // namespace waitscope::measure
