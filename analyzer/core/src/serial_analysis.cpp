// The serial driver: the rank pipeline (analyzeRank()) in one thread per rank over the
// in-process transport, then the rank-ordered merge and the derived metrics.
#include "waitscope/analysis/serial_analysis.h"

#include "waitscope/analysis/derived_metrics.h"
#include "waitscope/analysis/in_process_transport.h"
#include "waitscope/analysis/memory_budget.h"
#include "waitscope/analysis/rank_pipeline.h"
#include "waitscope/trace/otf2_archive.h"

#include <memory>
#include <optional>
#include <thread>

namespace waitscope::analysis {
namespace {

// Replays `streams` (null: the rank could not be read), first correcting their timestamps
// when `options.correction` is given; then `streams` must be modifiable. With an `anchorFile`
// (not empty), each rank's further threads are read from it and profiled.
Result<AnalysisResult> runThreads(const trace::Definitions& definitions,
                                  const std::vector<trace::EventStream*>& streams,
                                  std::vector<std::optional<Error>> errors,
                                  const ReplayOptions& options, const std::string& anchorFile,
                                  const std::vector<trace::RankEventWindows*>& windows = {}) {
    const auto ranks = static_cast<uint32_t>(streams.size());
    // A rank that could not be read fails the whole analysis with its own error (naming the
    // file and the cause): replaying the others would only add their refusals.
    for (const auto& error : errors) {
        if (error) {
            return *error;
        }
    }
    if (options.instanceSpill != nullptr) {
        options.instanceSpill->shareAmong(ranks);
    }
    InProcessWorld world(definitions, ranks);
    std::vector<std::optional<RankResult>> results(ranks);
    std::vector<std::thread> threads;
    for (uint32_t r = 0; r < ranks; ++r) {
        threads.emplace_back([&, r] {
            // A rank that fails stops alone: finishing its endpoint ends the others' waits.
            const RankInput input{.definitions = definitions,
                                  .events = streams[r],
                                  .windows = windows.empty() ? nullptr : windows[r],
                                  .options = options,
                                  .anchorFile = anchorFile};
            auto result = analyzeRank(input, world.endpoint(r));
            if (result) {
                results[r] = std::move(*result);
            } else if (!errors[r]) {
                errors[r] = result.error();
            }
            world.finish(r);
        });
    }
    for (std::thread& thread : threads) {
        thread.join();
    }
    // The lowest rank's error.
    for (const auto& error : errors) {
        if (error) {
            return *error;
        }
    }
    std::vector<RankResult> ordered;
    ordered.reserve(results.size());
    for (auto& result : results) {
        ordered.push_back(std::move(*result));
    }
    AnalysisResult merged = AnalysisResult::merge(std::move(ordered));
    deriveMetrics(merged);
    return merged;
}

} // namespace

Result<AnalysisResult> analyzeInProcess(const trace::Definitions& definitions,
                                        const std::vector<trace::EventStream>& streams,
                                        const ReplayOptions& options) {
    std::vector<trace::EventStream*> pointers;
    const bool correction = options.correction.has_value();
    // Only a correction writes: it gets copies, the replay alone reads the caller's streams.
    std::vector<trace::EventStream> copies;
    if (correction) {
        copies = streams;
    }
    for (size_t r = 0; r < streams.size(); ++r) {
        pointers.push_back(correction ? &copies[r] : const_cast<trace::EventStream*>(&streams[r]));
    }
    return runThreads(definitions, pointers, std::vector<std::optional<Error>>(streams.size()),
                      options, {});
}

Result<AnalysisResult> analyzeArchiveInProcess(const std::string& path,
                                               const ReplayOptions& options) {
    auto anchor = trace::findAnchorFile(path);
    if (!anchor) {
        return anchor.error();
    }
    auto definitions = trace::readDefinitions(*anchor);
    if (!definitions) {
        return definitions.error();
    }
    const uint32_t ranks = definitions->rankCount();
    if (ranks == 0) {
        return Error(*anchor + ": the trace defines no mpi ranks");
    }
    // Every rank is a thread of this one process; without timestamp correction a process that
    // cannot hold its ranks whole reads them in windows.
    ReplayOptions replay = options;
    const std::string refusal = windowedReplayRefusal(*definitions);
    const bool windowable = !options.correction && refusal.empty();
    if (options.windowEvents > 0 && !windowable) {
        return Error(*anchor + (refusal.empty()
                                    ? ": reading in windows (--window-events) needs no "
                                      "--time-correct"
                                    : ": cannot read in windows (--window-events): " + refusal));
    }
    bool windowed = options.windowEvents > 0;
    // What an observer (the timeline's collector) holds to the end counts too.
    const uint64_t observed = options.observer ? options.observer->heldBytesPerEvent() : 0;
    if (options.memoryLimit > 0) {
        if (Status fits = checkMemoryBudget(*definitions, *anchor, {{0, ranks}},
                                            options.memoryLimit, options.rootCause, observed);
            !fits) {
            if (!windowable) {
                return fits.error().withContext(*anchor);
            }
            if (Status windows =
                    checkWindowedMemoryBudget(*definitions, *anchor, {{0, ranks}},
                                              options.memoryLimit, options.rootCause, observed);
                !windows) {
                return windows.error().withContext(*anchor);
            }
            windowed = true;
        }
    }
    if (windowed) {
        if (replay.windowEvents == 0) {
            replay.windowEvents =
                windowEventsFor(options.memoryLimit, ranks,
                                windowedHeldBytes(*definitions, *anchor, {{0, ranks}},
                                                  options.rootCause, observed));
        }
        std::vector<std::unique_ptr<trace::RankEventWindows>> owned(ranks);
        std::vector<trace::RankEventWindows*> windows(ranks, nullptr);
        for (uint32_t r = 0; r < ranks; ++r) {
            auto opened = trace::RankEventWindows::open(*anchor, *definitions, r);
            if (!opened) {
                return opened.error();
            }
            owned[r] = std::move(*opened);
            windows[r] = owned[r].get();
        }
        return runThreads(*definitions, std::vector<trace::EventStream*>(ranks, nullptr),
                          std::vector<std::optional<Error>>(ranks), replay, *anchor, windows);
    }
    std::vector<trace::EventStream> streams(ranks);
    std::vector<trace::EventStream*> pointers(ranks, nullptr);
    std::vector<std::optional<Error>> errors(ranks);
    for (uint32_t r = 0; r < ranks; ++r) {
        auto events = trace::readRankEvents(*anchor, *definitions, r);
        if (events) {
            streams[r] = std::move(*events);
            pointers[r] = &streams[r];
        } else {
            errors[r] = events.error();
        }
    }
    return runThreads(*definitions, pointers, std::move(errors), options, *anchor);
}

} // namespace waitscope::analysis
