// The replays' exchanges in bounded steps (replay_steps.h): every record and collective reaches
// its operation in the order the one bulk exchange delivers them, while a rank holds only about
// a step's records (and the skew between the ranks) at a time.
#include "rank_state.h"
#include "replay_steps.h"
#include "waitscope/analysis/in_process_transport.h"

#include <catch2/catch.hpp>
#include <string>
#include <thread>

using namespace waitscope;
using namespace waitscope::analysis;

namespace {

constexpr uint32_t kOperations = 1000;
constexpr uint32_t kSkew = 50; ///< rank 1's operations before its first message

struct Outcome {
    std::string error; ///< the first mismatch or failure, empty when none
    uint32_t received = 0;
    uint32_t collectives = 0;
    uint64_t steps = 0;
    uint64_t peakRecords = 0;
};

// Two ranks on communicator 0. Rank 0's operation i is a collective when i % 10 == 9, else a
// message to rank 1 and one from it; rank 1 has kSkew operations that exchange nothing first,
// then the same with its collectives at i % 10 == 0. Each record carries its sender's message
// count, each contribution its member and collective count, and the consumer checks both.
Outcome replayed(uint32_t rank, Transport& transport, const trace::Definitions& defs,
                 uint64_t stepOperations) {
    ReplayOptions options;
    options.rootCause = false;
    RankInput input{defs};
    input.options = options;
    RankState state(input, transport);
    const uint32_t skew = rank == 1 ? kSkew : 0;
    const uint32_t total = kOperations + skew;
    for (uint32_t i = 0; i < total; ++i) {
        state.operations.push_back(ReplayOperation{i, i});
    }
    enum class Kind { Nothing, Message, Collective };
    const auto kindOf = [rank, skew](uint32_t k) {
        if (k < skew) {
            return Kind::Nothing;
        }
        const uint32_t i = k - skew;
        return i % 10 == (rank == 0 ? 9u : 0u) ? Kind::Collective : Kind::Message;
    };
    const uint32_t partner = 1 - rank;
    Outcome outcome;
    ReplaySteps steps(state, transport, stepOperations);
    uint32_t sent = 0;
    uint32_t contributed = 0;
    const auto post = [&](const ReplayOperation& /*op*/, uint32_t k) -> Status {
        switch (kindOf(k)) {
        case Kind::Message:
            return steps.send(0, partner, 7, ReplayRecord{static_cast<double>(sent++), 0.0, 0.0});
        case Kind::Collective: {
            const double value = rank * 10000.0 + contributed++;
            return steps.contribute(0, std::span<const double>(&value, 1));
        }
        case Kind::Nothing:
            break;
        }
        return Status::success();
    };
    const auto needs = [&](const ReplayOperation& /*op*/, uint32_t k) {
        switch (kindOf(k)) {
        case Kind::Message:
            return ReplaySteps::Need::record(0, partner, 7);
        case Kind::Collective:
            return ReplaySteps::Need::collective(0);
        case Kind::Nothing:
            break;
        }
        return ReplaySteps::Need::nothing();
    };
    const auto consume = [&](const ReplayOperation& /*op*/, uint32_t k) -> Status {
        if (kindOf(k) == Kind::Message) {
            auto record = steps.receive(0, partner, 7);
            if (!record) {
                return record.error();
            }
            if (record->enter != outcome.received && outcome.error.empty()) {
                outcome.error = "rank " + std::to_string(rank) + ": message " +
                                std::to_string(outcome.received) + " got the record of " +
                                std::to_string(record->enter);
            }
            ++outcome.received;
        } else if (kindOf(k) == Kind::Collective) {
            auto gathered = steps.gathered(0);
            if (!gathered) {
                return gathered.error();
            }
            const double k0 = (*gathered)->valueOf(0, 0);
            const double k1 = (*gathered)->valueOf(1, 0);
            if ((k0 != outcome.collectives || k1 != 10000.0 + outcome.collectives) &&
                outcome.error.empty()) {
                outcome.error = "rank " + std::to_string(rank) + ": collective " +
                                std::to_string(outcome.collectives) + " got " + std::to_string(k0) +
                                " and " + std::to_string(k1);
            }
            ++outcome.collectives;
        }
        return Status::success();
    };
    if (Status s = steps.run(post, needs, consume); !s && outcome.error.empty()) {
        outcome.error = s.error().message();
    }
    outcome.steps = steps.steps();
    outcome.peakRecords = steps.peakRecords();
    return outcome;
}

std::vector<Outcome> replayedOnTwoRanks(uint64_t stepOperations) {
    trace::Definitions defs;
    trace::Communicator world;
    world.worldRanks = {0, 1};
    defs.communicators = {world};
    InProcessWorld transports(defs, 2);
    std::vector<Outcome> outcomes(2);
    std::vector<std::thread> threads;
    for (uint32_t r = 0; r < 2; ++r) {
        threads.emplace_back([&, r] {
            outcomes[r] = replayed(r, transports.endpoint(r), defs, stepOperations);
            transports.finish(r);
        });
    }
    for (std::thread& thread : threads) {
        thread.join();
    }
    return outcomes;
}

} // namespace

TEST_CASE("the replays' exchanges in steps deliver what one exchange does, holding a step's "
          "records",
          "[replay][steps]") {
    constexpr uint32_t kMessages = kOperations - kOperations / 10;
    // One exchange: every record of the rank is posted before any is consumed.
    const auto whole = replayedOnTwoRanks(0);
    for (const Outcome& o : whole) {
        CHECK(o.error.empty());
        CHECK(o.received == kMessages);
        CHECK(o.collectives == kOperations / 10);
        CHECK(o.steps == 1);
        CHECK(o.peakRecords == kMessages);
    }
    for (const uint64_t step : {uint64_t{1}, uint64_t{7}, uint64_t{16}, uint64_t{5000}}) {
        INFO("steps of " << step << " operations");
        const auto stepped = replayedOnTwoRanks(step);
        for (const Outcome& o : stepped) {
            INFO(o.error);
            CHECK(o.error.empty());
            CHECK(o.received == kMessages);
            CHECK(o.collectives == kOperations / 10);
            // Rank 1's records arrive up to kSkew operations before rank 1 takes them.
            CHECK(o.peakRecords <= std::min<uint64_t>(kMessages, 2 * step + kSkew));
            CHECK(o.steps >= (kOperations + kSkew) / step);
        }
    }
}
