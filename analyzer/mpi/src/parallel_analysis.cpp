// The MPI driver: each rank reads its own events and runs the rank pipeline (analyzeRank())
// over MPI; process 0 gathers the encoded results rank by rank, merges them and derives the
// metrics.
#include "waitscope/analysis/parallel_analysis.h"

#include "polite_wait.h"
#include "waitscope/analysis/co_located_transport.h"
#include "waitscope/analysis/derived_metrics.h"
#include "waitscope/analysis/memory_budget.h"
#include "waitscope/analysis/mpi_transport.h"
#include "waitscope/analysis/rank_result_codec.h"
#include "waitscope/trace/otf2_archive.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>
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

// The failure every process reports, once all have one or none: the read error of the lowest
// traced rank whose events could not be read (`unread`: this process's lowest such rank, whose
// error is `failure`), else the failure of the lowest process that failed; none when no process
// failed. The others' failures only follow from a read error ("rank 3: no events to replay"),
// and mpirun may end the job after the first process to stop prints its message, so every
// process prints the cause. Collective over MPI_COMM_WORLD.
std::optional<Error> agreedFailure(const std::optional<Error>& failure,
                                   std::optional<uint32_t> unread) {
    constexpr int kNone = std::numeric_limits<int>::max();
    constexpr int kOther = kNone - 1;
    struct {
        int key;
        int process;
    } mine{}, first{};
    MPI_Comm_rank(MPI_COMM_WORLD, &mine.process);
    mine.key = !failure ? kNone
               : unread ? static_cast<int>(std::min<uint32_t>(*unread, kOther - 1))
                        : kOther;
    MPI_Request request = MPI_REQUEST_NULL;
    waitPolitely(MPI_Iallreduce(&mine, &first, 1, MPI_2INT, MPI_MINLOC, MPI_COMM_WORLD, &request),
                 request);
    if (first.key == kNone) {
        return std::nullopt;
    }
    std::string text = first.process == mine.process ? failure->message() : std::string();
    uint64_t length = text.size();
    waitPolitely(MPI_Ibcast(&length, 1, MPI_UINT64_T, first.process, MPI_COMM_WORLD, &request),
                 request);
    text.resize(length);
    waitPolitely(MPI_Ibcast(text.data(), static_cast<int>(length), MPI_CHAR, first.process,
                            MPI_COMM_WORLD, &request),
                 request);
    return Error(std::move(text));
}

// The gather of the results on process 0 is flat in the traced ranks: the processes unify
// their call trees in a reduction tree (log2 M rounds, each message at most the unified tree),
// then process 0 sizes the merged values once and takes the ranks' results one at a time, in
// rank order, adding each (sparse rows, its instances) before it receives the next. Process
// 0 holds the merged result, its own block's results and one received rank's result, never
// all of them; messages are chunked so that sizes beyond 2 GiB pass.
constexpr int kTreeTag = 1;
constexpr int kResultTag = 2;
// The largest MPI message: counts are ints.
constexpr uint64_t kChunk = uint64_t{1} << 30;

// Sends `bytes` to `to`: its 64-bit length, then chunks of at most kChunk bytes.
int sendBytes(const std::vector<uint8_t>& bytes, int to, int tag, MPI_Comm comm) {
    const uint64_t length = bytes.size();
    MPI_Request request = MPI_REQUEST_NULL;
    int code = waitPolitely(MPI_Isend(&length, 1, MPI_UINT64_T, to, tag, comm, &request), request);
    for (uint64_t at = 0; code == MPI_SUCCESS && at < length; at += kChunk) {
        const auto count = static_cast<int>(std::min(kChunk, length - at));
        code = waitPolitely(MPI_Isend(bytes.data() + at, count, MPI_BYTE, to, tag, comm, &request),
                            request);
    }
    return code;
}

// Receives what sendBytes() sent from `from`.
Result<std::vector<uint8_t>> receiveBytes(int from, int tag, MPI_Comm comm) {
    uint64_t length = 0;
    MPI_Request request = MPI_REQUEST_NULL;
    int code =
        waitPolitely(MPI_Irecv(&length, 1, MPI_UINT64_T, from, tag, comm, &request), request);
    std::vector<uint8_t> bytes;
    if (code == MPI_SUCCESS) {
        bytes.resize(length);
    }
    for (uint64_t at = 0; code == MPI_SUCCESS && at < length; at += kChunk) {
        const auto count = static_cast<int>(std::min(kChunk, length - at));
        code = waitPolitely(
            MPI_Irecv(bytes.data() + at, count, MPI_BYTE, from, tag, comm, &request), request);
    }
    if (code != MPI_SUCCESS) {
        return Error("process " + std::to_string(from) + ": its results could not be received");
    }
    return bytes;
}

// The call tree of all ranks (in rank order) on process 0, of this process's and the
// following ones' ranks elsewhere: each process unifies its ranks' trees, then receives the
// tree of the processes [p + s, p + 2s) for s = 1, 2, 4, ... while p is a multiple of 2s, and
// sends its own to p - s otherwise. Collective over `comm`.
Result<CallTree> unifyTrees(const std::vector<RankResult>& results, int process, int processes,
                            MPI_Comm comm) {
    CallTree tree;
    for (const RankResult& result : results) {
        unifyCallTree(tree, result.tree);
    }
    std::optional<Error> failure;
    for (int step = 1; step < processes; step *= 2) {
        if (process % (2 * step) != 0) {
            if (sendBytes(encodeCallTree(tree), process - step, kTreeTag, comm) != MPI_SUCCESS) {
                failure = Error("process " + std::to_string(process) +
                                ": its call tree could not be sent");
            }
            break;
        }
        if (process + step < processes) {
            auto bytes = receiveBytes(process + step, kTreeTag, comm);
            if (!bytes) {
                failure = failure ? failure : bytes.error();
                continue;
            }
            auto other = decodeCallTree(bytes->data(), bytes->size());
            if (!other) {
                failure = failure ? failure : other.error();
                continue;
            }
            unifyCallTree(tree, *other);
        }
    }
    if (failure) {
        return *failure;
    }
    return tree;
}

// Gathers every process's rank results (`results`: its block of consecutive ranks, in rank
// order) on process 0 and merges them there, rank by rank. Collective over MPI_COMM_WORLD.
Result<ParallelAnalysis> gatherAndMerge(ParallelAnalysis analysis,
                                        std::vector<RankResult>&& results, uint32_t ranks,
                                        const ProgressCallback& progress) {
    int process = 0, processes = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &process);
    MPI_Comm_size(MPI_COMM_WORLD, &processes);
    if (progress) {
        progress("merging", 0);
    }
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Request duplicated = MPI_REQUEST_NULL;
    waitPolitely(MPI_Comm_idup(MPI_COMM_WORLD, &comm, &duplicated), duplicated);
    auto tree = unifyTrees(results, process, processes, comm);
    if (process != 0) {
        // Process 0 takes them in order: first how many, then each.
        const uint64_t count = results.size();
        std::vector<uint8_t> header(sizeof count);
        std::memcpy(header.data(), &count, sizeof count);
        int code = sendBytes(header, 0, kResultTag, comm);
        for (RankResult& result : results) {
            if (code == MPI_SUCCESS) {
                code = sendBytes(encodeRankResult(result), 0, kResultTag, comm);
            }
            result = RankResult();
        }
        MPI_Comm_free(&comm);
        return analysis;
    }
    // Process 0 drains every message even after a failure, so that no sender waits forever.
    std::optional<Error> failure;
    if (!tree) {
        failure = tree.error();
    }
    AnalysisResult merged(tree ? std::move(*tree) : CallTree(), ranks);
    const auto add = [&](RankResult&& result) {
        if (!failure) {
            if (Status added = merged.addRank(std::move(result)); !added) {
                failure = added.error();
            }
        }
    };
    for (RankResult& result : results) {
        add(std::move(result));
        result = RankResult();
    }
    for (int from = 1; from < processes; ++from) {
        auto header = receiveBytes(from, kResultTag, comm);
        uint64_t count = 0;
        if (!header || header->size() != sizeof count) {
            failure =
                failure ? failure : Error("process " + std::to_string(from) + ": results missing");
            continue;
        }
        std::memcpy(&count, header->data(), sizeof count);
        for (uint64_t k = 0; k < count; ++k) {
            auto bytes = receiveBytes(from, kResultTag, comm);
            if (!bytes) {
                failure = failure ? failure : bytes.error();
                continue;
            }
            auto decoded = decodeRankResult(bytes->data(), bytes->size());
            if (!decoded) {
                failure = failure ? failure
                                  : decoded.error().withContext("process " + std::to_string(from));
                continue;
            }
            bytes->clear();
            bytes->shrink_to_fit();
            add(std::move(*decoded));
        }
    }
    MPI_Comm_free(&comm);
    if (failure) {
        return *failure;
    }
    analysis.result = std::move(merged);
    deriveMetrics(*analysis.result);
    if (progress) {
        progress("merging", 100);
    }
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
    std::vector<std::unique_ptr<trace::RankEventWindows>> windows(count);
    std::vector<std::optional<Error>> readErrors(count);
    for (uint32_t k = 0; k < count; ++k) {
        if (options.windowEvents > 0) {
            auto opened = trace::RankEventWindows::open(anchor, analysis.definitions, first + k);
            if (opened) {
                windows[k] = std::move(*opened);
            } else {
                readErrors[k] = opened.error();
            }
            continue;
        }
        auto events = trace::readRankEvents(anchor, analysis.definitions, first + k);
        if (events) {
            streams[k] = std::move(*events);
        } else {
            readErrors[k] = events.error();
        }
    }
    // The lowest local rank whose events could not be read, and its error.
    const auto firstUnread = [&](std::optional<Error>& failure) -> std::optional<uint32_t> {
        for (uint32_t k = 0; k < count; ++k) {
            if (readErrors[k]) {
                failure = *readErrors[k];
                return first + k;
            }
        }
        return std::nullopt;
    };
    // The windowed replay's steps need every rank: a rank that cannot be opened stops all.
    if (options.windowEvents > 0) {
        std::optional<Error> unreadable;
        const std::optional<uint32_t> unread = firstUnread(unreadable);
        if (auto failure = agreedFailure(unreadable, unread)) {
            world.value().reset(); // frees its communicator while every process is here
            return *failure;
        }
    }
    if (progress) {
        progress("reading", 100);
    }
    if (options.instanceSpill != nullptr) {
        options.instanceSpill->shareAmong(count);
    }
    std::vector<std::optional<RankResult>> results(count);
    std::vector<std::optional<Error>> errors(count);
    std::vector<std::thread> threads;
    for (uint32_t k = 0; k < count; ++k) {
        threads.emplace_back([&, k] {
            trace::EventStream& events = streams[k];
            // Progress is reported for the first traced rank only (one line per phase).
            const RankInput input{.definitions = analysis.definitions,
                                  .events = readErrors[k] || windows[k] ? nullptr : &events,
                                  .windows = windows[k].get(),
                                  .options = options,
                                  .anchorFile = anchor,
                                  .progress = first + k == 0 ? progress : ProgressCallback(),
                                  .timesDone = [&events] { events.releaseTimes(); },
                                  .eventsDone = [&events] { events = trace::EventStream(); },
                                  // Only this thread writes the rank's entry; read after join.
                                  .readFailed =
                                      [&, k](const Error& error) {
                                          readErrors[k] = error;
                                          (*world)->readFailed(first + k, error);
                                      }};
            auto result = analyzeRank(input, (*world)->endpoint(first + k));
            if (result) {
                results[k] = std::move(*result);
            } else {
                errors[k] = result.error();
                (*world)->fail(first + k, result.error());
            }
            (*world)->finish(first + k);
        });
    }
    for (std::thread& thread : threads) {
        thread.join();
    }
    const Status drained = (*world)->drain();
    std::optional<Error> failure;
    // A read error first (the lowest rank's), then the failure that stopped the others, then
    // any other.
    const std::optional<uint32_t> unread = firstUnread(failure);
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
    if (auto agreed = agreedFailure(failure, unread)) {
        return *agreed;
    }
    std::vector<RankResult> block;
    block.reserve(count);
    for (auto& result : results) {
        block.push_back(std::move(*result));
        result.reset();
    }
    return gatherAndMerge(std::move(analysis), std::move(block), traced, progress);
}

} // namespace

int worstStatus(int status) {
    int worst = 0;
    MPI_Request request = MPI_REQUEST_NULL;
    waitPolitely(MPI_Iallreduce(&status, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &request),
                 request);
    return worst;
}

int awaitAllProcesses() {
    MPI_Request request = MPI_REQUEST_NULL;
    return waitPolitely(MPI_Ibarrier(MPI_COMM_WORLD, &request), request);
}

int awaitRequest(MPI_Request& request) {
    return waitPolitely(request);
}

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
    // Every process checks every process's block alike, so that all fail together before
    // reading events; without timestamp correction a block that does not fit whole is read in
    // windows instead.
    ReplayOptions replay = options;
    const std::string refusal = windowedReplayRefusal(analysis.definitions);
    const bool windowable = !options.correction && refusal.empty();
    if (options.windowEvents > 0 && !windowable) {
        return Error(*anchor + (refusal.empty()
                                    ? ": reading in windows (--window-events) needs no "
                                      "--time-correct"
                                    : ": cannot read in windows (--window-events): " + refusal));
    }
    if (options.memoryLimit > 0) {
        std::vector<std::pair<uint32_t, uint32_t>> blocks;
        for (int p = 0; p < size; ++p) {
            const auto processes = static_cast<uint32_t>(size);
            blocks.emplace_back(firstRankOf(static_cast<uint32_t>(p), processes, traced),
                                firstRankOf(static_cast<uint32_t>(p) + 1, processes, traced));
        }
        // What an observer (the timeline's collector) holds to the end counts too.
        const uint64_t observed = options.observer ? options.observer->heldBytesPerEvent() : 0;
        if (Status fits = checkMemoryBudget(analysis.definitions, *anchor, blocks,
                                            options.memoryLimit, options.rootCause, observed);
            !fits) {
            if (!windowable) {
                return fits.error().withContext(*anchor);
            }
            if (Status windows =
                    checkWindowedMemoryBudget(analysis.definitions, *anchor, blocks,
                                              options.memoryLimit, options.rootCause, observed);
                !windows) {
                return windows.error().withContext(*anchor);
            }
            if (replay.windowEvents == 0) {
                uint32_t widest = 1;
                for (const auto& [first, end] : blocks) {
                    widest = std::max(widest, end - first);
                }
                replay.windowEvents =
                    windowEventsFor(options.memoryLimit, widest,
                                    windowedHeldBytes(analysis.definitions, *anchor, blocks,
                                                      options.rootCause, observed));
            }
        }
    }
    if (traced > static_cast<uint32_t>(size)) {
        return analyzeCoLocated(std::move(analysis), *anchor, progress, replay);
    }
    if (progress) {
        progress("reading", 0);
    }
    Result<trace::EventStream> events = trace::EventStream();
    std::unique_ptr<trace::RankEventWindows> windows;
    if (replay.windowEvents > 0) {
        auto opened = trace::RankEventWindows::open(*anchor, analysis.definitions,
                                                    static_cast<uint32_t>(rank));
        if (opened) {
            windows = std::move(*opened);
        } else {
            events = opened.error();
        }
        // The windowed replay's steps need every rank: a rank that cannot be opened stops all.
        std::optional<Error> unreadable;
        if (!opened) {
            unreadable = opened.error();
        }
        if (auto failure = agreedFailure(unreadable, static_cast<uint32_t>(rank))) {
            return *failure;
        }
    } else {
        events = trace::readRankEvents(*anchor, analysis.definitions, static_cast<uint32_t>(rank));
    }
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
    std::optional<Error> unread; // this rank's events could not be read
    const RankInput input{.definitions = analysis.definitions,
                          .events = events && !windows ? &*events : nullptr,
                          .windows = windows.get(),
                          .options = replay,
                          .anchorFile = *anchor,
                          .progress = progress,
                          .timesDone = releaseTimes,
                          .eventsDone = releaseEvents,
                          .anyFailed = stopTogether,
                          .readFailed = [&unread](const Error& error) { unread = error; }};
    auto replayed = analyzeRank(input, **transport);
    transport.value().reset(); // frees the mirrored communicators while every rank is here
    // The read error rather than the refusal to replay without events.
    if (!events) {
        unread = events.error();
    }
    std::optional<Error> failure = unread;
    if (!failure && !replayed) {
        failure = replayed.error();
    }
    if (auto agreed = agreedFailure(failure, unread ? std::optional(static_cast<uint32_t>(rank))
                                                    : std::nullopt)) {
        return *agreed;
    }
    std::vector<RankResult> own;
    own.push_back(std::move(*replayed));
    return gatherAndMerge(std::move(analysis), std::move(own), traced, progress);
}

} // namespace waitscope::analysis
