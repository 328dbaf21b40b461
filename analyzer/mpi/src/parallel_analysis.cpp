// Parallel analysis: read own rank, replay over MPI, gather encoded results on rank 0.
#include "waitscope/analysis/parallel_analysis.h"

#include "polite_wait.h"
#include "waitscope/analysis/derived_metrics.h"
#include "waitscope/analysis/mpi_transport.h"
#include "waitscope/analysis/rank_result_codec.h"
#include "waitscope/analysis/thread_profile.h"
#include "waitscope/trace/otf2_archive.h"

#include <functional>
#include <mpi.h>

namespace waitscope::analysis {
namespace {

// True on every rank when `failed` is true on any rank.
bool anyFailed(bool failed) {
    int local = failed ? 1 : 0;
    int global = 0;
    // Ranks that finish reading early wait here for the others without taking their cores.
    MPI_Request request = MPI_REQUEST_NULL;
    waitPolitely(MPI_Iallreduce(&local, &global, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &request),
                 request);
    return global != 0;
}

} // namespace

Result<ParallelAnalysis> analyzeWithMpi(const std::string& path, const ProgressCallback& progress,
                                        const ReplayOptions& options) {
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    // Every rank reads the same anchor and definitions, so these checks agree everywhere.
    auto anchor = trace::findAnchorFile(path);
    if (!anchor) {
        return anchor.error();
    }
    ParallelAnalysis analysis;
    auto definitions = trace::readDefinitions(*anchor);
    if (!definitions) {
        return definitions.error();
    }
    analysis.definitions = std::move(*definitions);
    const uint32_t traced = analysis.definitions.rankCount();
    if (traced != static_cast<uint32_t>(size)) {
        return Error(*anchor + ": the trace has " + std::to_string(traced) +
                     " ranks but the analysis runs with " + std::to_string(size) +
                     " ranks (use mpirun -np " + std::to_string(traced) + ")");
    }
    if (progress) {
        progress("reading", 0);
    }
    auto events = trace::readRankEvents(*anchor, analysis.definitions, static_cast<uint32_t>(rank));
    if (progress) {
        progress("reading", 100);
    }
    auto transport = MpiTransport::create(analysis.definitions);
    if (!transport) {
        return transport.error();
    }
    Diagnostics corrected;
    if (options.correction) {
        if (progress) {
            progress("clock correction", 0);
        }
        auto counters = correctClocks(analysis.definitions, events ? &*events : nullptr,
                                      **transport, *options.correction);
        if (!counters) {
            (*transport)->abandon(); // the others' waits for this rank end
        }
        // Every rank stops here together when one failed, before the replay's exchanges.
        if (anyFailed(!counters)) {
            transport.value().reset();
            return counters ? Error("rank " + std::to_string(rank) +
                                    ": clock correction stopped because another rank failed")
                            : counters.error();
        }
        corrected = std::move(*counters);
        if (progress) {
            progress("clock correction", 100);
        }
    }
    // The profile pass is the last reader of the timestamps: free them before the exchanges.
    std::function<void()> releaseTimes;
    if (events) {
        releaseTimes = [&events] { events->releaseTimes(); };
    }
    auto replayed = replayRank(analysis.definitions, events ? &*events : nullptr, **transport,
                               progress, releaseTimes, options);
    if (!replayed) {
        (*transport)->abandon(); // the others' waits for this rank end
    }
    transport.value().reset(); // frees the mirrored communicators while every rank is here
    if (replayed) {
        for (const auto& [name, count] : corrected) {
            replayed->diagnostics[name] += count;
        }
    }
    const bool failed = !events || !replayed;
    if (anyFailed(failed)) {
        if (!events) {
            return events.error();
        }
        if (!replayed) {
            return replayed.error();
        }
        return Error("rank " + std::to_string(rank) +
                     ": analysis stopped because another rank failed");
    }
    // The rank's further threads: profiled only, after the main location's events are freed.
    *events = trace::EventStream();
    addThreadProfiles(*anchor, analysis.definitions, *replayed);
    // Gather the encoded results on rank 0.
    const std::vector<uint8_t> bytes = encodeRankResult(*replayed);
    const int length = static_cast<int>(bytes.size());
    std::vector<int> lengths(rank == 0 ? size : 0);
    MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::vector<int> offsets(lengths.size(), 0);
    size_t total = 0;
    for (size_t r = 0; r < lengths.size(); ++r) {
        offsets[r] = static_cast<int>(total);
        total += static_cast<size_t>(lengths[r]);
    }
    std::vector<uint8_t> all(total);
    MPI_Gatherv(bytes.data(), length, MPI_BYTE, all.data(), lengths.data(), offsets.data(),
                MPI_BYTE, 0, MPI_COMM_WORLD);
    if (rank != 0) {
        return analysis;
    }
    std::vector<RankResult> results;
    for (int r = 0; r < size; ++r) {
        auto decoded = decodeRankResult(all.data() + offsets[r], static_cast<size_t>(lengths[r]));
        if (!decoded) {
            return decoded.error().withContext("rank " + std::to_string(r));
        }
        results.push_back(std::move(*decoded));
    }
    analysis.result = AnalysisResult::merge(std::move(results));
    deriveMetrics(*analysis.result);
    return analysis;
}

} // namespace waitscope::analysis
