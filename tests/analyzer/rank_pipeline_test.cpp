// The analyzer's pipeline: the rank stages behind a driver's hooks, and the derived metrics as
// a stage of their own after the merge.
#include "tiny_trace.h"
#include "waitscope/analysis/derived_metrics.h"
#include "waitscope/analysis/in_process_transport.h"
#include "waitscope/analysis/rank_pipeline.h"

#include <barrier>
#include <catch2/catch.hpp>
#include <functional>
#include <mutex>
#include <numeric>
#include <thread>

using namespace waitscope;
using namespace waitscope::analysis;
using testing::TinyTrace;

namespace {

// What each rank's analyzeRank() returned: its result's Late Sender time, or its error.
struct Outcome {
    std::vector<std::string> errors;    ///< per rank, empty on success
    std::vector<double> lateSender;     ///< per rank
    std::vector<std::vector<bool>> met; ///< per rank: what it told the hook, call by call
};

// Runs analyzeRank() on every rank of `trace` in a thread of its own over the in-process
// transport, as the serial driver does, with the hook `anyFailed` given every rank's view.
Outcome runRanks(const TinyTrace& trace, const ReplayOptions& options,
                 const std::function<bool(uint32_t rank, bool failed)>& anyFailed) {
    const auto ranks = static_cast<uint32_t>(trace.streams().size());
    std::vector<trace::EventStream> streams = trace.streams();
    InProcessWorld world(trace.defs, ranks);
    Outcome outcome{std::vector<std::string>(ranks), std::vector<double>(ranks, 0.0),
                    std::vector<std::vector<bool>>(ranks)};
    std::mutex lock;
    std::vector<std::thread> threads;
    for (uint32_t r = 0; r < ranks; ++r) {
        threads.emplace_back([&, r] {
            const RankInput input{.definitions = trace.defs,
                                  .events = &streams[r],
                                  .options = options,
                                  .anyFailed = [&, r](bool failed) {
                                      {
                                          const std::lock_guard<std::mutex> guard(lock);
                                          outcome.met[r].push_back(failed);
                                      }
                                      return anyFailed(r, failed);
                                  }};
            auto result = analyzeRank(input, world.endpoint(r));
            if (result) {
                const std::vector<double>& row = result->severities.row(Metric::MpiLateSender);
                outcome.lateSender[r] = std::accumulate(row.begin(), row.end(), 0.0);
            } else {
                outcome.errors[r] = result.error().message();
            }
            world.finish(r);
        });
    }
    for (std::thread& thread : threads) {
        thread.join();
    }
    return outcome;
}

// Rank 1 waits 20 ms in MPI_Recv for rank 0's send.
TinyTrace lateSender() {
    TinyTrace t(2);
    t.rank(0).enter(0, "main").send(30, 31, 1, 7).leave(100, "main");
    t.rank(1).enter(0, "main").recv(10, 31, 32, 0, 7).leave(100, "main");
    return t;
}

} // namespace

TEST_CASE("every rank meets the driver's hook after the clock correction and after the replay",
          "[pipeline]") {
    // The hook of a driver that stops all ranks together (as the MPI driver's allreduce does).
    std::barrier meeting(2);
    std::mutex lock;
    bool any = false;
    const auto together = [&](uint32_t, bool failed) {
        {
            const std::lock_guard<std::mutex> guard(lock);
            any = any || failed;
        }
        meeting.arrive_and_wait();
        const std::lock_guard<std::mutex> guard(lock);
        return any;
    };
    ReplayOptions options;
    options.correction = ClockCorrectionOptions{};
    const Outcome ok = runRanks(lateSender(), options, together);
    CHECK(ok.errors == std::vector<std::string>{"", ""});
    CHECK(ok.met == std::vector<std::vector<bool>>{{false, false}, {false, false}});
    CHECK(ok.lateSender[1] == Approx(0.020));

    // A tag mismatch: the consistency check fails on both ranks, which meet once more with it.
    TinyTrace bad(2);
    bad.rank(0).enter(0, "main").send(10, 11, 1, 7).leave(100, "main");
    bad.rank(1).enter(0, "main").recv(10, 11, 12, 0, 8).leave(100, "main");
    const Outcome refused = runRanks(bad, options, together);
    const std::string refusal =
        "rank 1: messages from rank 0 differ in communicator or tag between sender and receiver";
    CHECK(refused.errors == std::vector<std::string>{refusal, refusal});
    CHECK(refused.met == std::vector<std::vector<bool>>{{false, true}, {false, true}});
}

TEST_CASE("a rank that succeeded stops naming itself when the hook reports another's failure",
          "[pipeline]") {
    const auto othersFailed = [](uint32_t, bool) { return true; };
    const Outcome replayed = runRanks(lateSender(), {}, othersFailed);
    CHECK(replayed.errors ==
          std::vector<std::string>{"rank 0: analysis stopped because another rank failed",
                                   "rank 1: analysis stopped because another rank failed"});
    CHECK(replayed.met == std::vector<std::vector<bool>>{{false}, {false}});

    ReplayOptions options;
    options.correction = ClockCorrectionOptions{};
    const Outcome corrected = runRanks(lateSender(), options, othersFailed);
    CHECK(corrected.errors ==
          std::vector<std::string>{"rank 0: clock correction stopped because another rank failed",
                                   "rank 1: clock correction stopped because another rank failed"});
    CHECK(corrected.met == std::vector<std::vector<bool>>{{false}, {false}});
}

TEST_CASE("the merge leaves the derived metrics to the stage after it", "[pipeline]") {
    // One call path: rank 0 computes 3 s, rank 1 1 s.
    const auto ranks = [](double criticalPath) {
        std::vector<RankResult> results(2);
        for (uint32_t r = 0; r < 2; ++r) {
            results[r].rank = r;
            const NodeId main = results[r].tree.child(kNoNode, 0);
            results[r].severities.add(Metric::Time, main, r == 0 ? 3.0 : 1.0);
            results[r].severities.add(Metric::Comp, main, r == 0 ? 3.0 : 1.0);
            results[r].severities.add(Metric::Visits, main, 1);
        }
        results[0].severities.add(Metric::CriticalPath, 0, criticalPath);
        return results;
    };
    AnalysisResult merged = AnalysisResult::merge(ranks(0.0));
    CHECK(merged.total(Metric::ImbalanceAbove) == 0.0);
    CHECK(merged.total(Metric::ImbalanceBelow) == 0.0);
    deriveMetrics(merged);
    // The mean is 2 s: rank 0 is 1 s above it, rank 1 1 s below.
    CHECK(merged.value(Metric::ImbalanceAbove, 0, 0) == 1.0);
    CHECK(merged.value(Metric::ImbalanceBelow, 0, 1) == 1.0);
    // Without a critical path there is no performance impact.
    CHECK(merged.total(Metric::CriticalPathActivities) == 0.0);

    AnalysisResult withPath = AnalysisResult::merge(ranks(3.0));
    CHECK(withPath.total(Metric::CriticalPathActivities) == 0.0);
    deriveMetrics(withPath);
    // min(path, own time) per rank: 3 s on rank 0, 1 s on rank 1.
    CHECK(withPath.value(Metric::CriticalPathActivities, 0, 0) == 3.0);
    CHECK(withPath.value(Metric::CriticalPathActivities, 0, 1) == 1.0);
}
