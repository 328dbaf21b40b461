// The forward-replay stage: each send passes its call's times to the receiver on the traced
// communicator and tag, each collective its call's times to all members (posted in bulk, one
// exchange); then, in event order, receives find Late Sender and collectives run their
// pattern on all members' times (no Late Sender at MPI_Test* calls). For the root-cause stages it
// also records what each receive learned of its send (PartnerCall), feeds the delay analysis its
// Late Sender instances and collectives, and records the collectives the critical path can pass
// through.
//
// The exchange is bulk-synchronous: a record holds only its sender's own timestamps, so
// posting them all before consuming any yields what a message-by-message replay yields,
// without waiting on the network per message. A rank read in windows posts and consumes in
// bounded steps instead (replay_steps.h), in the same order: the same report, with a step's
// records in memory instead of the rank's.
#include "clock_condition.h"
#include "collective_shape.h"
#include "late_sender.h"
#include "rank_state.h"
#include "replay_steps.h"
#include "rma_replay.h"

#include <array>

namespace waitscope::analysis {
namespace {

using trace::EventKind;

constexpr uint32_t kNoSpan = 0xFFFFFFFFu;

// Whether the MPI call around `op` is an MPI_Test* call (MPI_Test, MPI_Testany, MPI_Testall,
// MPI_Testsome), which completes only what has already arrived.
bool inTestCall(const RankState& state, const ReplayOperation& op) {
    return state.nameOfNode(state.spans[op.span].node).rfind("MPI_Test", 0) == 0;
}

} // namespace

Status replayCollectivePattern(RankState& state, uint32_t operation, const CallSpan& span,
                               const trace::CollectiveRecord& c, RegionClass cls,
                               std::shared_ptr<const GatheredCollective> gathered) {
    // Held until the next collective, so that co-located members share it meanwhile.
    state.collected = std::move(gathered);
    const uint32_t self = state.commRankOf(c.comm);
    if (state.collected->width() < 2 || self >= state.collected->members()) {
        return Error("rank " + std::to_string(state.result.rank) +
                     ": malformed collective exchange on communicator " + std::to_string(c.comm));
    }
    CollectiveView view{span, state.collected.get(), self, c.root};
    // A collective that moves no data synchronizes no one (Scalasca 2.6): no wait state, no
    // synchronization point, no hand-over of the critical path.
    if (!movesData(c, view.self == c.root)) {
        return Status::success();
    }
    // Timestamps that put the end of a collective before an enter it waits for.
    if (exitPrecedesBindingEnter(c, view)) {
        state.sink.diagnose(experiment::Diagnostic::ClockViolationsCollective);
    }
    if (c.op == trace::CollectiveOp::FileIo) {
        // A collective file operation (the reader's model of the MPI-IO records): no delay
        // analysis or critical-path hand-over of its own.
        detectWaitAtCollectiveIo(view, state.sink);
        return Status::success();
    }
    switch (collectiveShape(c.op)) {
    case CollectiveShape::Barrier:
        detectWaitAtBarrier(view, state.sink);
        break;
    case CollectiveShape::OneToN:
        detectLateBroadcast(view, state.sink);
        break;
    case CollectiveShape::NToOne:
        detectEarlyReduce(view, state.sink);
        break;
    case CollectiveShape::Scan:
        detectEarlyScan(view, false, state.sink);
        break;
    case CollectiveShape::Exscan:
        detectEarlyScan(view, true, state.sink);
        break;
    case CollectiveShape::NToN:
        detectWaitAtNxn(view, state.sink);
        break;
    case CollectiveShape::None:
        // Communicator creation and destruction do not synchronize; only the waiting
        // around MPI_Init and MPI_Finalize is attributed.
        if (cls == RegionClass::MpiInit) {
            detectInitCompletion(view, state.sink);
        } else if (cls == RegionClass::MpiFinalize) {
            detectFinalizeWait(view, state.sink);
        }
        break;
    }
    if (state.delay) {
        state.delay->onCollective(operation, view, cls, c);
    }
    if (state.pathCollectives) {
        state.pathCollectives->record(operation, c, view);
    }
    return Status::success();
}

Status forwardReplayStage(RankState& state, Transport& transport) {
    const trace::EventStream& events = *state.events;
    const size_t total = state.operations.size();
    state.report("forward replay", 0, total);
    // With one-sided records, one exchange (below); without, a rank read in windows exchanges
    // in steps.
    ReplaySteps steps(state, transport, state.rma ? 0 : replayStepOperations(state));
    // Post what the others need: each send's call times, each collective's call times.
    const auto post = [&](const ReplayOperation& op, uint32_t /*k*/) -> Status {
        const EventKind kind = events.kind(op.event);
        const CallSpan& span = state.spans[op.span];
        if (kind == EventKind::MpiSend || kind == EventKind::MpiIsend) {
            const trace::MessageRecord& m = events.message(op.event);
            const PartnerCall call{op.span, kind == EventKind::MpiIsend, false,
                                   state.canWaitForReceiver(op)};
            return steps.send(m.comm, m.partner, m.tag,
                              ReplayRecord{span.enter, span.exit, call.encode()});
        }
        if (kind == EventKind::MpiCollectiveEnd &&
            !state.isSelf(events.collective(op.event).comm)) {
            // The root-cause passes also learn each member's span (the critical path's
            // landing there).
            const uint32_t comm = events.collective(op.event).comm;
            return state.pathCollectives
                       ? steps.contribute(
                             comm, std::array{span.enter, span.exit, static_cast<double>(op.span)})
                       : steps.contribute(comm, std::array{span.enter, span.exit});
        }
        return Status::success();
    };
    const auto needs = [&](const ReplayOperation& op, uint32_t /*k*/) {
        const EventKind kind = events.kind(op.event);
        if (kind == EventKind::MpiRecv || kind == EventKind::MpiIrecv) {
            const trace::MessageRecord& m = events.message(op.event);
            return ReplaySteps::Need::record(m.comm, m.partner, m.tag);
        }
        if (kind == EventKind::MpiCollectiveEnd &&
            !state.isSelf(events.collective(op.event).comm)) {
            return ReplaySteps::Need::collective(events.collective(op.event).comm);
        }
        return ReplaySteps::Need::nothing();
    };
    // Consume in event order: receives find Late Sender, collectives their patterns.
    LateSender::Listener onLateSender;
    if (state.delay) {
        onLateSender = [&state](uint32_t op, double wait, double completion) {
            state.delay->onLateSender(op, state.spans[state.operations[op].span], wait, completion);
            state.partnerWaited[op] |= RankState::kWaitedHere;
        };
    }
    // One Late Sender detection per location: the calls of a location follow each other, and
    // messages of different threads are in no order (no Late Sender / Wrong Order across them).
    std::vector<LateSender> lateSenders(state.lanes.size() + 1,
                                        LateSender(state.sink, onLateSender));
    if (state.rootCause) {
        state.partners.start(total, state.scratch.get(), state.profile.blockEntries());
        state.partnerWaited.assign(total, 0);
    }
    state.lateSenderIn.assign(state.spans.size(), 0);
    std::vector<uint32_t> openRecvSpans(lateSenders.size(), kNoSpan);
    size_t consumed = 0;
    const auto consume = [&](const ReplayOperation& op, uint32_t k) -> Status {
        const EventKind kind = events.kind(op.event);
        const CallSpan& span = state.spans[op.span];
        LateSender& lateSender = lateSenders[span.lane];
        uint32_t& openRecvSpan = openRecvSpans[span.lane];
        if (openRecvSpan != kNoSpan && openRecvSpan != op.span) {
            state.lateSenderIn[openRecvSpan] = lateSender.completeCall() ? 1 : 0;
            openRecvSpan = kNoSpan;
        }
        if (++consumed % 65536 == 0) {
            state.report("forward replay", consumed, total);
        }
        if (kind == EventKind::MpiRecv || kind == EventKind::MpiIrecv) {
            const trace::MessageRecord& m = events.message(op.event);
            auto record = steps.receive(m.comm, m.partner, m.tag);
            if (!record) {
                return record.error();
            }
            if (state.rootCause) {
                state.partners.writeForward(k, *record);
            }
            lateSender.onMessage(span, state.worldRankOf(m.comm, m.partner), *record, m.length, k,
                                 inTestCall(state, op));
            openRecvSpan = op.span;
        } else if (kind == EventKind::MpiCollectiveEnd) {
            const trace::CollectiveRecord& c = events.collective(op.event);
            if (state.isSelf(c.comm)) {
                return Status::success();
            }
            auto gathered = steps.gathered(c.comm);
            if (!gathered) {
                return gathered.error();
            }
            return replayCollectivePattern(state, k, span, c, state.classOf(state.regionOfSpan(op)),
                                           std::move(*gathered));
        }
        return Status::success();
    };
    // One-sided records after all MPI ones (in the one step), so that each communicator's
    // contributions are consumed in the order they were queued.
    const auto postedAll = [&state, &transport]() -> Status {
        return state.rma ? postRmaRecords(state, transport) : Status::success();
    };
    if (Status s = steps.run(post, needs, consume, postedAll); !s) {
        return s;
    }
    for (size_t lane = 0; lane < lateSenders.size(); ++lane) {
        if (openRecvSpans[lane] != kNoSpan) {
            state.lateSenderIn[openRecvSpans[lane]] = lateSenders[lane].completeCall() ? 1 : 0;
        }
    }
    if (state.rma) {
        if (Status s = replayRma(state, transport); !s) {
            return s;
        }
    }
    state.report("forward replay", total, total);
    return Status::success();
}

} // namespace waitscope::analysis
