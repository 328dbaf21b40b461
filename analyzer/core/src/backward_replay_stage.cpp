// The backward-replay stage: roles swapped, each receive passes back to the sender the times
// of the call that posted it (MPI_Recv itself, or the MPI_Irecv / MPI_Start of a nonblocking
// receive; one bulk exchange), and sends find Late Receiver where Scalasca 2.6 looks for it:
// at a blocking MPI_Send or MPI_Ssend, and at the MPI_Wait* that completed a nonblocking send
// (MPI_Wait, MPI_Waitany: each send; MPI_Waitall, MPI_Waitsome: the send that waited longest,
// none when the call also had a Late Sender; never at MPI_Test*). For the root-cause stages
// each end of a message also learns whether the other waited for it (PartnerCall), and the
// delay analysis gets the Late Receiver instances of blocking sends, then merges the
// synchronization points of both replays.
#include "rank_state.h"

#include <algorithm>
#include <map>
#include <string_view>

namespace waitscope::analysis {
namespace {

using trace::EventKind;

constexpr uint32_t kNoCall = 0xFFFFFFFFu;

// Whether a blocking send in [sendEnter, sendExit] waited for a receive entered at
// `receiveEnter` as a synchronization point of the delay pass: only when the send lasted
// until the receive began (else the message was buffered and the receive cannot delay it).
// Both ends of the message compute it alike.
bool synchronizes(double sendEnter, double sendExit, double receiveEnter) {
    return lateReceiverWait(sendEnter, sendExit, receiveEnter) > 0.0 && receiveEnter <= sendExit;
}

// The call that posted receive `op` (k-th operation): for a nonblocking receive the call
// holding its request record, when the trace has one.
const CallSpan& postingCall(const RankState& state, const ReplayOperation& op, size_t k) {
    const uint32_t posted = state.requestCallOf.empty() ? kNoCall : state.requestCallOf[k];
    return posted != kNoCall ? state.requestCalls[posted].call : state.spans[op.span];
}

// The longest Late Receiver among the nonblocking sends an MPI_Waitall / MPI_Waitsome
// completed.
struct MultiWait {
    double wait = 0.0;
    uint64_t length = 0;
};

} // namespace

Status backwardReplayStage(RankState& state, Transport& transport) {
    const trace::EventStream& events = *state.events;
    // Receivers tell senders when their receive started (roles swapped).
    const size_t total = state.operations.size();
    state.report("backward replay", 0, total);
    for (const ReplayOperation& op : state.operations) {
        const EventKind kind = events.kind(op.event);
        if (kind == EventKind::MpiRecv || kind == EventKind::MpiIrecv) {
            const size_t k = state.indexOf(op);
            // The receive began when it was posted; it ended when its call completed.
            const double posted = postingCall(state, op, k).enter;
            const CallSpan& span = state.spans[op.span];
            const trace::MessageRecord& m = events.message(op.event);
            const PartnerCall call{op.span, false,
                                   state.rootCause &&
                                       state.partnerWaited[k] == RankState::kWaitedHere};
            if (Status s = transport.send(m.comm, m.partner, m.tag,
                                          ReplayRecord{posted, span.exit, call.encode()});
                !s) {
                return s;
            }
        }
    }
    if (Status s = transport.exchange(); !s) {
        return s;
    }
    state.report("backward replay", total / 2, total);
    std::map<uint32_t, MultiWait> multiWaits; // by entry in requestCalls
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
            if (state.canWaitForReceiver(op)) {
                const double wait = detectLateReceiver(span, *record, m.length, state.sink);
                // Its completion time is never positive (Scalasca 2.6): the time the send
                // spent after its receive ended opens no delay of the next interval.
                if (state.delay && synchronizes(span.enter, span.exit, record->enter)) {
                    state.delay->onLateReceiver(static_cast<uint32_t>(k), span, wait,
                                                std::min(0.0, span.exit - record->exit));
                }
            } else if (kind == EventKind::MpiIsend && state.requestCallOf[k] != kNoCall) {
                const uint32_t c = state.requestCallOf[k];
                const RequestCall& completion = state.requestCalls[c];
                const std::string_view name = state.nameOfNode(completion.call.node);
                if (name == "MPI_Wait" || name == "MPI_Waitany") {
                    detectLateReceiver(completion.call, *record, m.length, state.sink);
                } else if (name == "MPI_Waitall" || name == "MPI_Waitsome") {
                    const double wait = lateReceiverWait(completion.call.enter,
                                                         completion.call.exit, record->enter);
                    if (wait > 0.0 && wait > multiWaits[c].wait) {
                        multiWaits[c] = MultiWait{wait, m.length};
                    }
                }
            }
        } else if (state.rootCause && (kind == EventKind::MpiRecv || kind == EventKind::MpiIrecv)) {
            // Whether the sender waited here for this receive, as it finds itself.
            const ReplayRecord& send = state.partners[k];
            const PartnerCall sender = PartnerCall::decode(send.info);
            state.partnerWaited[k] =
                sender.canWaitForReceiver &&
                        synchronizes(send.enter, send.exit, postingCall(state, op, k).enter)
                    ? 1
                    : 0;
        }
    }
    // One instance per MPI_Waitall / MPI_Waitsome, none where it also had a Late Sender.
    for (const auto& [c, w] : multiWaits) {
        const RequestCall& call = state.requestCalls[c];
        const bool lateSender = call.span != kNoCall && call.span < state.lateSenderIn.size() &&
                                state.lateSenderIn[call.span] != 0;
        if (!lateSender) {
            state.sink.record(Metric::MpiLateReceiver, call.call, w.wait);
            state.sink.add(w.length > 0 ? Metric::MpiClrCount : Metric::MpiSlrCount, call.call.node,
                           1.0);
        }
    }
    if (state.delay) {
        state.delay->replaysDone();
    }
    state.report("backward replay", total, total);
    return Status::success();
}

} // namespace waitscope::analysis
