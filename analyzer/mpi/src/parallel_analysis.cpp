// The MPI driver: each rank reads its own events and runs the rank pipeline (analyzeRank())
// over MPI; rank 0 gathers the encoded results, merges them and derives the metrics.
#include "waitscope/analysis/parallel_analysis.h"

#include "polite_wait.h"
#include "waitscope/analysis/co_located_transport.h"
#include "waitscope/analysis/derived_metrics.h"
#include "waitscope/analysis/mpi_transport.h"
#include "waitscope/analysis/rank_result_codec.h"
#include "waitscope/trace/otf2_archive.h"

#include <cstring>
#include <functional>
#include <mpi.h>
#include <optional>
#include <thread>

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

// What gatherOnProcessZero() gives process 0 (empty elsewhere): every process's bytes one after
// the other in process order, with each one's length and offset.
struct GatheredBytes {
    std::vector<uint8_t> all;
    std::vector<int> lengths;
    std::vector<int> offsets;
};

// Gathers `bytes` of every process on process 0. Collective over MPI_COMM_WORLD.
GatheredBytes gatherOnProcessZero(const std::vector<uint8_t>& bytes, int rank, int size) {
    GatheredBytes gathered;
    const int length = static_cast<int>(bytes.size());
    gathered.lengths.resize(rank == 0 ? size : 0);
    MPI_Gather(&length, 1, MPI_INT, gathered.lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    gathered.offsets.assign(gathered.lengths.size(), 0);
    size_t total = 0;
    for (size_t r = 0; r < gathered.lengths.size(); ++r) {
        gathered.offsets[r] = static_cast<int>(total);
        total += static_cast<size_t>(gathered.lengths[r]);
    }
    gathered.all.resize(total);
    MPI_Gatherv(bytes.data(), length, MPI_BYTE, gathered.all.data(), gathered.lengths.data(),
                gathered.offsets.data(), MPI_BYTE, 0, MPI_COMM_WORLD);
    return gathered;
}

// Gathers every process's encoded rank results (in rank order within each) on process 0 and
// merges them there.
Result<ParallelAnalysis> gatherAndMerge(ParallelAnalysis analysis,
                                        const std::vector<uint8_t>& bytes, uint32_t ranks) {
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const GatheredBytes gathered = gatherOnProcessZero(bytes, rank, size);
    const std::vector<uint8_t>& all = gathered.all;
    if (rank != 0) {
        return analysis;
    }
    // Each rank's result is preceded by its length (8 bytes).
    std::vector<RankResult> results;
    size_t at = 0;
    for (uint32_t r = 0; r < ranks; ++r) {
        uint64_t size64 = 0;
        if (at + sizeof size64 > all.size()) {
            return Error("rank " + std::to_string(r) + ": result missing");
        }
        std::memcpy(&size64, all.data() + at, sizeof size64);
        at += sizeof size64;
        if (at + size64 > all.size()) {
            return Error("rank " + std::to_string(r) + ": result truncated");
        }
        auto decoded = decodeRankResult(all.data() + at, static_cast<size_t>(size64));
        if (!decoded) {
            return decoded.error().withContext("rank " + std::to_string(r));
        }
        at += static_cast<size_t>(size64);
        results.push_back(std::move(*decoded));
    }
    analysis.result = AnalysisResult::merge(std::move(results));
    deriveMetrics(*analysis.result);
    return analysis;
}

// M:N: this process replays its block of traced ranks, one thread each, over the co-located
// transport (in memory among them, over MPI with the other processes' ranks).
Result<ParallelAnalysis> analyzeCoLocated(ParallelAnalysis analysis, const std::string& anchor,
                                          const ProgressCallback& progress,
                                          const ReplayOptions& options) {
    const uint32_t traced = analysis.definitions.rankCount();
    int threading = MPI_THREAD_SINGLE;
    MPI_Query_thread(&threading);
    if (threading < MPI_THREAD_SERIALIZED) {
        return Error(anchor + ": replaying " + std::to_string(traced) +
                     " ranks with fewer processes needs MPI_THREAD_SERIALIZED, which this MPI "
                     "does not provide");
    }
    auto world = CoLocatedWorld::create(analysis.definitions, traced);
    if (!world) {
        return world.error();
    }
    const uint32_t first = (*world)->firstRank();
    const uint32_t count = (*world)->endRank() - first;
    if (progress) {
        progress("reading", 0);
    }
    std::vector<trace::EventStream> streams(count);
    std::vector<std::optional<Error>> readErrors(count);
    for (uint32_t k = 0; k < count; ++k) {
        auto events = trace::readRankEvents(anchor, analysis.definitions, first + k);
        if (events) {
            streams[k] = std::move(*events);
        } else {
            readErrors[k] = events.error();
        }
    }
    if (progress) {
        progress("reading", 100);
    }
    std::vector<std::optional<RankResult>> results(count);
    std::vector<std::optional<Error>> errors(count);
    std::vector<std::thread> threads;
    for (uint32_t k = 0; k < count; ++k) {
        threads.emplace_back([&, k] {
            trace::EventStream& events = streams[k];
            // Progress is reported for the first traced rank only (one line per phase).
            const RankInput input{.definitions = analysis.definitions,
                                  .events = readErrors[k] ? nullptr : &events,
                                  .options = options,
                                  .anchorFile = anchor,
                                  .progress = first + k == 0 ? progress : ProgressCallback(),
                                  .timesDone = [&events] { events.releaseTimes(); },
                                  .eventsDone = [&events] { events = trace::EventStream(); }};
            auto result = analyzeRank(input, (*world)->endpoint(first + k));
            if (result) {
                results[k] = std::move(*result);
            } else {
                errors[k] = result.error();
                (*world)->fail(first + k, result.error());
            }
        });
    }
    for (std::thread& thread : threads) {
        thread.join();
    }
    const Status drained = (*world)->drain();
    std::optional<Error> failure;
    // A read error first, then the failure that stopped the others, then any other.
    for (const auto& error : readErrors) {
        if (error && !failure) {
            failure = *error;
        }
    }
    if (!failure) {
        failure = (*world)->cause();
    }
    for (const auto& error : errors) {
        if (error && !failure) {
            failure = *error;
        }
    }
    if (!failure && !drained) {
        failure = drained.error();
    }
    world.value().reset(); // frees its communicator while every process is here
    if (anyFailed(failure.has_value())) {
        if (failure) {
            return *failure;
        }
        return Error(anchor + ": analysis stopped because a rank of another process failed");
    }
    std::vector<uint8_t> bytes;
    for (const auto& result : results) {
        const std::vector<uint8_t> encoded = encodeRankResult(*result);
        const uint64_t size64 = encoded.size();
        const auto* sizeBytes = reinterpret_cast<const uint8_t*>(&size64);
        bytes.insert(bytes.end(), sizeBytes, sizeBytes + sizeof size64);
        bytes.insert(bytes.end(), encoded.begin(), encoded.end());
    }
    return gatherAndMerge(std::move(analysis), bytes, traced);
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
    if (traced < static_cast<uint32_t>(size)) {
        return Error(*anchor + ": the trace has " + std::to_string(traced) +
                     " ranks but the analysis runs with " + std::to_string(size) +
                     " ranks (use mpirun -np " + std::to_string(traced) + " or fewer)");
    }
    if (traced > static_cast<uint32_t>(size)) {
        return analyzeCoLocated(std::move(analysis), *anchor, progress, options);
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
    const GatheredBytes gathered = gatherOnProcessZero(bytes, rank, size);
    const std::vector<uint8_t>& all = gathered.all;
    if (rank != 0) {
        return analysis;
    }
    std::vector<RankResult> results;
    for (int r = 0; r < size; ++r) {
        auto decoded = decodeRankResult(all.data() + gathered.offsets[r],
                                        static_cast<size_t>(gathered.lengths[r]));
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
