// The root-cause pass's ledger retires the entries the backward walk has passed: their costs
// are freed, and their propagating shares go on in the order of their first cost, in memory or
// in blocks of a scratch file, which the classification sums in that order.
#include "delay_ledger.h"
#include "waitscope/trace/definitions.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <vector>

using namespace waitscope;
using namespace waitscope::analysis;
using namespace waitscope::analysis::delay;

namespace {

SyncPoint pointOf(uint32_t operation, Role role, NodeId node, double wait) {
    SyncPoint sp;
    sp.operation = operation;
    sp.role = role;
    sp.node = node;
    sp.wait = wait;
    return sp;
}

// Keeps `points` and makes a ledger over them with `nodes` call paths: both in memory (`blocks`
// 0) or in blocks of `blocks` entries of `file`, opened here.
Ledger keptLedger(SyncPoints& points, size_t nodes, size_t blocks, ScratchFile& file) {
    if (blocks > 0) {
        REQUIRE(file.open(std::filesystem::temp_directory_path().string(), ".waitscope-test",
                          "the test"));
    }
    points.keep(blocks > 0 ? &file : nullptr, blocks);
    Ledger ledger(points, nodes);
    if (blocks > 0) {
        ledger.spillTo(&file, blocks);
    }
    return ledger;
}

} // namespace

TEST_CASE("the ledger retires what the walk passed, and keeps the first-cost order", "[delay]") {
    const size_t blocks = GENERATE(0, 1, 2, 1000); // 0: in memory
    INFO("block entries " << blocks);
    trace::Definitions definitions;
    SyncPoints points(definitions, 2);
    // SP k at operation k. SP 2 and SP 5 are the wait states whose shares count; SP 4 is the
    // delayer's side of one (its share does not), SP 6 takes on costs but propagates nothing.
    const Role roles[8] = {Role::Group,        Role::LateSender,   Role::LateSender, Role::Group,
                           Role::SenderOfLate, Role::LateReceiver, Role::LateSender, Role::Group};
    for (uint32_t k = 0; k < 8; ++k) {
        points.push(pointOf(k, roles[k], k + 1, 1.0));
    }
    ScratchFile file;
    Ledger ledger = keptLedger(points, 9, blocks, file);

    // The walk at SP 7: first costs for SPs 2, 5 and 6 (in that order, not in SP order).
    ledger.addCost(2, kLateSender, 1.0);
    ledger.addCost(5, kLateSender, 2.0);
    ledger.addCost(6, kBarrier, 0.5);
    ledger.propagate(5, 0.25);
    ledger.propagate(2, 0.5);
    ledger.retireAbove(6);
    CHECK(ledger.liveEntries() == 3);
    // At SP 6: its costs are read before it retires; SP 4 takes on its first cost.
    CHECK(ledger.costsOf(6)[kBarrier] == 0.5);
    ledger.addCost(4, kLateReceiver, 3.0);
    ledger.propagate(4, 0.75);
    ledger.addCost(5, kLateSender, 1.0);
    ledger.propagate(5, 0.125); // less than before: the larger share stays
    ledger.retireAbove(5);
    // SP 6 retired, but behind SP 2's and SP 5's entries of earlier first cost.
    CHECK(ledger.liveEntries() == 4);
    CHECK(ledger.retired().empty());
    // At SP 5 and SP 4.
    CHECK(ledger.costsOf(5)[kLateSender] == 3.0);
    ledger.retireAbove(4);
    CHECK(ledger.costsOf(4)[kLateReceiver] == 3.0);
    ledger.retireAbove(3);
    CHECK(ledger.liveEntries() == 4);
    CHECK(ledger.retired().empty());
    // At SP 2: every entry behind it retires with it.
    CHECK(ledger.costsOf(2)[kLateSender] == 1.0);
    ledger.retireAbove(1);
    CHECK(ledger.liveEntries() == 0);
    const SpilledArray<Ledger::Propagating>& retired = ledger.retired();
    REQUIRE(retired.size() == 2);
    CHECK(retired[0].node == 3);
    CHECK(retired[0].lateReceiver == 0);
    CHECK(retired[0].share == 0.5);
    CHECK(retired[1].node == 6);
    CHECK(retired[1].lateReceiver == 1);
    CHECK(retired[1].share == 0.25);
    ledger.retireAbove(-1);
    CHECK(ledger.retired().size() == 2);

    // The classification splits the waiting by the retired shares.
    SeverityRows rows;
    rows.add(Metric::MpiLateSender, 3, 2.0);
    rows.add(Metric::MpiLateReceiver, 6, 0.125);
    classifyWaitStates(rows, 9, ledger);
    ledger.addSums(rows);
    CHECK(rows.get(Metric::MpiWaitPropagatingLs, 3) == 0.5);
    CHECK(rows.get(Metric::MpiWaitTerminalLs, 3) == 1.5);
    CHECK(rows.get(Metric::MpiWaitPropagatingLr, 6) == 0.125);
    CHECK(rows.get(Metric::MpiWaitTerminalLr, 6) == 0.0);
    CHECK(file.error().empty());
}

TEST_CASE("the ledger's retired shares sum in first-cost order, whatever order they retire in",
          "[delay]") {
    // Shares whose sum depends on the order of the additions (round to nearest, ties to even):
    // t + t + 1 = 1 + 2^-52, but t + 1 + t = 1 for t = 2^-53.
    const size_t blocks = GENERATE(0, 1, 3);
    INFO("block entries " << blocks);
    trace::Definitions definitions;
    SyncPoints points(definitions, 2);
    for (uint32_t k = 0; k < 3; ++k) {
        points.push(pointOf(k, Role::LateSender, 1, 1.0));
    }
    ScratchFile file;
    Ledger ledger = keptLedger(points, 2, blocks, file);
    const double tiny = 0x1p-53;
    // First costs at SPs 0, 2, 1: in SP order, or in the order they retire (2, 1, 0), the sum
    // would be 1.
    ledger.propagate(0, tiny);
    ledger.propagate(2, tiny);
    ledger.propagate(1, 1.0);
    for (int k = 2; k >= -1; --k) {
        ledger.retireAbove(k);
    }
    SeverityRows rows;
    rows.add(Metric::MpiLateSender, 1, 4.0);
    classifyWaitStates(rows, 2, ledger);
    ledger.addSums(rows);
    CHECK(rows.get(Metric::MpiWaitPropagatingLs, 1) == 1.0 + 0x1p-52);
}
