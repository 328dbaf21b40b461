// TraceSizeEstimate: how large a trace of a run would be, from the visits in its profile.
//
// Every visit of a call path becomes events in the trace: Enter and Leave for every region,
// plus one message event for a point-to-point call, collective begin and end for a
// collective, and communicator events for MPI_Init/MPI_Finalize and communicator creation.
// The call-tree roots are the program itself (ProgramBegin/ProgramEnd instead of Enter/Leave).
// Each event kind has a size in bytes per trace format, measured on real traces of the
// example programs (see EventSizes), and the definitions add a part per region and per rank.
//
//   bytes(rank) = sum over call paths of visits(path, rank) x bytes per visit(kind of path)
//                 + per-rank definitions and file headers
//   total       = sum over ranks + per-region definitions + anchor file
#pragma once

#include <cstdint>
#include <string>
#include <vector>
#include <waitscope/base/result.h>
#include <waitscope/report/report.h>

namespace waitscope::analysis {

/// Bytes per event kind and per definition of one trace format.
struct EventSizes {
    const char* format;
    double enterLeave;    ///< an Enter or a Leave record
    double pointToPoint;  ///< MpiSend, MpiRecv, MpiIsend, ... records
    double collective;    ///< MpiCollectiveBegin or MpiCollectiveEnd
    double other;         ///< ProgramBegin/End, CommCreate/Destroy, additional records
    double otherPerRank;  ///< `other` records every rank writes once
    double filePerRank;   ///< header of a rank's event file
    double defsPerRank;   ///< a rank's local definitions file
    double defsPerRegion; ///< a region definition with its strings
    double defsFixed;     ///< anchor file and the rest of the global definitions
    /// MPI regions the measurement defines whether or not the program calls them (a profile
    /// that lists only the visited ones undercounts them).
    double mpiRegionsAlwaysDefined;
    /// A calling-context record (sample or unwound MPI call path) with its own timestamp.
    double contextRecord;
};

/// Waitscope's own OTF2 traces (libwaitscope), measured on the examples with 4 ranks.
extern const EventSizes kWaitscopeSizes;
/// Score-P 8.4's OTF2 traces, measured on the reference traces in tests/data/reference.
extern const EventSizes kScorePSizes;

/// What one region (all its call paths) contributes to the trace.
struct RegionEstimate {
    std::string name;
    std::string mangledName;  ///< the linker name when the report has one, else empty
    std::string kind;         ///< "MPI", "USR", "COM" (compiler-instrumented), "MEASUREMENT"
                              ///< (the program itself and sampled functions are not listed)
    bool filterable = false;  ///< user or compiler regions; MPI calls cannot be filtered
    std::uint64_t visits = 0; ///< over all ranks
    std::uint64_t maxVisitsPerRank = 0;
    double bytes = 0.0; ///< over all ranks
    double time = 0.0;  ///< exclusive seconds over all ranks
    double timePerVisit() const { return visits ? time / static_cast<double>(visits) : 0.0; }
};

/// The estimate of a whole trace.
struct TraceSizeEstimate {
    const EventSizes* sizes = nullptr;
    double totalBytes = 0.0;
    double eventBytes = 0.0;          ///< events only, all ranks
    double definitionBytes = 0.0;     ///< definitions, anchor and file headers
    std::vector<double> bytesPerRank; ///< events and per-rank files, by rank
    double events = 0.0;
    std::vector<RegionEstimate> regions; ///< largest contribution first
};

/// Estimates the trace of the run `profile` describes, in the format `sizes`. Fails if the
/// profile has no `visits` metric or its values cannot be read (naming the metric).
Result<TraceSizeEstimate> estimateTraceSize(const report::Report& profile, const EventSizes& sizes);

/// The format whose sizes suit the profile: Score-P's for a profile Score-P wrote, else ours.
const EventSizes& sizesFor(const report::Report& profile);

} // namespace waitscope::analysis
