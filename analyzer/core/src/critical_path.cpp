// The critical path: the chain of activities, across ranks, that the end of the run waited for.
//
// Overview (Böhme et al., "Scalable critical-path based performance analysis", IPDPS 2012, as
// Scalasca computes it). The path is traced backwards in time; one rank holds it at a time:
//
//   rank 0  ..busy......|send|..........                   path: rank 1 from the end back to
//   rank 1  ..|recv  waiting   |..busy..|  <- end           the receive's wait, then rank 0
//                        ^ the path jumps to the sender     from the send's enter backwards.
//
//   - It starts on the rank that entered MPI_Finalize last, at that enter (without a traced
//     MPI_Finalize: the rank whose last event is latest, at that event).
//   - Walking back on the holder, all time is on the path (charged as critical_path to the call
//     path it was spent on), except the waiting the holder did for others:
//       Late Sender:  at a receive completed after the latest sender entered its send later
//                     than the receive began, the holder keeps [send enter, receive exit] and
//                     the path moves to the sender at its send's enter.
//       Late Receiver: at a blocking send still running when its receive began, the holder
//                     keeps [receive enter, send exit]; the path moves to the receiver.
//       barrier, n-to-n, scan: the holder keeps [last enter, own exit]; the path moves to the
//                     member that entered last (lowest rank on ties), at its enter.
//       1-to-n:       a non-root holder that entered before the root keeps [root enter, exit];
//                     the path moves to the root.
//       n-to-1:       the root, when it entered before the last member, keeps
//                     [last enter, exit]; the path moves to that member.
//     Communicator creation and destruction (MPI_Init, MPI_Comm_dup, ...) do not synchronize.
//   - It ends at the enter of MPI_Init: the time before it is start-up of the measurement.
// The pass is sequential across ranks by nature, so it runs as a message-driven replay
// backwards. A bulk exchange first tells both ends of each message the other's call enter and
// all members of each collective every member's enter, so everyone knows where the path may
// move; then only those that may receive it wait: a receiver of a Late Sender message posts
// to its sender whether the path moves to it and the sender awaits that (the other way round
// for a Late Receiver); at a collective the members post to the member the holder would wait
// for, which awaits them. Time outside the communicating MPI calls comes from the gap profile
// recorded in the profile pass (see GapProfile for its memory).
#include "critical_path.h"

#include "waitscope/analysis/region_class.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace waitscope::analysis {

void GapProfile::charge(NodeId node, double seconds) {
    if (m_inSpan) {
        return;
    }
    if (node >= m_slot.size()) {
        m_slot.resize(node + 1, 0);
        m_slotGap.resize(node + 1, 0);
    }
    const auto gap = static_cast<uint32_t>(m_begin.size());
    if (m_slotGap[node] == gap) {
        m_seconds[m_slot[node]] += seconds;
        return;
    }
    m_slotGap[node] = gap;
    m_slot[node] = static_cast<uint32_t>(m_nodes.size());
    m_nodes.push_back(node);
    m_seconds.push_back(seconds);
}

void GapProfile::openSpan() {
    m_begin.push_back(static_cast<uint32_t>(m_nodes.size()));
    m_inSpan = true;
}

namespace {

using trace::EventKind;

enum class Sync : uint8_t { None, LastEnter, Root, RootWaits };

Sync syncOf(trace::CollectiveOp op) {
    using Op = trace::CollectiveOp;
    switch (op) {
    case Op::Barrier:
    case Op::Allgather:
    case Op::Allgatherv:
    case Op::Alltoall:
    case Op::Alltoallv:
    case Op::Alltoallw:
    case Op::Allreduce:
    case Op::ReduceScatter:
    case Op::ReduceScatterBlock:
    case Op::Scan:
    case Op::Exscan:
        return Sync::LastEnter;
    case Op::Bcast:
    case Op::Scatter:
    case Op::Scatterv:
        return Sync::Root;
    case Op::Reduce:
    case Op::Gather:
    case Op::Gatherv:
        return Sync::RootWaits;
    default:
        return Sync::None;
    }
}

class CriticalPathPass {
public:
    CriticalPathPass(const CriticalPathInput& input, Transport& transport, PatternSink& sink)
        : m_in(input), m_transport(transport), m_sink(sink) {}

    Status run() {
        if (Status s = learnPartnerEnters(); !s) {
            return s;
        }
        const size_t spans = m_in.spans.size();
        const bool finalize = spans > 0 && classOfSpan(spans - 1) == RegionClass::MpiFinalize;
        const bool init = spans > 0 && classOfSpan(0) == RegionClass::MpiInit;
        const double start = finalize ? m_in.spans[spans - 1].enter : m_in.gaps.end();
        auto starts = m_transport.awaitAll(kWorldComm, {start});
        if (!starts) {
            return starts.error();
        }
        const size_t first = std::max_element(starts->begin(), starts->end()) - starts->begin();
        m_holder = first == m_transport.rank();
        // Gaps before MPI_Init and everything from MPI_Finalize on are off the path.
        const size_t firstGap = init ? 1 : 0;
        size_t s = finalize ? spans - 1 : spans;
        chargeGap(s, firstGap);
        size_t opEnd = m_in.operations.size();
        while (s-- > 0) {
            while (opEnd > 0 && m_in.operations[opEnd - 1].span > s) {
                --opEnd; // the operations of MPI_Finalize, off the path
            }
            size_t opBegin = opEnd;
            while (opBegin > 0 && m_in.operations[opBegin - 1].span == s) {
                --opBegin;
            }
            if (Status st = replaySpan(s, opBegin, opEnd); !st) {
                return st;
            }
            opEnd = opBegin;
            chargeGap(s, firstGap);
        }
        return m_transport.finishPass();
    }

private:
    RegionClass classOfSpan(size_t s) const {
        const uint32_t region = m_in.tree.node(m_in.spans[s].node).region;
        return region < m_in.definitions.regions.size()
                   ? classifyRegion(m_in.definitions.regions[region])
                   : RegionClass::Computation;
    }

    bool isSelf(uint32_t comm) const {
        return comm < m_in.definitions.communicators.size() &&
               m_in.definitions.communicators[comm].isSelf;
    }

    uint32_t commRankOf(uint32_t comm) const {
        if (comm < m_in.definitions.communicators.size()) {
            const auto& ranks = m_in.definitions.communicators[comm].worldRanks;
            const auto it = std::find(ranks.begin(), ranks.end(), m_transport.rank());
            if (it != ranks.end()) {
                return static_cast<uint32_t>(it - ranks.begin());
            }
        }
        return 0;
    }

    static bool isSend(EventKind kind) {
        return kind == EventKind::MpiSend || kind == EventKind::MpiIsend;
    }
    static bool isReceive(EventKind kind) {
        return kind == EventKind::MpiRecv || kind == EventKind::MpiIrecv;
    }

    // Both ends of each message learn the other's call enter in one bulk exchange: senders
    // tell receivers, receivers tell senders (under the tag with the high bit set, which no
    // MPI tag has). With both, each end knows whether the message is a Late Sender, the only
    // case in which the path can move along it, and only such messages are replayed below.
    Status learnPartnerEnters() {
        const auto& ops = m_in.operations;
        for (const ReplayOperation& op : ops) {
            const EventKind kind = m_in.events.kind(op.event);
            if (isSend(kind) || isReceive(kind)) {
                const trace::MessageRecord& m = m_in.events.message(op.event);
                const CallSpan& span = m_in.spans[op.span];
                const uint32_t tag = isSend(kind) ? m.tag : m.tag | kReceiptTag;
                // A nonblocking send cannot wait for its receiver: it reports no time to wait.
                const double exit = kind == EventKind::MpiIsend ? span.enter : span.exit;
                if (Status s =
                        m_transport.send(m.comm, m.partner, tag, ReplayRecord{span.enter, exit});
                    !s) {
                    return s;
                }
            }
        }
        for (const ReplayOperation& op : ops) {
            if (synchronizes(op)) {
                const uint32_t comm = m_in.events.collective(op.event).comm;
                if (Status s = m_transport.contribute(comm, {m_in.spans[op.span].enter}); !s) {
                    return s;
                }
            }
        }
        if (Status s = m_transport.exchange(); !s) {
            return s;
        }
        m_partnerEnter.assign(ops.size(), 0.0);
        m_partnerExit.assign(ops.size(), 0.0);
        for (size_t k = 0; k < ops.size(); ++k) {
            const EventKind kind = m_in.events.kind(ops[k].event);
            if (isSend(kind) || isReceive(kind)) {
                const trace::MessageRecord& m = m_in.events.message(ops[k].event);
                const uint32_t tag = isReceive(kind) ? m.tag : m.tag | kReceiptTag;
                auto record = m_transport.receive(m.comm, m.partner, tag);
                if (!record) {
                    return record.error();
                }
                m_partnerEnter[k] = record->enter;
                m_partnerExit[k] = record->exit;
            } else if (synchronizes(ops[k])) {
                const trace::CollectiveRecord& c = m_in.events.collective(ops[k].event);
                auto enters = m_transport.collected(c.comm);
                if (!enters) {
                    return enters.error();
                }
                CollectiveTimes t;
                t.members = static_cast<uint32_t>(enters->size());
                for (uint32_t m = 0; m < t.members; ++m) {
                    if ((*enters)[m] > (*enters)[t.last]) {
                        t.last = m;
                    }
                }
                t.lastEnter = t.members > 0 ? (*enters)[t.last] : 0.0;
                t.rootEnter = c.root < t.members ? (*enters)[c.root] : 0.0;
                m_collectives.emplace(k, t);
            }
        }
        return Status::success();
    }

    bool synchronizes(const ReplayOperation& op) const {
        if (m_in.events.kind(op.event) != EventKind::MpiCollectiveEnd) {
            return false;
        }
        const trace::CollectiveRecord& c = m_in.events.collective(op.event);
        return !isSelf(c.comm) && syncOf(c.op) != Sync::None;
    }

    // Whether message operation `k` is a Late Sender (the send began after the receiving
    // call), computed alike on both ends.
    bool lateSender(size_t k) const {
        const ReplayOperation& op = m_in.operations[k];
        const double own = m_in.spans[op.span].enter;
        return isSend(m_in.events.kind(op.event)) ? own > m_partnerEnter[k]
                                                  : m_partnerEnter[k] > own;
    }

    // Whether message operation `k` is a Late Receiver: a blocking send still waiting when the
    // receive began (the receive's enter lies inside the send), computed alike on both ends.
    bool lateReceiver(size_t k) const {
        const ReplayOperation& op = m_in.operations[k];
        const CallSpan& span = m_in.spans[op.span];
        if (m_in.events.kind(op.event) == EventKind::MpiSend) {
            return m_partnerEnter[k] > span.enter && m_partnerEnter[k] < span.exit;
        }
        return isReceive(m_in.events.kind(op.event)) && span.enter > m_partnerEnter[k] &&
               span.enter < m_partnerExit[k];
    }

    void charge(NodeId node, double seconds) {
        if (seconds > 0.0) {
            m_sink.add(Metric::CriticalPath, node, seconds);
        }
    }

    void chargeGap(size_t g, size_t firstGap) {
        if (m_holder && g >= firstGap) {
            m_in.gaps.forEach(g, [&](NodeId node, double seconds) { charge(node, seconds); });
        }
    }

    // One communicating MPI call, walked backwards: decides whether the path leaves this rank
    // inside it (and from when), or arrives here at its enter.
    Status replaySpan(size_t s, size_t opBegin, size_t opEnd) {
        const CallSpan& span = m_in.spans[s];
        const bool held = m_holder;
        double leaveAt = std::numeric_limits<double>::quiet_NaN();
        bool arrives = false;
        // Receives: the latest sender takes the path if it was late.
        size_t latest = opEnd;
        for (size_t k = opBegin; k < opEnd; ++k) {
            if (isReceive(m_in.events.kind(m_in.operations[k].event)) && lateSender(k) &&
                (latest == opEnd || m_partnerEnter[k] > m_partnerEnter[latest])) {
                latest = k;
            }
        }
        if (held && latest != opEnd) {
            leaveAt = m_partnerEnter[latest];
        }
        // A blocking send waiting for a late receiver hands the path to the receiver (unless
        // a late sender of the same call already took it).
        size_t lateReceive = opEnd;
        for (size_t k = opBegin; k < opEnd && latest == opEnd; ++k) {
            if (isSend(m_in.events.kind(m_in.operations[k].event)) && lateReceiver(k)) {
                lateReceive = k;
            }
        }
        if (held && lateReceive != opEnd) {
            leaveAt = m_partnerEnter[lateReceive];
        }
        for (size_t k = opEnd; k-- > opBegin;) {
            const ReplayOperation& op = m_in.operations[k];
            const EventKind kind = m_in.events.kind(op.event);
            if (isReceive(kind) && lateSender(k)) {
                const trace::MessageRecord& m = m_in.events.message(op.event);
                const double moves = held && k == latest ? 1.0 : 0.0;
                if (Status st = m_transport.post(m.comm, m.partner, m.tag, {moves}); !st) {
                    return st;
                }
            } else if (isSend(kind) && lateReceiver(k)) {
                const trace::MessageRecord& m = m_in.events.message(op.event);
                const double moves = held && k == lateReceive ? 1.0 : 0.0;
                if (Status st = m_transport.post(m.comm, m.partner, m.tag | kReceiptTag, {moves});
                    !st) {
                    return st;
                }
            } else if (kind == EventKind::MpiCollectiveEnd) {
                if (Status st = replayCollective(k, span, held, leaveAt, arrives); !st) {
                    return st;
                }
            }
        }
        for (size_t k = opEnd; k-- > opBegin;) {
            const ReplayOperation& op = m_in.operations[k];
            const EventKind kind = m_in.events.kind(op.event);
            const bool fromReceiver = isSend(kind) && lateSender(k);
            const bool fromSender = isReceive(kind) && lateReceiver(k);
            if (fromReceiver || fromSender) {
                const trace::MessageRecord& m = m_in.events.message(op.event);
                auto payload =
                    m_transport.await(m.comm, m.partner, fromSender ? m.tag | kReceiptTag : m.tag);
                if (!payload) {
                    return payload.error();
                }
                arrives = arrives || (!payload->empty() && (*payload)[0] != 0.0);
            }
        }
        if (held) {
            const double from = std::isnan(leaveAt) ? span.enter : std::max(leaveAt, span.enter);
            charge(span.node, span.exit - from);
        }
        m_holder = (held && std::isnan(leaveAt)) || arrives;
        return Status::success();
    }

    // A synchronizing collective: the member the holder may have waited for (the target) is
    // known to all members from the bulk exchange; the others tell it, without blocking,
    // whether the path moves to it, and only the target waits for their word.
    Status replayCollective(size_t k, const CallSpan& span, bool held, double& leaveAt,
                            bool& arrives) {
        const ReplayOperation& op = m_in.operations[k];
        const trace::CollectiveRecord& c = m_in.events.collective(op.event);
        const auto found = m_collectives.find(k);
        if (found == m_collectives.end()) {
            return Status::success(); // does not synchronize
        }
        const CollectiveTimes& t = found->second;
        const uint32_t self = commRankOf(c.comm);
        const Sync sync = syncOf(c.op);
        // Who may tell the target that the path moves to it, and at which enter it arrives.
        uint32_t target = t.members;
        double targetEnter = 0.0;
        bool fromAll = true; // the target hears from all other members, or from the root only
        if (sync == Sync::LastEnter) {
            target = t.last;
            targetEnter = t.lastEnter;
        } else if (sync == Sync::Root && c.root < t.members) {
            target = c.root;
            targetEnter = t.rootEnter;
        } else if (sync == Sync::RootWaits && c.root < t.members && t.last != c.root) {
            target = t.last;
            targetEnter = t.lastEnter;
            fromAll = false;
        }
        if (target == t.members) {
            return Status::success();
        }
        if (self == target) {
            for (uint32_t m = 0; m < t.members; ++m) {
                if (m == self || (!fromAll && m != c.root)) {
                    continue;
                }
                auto payload = m_transport.await(c.comm, m, kPathTag);
                if (!payload) {
                    return payload.error();
                }
                arrives = arrives || (!payload->empty() && (*payload)[0] != 0.0);
            }
            return Status::success();
        }
        if (!fromAll && self != c.root) {
            return Status::success();
        }
        // The holder waited for the target if the target entered after it.
        const bool moves = held && targetEnter > span.enter;
        if (moves) {
            leaveAt = targetEnter;
        }
        return m_transport.post(c.comm, target, kPathTag, {moves ? 1.0 : 0.0});
    }

    /// What every member knows of a synchronizing collective after the bulk exchange.
    struct CollectiveTimes {
        uint32_t members = 0;
        uint32_t last = 0; ///< the member that entered last (the lowest on ties)
        double lastEnter = 0.0;
        double rootEnter = 0.0;
    };

    const CriticalPathInput& m_in;
    Transport& m_transport;
    PatternSink& m_sink;
    static constexpr uint32_t kReceiptTag = 0x80000000u; ///< bulk records of receives
    static constexpr uint32_t kPathTag = 0xFFFFFFF0u;    ///< path moves at collectives
    std::vector<double> m_partnerEnter; ///< per message operation: the partner call's enter
    std::vector<double> m_partnerExit;  ///< ... and exit (a nonblocking send's: its enter)
    std::map<size_t, CollectiveTimes> m_collectives; ///< per synchronizing collective operation
    bool m_holder = false;
};

} // namespace

Status traceCriticalPath(const CriticalPathInput& input, Transport& transport, PatternSink& sink) {
    CriticalPathPass pass(input, transport, sink);
    return pass.run();
}

} // namespace waitscope::analysis
