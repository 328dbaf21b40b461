// Writing and reading the key=value self-measurement file (waitscope.measurement).
#include "waitscope/experiment/measurement_record.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace waitscope::experiment {

namespace {

// Constant-initialized: nothing runs when the library is loaded into a program.
constexpr const char* kRankFieldNames[kRankFieldCount] = {"wrap_before_init_seconds",
                                                          "init_hook_seconds",
                                                          "init_measurement_seconds",
                                                          "finalize_measurement_seconds",
                                                          "finalize_write_seconds",
                                                          "flush_seconds",
                                                          "finalize_write_cpu_seconds",
                                                          "spill_writer_cpu_seconds",
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
                                                          "unsampled_threads",
                                                          "openmp_threads",
                                                          "openmp_events",
                                                          "openmp_lost_events",
                                                          "openmp_without_ompt",
                                                          "spilled_chunks",
                                                          "unwound_stacks"};

} // namespace

const char* rankFieldName(RankField field) noexcept {
    const int index = static_cast<int>(field);
    return index >= 0 && index < kRankFieldCount ? kRankFieldNames[index] : "";
}

bool writeMeasurementRecord(const char* path, const MeasurementHeader& header,
                            const double* values) noexcept {
    std::FILE* out = std::fopen(path, "w");
    if (!out)
        return false;
    bool ok = std::fprintf(out,
                           "# Waitscope self-measurement: key=value; rank.<r>.<key> per rank\n"
                           "version=1\nprogram=%s\nranks=%d\nclock=%s\nticks_per_second=%llu\n"
                           "buffer_bytes=%llu\n",
                           header.program, header.ranks, header.clock,
                           static_cast<unsigned long long>(header.ticksPerSecond),
                           static_cast<unsigned long long>(header.bufferBytes)) >= 0;
    for (int r = 0; ok && r < header.ranks; ++r) {
        for (int f = 0; ok && f < kRankFieldCount; ++f) {
            const double v = values[static_cast<std::size_t>(r) * kRankFieldCount + f];
            // Counts without decimals; seconds to the nanosecond.
            const char* format = isSecondsField(static_cast<RankField>(f)) ? "rank.%d.%s=%.9f\n"
                                                                           : "rank.%d.%s=%.0f\n";
            ok = std::fprintf(out, format, r, kRankFieldNames[f], v) >= 0;
        }
    }
    ok = std::fflush(out) == 0 && ok;
    return std::fclose(out) == 0 && ok;
}

bool appendUnrecordedCalls(const char* path, const char* const* names, const std::uint64_t* calls,
                           const std::uint64_t* ranks, std::size_t size) noexcept {
    std::FILE* out = std::fopen(path, "a");
    if (!out)
        return false;
    bool ok = true;
    for (std::size_t i = 0; ok && i < size; ++i) {
        if (calls[i] == 0)
            continue;
        ok = std::fprintf(out, "%s%s=%llu\n%s%s%s=%llu\n", kUnrecordedPrefix, names[i],
                          static_cast<unsigned long long>(calls[i]), kUnrecordedPrefix, names[i],
                          kUnrecordedRanksSuffix, static_cast<unsigned long long>(ranks[i])) >= 0;
    }
    ok = std::fflush(out) == 0 && ok;
    return std::fclose(out) == 0 && ok;
}

Status appendRecoveryEntries(const std::string& path, const RecoveryEntries& recovery) {
    std::error_code ec;
    const bool haveRecord = std::filesystem::exists(path, ec);
    std::ofstream record(path, std::ios::app);
    if (!haveRecord)
        record << "# Waitscope self-measurement: key=value (recovered after a failed run)\n"
               << "version=1\nprogram=" << recovery.program << "\nranks=" << recovery.ranks
               << "\nticks_per_second=" << recovery.ticksPerSecond << '\n';
    record << "recovered=true\n";
    for (std::size_t r = 0; r < recovery.keptEvents.size(); ++r)
        record << "recovered.rank." << r << ".events=" << recovery.keptEvents[r] << '\n';
    for (std::size_t k = 0; k < recovery.notes.size(); ++k)
        record << "recovery." << k + 1 << '=' << recovery.notes[k] << '\n';
    if (!record)
        return Error(path + ": cannot write");
    return Status::success();
}

MeasurementEntries parseMeasurementRecord(std::string_view text) {
    MeasurementEntries record;
    std::size_t start = 0;
    for (std::size_t number = 1; start < text.size(); ++number) {
        std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos)
            end = text.size();
        const std::string_view line = text.substr(start, end - start);
        start = end + 1;
        if (line.empty() || line[0] == '#')
            continue;
        const std::size_t equals = line.find('=');
        if (equals == std::string_view::npos || equals == 0) {
            record.badLines.push_back(number);
            continue;
        }
        record.entries.emplace_back(std::string(line.substr(0, equals)),
                                    std::string(line.substr(equals + 1)));
    }
    return record;
}

Result<MeasurementEntries> readMeasurementRecord(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return Error(path + ": cannot read");
    std::ostringstream text;
    text << in.rdbuf();
    return parseMeasurementRecord(text.str());
}

Error badLineError(const std::string& path, std::size_t line) {
    return Error(path + ": line " + std::to_string(line) + ": expected key=value");
}

} // namespace waitscope::experiment
