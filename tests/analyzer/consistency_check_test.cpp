// The consistency check's first step: sums over the ranks of checksums of what each rank
// tallied (tallyAgreement()), which must agree exactly when the tallies match and tell apart
// mismatches that per-rank totals would not see.
#include "consistency_check.h"
#include "waitscope/analysis/in_process_transport.h"

#include <catch2/catch.hpp>
#include <functional>
#include <thread>

using namespace waitscope;
using namespace waitscope::analysis;

namespace {

// Three ranks: the world (communicator 0) and {0, 2} (communicator 1).
trace::Definitions threeRanks() {
    trace::Definitions defs;
    trace::Communicator world;
    world.worldRanks = {0, 1, 2};
    trace::Communicator pair;
    pair.worldRanks = {0, 2};
    defs.communicators = {world, pair};
    return defs;
}

trace::MessageRecord message(uint32_t tag) {
    trace::MessageRecord m;
    m.comm = 0;
    m.tag = tag;
    return m;
}

trace::CollectiveRecord collective(uint32_t comm, trace::CollectiveOp op) {
    trace::CollectiveRecord c;
    c.comm = comm;
    c.op = op;
    return c;
}

// The agreement every rank reached, tallied by `tally(rank, its tally)`, or false when the
// ranks disagree about it (they must not).
bool agreed(const std::function<void(uint32_t, ConsistencyTally&)>& tally, bool* lanes = nullptr) {
    const trace::Definitions defs = threeRanks();
    InProcessWorld world(defs, 3);
    std::vector<TallyAgreement> seen(3);
    std::vector<std::thread> threads;
    for (uint32_t r = 0; r < 3; ++r) {
        threads.emplace_back([&, r] {
            ConsistencyTally mine(3, defs.communicators.size());
            tally(r, mine);
            auto agreement = tallyAgreement(mine, defs, world.endpoint(r), false, r == 1);
            if (agreement) {
                seen[r] = *agreement;
            }
            world.finish(r);
        });
    }
    for (std::thread& thread : threads) {
        thread.join();
    }
    for (const TallyAgreement& a : seen) {
        REQUIRE(a.agree == seen[0].agree);
        REQUIRE(a.lanesAnywhere == seen[0].lanesAnywhere);
    }
    if (lanes != nullptr) {
        *lanes = seen[0].lanesAnywhere;
    }
    return seen[0].agree;
}

// Rank 0 sends rank 1 two messages (tags 5, 6) and rank 2 one (tag 7); all three take part in
// a barrier on the world, ranks 0 and 2 in a broadcast on their pair.
void consistent(uint32_t rank, ConsistencyTally& t) {
    if (rank == 0) {
        t.addMessage(true, message(5), 1);
        t.addMessage(true, message(6), 1);
        t.addMessage(true, message(7), 2);
    } else if (rank == 1) {
        t.addMessage(false, message(6), 0);
        t.addMessage(false, message(5), 0);
    } else {
        t.addMessage(false, message(7), 0);
    }
    t.addCollective(collective(0, trace::CollectiveOp::Barrier), RegionClass::MpiBarrier);
    if (rank != 1) {
        t.addCollective(collective(1, trace::CollectiveOp::Bcast), RegionClass::MpiCollective);
    }
}

} // namespace

TEST_CASE("matching tallies agree in the sums, whatever the order of the messages",
          "[consistency]") {
    bool lanes = false;
    CHECK(agreed(consistent, &lanes));
    CHECK(lanes); // rank 1 said it has replay lanes
}

TEST_CASE("a message missing at its receiver makes the sums disagree", "[consistency]") {
    CHECK_FALSE(agreed([](uint32_t rank, ConsistencyTally& t) {
        if (rank == 2) {
            t.addCollective(collective(0, trace::CollectiveOp::Barrier), RegionClass::MpiBarrier);
            t.addCollective(collective(1, trace::CollectiveOp::Bcast), RegionClass::MpiCollective);
            return; // without rank 0's message
        }
        consistent(rank, t);
    }));
}

TEST_CASE("messages counted at the wrong pair disagree though every rank's totals match",
          "[consistency]") {
    // Rank 0 sends one message to rank 1 and two to rank 2; rank 1 receives two, rank 2 one.
    CHECK_FALSE(agreed([](uint32_t rank, ConsistencyTally& t) {
        if (rank == 0) {
            t.addMessage(true, message(5), 1);
            t.addMessage(true, message(5), 2);
            t.addMessage(true, message(5), 2);
        } else {
            t.addMessage(false, message(5), 0);
            if (rank == 1) {
                t.addMessage(false, message(5), 0);
            }
        }
    }));
}

TEST_CASE("a tag that differs between sender and receiver makes the sums disagree",
          "[consistency]") {
    CHECK_FALSE(agreed([](uint32_t rank, ConsistencyTally& t) {
        if (rank == 0) {
            t.addMessage(true, message(5), 1);
        } else if (rank == 1) {
            t.addMessage(false, message(8), 0);
        }
    }));
}

TEST_CASE("a member without the collectives of its communicator makes the sums disagree",
          "[consistency]") {
    CHECK_FALSE(agreed([](uint32_t rank, ConsistencyTally& t) {
        if (rank != 2) { // rank 2 records no barrier on the world
            t.addCollective(collective(0, trace::CollectiveOp::Barrier), RegionClass::MpiBarrier);
        }
    }));
    CHECK_FALSE(agreed([](uint32_t rank, ConsistencyTally& t) {
        if (rank != 0) { // the first member records none
            t.addCollective(collective(0, trace::CollectiveOp::Barrier), RegionClass::MpiBarrier);
        }
    }));
}

TEST_CASE("members whose collectives differ in operation disagree in the sums", "[consistency]") {
    CHECK_FALSE(agreed([](uint32_t rank, ConsistencyTally& t) {
        t.addCollective(collective(0, rank == 1 ? trace::CollectiveOp::Allreduce
                                                : trace::CollectiveOp::Barrier),
                        RegionClass::MpiCollective);
    }));
}

TEST_CASE("collectives on a communicator the rank is not a member of disagree", "[consistency]") {
    CHECK_FALSE(agreed([](uint32_t rank, ConsistencyTally& t) {
        consistent(rank, t);
        if (rank == 1) {
            t.addCollective(collective(1, trace::CollectiveOp::Bcast), RegionClass::MpiCollective);
        }
    }));
}

TEST_CASE("a partner outside its communicator makes the sums disagree", "[consistency]") {
    CHECK_FALSE(agreed([](uint32_t rank, ConsistencyTally& t) {
        consistent(rank, t);
        if (rank == 2) {
            t.addMessage(true, message(5), 3); // beyond the ranks
        }
    }));
}
