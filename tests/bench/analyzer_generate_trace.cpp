// Writes a synthetic OTF2 trace for the analyzer benchmark: R ranks, N events per rank of
// computation, point-to-point messages with Late Senders, and periodic barriers.
//
// DIR is replaced if it exists.
// usage: analyzer_generate_trace DIR RANKS EVENTS_PER_RANK [BARRIER_EVERY [derived] [offset=T]
//                                [mismatch]]
// With "derived", the odd ranks also reduce on a communicator of their own (communicator 1)
// where the even ranks synchronize in the barrier, to exercise derived communicators.
// With "offset=T", the clocks of the even ranks other than 0 run T ticks ahead (their sends
// then seem to happen after the receives: clock condition violations).
// With "mismatch", rank 0 records its barriers as all-to-all collectives (MPI_Alltoallv in an
// all-to-all call: a damaged trace whose ranks disagree about who waits for whom). With
// "misplaced", rank 0 records them as MPI_Alltoallv inside MPI_Barrier (as a wrong region
// mapping would show them).
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <otf2/otf2.h>
#include <string>
#include <vector>

namespace {

OTF2_FlushType preFlush(void*, OTF2_FileType, OTF2_LocationRef, void*, bool) {
    return OTF2_FLUSH;
}
OTF2_TimeStamp postFlush(void*, OTF2_FileType, OTF2_LocationRef) {
    return 0;
}
const OTF2_FlushCallbacks kFlush = {preFlush, postFlush};

enum Region : uint32_t { kMain, kCompute, kSend, kRecv, kBarrier, kAllreduce, kRegionCount };
bool g_derived = false;
bool g_mismatch = false;
bool g_misplaced = false;
uint64_t g_offset = 0;
constexpr uint32_t kTicksPerIteration = 1000;

// How far the clock of `rank` runs ahead.
uint64_t clockOffset(uint32_t rank) {
    return rank % 2 == 0 && rank > 0 ? g_offset : 0;
}

// Events one rank writes for one iteration (and its share of barriers).
uint64_t writeIteration(OTF2_EvtWriter* w, uint32_t rank, uint32_t ranks, uint64_t it,
                        uint32_t barrierEvery) {
    const uint64_t base = 1000 + it * kTicksPerIteration + clockOffset(rank);
    uint64_t events = 0;
    OTF2_EvtWriter_Enter(w, nullptr, base + 10, kCompute);
    OTF2_EvtWriter_Leave(w, nullptr, base + 100 + (rank % 2 == 0 ? 100 : 0), kCompute);
    events += 2;
    const bool even = rank % 2 == 0;
    if (even && rank + 1 < ranks) {
        OTF2_EvtWriter_Enter(w, nullptr, base + 210, kSend);
        OTF2_EvtWriter_MpiSend(w, nullptr, base + 211, rank + 1, 0, 42, 1024);
        OTF2_EvtWriter_Leave(w, nullptr, base + 220, kSend);
        events += 3;
    } else if (!even) {
        OTF2_EvtWriter_Enter(w, nullptr, base + 110, kRecv);
        OTF2_EvtWriter_MpiRecv(w, nullptr, base + 230, rank - 1, 0, 42, 1024);
        OTF2_EvtWriter_Leave(w, nullptr, base + 240, kRecv);
        events += 3;
    }
    if (g_derived && barrierEvery > 0 && it % barrierEvery == 0 && !even) {
        OTF2_EvtWriter_Enter(w, nullptr, base + 250 + 5 * rank, kAllreduce);
        OTF2_EvtWriter_MpiCollectiveBegin(w, nullptr, base + 250 + 5 * rank);
        OTF2_EvtWriter_MpiCollectiveEnd(w, nullptr, base + 290, OTF2_COLLECTIVE_OP_ALLREDUCE, 1,
                                        OTF2_UNDEFINED_UINT32, 8, 8);
        OTF2_EvtWriter_Leave(w, nullptr, base + 291, kAllreduce);
        events += 4;
    }
    if (barrierEvery > 0 && it % barrierEvery == 0) {
        // A mismatched rank 0 calls MPI_Alltoallv (the region of the all-reduce is as good).
        const Region region = g_mismatch && rank == 0 && !g_misplaced ? kAllreduce : kBarrier;
        OTF2_EvtWriter_Enter(w, nullptr, base + 300 + 10 * rank, region);
        OTF2_EvtWriter_MpiCollectiveBegin(w, nullptr, base + 300 + 10 * rank);
        const OTF2_CollectiveOp op =
            g_mismatch && rank == 0 ? OTF2_COLLECTIVE_OP_ALLTOALLV : OTF2_COLLECTIVE_OP_BARRIER;
        OTF2_EvtWriter_MpiCollectiveEnd(w, nullptr, base + 399, op, 0, OTF2_UNDEFINED_UINT32, 0, 0);
        OTF2_EvtWriter_Leave(w, nullptr, base + 400, region);
        events += 4;
    }
    return events;
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: %s DIR RANKS EVENTS_PER_RANK [BARRIER_EVERY]\n", argv[0]);
        return 2;
    }
    const std::string dir = argv[1];
    const auto ranks = static_cast<uint32_t>(std::atoi(argv[2]));
    const auto target = static_cast<uint64_t>(std::atoll(argv[3]));
    const auto barrierEvery = static_cast<uint32_t>(argc > 4 ? std::atoi(argv[4]) : 8);
    for (int a = 5; a < argc; ++a) {
        const std::string option = argv[a];
        if (option == "derived") {
            g_derived = true;
        } else if (option == "mismatch") {
            g_mismatch = true;
        } else if (option == "misplaced") {
            g_mismatch = g_misplaced = true;
        } else if (option.rfind("offset=", 0) == 0) {
            g_offset = std::strtoull(option.c_str() + 7, nullptr, 10);
        } else {
            std::fprintf(stderr, "error: unknown option %s\n", option.c_str());
            return 2;
        }
    }
    // Iterations so that the busiest rank writes about `target` events.
    const uint64_t perIteration = 5 + (barrierEvery > 0 ? 4.0 / barrierEvery : 0);
    const uint64_t iterations = target / perIteration;

    OTF2_Archive* archive =
        OTF2_Archive_Open(dir.c_str(), "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                          OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (archive == nullptr) {
        std::fprintf(stderr, "error: %s: cannot create archive\n", dir.c_str());
        return 1;
    }
    OTF2_Archive_SetFlushCallbacks(archive, &kFlush, nullptr);
    OTF2_Archive_SetSerialCollectiveCallbacks(archive);
    OTF2_Archive_OpenEvtFiles(archive);
    std::vector<uint64_t> counts(ranks, 0);
    uint64_t end = 0;
    for (uint32_t r = 0; r < ranks; ++r) {
        OTF2_EvtWriter* w = OTF2_Archive_GetEvtWriter(archive, r);
        OTF2_EvtWriter_Enter(w, nullptr, 1 + clockOffset(r), kMain);
        counts[r] = 2;
        for (uint64_t it = 0; it < iterations; ++it) {
            counts[r] += writeIteration(w, r, ranks, it, barrierEvery);
        }
        end = 1000 + iterations * kTicksPerIteration + 10;
        OTF2_EvtWriter_Leave(w, nullptr, end + clockOffset(r), kMain);
        OTF2_Archive_CloseEvtWriter(archive, w);
    }
    OTF2_Archive_CloseEvtFiles(archive);
    OTF2_Archive_OpenDefFiles(archive);
    for (uint32_t r = 0; r < ranks; ++r) {
        OTF2_Archive_CloseDefWriter(archive, OTF2_Archive_GetDefWriter(archive, r));
    }
    OTF2_Archive_CloseDefFiles(archive);

    OTF2_GlobalDefWriter* g = OTF2_Archive_GetGlobalDefWriter(archive);
    OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000, 0, end + 1 + g_offset,
                                              OTF2_UNDEFINED_TIMESTAMP);
    const char* strings[] = {"",
                             "main",
                             "compute",
                             "MPI_Send",
                             "MPI_Recv",
                             "MPI_Barrier",
                             "machine",
                             "node",
                             "MPI Rank",
                             "Master thread",
                             "MPI_COMM_WORLD",
                             "bench.c",
                             "MPI_Allreduce",
                             "odd ranks"};
    for (uint32_t s = 0; s < sizeof strings / sizeof *strings; ++s) {
        OTF2_GlobalDefWriter_WriteString(g, s, strings[s]);
    }
    OTF2_GlobalDefWriter_WriteRegion(g, kMain, 1, 1, 0, OTF2_REGION_ROLE_FUNCTION,
                                     OTF2_PARADIGM_COMPILER, OTF2_REGION_FLAG_NONE, 11, 1, 50);
    OTF2_GlobalDefWriter_WriteRegion(g, kCompute, 2, 2, 0, OTF2_REGION_ROLE_FUNCTION,
                                     OTF2_PARADIGM_COMPILER, OTF2_REGION_FLAG_NONE, 11, 10, 20);
    OTF2_GlobalDefWriter_WriteRegion(g, kSend, 3, 3, 0, OTF2_REGION_ROLE_POINT2POINT,
                                     OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, 0, 0, 0);
    OTF2_GlobalDefWriter_WriteRegion(g, kRecv, 4, 4, 0, OTF2_REGION_ROLE_POINT2POINT,
                                     OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, 0, 0, 0);
    OTF2_GlobalDefWriter_WriteRegion(g, kBarrier, 5, 5, 0, OTF2_REGION_ROLE_BARRIER,
                                     OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, 0, 0, 0);
    OTF2_GlobalDefWriter_WriteRegion(g, kAllreduce, 12, 12, 0, OTF2_REGION_ROLE_COLL_ALL2ALL,
                                     OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, 0, 0, 0);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, 6, 6, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    std::vector<uint64_t> members(ranks);
    for (uint32_t r = 0; r < ranks; ++r) {
        OTF2_GlobalDefWriter_WriteLocationGroup(g, r, 8, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                OTF2_UNDEFINED_LOCATION_GROUP);
        OTF2_GlobalDefWriter_WriteLocation(g, r, 9, OTF2_LOCATION_TYPE_CPU_THREAD, counts[r], r);
        members[r] = r;
    }
    OTF2_GlobalDefWriter_WriteGroup(g, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, ranks, members.data());
    OTF2_GlobalDefWriter_WriteGroup(g, 1, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, ranks, members.data());
    OTF2_GlobalDefWriter_WriteComm(g, 0, 10, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    if (g_derived) {
        // Members are indices into the locations group: the odd ranks.
        std::vector<uint64_t> odd;
        for (uint32_t r = 1; r < ranks; r += 2) {
            odd.push_back(r);
        }
        OTF2_GlobalDefWriter_WriteGroup(g, 2, 13, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                        OTF2_GROUP_FLAG_NONE, static_cast<uint32_t>(odd.size()),
                                        odd.data());
        OTF2_GlobalDefWriter_WriteComm(g, 1, 13, 2, 0, OTF2_COMM_FLAG_NONE);
    }
    OTF2_Archive_CloseGlobalDefWriter(archive, g);
    OTF2_Archive_Close(archive);
    for (uint32_t r = 0; r < ranks; ++r) {
        std::printf("rank %u: %llu events\n", r, static_cast<unsigned long long>(counts[r]));
    }
    return 0;
}
