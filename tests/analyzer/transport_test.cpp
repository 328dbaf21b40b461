// The message-driven exchange of the in-process transport: chains of dependent messages.
#include "tiny_trace.h"
#include "waitscope/analysis/in_process_transport.h"

#include <catch2/catch.hpp>
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
                auto got = t.await(0, (me + 3) % 4, 5);
                if (!got) {
                    return got.error();
                }
                value = (*got)[0];
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
        auto got = t.await(0, 1 - t.rank(), 9);
        return got ? Status::success() : Status(got.error());
    });
    CHECK(errors[0].find("replay stalled waiting for a message from rank 1 with tag 9") !=
          std::string::npos);
}
