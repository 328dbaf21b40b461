// The synchronization points of the root-cause pass as the replays find them: written in blocks
// on a scratch file (the forward replay's and the backward replay's apart, each in operation
// order) and completed in one pass, they give the same list, SP for SP, as when built and
// merged in memory (mergeBackward(), addPartnerPoints(), resolvePartners(), keep()).
#include "delay_sync_points.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <random>

using namespace waitscope;
using namespace waitscope::analysis;
using namespace waitscope::analysis::delay;
using trace::EventKind;

namespace {

// One rank's operations, one event and one call each: sends, receives, nonblocking ones with
// their requests, and collectives, on a communicator of four ranks whose partners this rank
// names by communicator rank.
struct Rank {
    trace::Definitions definitions;
    trace::EventStream events;
    std::vector<ReplayOperation> operations;
    std::vector<CallSpan> spans;
    std::vector<uint32_t> paired;
    SpilledArray<ReplayRecord> partners;
    std::vector<uint8_t> partnerWaited;
};

Rank rankOf(uint32_t count) {
    Rank rank;
    rank.definitions.communicators.push_back(
        trace::Communicator{"world", 0, trace::kUndefined, false, {7, 5, 3, 1}});
    const EventKind kinds[6] = {EventKind::MpiSend,         EventKind::MpiRecv,
                                EventKind::MpiIrecvRequest, EventKind::MpiIrecv,
                                EventKind::MpiIsend,        EventKind::MpiCollectiveEnd};
    std::vector<ReplayRecord> partners;
    for (uint32_t k = 0; k < count; ++k) {
        const EventKind kind = kinds[k % 6];
        if (kind == EventKind::MpiCollectiveEnd) {
            rank.events.appendCollective(k, trace::CollectiveRecord{});
        } else {
            trace::MessageRecord message;
            message.partner = k % 4;
            message.comm = 0;
            message.request = k;
            rank.events.appendMessage(kind, k, message);
        }
        rank.operations.push_back(ReplayOperation{k, k});
        rank.spans.emplace_back(NodeId{k % 9}, k * 1.0, k * 1.0 + 0.75);
        // A nonblocking receive's request and its receive, paired both ways.
        rank.paired.push_back(kind == EventKind::MpiIrecvRequest ? k + 1
                              : kind == EventKind::MpiIrecv      ? k - 1
                                                                 : 0xFFFFFFFFu);
        partners.push_back(ReplayRecord{k * 1.0 - 0.5, k * 1.0 + 0.25 + (k % 3) * 0.25, 0.0});
    }
    rank.partners = SpilledArray<ReplayRecord>(std::move(partners));
    return rank;
}

// The SPs a rank's replays find: the forward replay's (Late Senders at receives, group SPs at
// collectives, now and then a second one at the same collective) and the backward replay's
// (Late Receivers at sends, now and then at a receive the forward replay has an SP at
// already); and where the partners waited. Built in memory (`file` null) or in blocks of
// `blockEntries`; returns the complete SPs and the replays' ones seen before completing.
std::pair<std::vector<SyncPoint>, std::vector<SyncPoint>> built(Rank& rank, ScratchFile* file,
                                                                size_t blockEntries) {
    SyncPoints points(rank.definitions, 8);
    if (file != nullptr) {
        points.buildInBlocks(file, blockEntries);
    }
    points.reserve(rank.operations.size());
    const uint32_t count = static_cast<uint32_t>(rank.operations.size());
    std::mt19937 random(11);
    rank.partnerWaited.assign(count, 0);
    std::vector<uint32_t> backward;
    for (uint32_t k = 0; k < count; ++k) {
        const CallSpan& call = rank.spans[k];
        const EventKind kind = rank.events.kind(k);
        const uint32_t draw = random() % 8;
        if ((kind == EventKind::MpiRecv || kind == EventKind::MpiIrecv) && draw < 3) {
            points.push(SyncPoint::at(k, Role::LateSender, call, 0.125 * draw, 0.0625, 0));
        } else if (kind == EventKind::MpiCollectiveEnd && draw < 5) {
            points.push(SyncPoint::at(k, Role::Group, call, 0.25, 0.125, draw % 2));
            if (draw == 0) {
                points.push(SyncPoint::at(k, Role::Group, call, 0.0, 0.0, 1));
            }
        }
        if ((kind == EventKind::MpiSend && draw % 3 == 0) ||
            (kind == EventKind::MpiRecv && draw == 0)) {
            backward.push_back(k);
        }
        // The partner waited: on some operations where this rank waited too.
        if (random() % 3 == 0) {
            rank.partnerWaited[k] = 1;
        }
    }
    for (const uint32_t k : backward) {
        points.pushBackward(SyncPoint::at(k, Role::LateReceiver, rank.spans[k], 0.5, 0.25, 0));
    }
    points.mergeBackward();
    std::vector<SyncPoint> replays;
    points.forEachBuilt([&](const SyncPoint& sp) { replays.push_back(sp); });
    if (file != nullptr) {
        points.completeInBlocks(rank.operations, rank.spans, rank.events, rank.partners,
                                rank.partnerWaited, 0, count, rank.paired, 2);
    } else {
        points.addPartnerPoints(rank.operations, rank.spans, rank.events, rank.partners,
                                rank.partnerWaited, 0, count);
        points.resolvePartners(rank.operations, rank.paired, rank.events, 2);
        points.keep(nullptr, 0);
    }
    std::vector<SyncPoint> all;
    for (size_t k = 0; k < points.size(); ++k) {
        all.push_back(points[k]);
    }
    return {all, replays};
}

size_t differing(const std::vector<SyncPoint>& a, const std::vector<SyncPoint>& b) {
    size_t differ = 0;
    for (size_t k = 0; k < a.size() && k < b.size(); ++k) {
        const bool same = a[k].operation == b[k].operation && a[k].role == b[k].role &&
                          a[k].partner == b[k].partner && a[k].node == b[k].node &&
                          a[k].wait == b[k].wait && a[k].beforeCompletion == b[k].beforeCompletion;
        differ += same ? 0 : 1;
    }
    return differ + (a.size() > b.size() ? a.size() - b.size() : b.size() - a.size());
}

} // namespace

TEST_CASE("the synchronization points written in blocks merge as when built in memory",
          "[spill][delay]") {
    constexpr uint32_t kOperations = 3000;
    Rank rank = rankOf(kOperations);
    const auto whole = built(rank, nullptr, 0);
    // In operation order, every kind of SP there, and the partners resolved to world ranks.
    REQUIRE(whole.first.size() > whole.second.size());
    size_t partnerPoints = 0;
    size_t lateReceivers = 0;
    for (size_t k = 0; k < whole.first.size(); ++k) {
        const SyncPoint& sp = whole.first[k];
        if (k > 0) {
            REQUIRE(whole.first[k - 1].operation <= sp.operation);
        }
        partnerPoints += sp.role == Role::SenderOfLate || sp.role == Role::ReceiverOfLate ? 1 : 0;
        lateReceivers += sp.role == Role::LateReceiver ? 1 : 0;
        if (sp.role != Role::Group) {
            // Communicator rank (operation mod 4) of the message; a request's is its receive's.
            const uint32_t message = rank.events.kind(sp.operation) == EventKind::MpiIrecvRequest
                                         ? sp.operation + 1
                                         : sp.operation;
            const uint32_t world[4] = {7, 5, 3, 1};
            REQUIRE(sp.partner == world[message % 4]);
        }
    }
    CHECK(partnerPoints > 100);
    CHECK(lateReceivers > 50);
    for (const size_t block : {size_t{1}, size_t{3}, size_t{64}, size_t{5000}}) {
        INFO("blocks of " << block);
        ScratchFile file;
        REQUIRE(file.open(std::filesystem::temp_directory_path().string(), ".waitscope-test",
                          "the test"));
        const auto blocks = built(rank, &file, block);
        REQUIRE(file.error().empty());
        // The replays' SPs merged in the same order before the partners' are added ...
        CHECK(differing(blocks.second, whole.second) == 0);
        // ... and the complete list, SP for SP.
        CHECK(blocks.first.size() == whole.first.size());
        CHECK(differing(blocks.first, whole.first) == 0);
    }
}
