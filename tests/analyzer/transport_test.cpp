// The message-driven exchange of the in-process transport: chains of dependent messages.
#include "tiny_trace.h"
#include "waitscope/analysis/in_process_transport.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <thread>

using namespace waitscope;
using namespace waitscope::analysis;

namespace {

// Runs `body` on every rank of a world of `ranks` threads and returns the per-rank errors.
template <typename Body>
std::vector<std::string> runRanks(const trace::Definitions& defs, uint32_t ranks, Body body) {
    InProcessWorld world(defs, ranks);
    std::vector<std::string> errors(ranks);
    std::vector<std::thread> threads;
    for (uint32_t r = 0; r < ranks; ++r) {
        threads.emplace_back([&, r] {
            Status status = body(world.endpoint(r));
            if (!status) {
                errors[r] = status.error().message();
            }
            world.finish(r);
        });
    }
    for (std::thread& thread : threads) {
        thread.join();
    }
    return errors;
}

} // namespace

TEST_CASE("message-driven exchange: a token travels a ring, each rank adding to what it got") {
    testing::TinyTrace tiny(4);
    std::vector<double> seen(4, 0.0);
    const auto errors = runRanks(tiny.defs, 4, [&](Transport& t) -> Status {
        const uint32_t me = t.rank();
        for (int round = 0; round < 3; ++round) {
            double value = 0.0;
            if (me != 0 || round > 0) {
                std::vector<double> got;
                if (Status s = t.await(0, (me + 3) % 4, 5, got); !s) {
                    return s;
                }
                value = got.at(0);
            }
            if (round == 2 && me == 3) {
                seen[me] = value + 1;
                break;
            }
            if (Status s = t.post(0, (me + 1) % 4, 5, {value + 1}); !s) {
                return s;
            }
            seen[me] = value + 1;
        }
        auto all = t.awaitAll(0, {static_cast<double>(me)});
        if (!all || all->size() != 4 || (*all)[3] != 3.0) {
            return Error("bad awaitAll");
        }
        return t.finishPass();
    });
    for (const auto& error : errors) {
        CHECK(error.empty());
    }
    // Three rounds of four hops: the last rank ends with 12.
    CHECK(seen[3] == 12.0);
    CHECK(seen[0] == 9.0);
}

TEST_CASE("message-driven exchange: waiting for a message nobody sends fails instead of hanging") {
    testing::TinyTrace tiny(2);
    const auto errors = runRanks(tiny.defs, 2, [&](Transport& t) -> Status {
        std::vector<double> got;
        return t.await(0, 1 - t.rank(), 9, got);
    });
    CHECK(errors[0].find("replay stalled waiting for a message from rank 1 with tag 9") !=
          std::string::npos);
}

TEST_CASE(
    "message-driven exchange: a rank that ends without sending fails the rank waiting for it") {
    // Rank 0 starts waiting while rank 1 still runs, so no deadlock yet; rank 1 then ends
    // without sending, and only its finishing can tell rank 0 that nothing will come.
    testing::TinyTrace tiny(3);
    const auto errors = runRanks(tiny.defs, 3, [&](Transport& t) -> Status {
        if (t.rank() == 0) {
            std::vector<double> got;
            return t.await(0, 1, 9, got);
        }
        if (t.rank() == 1) {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        return Status::success();
    });
    CHECK(errors[0].find("replay stalled waiting for a message from rank 1 with tag 9") !=
          std::string::npos);
    CHECK(errors[1].empty());
    CHECK(errors[2].empty());
}

TEST_CASE("message-driven exchange: messages to one rank leave the others' waits alone") {
    // Rank 2 waits in an all-gather of the world while rank 1 sends rank 0 many messages: each
    // wakes rank 0 only, and the all-gather completes once all three arrive.
    testing::TinyTrace tiny(3);
    constexpr int kMessages = 2000;
    double sum = 0.0;
    const auto errors = runRanks(tiny.defs, 3, [&](Transport& t) -> Status {
        const uint32_t me = t.rank();
        if (me == 1) {
            for (int k = 0; k < kMessages; ++k) {
                if (Status s = t.post(0, 0, 4, {static_cast<double>(k)}); !s) {
                    return s;
                }
            }
        } else if (me == 0) {
            std::vector<double> got;
            for (int k = 0; k < kMessages; ++k) {
                if (Status s = t.await(0, 1, 4, got); !s) {
                    return s;
                }
                sum += got.at(0);
            }
        }
        auto all = t.awaitAll(0, {static_cast<double>(me)});
        if (!all || *all != std::vector<double>{0.0, 1.0, 2.0}) {
            return Error("bad awaitAll");
        }
        return t.finishPass();
    });
    for (const auto& error : errors) {
        CHECK(error.empty());
    }
    CHECK(sum == kMessages * (kMessages - 1) / 2.0);
}

TEST_CASE("payload queues: payloads come out per channel in delivery order, also while refilled") {
    PayloadQueues queues;
    // Two channels, interleaved; payload k of channel c is [c, k, k, ...] with k % 5 + 1
    // values. Taking lags delivering, so the queues are compacted while they still hold some.
    const auto payload = [](uint32_t channel, uint32_t k) {
        std::vector<double> p(k % 5 + 1, static_cast<double>(k));
        p[0] = channel;
        return p;
    };
    uint32_t delivered[2] = {0, 0}, taken[2] = {0, 0};
    std::vector<double> got;
    for (uint32_t step = 0; step < 20000; ++step) {
        const uint32_t c = step % 3 == 0 ? 1 : 0;
        const auto p = payload(c, delivered[c]++);
        queues.deliver(0, c, 7, p);
        if (step % 4 != 3) { // take three for every four delivered
            const uint32_t t = step % 2;
            if (queues.has(0, t, 7)) {
                queues.take(0, t, 7, got);
                REQUIRE(got == payload(t, taken[t]++));
            }
        }
    }
    CHECK(queues.pending() == delivered[0] + delivered[1] - taken[0] - taken[1]);
    for (uint32_t c = 0; c < 2; ++c) {
        while (queues.has(0, c, 7)) {
            queues.take(0, c, 7, got);
            REQUIRE(got == payload(c, taken[c]++));
        }
        CHECK(taken[c] == delivered[c]);
    }
    CHECK(queues.pending() == 0);
    CHECK_FALSE(queues.has(0, 0, 8));
}
