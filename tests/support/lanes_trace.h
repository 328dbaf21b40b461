// A generated OTF2 archive with MPI from several threads of each rank (replay lanes), for the
// delay costs per thread: 2 ranks that entered MPI_Init_thread, their main threads in a
// barrier, two further threads each that talk to the same thread of the other rank on their
// own tags (the timelines are drawn in lanes_trace.cpp, with the values they give).
#pragma once

#include "archive_builder.h"
#include "waitscope/trace/definitions.h"

#include <cstdint>
#include <string>

namespace waitscope::testing {

/// The location id of further thread `k` (1, 2) of `rank` (0, 1) in the lanes archive.
inline uint64_t lanesThreadId(uint32_t rank, uint32_t k) {
    return threadLocationId(rank, k);
}

/// The global definitions of the lanes archive.
trace::Definitions lanesDefinitions();

/// Writes the lanes archive into `dir` (replaced if it exists). Returns false when the writer
/// fails.
bool writeLanesTrace(const std::string& dir);

} // namespace waitscope::testing
