// Replay of one rank's events.
//
// Overview of the stages (one pass each, over this rank's events only):
//   1. profile:  walk Enter/Leave, build the call tree, exclusive time per node in its metric
//                category, visits, message and collective counts/bytes; remember for every
//                communication event the MPI call (node, enter, exit) around it.
//   2. check:    with two world exchanges, compare sends and receives per rank pair (count
//                and a checksum of communicator/tag) and collectives per communicator.
//   3. forward:  each send passes its call's times to the receiver on the traced
//                communicator and tag, each collective its call's times to all members
//                (posted in bulk, one exchange); then, in event order, receives find Late
//                Sender and collectives run their pattern on all members' times.
//   4. backward: roles swapped, each receive passes its call's times back to the sender;
//                blocking sends find Late Receiver.
//   5. root causes (unless turned off): the critical path, traced from the end of the run
//                by joining per-rank links (critical_path.cpp), and delay costs with the
//                wait-state classification in a message-driven backward replay
//                (delay_analysis.cpp), both fed with the time profiles between operations
//                recorded by pass 1 and with what passes 3 and 4 told each end of a message
//                about the other's call (its span and whether it waited: PartnerCall).
// The exchanges are bulk-synchronous: a record holds only its sender's own timestamps, so
// posting them all before consuming any yields what a message-by-message replay yields,
// without waiting on the network per message.
#include "waitscope/analysis/rank_replay.h"

#include "call_path_rules.h"
#include "clock_condition.h"
#include "collective_shape.h"
#include "critical_path.h"
#include "delay_analysis.h"
#include "exchange_signature.h"
#include "late_sender.h"
#include "operation_profile.h"
#include "pattern_sink.h"
#include "waitscope/analysis/region_class.h"

#include <algorithm>
#include <memory>
#include <utility>

namespace waitscope::analysis {
namespace {

using trace::EventKind;

constexpr uint32_t kNoSpan = 0xFFFFFFFFu;

// A communication event and the MPI call around it.
using Operation = ReplayOperation;

struct Frame {
    NodeId node;
    uint32_t region;
    uint32_t span;
    bool context; ///< pushed for a calling-context record rather than an Enter
};

std::string rankText(uint32_t rank) {
    return "rank " + std::to_string(rank);
}

class RankReplay {
public:
    RankReplay(const trace::Definitions& definitions, const trace::EventStream& events,
               Transport& transport, const ProgressCallback& progress,
               const std::function<void()>& timesDone, const ReplayOptions& options)
        : m_defs(definitions), m_events(events), m_transport(transport), m_progress(progress),
          m_timesDone(timesDone), m_sink(m_result), m_rootCause(options.rootCause) {
        if (options.rootCause) {
            m_delay = std::make_unique<DelayAnalysis>(definitions, events, transport, m_result);
            m_pathCollectives = std::make_unique<PathCollectives>(definitions, transport.rank());
        }
        m_result.rank = transport.rank();
        m_result.events = events.size();
        m_classes.reserve(definitions.regions.size());
        for (const trace::Region& region : definitions.regions) {
            m_classes.push_back(classifyRegion(region));
        }
    }

    Result<RankResult> run() {
        profile();
        if (m_delay) {
            m_delay->reserve(m_operations.size(), m_collectiveCount);
            m_pathCollectives->reserve(m_collectiveCount);
        }
        if (m_rootCause) {
            m_end = m_events.size() > 0 ? seconds(m_events.size() - 1) : 0.0;
        }
        if (m_timesDone) {
            m_timesDone();
        }
        if (m_rootCause) {
            m_profile.finish();
        }
        m_transport.carryRecordInfo(m_rootCause);
        if (Status status = checkConsistency(); !status) {
            return status.error();
        }
        if (Status status = forward(); !status) {
            return status.error();
        }
        if (Status status = backward(); !status) {
            return status.error();
        }
        if (m_delay) {
            report("critical path", 0, 1);
            m_delay->replaysDone();
            if (Status status = traceCriticalPath({m_defs, m_events, m_result.tree, m_spans,
                                                   m_operations, m_profile, m_end, m_partners,
                                                   m_pathCollectives->collectives()},
                                                  m_transport, m_sink);
                !status) {
                return status.error();
            }
            m_pathCollectives->clear();
            report("critical path", 1, 1);
            report("root causes", 0, 1);
            if (Status status = m_delay->run(m_operations, m_spans, m_profile,
                                             std::move(m_partners), std::move(m_partnerWaited));
                !status) {
                return status.error();
            }
            report("root causes", 1, 1);
        }
        return std::move(m_result);
    }

private:
    RegionClass classOf(uint32_t region) const {
        return region < m_classes.size() ? m_classes[region] : RegionClass::Computation;
    }
    double seconds(size_t event) const { return m_defs.seconds(m_events.time(event)); }
    void report(std::string_view phase, size_t done, size_t total) {
        if (m_progress) {
            m_progress(phase, total == 0 ? 100 : static_cast<int>(100 * done / total));
        }
    }

    // --- 1. profile -------------------------------------------------------------------------

    void addTime(NodeId node, uint32_t region, double seconds) {
        addTimeSeverities(m_result.severities, classOf(region), node, seconds);
    }

    void countMessage(const CallSpan& span, bool send, uint64_t length) {
        SeverityRows& s = m_result.severities;
        if (length == 0) {
            s.add(Metric::Syncs, span.node, 1);
            s.add(Metric::SyncsP2p, span.node, 1);
            s.add(send ? Metric::SyncsSend : Metric::SyncsRecv, span.node, 1);
            return;
        }
        s.add(Metric::Comms, span.node, 1);
        s.add(Metric::CommsP2p, span.node, 1);
        s.add(send ? Metric::CommsSend : Metric::CommsRecv, span.node, 1);
        const double bytes = static_cast<double>(length);
        s.add(Metric::Bytes, span.node, bytes);
        s.add(Metric::BytesP2p, span.node, bytes);
        s.add(send ? Metric::BytesSent : Metric::BytesRcvd, span.node, bytes);
    }

    void countCollective(const CallSpan& span, const trace::CollectiveRecord& c,
                         uint32_t commRank) {
        SeverityRows& s = m_result.severities;
        if (c.sent == 0 && c.received == 0) {
            s.add(Metric::Syncs, span.node, 1);
            s.add(Metric::SyncsColl, span.node, 1);
            return;
        }
        const bool rooted = c.root != trace::kUndefined;
        Metric kind = Metric::CommsCxch;
        if (rooted && commRank != c.root) {
            const bool oneToAll = collectiveShape(c.op) == CollectiveShape::OneToN;
            kind = oneToAll ? Metric::CommsCdst : Metric::CommsCsrc;
        }
        s.add(Metric::Comms, span.node, 1);
        s.add(Metric::CommsColl, span.node, 1);
        s.add(kind, span.node, 1);
        s.add(Metric::Bytes, span.node, static_cast<double>(c.sent + c.received));
        s.add(Metric::BytesColl, span.node, static_cast<double>(c.sent + c.received));
        s.add(Metric::BytesCout, span.node, static_cast<double>(c.sent));
        s.add(Metric::BytesCin, span.node, static_cast<double>(c.received));
    }

    void profile() {
        std::vector<Frame> stack;
        uint64_t last = m_events.size() > 0 ? m_events.time(0) : 0;
        const auto charge = [&](uint64_t now) {
            if (!stack.empty() && now > last) {
                addTime(stack.back().node, stack.back().region,
                        m_defs.seconds(now) - m_defs.seconds(last));
                if (m_rootCause) {
                    m_profile.charge(stack.back().node, m_defs.seconds(now) - m_defs.seconds(last));
                }
            }
            last = std::max(last, now);
        };
        const auto push = [&](uint32_t region, uint64_t now) {
            charge(now);
            const NodeId parent = stack.empty() ? kNoNode : stack.back().node;
            const NodeId node = m_result.tree.child(parent, region);
            m_result.severities.add(Metric::Visits, node, 1);
            stack.push_back(Frame{node, region, kNoSpan, false});
        };
        const auto pop = [&](uint64_t now) {
            charge(now);
            if (stack.back().span != kNoSpan) {
                m_spans[stack.back().span].exit = m_defs.seconds(now);
                if (m_rootCause) {
                    m_profile.closeSpan();
                }
            }
            stack.pop_back();
        };
        const size_t n = m_events.size();
        // Exact sizes up front: growing these arrays by doubling would cost up to twice their size.
        size_t communication = 0;
        for (size_t i = 0; i < n; ++i) {
            const EventKind kind = m_events.kind(i);
            communication += kind == EventKind::MpiSend || kind == EventKind::MpiIsend ||
                             kind == EventKind::MpiRecv || kind == EventKind::MpiIrecv;
            m_collectiveCount += kind == EventKind::MpiCollectiveEnd;
        }
        communication += m_collectiveCount;
        m_operations.reserve(communication);
        m_spans.reserve(communication);
        if (m_rootCause) {
            // At most one charge per event: the arrays are reserved, not filled.
            m_profile.reserve(n, communication);
        }
        const auto diagnose = [&](experiment::Diagnostic d) { m_sink.diagnose(d); };
        for (size_t i = 0; i < n; ++i) {
            if ((i & 0xFFFFF) == 0) {
                report("profile", i, n);
            }
            if (applyCallPathEvent(m_defs, m_events, i, stack, push, pop, diagnose)) {
                continue;
            }
            const uint64_t t = m_events.time(i);
            switch (m_events.kind(i)) {
            case EventKind::MpiSend:
            case EventKind::MpiIsend:
            case EventKind::MpiRecv:
            case EventKind::MpiIrecv:
            case EventKind::MpiCollectiveEnd: {
                if (stack.empty()) {
                    m_sink.diagnose(experiment::Diagnostic::CommunicationOutsideRegions);
                    break;
                }
                if (stack.back().span == kNoSpan) {
                    stack.back().span = static_cast<uint32_t>(m_spans.size());
                    // The exit is filled in when the call is left.
                    m_spans.push_back(
                        CallSpan{stack.back().node, enterTimeOf(i), m_defs.seconds(t)});
                    if (m_rootCause) {
                        m_profile.openSpan();
                    }
                }
                const CallSpan& span = m_spans[stack.back().span];
                m_operations.push_back(Operation{static_cast<uint32_t>(i), stack.back().span});
                if (m_rootCause) {
                    m_profile.closeSegment();
                }
                const EventKind kind = m_events.kind(i);
                if (kind == EventKind::MpiCollectiveEnd) {
                    const trace::CollectiveRecord& c = m_events.collective(i);
                    countCollective(span, c, commRankOf(c.comm));
                } else {
                    const bool send = kind == EventKind::MpiSend || kind == EventKind::MpiIsend;
                    countMessage(span, send, m_events.message(i).length);
                }
                break;
            }
            default:
                break;
            }
        }
        if (!stack.empty()) {
            m_sink.diagnose(experiment::Diagnostic::RegionsLeftOpen, stack.size());
            while (!stack.empty()) {
                pop(last);
            }
        }
        report("profile", n, n);
    }

    // The enter time of the innermost open call: found by scanning back to its Enter, which is
    // cheap because communication events sit right inside their MPI call.
    double enterTimeOf(size_t event) const {
        int depth = 0;
        for (size_t j = event; j-- > 0;) {
            const EventKind kind = m_events.kind(j);
            if (kind == EventKind::Leave) {
                ++depth;
            } else if (kind == EventKind::Enter || kind == EventKind::ProgramBegin) {
                if (depth == 0) {
                    return seconds(j);
                }
                --depth;
            }
        }
        return seconds(event);
    }

    uint32_t commRankOf(uint32_t comm) const {
        return analysis::commRankOf(m_defs, comm, m_transport.rank());
    }

    // World rank of communicator rank `commRank`, or kUndefined.
    uint32_t worldRankOf(uint32_t comm, uint32_t commRank) const {
        return analysis::worldRankOf(m_defs, comm, commRank, m_transport.rank());
    }

    // --- 2. consistency check ---------------------------------------------------------------

    Status checkConsistency() {
        const uint32_t n = m_transport.size();
        // Per peer: [messages sent to it, checksum of their comm/tag] and the same for receives.
        std::vector<uint64_t> sent(2 * n, 0), received(2 * n, 0);
        // Per communicator: the number of collectives, then (after all counts) the chained
        // checksum of what the passes read of them (collectiveSignature()).
        const size_t comms = m_defs.communicators.size();
        std::vector<double> collectives(2 * comms, 0.0);
        std::vector<uint64_t> signatures(comms, 0);
        uint64_t badPartners = 0;
        for (const Operation& op : m_operations) {
            const EventKind kind = m_events.kind(op.event);
            if (kind == EventKind::MpiCollectiveEnd) {
                const trace::CollectiveRecord& c = m_events.collective(op.event);
                if (c.comm < comms) {
                    collectives[c.comm] += 1;
                    const RegionClass cls = classOf(regionOfSpan(op));
                    const uint32_t call = cls == RegionClass::MpiInit       ? 1
                                          : cls == RegionClass::MpiFinalize ? 2
                                                                            : 0;
                    signatures[c.comm] = collectiveSignature(signatures[c.comm], c, call);
                }
                continue;
            }
            const trace::MessageRecord& m = m_events.message(op.event);
            const uint32_t peer = worldRankOf(m.comm, m.partner);
            if (peer >= n) {
                ++badPartners;
                continue;
            }
            auto& table =
                (kind == EventKind::MpiSend || kind == EventKind::MpiIsend) ? sent : received;
            table[2 * peer] += 1;
            table[2 * peer + 1] =
                (table[2 * peer + 1] + messageSignature(m.comm, m.tag)) & kSignatureMask;
        }
        for (size_t comm = 0; comm < comms; ++comm) {
            collectives[comms + comm] = static_cast<double>(signatures[comm]);
        }
        auto incoming = m_transport.allToAll(sent);
        if (!incoming) {
            return incoming.error();
        }
        // The first problem found here, as numbers: kind (0 none, 1 count, 2 comm/tag,
        // 3 partner outside communicator), peer, the peer's count, the own count.
        double problem[4] = {0, 0, 0, 0};
        for (uint32_t peer = 0; peer < n && problem[0] == 0; ++peer) {
            const uint64_t theySent = (*incoming)[2 * peer];
            const uint64_t iReceived = received[2 * peer];
            if (theySent != iReceived) {
                problem[0] = 1;
                problem[1] = peer;
                problem[2] = static_cast<double>(theySent);
                problem[3] = static_cast<double>(iReceived);
            } else if ((*incoming)[2 * peer + 1] != received[2 * peer + 1]) {
                problem[0] = 2;
                problem[1] = peer;
            }
        }
        if (problem[0] == 0 && badPartners > 0) {
            problem[0] = 3;
            problem[2] = static_cast<double>(badPartners);
        }
        // Everyone learns the problems and the collective counts, so that every rank refuses
        // with the same message (about the lowest rank that found a problem).
        std::vector<double> mine = collectives;
        mine.insert(mine.end(), problem, problem + 4);
        auto all = m_transport.allGather(kWorldComm, mine);
        if (!all) {
            return all.error();
        }
        const size_t width = mine.size();
        const size_t p = collectives.size(); // where the problems start
        for (uint32_t r = 0; r < n; ++r) {
            const double* found = &(*all)[r * width + p];
            const auto peer = static_cast<uint64_t>(found[1]);
            if (found[0] == 1) {
                return Error(rankText(r) + ": receives " +
                             std::to_string(static_cast<uint64_t>(found[3])) +
                             " messages from rank " + std::to_string(peer) + " but rank " +
                             std::to_string(peer) + " sends " +
                             std::to_string(static_cast<uint64_t>(found[2])));
            }
            if (found[0] == 2) {
                return Error(rankText(r) + ": messages from rank " + std::to_string(peer) +
                             " differ in communicator or tag between sender and receiver");
            }
            if (found[0] == 4) {
                return Error(rankText(r) + ": no events to replay");
            }
            if (found[0] == 3) {
                return Error(rankText(r) + ": " + std::to_string(static_cast<uint64_t>(found[2])) +
                             " messages name a partner outside their communicator");
            }
        }
        for (uint32_t comm = 0; comm < m_defs.communicators.size(); ++comm) {
            const trace::Communicator& c = m_defs.communicators[comm];
            if (c.isSelf) {
                continue;
            }
            for (size_t i = 0; i < c.worldRanks.size(); ++i) {
                const uint32_t member = c.worldRanks[i];
                const uint32_t first = c.worldRanks[0];
                if (member >= n || first >= n) {
                    return Error("communicator " + std::to_string(comm) + " names rank " +
                                 std::to_string(member) + " but the trace has " +
                                 std::to_string(n) + " ranks");
                }
                const double a = (*all)[first * width + comm];
                const double b = (*all)[member * width + comm];
                if (a != b) {
                    return Error("communicator " + std::to_string(comm) + ": rank " +
                                 std::to_string(first) + " takes part in " +
                                 std::to_string(static_cast<uint64_t>(a)) +
                                 " collectives but rank " + std::to_string(member) + " in " +
                                 std::to_string(static_cast<uint64_t>(b)));
                }
                if ((*all)[first * width + comms + comm] != (*all)[member * width + comms + comm]) {
                    return Error("communicator " + std::to_string(comm) +
                                 ": the collectives of rank " + std::to_string(first) +
                                 " and rank " + std::to_string(member) +
                                 " differ in operation, root or MPI call");
                }
            }
            for (uint32_t r = 0; r < n; ++r) {
                const bool member =
                    std::find(c.worldRanks.begin(), c.worldRanks.end(), r) != c.worldRanks.end();
                if (!member && (*all)[r * width + comm] != 0.0) {
                    return Error("communicator " + std::to_string(comm) + ": rank " +
                                 std::to_string(r) +
                                 " is not a member but records collectives on it");
                }
            }
        }
        return Status::success();
    }

    // --- 3. forward ------------------------------------------------------------------------

    Status forward() {
        // Post what the others need: each send's call times, each collective's call times.
        const size_t total = m_operations.size();
        report("forward replay", 0, total);
        for (const Operation& op : m_operations) {
            const EventKind kind = m_events.kind(op.event);
            const CallSpan& span = m_spans[op.span];
            if (kind == EventKind::MpiSend || kind == EventKind::MpiIsend) {
                const trace::MessageRecord& m = m_events.message(op.event);
                const PartnerCall call{op.span, kind == EventKind::MpiIsend, false};
                if (Status s = m_transport.send(m.comm, m.partner, m.tag,
                                                ReplayRecord{span.enter, span.exit, call.encode()});
                    !s) {
                    return s;
                }
            } else if (kind == EventKind::MpiCollectiveEnd &&
                       !isSelf(m_events.collective(op.event).comm)) {
                // The root-cause passes also learn each member's span (the critical path's
                // landing there).
                const uint32_t comm = m_events.collective(op.event).comm;
                const Status s =
                    m_pathCollectives
                        ? m_transport.contribute(
                              comm, std::array{span.enter, span.exit, static_cast<double>(op.span)})
                        : m_transport.contribute(comm, std::array{span.enter, span.exit});
                if (!s) {
                    return s;
                }
            }
        }
        if (Status s = m_transport.exchange(); !s) {
            return s;
        }
        report("forward replay", total / 2, total);
        // Consume in event order: receives find Late Sender, collectives their patterns.
        LateSender::Listener onLateSender;
        if (m_delay) {
            onLateSender = [this](uint32_t op, double wait, double completion) {
                m_delay->onLateSender(op, m_spans[m_operations[op].span], wait, completion);
                m_partnerWaited[op] = kWaitedHere;
            };
        }
        LateSender lateSender(m_sink, onLateSender);
        if (m_rootCause) {
            m_partners.assign(total, ReplayRecord{});
            m_partnerWaited.assign(total, 0);
        }
        uint32_t openRecvSpan = kNoSpan;
        for (size_t k = 0; k < total; ++k) {
            const Operation& op = m_operations[k];
            const EventKind kind = m_events.kind(op.event);
            const CallSpan& span = m_spans[op.span];
            if (openRecvSpan != kNoSpan && openRecvSpan != op.span) {
                lateSender.completeCall();
                openRecvSpan = kNoSpan;
            }
            if (kind == EventKind::MpiRecv || kind == EventKind::MpiIrecv) {
                const trace::MessageRecord& m = m_events.message(op.event);
                auto record = m_transport.receive(m.comm, m.partner, m.tag);
                if (!record) {
                    return record.error();
                }
                if (m_rootCause) {
                    m_partners[k] = *record;
                }
                lateSender.onMessage(span, worldRankOf(m.comm, m.partner), *record, m.length,
                                     static_cast<uint32_t>(k));
                openRecvSpan = op.span;
            } else if (kind == EventKind::MpiCollectiveEnd) {
                if (Status s = replayCollective(op, span); !s) {
                    return s;
                }
            }
        }
        lateSender.completeCall();
        report("forward replay", total, total);
        return Status::success();
    }

    bool isSelf(uint32_t comm) const {
        return comm < m_defs.communicators.size() && m_defs.communicators[comm].isSelf;
    }

    Status replayCollective(const Operation& op, const CallSpan& span) {
        const trace::CollectiveRecord& c = m_events.collective(op.event);
        if (isSelf(c.comm)) {
            return Status::success();
        }
        if (Status s = m_transport.collected(c.comm, m_collected); !s) {
            return s;
        }
        CollectiveView view{span, &m_collected, commRankOf(c.comm), c.root,
                            m_pathCollectives ? PathCollectives::kWidth : 2};
        // Timestamps that put the end of a collective before an enter it waits for.
        if (exitPrecedesBindingEnter(c, view)) {
            m_sink.diagnose(experiment::Diagnostic::ClockViolationsCollective);
        }
        const RegionClass cls = classOf(regionOfSpan(op));
        switch (collectiveShape(c.op)) {
        case CollectiveShape::Barrier:
            detectWaitAtBarrier(view, m_sink);
            break;
        case CollectiveShape::OneToN:
            detectLateBroadcast(view, m_sink);
            break;
        case CollectiveShape::NToOne:
            detectEarlyReduce(view, m_sink);
            break;
        case CollectiveShape::Scan:
            detectEarlyScan(view, false, m_sink);
            break;
        case CollectiveShape::Exscan:
            detectEarlyScan(view, true, m_sink);
            break;
        case CollectiveShape::NToN:
            detectWaitAtNxn(view, m_sink);
            break;
        case CollectiveShape::None:
            // Communicator creation and destruction do not synchronize; only the waiting
            // around MPI_Init and MPI_Finalize is attributed.
            if (cls == RegionClass::MpiInit) {
                detectInitCompletion(view, m_sink);
            } else if (cls == RegionClass::MpiFinalize) {
                detectFinalizeWait(view, m_sink);
            }
            break;
        }
        if (m_delay) {
            m_delay->onCollective(static_cast<uint32_t>(&op - m_operations.data()), view, cls, c);
        }
        if (m_pathCollectives) {
            m_pathCollectives->record(static_cast<size_t>(&op - m_operations.data()), c, view);
        }
        return Status::success();
    }

    // Whether a blocking send in [sendEnter, sendExit] waited for a receive entered at
    // `receiveEnter` as a synchronization point of the delay pass: only when the send lasted
    // until the receive began (else the message was buffered and the receive cannot delay it).
    // Both ends of the message compute it alike.
    static bool synchronizes(double sendEnter, double sendExit, double receiveEnter) {
        return lateReceiverWait(sendEnter, sendExit, receiveEnter) > 0.0 &&
               receiveEnter <= sendExit;
    }

    uint32_t regionOfSpan(const Operation& op) const {
        return m_result.tree.node(m_spans[op.span].node).region;
    }

    // --- 4. backward ------------------------------------------------------------------------

    Status backward() {
        // Receivers tell senders when their receive started (roles swapped).
        const size_t total = m_operations.size();
        report("backward replay", 0, total);
        for (const Operation& op : m_operations) {
            const EventKind kind = m_events.kind(op.event);
            if (kind == EventKind::MpiRecv || kind == EventKind::MpiIrecv) {
                const CallSpan& span = m_spans[op.span];
                const trace::MessageRecord& m = m_events.message(op.event);
                const size_t k = static_cast<size_t>(&op - m_operations.data());
                const PartnerCall call{op.span, false,
                                       m_rootCause && m_partnerWaited[k] == kWaitedHere};
                if (Status s = m_transport.send(m.comm, m.partner, m.tag,
                                                ReplayRecord{span.enter, span.exit, call.encode()});
                    !s) {
                    return s;
                }
            }
        }
        if (Status s = m_transport.exchange(); !s) {
            return s;
        }
        report("backward replay", total / 2, total);
        for (const Operation& op : m_operations) {
            const EventKind kind = m_events.kind(op.event);
            const size_t k = static_cast<size_t>(&op - m_operations.data());
            if (kind == EventKind::MpiSend || kind == EventKind::MpiIsend) {
                const trace::MessageRecord& m = m_events.message(op.event);
                auto record = m_transport.receive(m.comm, m.partner, m.tag);
                if (!record) {
                    return record.error();
                }
                const CallSpan& span = m_spans[op.span];
                if (m_rootCause) {
                    m_partners[k] = *record;
                    m_partnerWaited[k] = PartnerCall::decode(record->info).waited ? 1 : 0;
                }
                // Only a blocking send can be held up by its receiver.
                if (kind == EventKind::MpiSend) {
                    const double wait = detectLateReceiver(span, *record, m.length, m_sink);
                    if (m_delay && synchronizes(span.enter, span.exit, record->enter)) {
                        m_delay->onLateReceiver(static_cast<uint32_t>(k), span, wait,
                                                std::max(0.0, span.exit - record->exit));
                    }
                }
            } else if (m_rootCause && (kind == EventKind::MpiRecv || kind == EventKind::MpiIrecv)) {
                // Whether the sender waited here for this receive, as it finds itself.
                const ReplayRecord& send = m_partners[k];
                m_partnerWaited[k] =
                    !PartnerCall::decode(send.info).nonblocking &&
                            synchronizes(send.enter, send.exit, m_spans[op.span].enter)
                        ? 1
                        : 0;
            }
        }
        report("backward replay", total, total);
        return Status::success();
    }

    const trace::Definitions& m_defs;
    const trace::EventStream& m_events;
    Transport& m_transport;
    const ProgressCallback& m_progress;
    const std::function<void()>& m_timesDone;
    RankResult m_result;
    PatternSink m_sink;
    std::vector<RegionClass> m_classes;
    std::vector<CallSpan> m_spans;
    std::vector<Operation> m_operations;
    bool m_rootCause; ///< the root-cause passes run (and their profile is recorded)
    /// For both root-cause passes: time between operations, and between communicating calls
    OperationProfile m_profile;
    double m_end = 0.0; ///< the time of the last event
    /// For the root-cause passes, per operation: the partner call's times (see
    /// CriticalPathInput::partners)
    std::vector<ReplayRecord> m_partners;
    /// For the delay pass, per message operation: 1 where the partner waited (a Late Sender's
    /// sender, a Late Receiver's receiver); during the forward and backward replays a receive
    /// where this rank waited holds kWaitedHere
    std::vector<uint8_t> m_partnerWaited;
    static constexpr uint8_t kWaitedHere = 2;
    std::vector<double> m_collected;        ///< scratch: one collective's members' times
    std::unique_ptr<DelayAnalysis> m_delay; ///< root-cause pass, unless turned off
    /// What the critical path needs of the collectives, recorded in the forward replay
    std::unique_ptr<PathCollectives> m_pathCollectives;
    size_t m_collectiveCount = 0; ///< collective operations, counted in the profile pass
};

} // namespace

Result<RankResult> replayRank(const trace::Definitions& definitions,
                              const trace::EventStream* events, Transport& transport,
                              const ProgressCallback& progress,
                              const std::function<void()>& timesDone,
                              const ReplayOptions& options) {
    if (events == nullptr) {
        // Take part in the check's exchanges, so the others find the missing messages and
        // stop there instead of waiting forever.
        auto sent = transport.allToAll(std::vector<uint64_t>(2 * transport.size(), 0));
        // The layout of checkConsistency()'s: counts and checksums per communicator, then the
        // problem.
        std::vector<double> mine(2 * definitions.communicators.size() + 4, 0.0);
        mine[2 * definitions.communicators.size()] = 4; // "no events": every rank refuses
        auto all = transport.allGather(kWorldComm, mine);
        (void)sent;
        (void)all;
        return Error(rankText(transport.rank()) + ": no events to replay");
    }
    RankReplay replay(definitions, *events, transport, progress, timesDone, options);
    return replay.run();
}

} // namespace waitscope::analysis
