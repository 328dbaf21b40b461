// The MPI driver: each rank reads its own events and runs the rank pipeline (analyzeRank())
// over MPI; rank 0 gathers the encoded results, merges them and derives the metrics.
#include "waitscope/analysis/parallel_analysis.h"

#include "polite_wait.h"
#include "waitscope/analysis/derived_metrics.h"
#include "waitscope/analysis/mpi_transport.h"
#include "waitscope/analysis/rank_result_codec.h"
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
    // The ranks stop together when one fails, so that none waits forever for another.
    const auto stopTogether = [&transport](bool failed) {
        if (failed) {
            (*transport)->abandon(); // the others' waits for this rank end
        }
        return anyFailed(failed);
    };
    // The profile is the last reader of the timestamps, the replay of the events: free them
    // before the exchanges and before the thread profiles.
    std::function<void()> releaseTimes;
    std::function<void()> releaseEvents;
    if (events) {
        releaseTimes = [&events] { events->releaseTimes(); };
        releaseEvents = [&events] { *events = trace::EventStream(); };
    }
    const RankInput input{.definitions = analysis.definitions,
                          .events = events ? &*events : nullptr,
                          .options = options,
                          .anchorFile = *anchor,
                          .progress = progress,
                          .timesDone = releaseTimes,
                          .eventsDone = releaseEvents,
                          .anyFailed = stopTogether};
    auto replayed = analyzeRank(input, **transport);
    transport.value().reset(); // frees the mirrored communicators while every rank is here
    if (!replayed) {
        // The read error rather than the refusal to replay without events.
        return events ? replayed.error() : events.error();
    }
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
