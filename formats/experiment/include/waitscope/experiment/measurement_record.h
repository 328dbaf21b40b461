// The waitscope.measurement file of an experiment: the measurement's record of its own cost,
// one `key=value` per line. Its field names, its writer (run inside the measured program) and
// its one reader, whose callers decide what a damaged line means to them.
#pragma once

#include "waitscope/base/result.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace waitscope::experiment {

/// Name of the self-measurement file in an experiment directory.
inline constexpr const char* kMeasurementRecordFile = "waitscope.measurement";

/// The numbers the measurement writes for every rank, as `rank.<r>.<name>=<value>`, in this
/// order. The first ones are seconds, the rest counts (isSecondsField).
enum class RankField : int {
    WrapBeforeInitSeconds,      ///< from process start to MPI_Init
    InitHookSeconds,            ///< inside PMPI_Init
    InitMeasurementSeconds,     ///< the measurement's own work in MPI_Init
    FinalizeMeasurementSeconds, ///< the measurement's own work in MPI_Finalize
    FinalizeWriteSeconds,       ///< translating and writing events at finalize
    FlushSeconds,               ///< buffer flushes during the run
    FinalizeWriteCpuSeconds,    ///< the finalize write's CPU time (waiting for a core left out)
    SpillWriterCpuSeconds,      ///< CPU time of the thread writing full buffer chunks in the run
    Flushes,
    Events,
    TraceBytes,
    ForeignThreadCalls,
    UnknownRequests,
    UnknownComms,
    Otf2Errors,
    CountedCalls,
    SkippedTests,
    FilteredCalls,
    LostEvents,
    Samples,
    SamplesInMpi,
    FailedUnwinds,
    LostSamples,
    UnwoundCalls,
    ContextRecords,
    SampledThreads,
    UnsampledThreads,
    OpenmpThreads,     ///< OpenMP threads recorded as locations (OMPT), the main one included
    OpenmpEvents,      ///< events of the OpenMP threads other than the main one
    OpenmpLostEvents,  ///< OpenMP events not recorded (no memory for a thread's records)
    OpenmpWithoutOmpt, ///< 1: the program runs OpenMP on a runtime without OMPT (not recorded)
    SpilledChunks,     ///< full buffer chunks written to the spill file during the run
    UnwoundStacks,     ///< of UnwoundCalls, those whose stack was unwound (no snapshot matched)
    Count
};
inline constexpr int kRankFieldCount = static_cast<int>(RankField::Count);

/// The key of a per-rank field without its `rank.<r>.` prefix ("flush_seconds").
const char* rankFieldName(RankField field) noexcept;

/// True for a field written in seconds (nine decimals), false for a count (an integer).
inline constexpr bool isSecondsField(RankField field) noexcept {
    return static_cast<int>(field) < static_cast<int>(RankField::Flushes);
}

/// The job-wide lines at the top of the file.
struct MeasurementHeader {
    const char* program = "";
    int ranks = 0;
    const char* clock = ""; ///< the event clock's name
    std::uint64_t ticksPerSecond = 0;
    std::uint64_t bufferBytes = 0; ///< each rank's event buffer
};

/// Writes waitscope.measurement to `path` (replacing it): the header, then for each of
/// header.ranks ranks its kRankFieldCount `values` (rank by rank, in RankField order). Runs
/// inside the measured program: never throws, allocates nothing but the stream's buffer.
/// False, with errno set by the call that failed, when the file could not be written whole.
bool writeMeasurementRecord(const char* path, const MeasurementHeader& header,
                            const double* values) noexcept;

/// The MPI functions the program called that the measurement counts but does not record (their
/// time is part of the calling code's): `unrecorded.<function>=<calls summed over ranks>` and
/// `unrecorded.<function>.ranks=<ranks that called it>`, after the per-rank fields.
inline constexpr const char* kUnrecordedPrefix = "unrecorded.";
inline constexpr const char* kUnrecordedRanksSuffix = ".ranks";

/// Appends the lines of the functions among `size` with `calls[i]` > 0 to `path`. Runs inside
/// the measured program: never throws. False, with errno set, when they could not be written.
bool appendUnrecordedCalls(const char* path, const char* const* names, const std::uint64_t* calls,
                           const std::uint64_t* ranks, std::size_t size) noexcept;

/// What `waitscope recover` adds to the record of a failed run.
struct RecoveryEntries {
    std::string program; ///< the job-wide lines, for a run that left no record
    std::uint32_t ranks = 0;
    std::uint64_t ticksPerSecond = 0;
    std::vector<std::uint64_t> keptEvents; ///< per rank: the events the recovered trace keeps
    std::vector<std::string> notes;        ///< what was lost, one line each (recovery.txt)
};

/// Appends `recovered=true`, `recovered.rank.<r>.events` per rank and `recovery.<k>` per note
/// (k from 1) to `path`, first writing the job-wide lines when the failed run left no record.
/// Fails with "<path>: cannot write".
Status appendRecoveryEntries(const std::string& path, const RecoveryEntries& recovery);

/// A measurement record as read: its `key=value` entries in file order (keys and values as
/// written, without a prefix), and the lines that are none (not blank, not a '#' comment, and
/// without a key before an '=').
struct MeasurementEntries {
    std::vector<std::pair<std::string, std::string>> entries;
    std::vector<std::size_t> badLines; ///< line numbers, from 1
};

/// Parses the text of a measurement record. Never fails: damaged lines are listed, and what
/// they mean is the caller's choice (the analyzer refuses the file, the summary shows the rest).
MeasurementEntries parseMeasurementRecord(std::string_view text);

/// Reads and parses the measurement record `path`; fails with "<path>: cannot read" when the
/// file cannot be opened. Damaged lines are not a failure (see parseMeasurementRecord).
Result<MeasurementEntries> readMeasurementRecord(const std::string& path);

/// The error for a damaged line `line` of `path`: "<path>: line <line>: expected key=value".
Error badLineError(const std::string& path, std::size_t line);

} // namespace waitscope::experiment
