// Writes the synthetic OTF2 trace of generated_trace.h, for the analyzer's tests and
// benchmarks: R ranks, N events per rank of computation, point-to-point messages with Late
// Senders, and periodic barriers.
//
// DIR is replaced if it exists.
// usage: analyzer_generate_trace DIR RANKS EVENTS_PER_RANK [BARRIER_EVERY [derived] [offset=T]
//                                [mismatch] [paths=K] [rma]]
// With "derived", the odd ranks also reduce on a communicator of their own (communicator 1)
// where the even ranks synchronize in the barrier, to exercise derived communicators.
// With "offset=T", the clocks of the even ranks other than 0 run T ticks ahead (their sends
// then seem to happen after the receives: clock condition violations).
// With "mismatch", rank 0 records its barriers as all-to-all collectives (MPI_Alltoallv in an
// all-to-all call: a damaged trace whose ranks disagree about who waits for whom). With
// "misplaced", rank 0 records them as MPI_Alltoallv inside MPI_Barrier (as a wrong region
// mapping would show them). With "paths=K", iteration i computes in function path<i mod K>
// (2 K more call paths, for benchmarks of large call trees). With "rma", every iteration also
// has a fence epoch, a PSCW epoch and (3 ranks or more) a contended exclusive lock on a window
// (GeneratedTraceOptions::rma).
// usage: analyzer_generate_trace DIR lanes
// writes instead the hand-made archive of lanes_trace.h (2 ranks, MPI from two threads each).
#include "generated_trace.h"
#include "lanes_trace.h"

#include <cstdio>
#include <cstdlib>
#include <string>

int main(int argc, char** argv) {
    if (argc < 3 || (argc < 4 && std::string(argv[2]) != "lanes")) {
        std::fprintf(stderr, "usage: %s DIR RANKS EVENTS_PER_RANK [BARRIER_EVERY]\n", argv[0]);
        return 2;
    }
    const std::string dir = argv[1];
    if (std::string(argv[2]) == "lanes") {
        if (!waitscope::testing::writeLanesTrace(dir)) {
            std::fprintf(stderr, "error: %s: cannot write the lanes archive\n", dir.c_str());
            return 1;
        }
        return 0;
    }
    waitscope::testing::GeneratedTraceOptions options;
    options.ranks = static_cast<uint32_t>(std::atoi(argv[2]));
    options.eventsPerRank = static_cast<uint64_t>(std::atoll(argv[3]));
    options.barrierEvery = static_cast<uint32_t>(argc > 4 ? std::atoi(argv[4]) : 8);
    for (int a = 5; a < argc; ++a) {
        const std::string option = argv[a];
        if (option == "derived") {
            options.derived = true;
        } else if (option == "rma") {
            options.rma = true;
        } else if (option == "mismatch") {
            options.mismatch = true;
        } else if (option == "misplaced") {
            options.mismatch = options.misplaced = true;
        } else if (option.rfind("paths=", 0) == 0) {
            options.paths = static_cast<uint32_t>(std::strtoul(option.c_str() + 6, nullptr, 10));
        } else if (option.rfind("offset=", 0) == 0) {
            options.clockOffset = std::strtoull(option.c_str() + 7, nullptr, 10);
        } else {
            std::fprintf(stderr, "error: unknown option %s\n", option.c_str());
            return 2;
        }
    }
    const auto counts = waitscope::testing::writeGeneratedTrace(dir, options);
    if (!counts) {
        std::fprintf(stderr, "error: %s\n", counts.error().message().c_str());
        return 1;
    }
    for (size_t r = 0; r < counts->size(); ++r) {
        std::printf("rank %zu: %llu events\n", r, static_cast<unsigned long long>((*counts)[r]));
    }
    return 0;
}
