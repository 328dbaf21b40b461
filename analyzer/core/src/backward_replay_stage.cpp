// The backward-replay stage: roles swapped, each receive passes back to the sender the times
// of the call that posted it (MPI_Recv itself, or the MPI_Irecv / MPI_Start of a nonblocking
// receive; one bulk exchange, or bounded steps for a rank read in windows: replay_steps.h),
// and sends find Late Receiver where Scalasca 2.6 looks for it:
// at a blocking MPI_Send or MPI_Ssend, and at the MPI_Wait* that completed a nonblocking send
// (MPI_Wait, MPI_Waitany: each send; MPI_Waitall, MPI_Waitsome: the send that waited longest,
// none when the call also had a Late Sender; never at MPI_Test*). For the root-cause stages
// each end of a message also learns whether the other waited for it (PartnerCall), and the
// delay analysis gets the Late Receiver instances, then merges the synchronization points of
// both replays. A Late Receiver's synchronization points are where Scalasca 2.6 puts them: on
// the sender the call that completed the send (the send itself when blocking), on the receiver
// the call that posted the receive; a nonblocking send tells its receiver how its completion
// went in a second exchange.
#include "rank_state.h"
#include "replay_steps.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <utility>

namespace waitscope::analysis {
namespace {

using trace::EventKind;

// Whether a blocking send in [sendEnter, sendExit] waited for a receive posted at
// `receiveEnter` (a synchronization point of the delay pass); both ends of the message
// compute it alike.
bool synchronizes(double sendEnter, double sendExit, double receiveEnter) {
    return lateReceiverWait(sendEnter, sendExit, receiveEnter) > 0.0;
}

// A Late Receiver instance of this rank: the operation completing the send, its call, the
// waiting, its completion time (never positive: the send's leave after its receive request's,
// as Scalasca 2.6 has it) and the receive's record.
struct LateReceiverPoint {
    uint32_t operation = 0;
    double wait = 0.0;
    double completion = 0.0;
    ReplayRecord receive;
};

// The longest Late Receiver among the nonblocking sends an MPI_Waitall / MPI_Waitsome
// completed.
struct MultiWait {
    LateReceiverPoint point;
    uint64_t length = 0;
};

// The receive's times for its sender: when it was posted (the enter of the call that posted
// it; of MPI_Recv's own call when it is replayed at its probe: RankState::postedEnter), and the
// exit of the call that completed it when the receive waited for the send (a Late Sender: the
// sender's completion time), else the exit of the call that posted it (a Late Receiver's completion
// time); with the span of the posting call, where the critical path lands on this rank from a Late
// Receiver.
Status postReceive(RankState& state, ReplaySteps& steps, const ReplayOperation& op, uint32_t k) {
    const trace::EventStream& events = *state.events;
    const EventKind kind = events.kind(op.event);
    if (kind != EventKind::MpiRecv && kind != EventKind::MpiIrecv) {
        return Status::success();
    }
    const uint32_t request = state.operations[state.requestOf(k)].span;
    const CallSpan& posted = state.spans[request];
    const bool waited = state.rootCause && (state.partnerWaited[k] & RankState::kWaitedHere) != 0;
    const trace::MessageRecord& m = events.message(op.event);
    const PartnerCall call{request, false, waited};
    return steps.send(m.comm, m.partner, m.tag,
                      ReplayRecord{state.postedEnter(k),
                                   waited ? state.spans[op.span].exit : posted.exit,
                                   call.encode()});
}

// Root-cause stages: every nonblocking send tells its receiver when the call that completed it
// ran and whether it waited there (a Late Receiver); the receiver's request is then the
// partner's synchronization point, with the completion's times (a second exchange: only the
// sender knows which of the sends an MPI_Waitall waited for).
Status tellNonblockingReceivers(RankState& state, Transport& transport) {
    const trace::EventStream& events = *state.events;
    ReplaySteps steps(state, transport, replayStepOperations(state));
    const auto post = [&](const ReplayOperation& op, uint32_t k) -> Status {
        if (events.kind(op.event) != EventKind::MpiIsend) {
            return Status::success();
        }
        const uint32_t completion = state.pairedOf[k];
        const uint32_t at = completion != RankState::kNoOperation ? completion : k;
        const CallSpan& call = state.spans[state.operations[at].span];
        const bool waited = (state.partnerWaited[at] & RankState::kWaitedHere) != 0;
        const trace::MessageRecord& m = events.message(op.event);
        return steps.send(
            m.comm, m.partner, m.tag,
            ReplayRecord{call.enter, call.exit,
                         PartnerCall{state.operations[at].span, true, waited}.encode()});
    };
    // The receives of nonblocking sends (as the forward replay learnt) get a record.
    const auto told = [&](const ReplayOperation& op, uint32_t k) {
        const EventKind kind = events.kind(op.event);
        return (kind == EventKind::MpiRecv || kind == EventKind::MpiIrecv) &&
               PartnerCall::decode(state.partners.read(k).info).nonblocking;
    };
    const auto needs = [&](const ReplayOperation& op, uint32_t k) {
        if (!told(op, k)) {
            return ReplaySteps::Need::nothing();
        }
        const trace::MessageRecord& m = events.message(op.event);
        return ReplaySteps::Need::record(m.comm, m.partner, m.tag);
    };
    const auto consume = [&](const ReplayOperation& op, uint32_t k) -> Status {
        if (!told(op, k)) {
            return Status::success();
        }
        const trace::MessageRecord& m = events.message(op.event);
        auto record = steps.receive(m.comm, m.partner, m.tag);
        if (!record) {
            return record.error();
        }
        if (PartnerCall::decode(record->info).waited) {
            const uint32_t request = state.requestOf(k);
            state.partnerWaited[request] |= RankState::kPartnerWaited;
            state.partners.write(request, *record);
        }
        return Status::success();
    };
    return steps.run(post, needs, consume);
}

} // namespace

Status backwardReplayStage(RankState& state, Transport& transport) {
    const trace::EventStream& events = *state.events;
    // Receivers tell senders when their receive started (roles swapped).
    const size_t total = state.operations.size();
    state.report("backward replay", 0, total);
    ReplaySteps steps(state, transport, replayStepOperations(state));
    const auto post = [&state, &steps](const ReplayOperation& op, uint32_t k) {
        return postReceive(state, steps, op, k);
    };
    const auto needs = [&events](const ReplayOperation& op, uint32_t /*k*/) {
        const EventKind kind = events.kind(op.event);
        if (kind != EventKind::MpiSend && kind != EventKind::MpiIsend) {
            return ReplaySteps::Need::nothing();
        }
        const trace::MessageRecord& m = events.message(op.event);
        return ReplaySteps::Need::record(m.comm, m.partner, m.tag);
    };
    std::vector<LateReceiverPoint> points;
    std::map<uint32_t, MultiWait> multiWaits; // by span of the completing call
    const auto consume = [&](const ReplayOperation& op, uint32_t k) -> Status {
        const EventKind kind = events.kind(op.event);
        if (kind == EventKind::MpiSend || kind == EventKind::MpiIsend) {
            const trace::MessageRecord& m = events.message(op.event);
            auto record = steps.receive(m.comm, m.partner, m.tag);
            if (!record) {
                return record.error();
            }
            const CallSpan& span = state.spans[op.span];
            if (state.rootCause) {
                state.partners.writeBackward(k, *record);
                if (PartnerCall::decode(record->info).waited) {
                    state.partnerWaited[k] |= RankState::kPartnerWaited;
                }
            }
            const uint32_t completion = state.pairedOf[k];
            if (state.canWaitForReceiver(op)) {
                const double wait = detectLateReceiver(span, *record, m.length, state.sink);
                if (wait > 0.0) {
                    points.push_back({k, wait, std::min(0.0, span.exit - record->exit), *record});
                }
            } else if (kind == EventKind::MpiIsend && completion != RankState::kNoOperation) {
                const uint32_t callSpan = state.operations[completion].span;
                const CallSpan& call = state.spans[callSpan];
                const std::string_view name = state.nameOfNode(call.node);
                if (name == "MPI_Wait" || name == "MPI_Waitany") {
                    const double wait = detectLateReceiver(call, *record, m.length, state.sink);
                    if (wait > 0.0) {
                        points.push_back(
                            {completion, wait, std::min(0.0, call.exit - record->exit), *record});
                    }
                } else if (name == "MPI_Waitall" || name == "MPI_Waitsome") {
                    const double wait = lateReceiverWait(call.enter, call.exit, record->enter);
                    // Ties: the later send (Scalasca 2.6 visits them backward).
                    MultiWait& longest = multiWaits[callSpan];
                    if (wait > 0.0 && wait >= longest.point.wait) {
                        longest = MultiWait{
                            {completion, wait, std::min(0.0, call.exit - record->exit), *record},
                            m.length};
                    }
                }
            }
        } else if (state.rootCause && (kind == EventKind::MpiRecv || kind == EventKind::MpiIrecv)) {
            // Whether a blocking sender waited here for this receive, as it finds itself (a
            // nonblocking sender tells, below).
            const ReplayRecord send = state.partners.read(k);
            const PartnerCall sender = PartnerCall::decode(send.info);
            const uint32_t request = state.requestOf(k);
            // A receive that waited itself (a Late Sender at its probe) is that wait state's
            // only synchronization point (see below).
            if (!sender.nonblocking && sender.canWaitForReceiver &&
                (state.partnerWaited[k] & RankState::kWaitedHere) == 0 &&
                synchronizes(send.enter, send.exit, state.postedEnter(k))) {
                state.partnerWaited[request] |= RankState::kPartnerWaited;
                state.partners.write(request, send);
            }
        }
        return Status::success();
    };
    if (Status s = steps.run(post, needs, consume); !s) {
        return s;
    }
    state.report("backward replay", total / 2, total);
    // One instance per MPI_Waitall / MPI_Waitsome, none where it also had a Late Sender.
    for (const auto& [callSpan, w] : multiWaits) {
        const CallSpan& call = state.spans[callSpan];
        if (w.point.wait > 0.0 && state.lateSenderIn[callSpan] == 0) {
            state.sink.record(Metric::MpiLateReceiver, call, w.point.wait);
            state.sink.add(w.length > 0 ? Metric::MpiClrCount : Metric::MpiSlrCount, call, 1.0);
            points.push_back(w.point);
        }
    }
    // Read for the last time: its memory is wanted by the passes after this one.
    std::vector<uint8_t>().swap(state.lateSenderIn);
    if (state.delay) {
        std::sort(points.begin(), points.end(),
                  [](const LateReceiverPoint& a, const LateReceiverPoint& b) {
                      return a.operation < b.operation;
                  });
        for (const LateReceiverPoint& p : points) {
            // A message whose receive waited for it as well (a Late Sender at the probe, with
            // the Late Receiver measured to the receive's own call): the root-cause passes see
            // its Late Sender only, one wait state per message.
            if (PartnerCall::decode(p.receive.info).waited) {
                continue;
            }
            const CallSpan& call = state.spans[state.operations[p.operation].span];
            state.delay->onLateReceiver(p.operation, call, p.wait, p.completion);
            state.partners.write(p.operation, p.receive);
            state.partnerWaited[p.operation] |= RankState::kWaitedHere;
        }
        if (Status s = tellNonblockingReceivers(state, transport); !s) {
            return s;
        }
        state.delay->replaysDone();
        // Written for the last time: the later passes read them in order, from the scratch
        // file's blocks when the rank has one.
        state.partnerCalls = state.partners.finish();
    }
    state.report("backward replay", total, total);
    return Status::success();
}

} // namespace waitscope::analysis
