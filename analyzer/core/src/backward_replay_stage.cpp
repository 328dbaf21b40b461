// The backward-replay stage: roles swapped, each receive passes its call's times back to the
// sender (one bulk exchange), and blocking sends find Late Receiver. For the root-cause stages
// each end of a message also learns whether the other waited for it (PartnerCall), and the
// delay analysis gets its Late Receiver instances, then merges the synchronization points of
// both replays.
#include "rank_state.h"

#include <algorithm>

namespace waitscope::analysis {
namespace {

using trace::EventKind;

// Whether a blocking send in [sendEnter, sendExit] waited for a receive entered at
// `receiveEnter` as a synchronization point of the delay pass: only when the send lasted
// until the receive began (else the message was buffered and the receive cannot delay it).
// Both ends of the message compute it alike.
bool synchronizes(double sendEnter, double sendExit, double receiveEnter) {
    return lateReceiverWait(sendEnter, sendExit, receiveEnter) > 0.0 && receiveEnter <= sendExit;
}

} // namespace

Status backwardReplayStage(RankState& state, Transport& transport) {
    const trace::EventStream& events = *state.events;
    // Receivers tell senders when their receive started (roles swapped).
    const size_t total = state.operations.size();
    state.report("backward replay", 0, total);
    for (const ReplayOperation& op : state.operations) {
        const EventKind kind = events.kind(op.event);
        if (kind == EventKind::MpiRecv || kind == EventKind::MpiIrecv) {
            const CallSpan& span = state.spans[op.span];
            const trace::MessageRecord& m = events.message(op.event);
            const size_t k = state.indexOf(op);
            const PartnerCall call{op.span, false,
                                   state.rootCause &&
                                       state.partnerWaited[k] == RankState::kWaitedHere};
            if (Status s = transport.send(m.comm, m.partner, m.tag,
                                          ReplayRecord{span.enter, span.exit, call.encode()});
                !s) {
                return s;
            }
        }
    }
    if (Status s = transport.exchange(); !s) {
        return s;
    }
    state.report("backward replay", total / 2, total);
    for (const ReplayOperation& op : state.operations) {
        const EventKind kind = events.kind(op.event);
        const size_t k = state.indexOf(op);
        if (kind == EventKind::MpiSend || kind == EventKind::MpiIsend) {
            const trace::MessageRecord& m = events.message(op.event);
            auto record = transport.receive(m.comm, m.partner, m.tag);
            if (!record) {
                return record.error();
            }
            const CallSpan& span = state.spans[op.span];
            if (state.rootCause) {
                state.partners[k] = *record;
                state.partnerWaited[k] = PartnerCall::decode(record->info).waited ? 1 : 0;
            }
            // Only a blocking send can be held up by its receiver.
            if (kind == EventKind::MpiSend) {
                const double wait = detectLateReceiver(span, *record, m.length, state.sink);
                if (state.delay && synchronizes(span.enter, span.exit, record->enter)) {
                    state.delay->onLateReceiver(static_cast<uint32_t>(k), span, wait,
                                                std::max(0.0, span.exit - record->exit));
                }
            }
        } else if (state.rootCause && (kind == EventKind::MpiRecv || kind == EventKind::MpiIrecv)) {
            // Whether the sender waited here for this receive, as it finds itself.
            const ReplayRecord& send = state.partners[k];
            state.partnerWaited[k] =
                !PartnerCall::decode(send.info).nonblocking &&
                        synchronizes(send.enter, send.exit, state.spans[op.span].enter)
                    ? 1
                    : 0;
        }
    }
    if (state.delay) {
        state.delay->replaysDone();
    }
    state.report("backward replay", total, total);
    return Status::success();
}

} // namespace waitscope::analysis
