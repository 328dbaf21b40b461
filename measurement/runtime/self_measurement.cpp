// The measurement's record of its own cost: waitscope.measurement and the times after finalize.
#include "self_measurement.h"

#include "experiment_directory.h"
#include "runtime_state.h"
#include "unification.h"
#include "waitscope/experiment/measurement_record.h"
#include "waitscope/measure/unrecorded_functions.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <string>
#include <vector>

namespace waitscope::measure {

/// Gathers per-rank numbers on rank 0 and writes waitscope.measurement.
void writeMeasurementRecord(RuntimeState& s, const GlobalDefinitions& defs) {
    using experiment::RankField;
    constexpr int kFieldCount = experiment::kRankFieldCount;
    double mine[kFieldCount] = {};
    auto set = [&mine](RankField field, double value) { mine[static_cast<int>(field)] = value; };
    auto count = [&set](RankField field, std::uint64_t value) {
        set(field, static_cast<double>(value));
    };
    set(RankField::WrapBeforeInitSeconds, seconds(s.self.initEnter - s.self.processStart));
    set(RankField::InitHookSeconds, seconds(s.self.initHook));
    set(RankField::InitMeasurementSeconds, seconds(s.self.initMeasurement));
    set(RankField::FinalizeMeasurementSeconds, seconds(s.self.finalizeMeasurement));
    set(RankField::FinalizeWriteSeconds, seconds(s.self.finalizeWrite));
    set(RankField::FlushSeconds, seconds(g_diagnostics.flushTicks));
    set(RankField::FinalizeWriteCpuSeconds, s.self.finalizeWriteCpuSeconds);
    set(RankField::SpillWriterCpuSeconds, s.spillWriterCpuSeconds);
    count(RankField::Flushes, g_diagnostics.flushes);
    count(RankField::Events, g_hot.buffer.events);
    count(RankField::TraceBytes, s.self.traceBytes);
    count(RankField::ForeignThreadCalls, g_diagnostics.foreignThreadCalls);
    count(RankField::UnknownRequests, g_diagnostics.unknownRequests);
    count(RankField::UnknownComms, g_diagnostics.unknownComms);
    count(RankField::Otf2Errors, g_diagnostics.otf2Errors);
    count(RankField::CountedCalls, g_diagnostics.countedCalls);
    count(RankField::SkippedTests, g_diagnostics.skippedTests);
    count(RankField::FilteredCalls, g_diagnostics.filteredCalls);
    count(RankField::LostEvents, g_diagnostics.lostEvents);
    count(RankField::Samples, g_diagnostics.samples);
    count(RankField::SamplesInMpi, g_diagnostics.samplesInMpi);
    count(RankField::FailedUnwinds, g_diagnostics.failedUnwinds);
    count(RankField::LostSamples, g_diagnostics.lostSamples);
    count(RankField::UnwoundCalls, g_diagnostics.unwoundCalls);
    count(RankField::ContextRecords, g_diagnostics.contextRecords);
    count(RankField::SampledThreads, g_diagnostics.sampledThreads);
    // Counted by any thread that creates one.
    count(RankField::UnsampledThreads,
          std::atomic_ref<std::uint64_t>(g_diagnostics.unsampledThreads)
              .load(std::memory_order_relaxed));
    count(RankField::OpenmpThreads, g_diagnostics.openmpThreads);
    count(RankField::OpenmpEvents, g_diagnostics.openmpEvents);
    count(RankField::OpenmpLostEvents, g_diagnostics.openmpLostEvents);
    count(RankField::OpenmpWithoutOmpt, g_diagnostics.openmpWithoutOmpt);
    count(RankField::SpilledChunks, g_diagnostics.spilledChunks);
    count(RankField::UnwoundStacks, g_diagnostics.unwoundStacks);
    std::vector<double> all(s.rank == 0 ? static_cast<size_t>(kFieldCount) * s.size : 0);
    gatherToRoot(mine, all.data(), kFieldCount, MPI_DOUBLE, sizeof(double), s.comm);
    // The calls of the MPI functions that are only counted: summed over ranks, and the ranks
    // that made them (every rank has the same table: the same library).
    const UnrecordedFunctions unrecorded =
        unrecordedFunctionTable ? unrecordedFunctionTable() : UnrecordedFunctions{};
    std::vector<std::uint64_t> unrecordedMine(2 * unrecorded.size);
    for (std::size_t i = 0; i < unrecorded.size; ++i) {
        unrecordedMine[i] =
            std::atomic_ref<std::uint64_t>(unrecorded.counts[i]).load(std::memory_order_relaxed);
        unrecordedMine[unrecorded.size + i] = unrecordedMine[i] > 0 ? 1 : 0;
    }
    std::vector<std::uint64_t> unrecordedAll(unrecordedMine.size());
    if (!unrecordedMine.empty())
        reduceToAll(unrecordedMine.data(), unrecordedAll.data(),
                    static_cast<int>(unrecordedMine.size()), MPI_UINT64_T, sizeof(std::uint64_t),
                    MPI_SUM, s.comm);
    if (s.rank != 0)
        return;
    experiment::MeasurementHeader header;
    header.program = defs.programPath.c_str();
    header.ranks = s.size;
    header.clock = g_hot.clock.name();
    header.ticksPerSecond = g_hot.clock.ticksPerSecond();
    header.bufferBytes = s.memory.size() * 8;
    const std::string path = s.directory + "/" + experiment::kMeasurementRecordFile;
    errno = 0;
    if (!experiment::writeMeasurementRecord(path.c_str(), header, all.data())) {
        noteWriteError(s, path, errno);
        return;
    }
    const std::uint64_t* totals = unrecordedAll.data();
    if (!experiment::appendUnrecordedCalls(path.c_str(), unrecorded.names, totals,
                                           totals + unrecorded.size, unrecorded.size))
        noteWriteError(s, path, errno);
}

void noteExit() {
    if (!g_state || !g_state->measured || !g_state->finalized)
        return;
    // Appended at exit: the only cost we can see after MPI_Finalize.
    FILE* f = std::fopen(g_state->statusPath.c_str(), "a");
    if (!f)
        return;
    std::fprintf(f, "finalize_hook_seconds=%.9f\nafter_finalize_seconds=%.9f\n",
                 seconds(g_state->self.finalizeHook), seconds(now() - g_state->self.finalizeLeave));
    std::fclose(f);
}

} // namespace waitscope::measure
