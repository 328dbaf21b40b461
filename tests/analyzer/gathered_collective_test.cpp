// The reductions a gathered collective computes once for all its members equal those found
// member by member: latest enter (lowest rank on ties), earliest exit, the latest enter but
// one member's, the latest enter below a member, and the members before a root.
#include "waitscope/analysis/gathered_collective.h"

#include <catch2/catch.hpp>
#include <limits>
#include <thread>

using waitscope::analysis::GatheredCollective;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// (enter, exit, span) of four members: member 1 and 3 enter last together, member 2 leaves first.
GatheredCollective fourMembers() {
    return GatheredCollective({1.0, 9.0, 10.0, 5.0, 8.0, 11.0, 2.0, 6.0, 12.0, 5.0, 7.0, 13.0}, 3);
}

} // namespace

TEST_CASE("a gathered collective finds the latest enter, its member and the earliest exit") {
    const GatheredCollective all = fourMembers();
    CHECK(all.members() == 4);
    CHECK(all.width() == 3);
    CHECK(all.maxEnter() == 5.0);
    CHECK(all.latest() == 1); // the lowest of the two that entered at 5
    CHECK(all.entersAtMax() == 2);
    CHECK(all.minExit() == 6.0);
    CHECK(all.valueOf(3, 2) == 13.0);
}

TEST_CASE("a gathered collective gives the latest enter without one member and below a member") {
    const GatheredCollective all = fourMembers();
    CHECK(all.maxEnterExcept(1) == 5.0); // member 3 entered at 5 too
    CHECK(all.maxEnterExcept(0) == 5.0);
    const GatheredCollective single({3.0, 4.0, 1.0, 2.0}, 2);
    CHECK(single.latest() == 0);
    CHECK(single.maxEnterExcept(0) == 1.0);
    CHECK(single.maxEnterExcept(1) == 3.0);
    CHECK(all.maxEnterBelow(0) == -kInf);
    CHECK(all.maxEnterBelow(1) == 1.0);
    CHECK(all.maxEnterBelow(2) == 5.0);
    CHECK(all.maxEnterBelow(3) == 5.0);
}

TEST_CASE("a gathered collective counts the members that entered before a root") {
    const GatheredCollective all = fourMembers();
    // Root 2 entered at 2: only member 0 (at 1) before it, which left at 9.
    const auto before = all.beforeRoot(2);
    CHECK(before.count == 1);
    CHECK(before.earliestExit == 9.0);
    // Another root asked later is computed anew.
    const auto beforeLast = all.beforeRoot(3);
    CHECK(beforeLast.count == 2);
    CHECK(beforeLast.earliestExit == 6.0);
    CHECK(all.beforeRoot(0).count == 0);
    CHECK(all.beforeRoot(0).earliestExit == kInf);
    CHECK(all.beforeRoot(7).count == 0); // no such member
}

TEST_CASE("members in several threads read the same reductions of one gathered collective") {
    const GatheredCollective all = fourMembers();
    double below[4] = {};
    size_t before[4] = {};
    std::thread threads[4];
    for (uint32_t m = 0; m < 4; ++m) {
        threads[m] = std::thread([&, m] {
            below[m] = all.maxEnterBelow(m);
            before[m] = all.beforeRoot(2).count;
        });
    }
    for (std::thread& thread : threads) {
        thread.join();
    }
    CHECK(below[0] == -kInf);
    CHECK(below[3] == 5.0);
    for (size_t count : before) {
        CHECK(count == 1);
    }
}

TEST_CASE("an empty gathered collective has no latest member") {
    const GatheredCollective none({}, 2);
    CHECK(none.members() == 0);
    CHECK(none.latest() == 0);
    CHECK(none.maxEnter() == -kInf);
    CHECK(none.minExit() == kInf);
}
