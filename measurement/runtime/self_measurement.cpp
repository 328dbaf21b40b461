// The measurement's record of its own cost: waitscope.measurement and the times after finalize.
#include "self_measurement.h"

#include "experiment_directory.h"
#include "runtime_state.h"
#include "unification.h"

#include <atomic>
#include <cstdio>
#include <string>
#include <vector>

namespace waitscope::measure {

/// Gathers per-rank numbers on rank 0 and writes waitscope.measurement.
void writeMeasurementRecord(RuntimeState& s, const GlobalDefinitions& defs) {
    enum Field {
        kWrapBefore,
        kInitHook,
        kInitMeasurement,
        kFinalizeMeasurement,
        kFinalizeWrite,
        kFlushSeconds,
        kFlushes,
        kEvents,
        kTraceBytes,
        kForeignCalls,
        kUnknownRequests,
        kUnknownComms,
        kOtf2Errors,
        kCountedCalls,
        kSkippedTests,
        kFilteredCalls,
        kLostEvents,
        kSamples,
        kSamplesInMpi,
        kFailedUnwinds,
        kLostSamples,
        kUnwoundCalls,
        kContextRecords,
        kSampledThreads,
        kUnsampledThreads,
        kFieldCount
    };
    static const char* const kNames[kFieldCount] = {"wrap_before_init_seconds",
                                                    "init_hook_seconds",
                                                    "init_measurement_seconds",
                                                    "finalize_measurement_seconds",
                                                    "finalize_write_seconds",
                                                    "flush_seconds",
                                                    "flushes",
                                                    "events",
                                                    "trace_bytes",
                                                    "foreign_thread_calls",
                                                    "unknown_requests",
                                                    "unknown_comms",
                                                    "otf2_errors",
                                                    "counted_calls",
                                                    "skipped_tests",
                                                    "filtered_calls",
                                                    "lost_events",
                                                    "samples",
                                                    "samples_in_mpi",
                                                    "failed_unwinds",
                                                    "lost_samples",
                                                    "unwound_calls",
                                                    "context_records",
                                                    "sampled_threads",
                                                    "unsampled_threads"};
    // Counted by any thread that creates one.
    const std::uint64_t unsampled = std::atomic_ref<std::uint64_t>(g_diagnostics.unsampledThreads)
                                        .load(std::memory_order_relaxed);
    double mine[kFieldCount] = {seconds(s.self.initEnter - s.self.processStart),
                                seconds(s.self.initHook),
                                seconds(s.self.initMeasurement),
                                seconds(s.self.finalizeMeasurement),
                                seconds(s.self.finalizeWrite),
                                seconds(g_diagnostics.flushTicks),
                                static_cast<double>(g_diagnostics.flushes),
                                static_cast<double>(g_hot.buffer.events),
                                static_cast<double>(s.self.traceBytes),
                                static_cast<double>(g_diagnostics.foreignThreadCalls),
                                static_cast<double>(g_diagnostics.unknownRequests),
                                static_cast<double>(g_diagnostics.unknownComms),
                                static_cast<double>(g_diagnostics.otf2Errors),
                                static_cast<double>(g_diagnostics.countedCalls),
                                static_cast<double>(g_diagnostics.skippedTests),
                                static_cast<double>(g_diagnostics.filteredCalls),
                                static_cast<double>(g_diagnostics.lostEvents),
                                static_cast<double>(g_diagnostics.samples),
                                static_cast<double>(g_diagnostics.samplesInMpi),
                                static_cast<double>(g_diagnostics.failedUnwinds),
                                static_cast<double>(g_diagnostics.lostSamples),
                                static_cast<double>(g_diagnostics.unwoundCalls),
                                static_cast<double>(g_diagnostics.contextRecords),
                                static_cast<double>(g_diagnostics.sampledThreads),
                                static_cast<double>(unsampled)};
    std::vector<double> all(s.rank == 0 ? static_cast<size_t>(kFieldCount) * s.size : 0);
    gatherToRoot(mine, all.data(), kFieldCount, MPI_DOUBLE, sizeof(double), s.comm);
    if (s.rank != 0)
        return;
    std::string out = "# Waitscope self-measurement: key=value; rank.<r>.<key> per rank\n";
    out += "version=1\nprogram=" + defs.programPath + "\nranks=" + std::to_string(s.size) +
           "\nclock=" + g_hot.clock.name() +
           "\nticks_per_second=" + std::to_string(g_hot.clock.ticksPerSecond()) +
           "\nbuffer_bytes=" + std::to_string(s.memory.size() * 8) + "\n";
    char line[160];
    for (int r = 0; r < s.size; ++r) {
        for (int f = 0; f < kFieldCount; ++f) {
            double v = all[static_cast<size_t>(r) * kFieldCount + f];
            if (f >= kFlushes && f != kFlushSeconds)
                std::snprintf(line, sizeof(line), "rank.%d.%s=%.0f\n", r, kNames[f], v);
            else
                std::snprintf(line, sizeof(line), "rank.%d.%s=%.9f\n", r, kNames[f], v);
            out += line;
        }
    }
    writeExperimentFile(s, s.directory + "/waitscope.measurement", out);
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
