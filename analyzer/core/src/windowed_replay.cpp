// The windowed replay: the profile, the forward replay (Late Sender, the collective patterns) and
// the backward replay (Late Receiver) of one rank without holding its events whole, for the
// analysis without the root-cause passes (issue 22's traces larger than memory).
//
// The rank's events are read forward in windows (trace::RankEventWindows). Each window is
// profiled as the whole-rank profile stage does it (the same call tree, the same metrics in the
// same order), and its communication operations join a queue of pending operations. Then, in
// bulk-synchronous steps that every rank takes together:
//
//   read a window -> profile it -> agree on collectives -> post records -> exchange
//                 -> take what arrived -> consume pending operations in event order
//
// Posting: an operation's records leave once its MPI call has ended (its times are known), in
// event order: a send's call times to its receiver (forward), a receive's posting call to its
// sender (backward, on the traced tag with its top bit set so that both directions share no
// channel). Collectives go apart from the records, in order per communicator, and only once
// every member of the communicator has read them: each step all ranks gather how many
// collectives per communicator each has ready, and contribute up to the least (the transports
// want every member's contributions to one collective in one exchange).
//
// Consuming: operations are consumed strictly in event order, as the whole-rank stages do, so
// that every severity is added in the same order and the report is byte for byte the same: a
// receive waits for its send's record, a send for its receive's, a collective for its members'
// contributions; whatever has not arrived is carried over to the next step, with everything
// after it. Records never depend on consumption, so every rank's records arrive once all have
// read their events, and a consistent trace is consumed entirely.
//
// The consistency check compares what every rank tallied during the pass at its end (the
// whole-rank pipeline checks before replaying): an inconsistent trace leaves operations that
// cannot be consumed, and is then refused with the same message.
//
// Held per rank: one window of events, the pending operations and the MPI calls they refer to
// (the skew between ranks), the records that arrived ahead of their operations, and the result.
#include "consistency_check.h"
#include "late_sender.h"
#include "location_profile.h"
#include "rank_state.h"
#include "replay_steps.h"
#include "waitscope/analysis/call_path_rules.h"
#include "waitscope/trace/otf2_archive.h"

#include <algorithm>
#include <array>
#include <deque>
#include <map>
#include <optional>
#include <unordered_map>

namespace waitscope::analysis {
namespace {

using trace::EventKind;

constexpr uint64_t kNone = ~uint64_t{0};
/// Backward records travel on the traced tag with this bit set (traced tags are below 2^31).
constexpr uint32_t kBackwardTag = 0x80000000u;

// An MPI call with a communication or request event, while an operation refers to it.
struct SpanEntry {
    CallSpan call;
    uint32_t refs = 0;
    bool closed = false;
};

// A communication operation read but not yet consumed.
struct PendingOp {
    EventKind kind = EventKind::Enter;
    uint64_t span = kNone;
    /// A nonblocking receive: the call that posted it; a nonblocking send: the call that
    /// completed it (kNone: none in the trace).
    uint64_t partner = kNone;
    /// A nonblocking send: whether its completion has been read (or never will be).
    bool partnerKnown = true;
    bool posted = false; ///< its record left (a collective: its contribution)
    /// A receive replayed at its probe: its own call's enter, where its sender's Late Receiver
    /// is measured to (else the call's enter)
    std::optional<double> receiveEnter;
    trace::MessageRecord message;
    trace::CollectiveRecord collective;
};

// Records that arrived, per (communicator, world rank of the partner, tag as sent).
using RecordQueues = std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::deque<ReplayRecord>>;

// The longest Late Receiver among the nonblocking sends an MPI_Waitall / MPI_Waitsome completed.
struct MultiWait {
    CallSpan call;
    double wait = 0.0;
    uint64_t length = 0;
    bool lateSender = false; ///< the call also had a Late Sender: no instance
};

class WindowedReplay final : private MpiCalls {
public:
    WindowedReplay(RankState& state, Transport& transport, trace::RankEventWindows& reader,
                   uint64_t windowEvents)
        : m_state(state), m_transport(transport), m_reader(reader),
          m_profile(state, *this, state.result.severities, kNoNode, 0),
          m_location(state, reader, windowEvents, m_profile),
          m_tally(transport.size(), state.defs.communicators.size()), m_lateSender(state.sink),
          m_backwardSink(state.result, m_backwardInstances) {
        // Spilled, the backward replay's instances are the rank's second segment: listed after
        // the forward ones, as when held apart and appended at the end.
        m_backwardSink.spillTo(state.spill.get(), 1);
        const size_t comms = state.defs.communicators.size();
        m_ready.assign(comms, 0);
        m_contributed.assign(comms, 0);
        if (const trace::Location* location = state.defs.locationOfRank(state.result.rank)) {
            m_announced = location->announcedEvents;
        }
    }

    Status run();

private:
    // Profile: the calls and operations of the windows read
    Status readWindow();
    uint64_t open(NodeId node, double enter, double at) override;
    void again(uint64_t id) override { ++span(id).refs; }
    void close(uint64_t id, double exit) override;
    const CallSpan& call(uint64_t id) override { return span(id).call; }
    void operation(const trace::EventStream& events, size_t i, uint64_t spanId) override;
    void receiveEnteredAt(double enter) override { m_ops.back().receiveEnter = enter; }
    // Steps
    Result<bool> agree();
    Status post();
    Status take();
    Status consume();
    bool consumable(const PendingOp& op);
    Status consumeOne(PendingOp& op, uint64_t index);
    void completeReceiveCall();
    Status finish();

    SpanEntry& span(uint64_t id) { return m_spans[id - m_spanBase]; }
    /// Whether the times `op`'s records carry are known: its call has ended, and a nonblocking
    /// receive's posting call too.
    bool postable(const PendingOp& op) {
        return closed(op.span) && (op.kind == EventKind::MpiIsend || closed(op.partner));
    }
    void reference(uint64_t id) {
        if (id != kNone) {
            ++span(id).refs;
        }
    }
    void release(uint64_t id) {
        if (id != kNone) {
            --span(id).refs;
        }
        // Calls nobody refers to any more leave from the front.
        while (!m_spans.empty() && m_spans.front().refs == 0 && m_spans.front().closed) {
            m_spans.pop_front();
            ++m_spanBase;
        }
    }
    bool closed(uint64_t id) { return id == kNone || span(id).closed; }
    std::string_view nameOf(const CallSpan& call) const { return m_state.nameOfNode(call.node); }
    bool isSelf(uint32_t comm) const { return m_state.isSelf(comm); }

    RankState& m_state;
    Transport& m_transport;
    trace::RankEventWindows& m_reader;
    LocationProfile m_profile;
    WindowedLocation m_location;
    uint64_t m_announced = 0; ///< the events the trace announces for this rank (progress)
    ConsistencyTally m_tally;

    std::optional<Error> m_failure; ///< this rank's events could not be read
    std::unordered_map<uint64_t, uint64_t> m_postedReceives; ///< request -> its posting call
    std::unordered_map<uint64_t, uint64_t> m_pendingSends;   ///< request -> op index

    std::deque<SpanEntry> m_spans;
    uint64_t m_spanBase = 0;
    uint64_t m_spanCount = 0;
    std::deque<PendingOp> m_ops;
    uint64_t m_opBase = 0;   ///< the op index of m_ops.front()
    uint64_t m_nextPost = 0; ///< the first op index whose records have not left

    // Collectives: per communicator, how many this rank has ready (read, its call ended, all
    // operations before it posted) and how many it has contributed.
    std::vector<uint64_t> m_ready;
    std::vector<uint64_t> m_contributed;
    std::vector<uint64_t> m_bound; ///< per communicator: what all members have ready
    std::map<uint32_t, uint64_t> m_contributedNow; ///< this step's contributions per comm
    /// Per communicator: the collectives read but not contributed, by op index
    std::map<uint32_t, std::deque<uint64_t>> m_uncontributed;
    std::map<uint32_t, std::deque<std::shared_ptr<const GatheredCollective>>> m_collectives;
    RecordQueues m_records;

    LateSender m_lateSender;
    uint64_t m_openReceiveSpan = kNone;
    std::vector<PatternInstance> m_backwardInstances;
    PatternSink m_backwardSink;
    std::map<uint64_t, MultiWait> m_multiWaits; ///< by span of the completing call
};

// Reads and profiles the next window; after the last one, leaves the regions still open and
// settles the requests that never completed.
Status WindowedReplay::readWindow() {
    if (Status read = m_location.next(); !read) {
        return read;
    }
    if (!m_reader.done()) {
        return Status::success();
    }
    m_profile.finish();
    // Sends whose completion never came have none.
    for (const auto& [request, index] : m_pendingSends) {
        if (index >= m_opBase) {
            m_ops[index - m_opBase].partnerKnown = true;
        }
    }
    m_pendingSends.clear();
    for (const auto& [request, posting] : m_postedReceives) {
        release(posting);
    }
    m_postedReceives.clear();
    return Status::success();
}

uint64_t WindowedReplay::open(NodeId node, double enter, double at) {
    m_spans.push_back(SpanEntry{CallSpan{node, enter, at}, 1, false});
    return m_spanCount++;
}

// Queues the operation of communication event `i` in call `spanId` (which holds a reference
// for it), pairs requests with their messages and tallies it for the consistency check.
void WindowedReplay::operation(const trace::EventStream& events, size_t i, uint64_t spanId) {
    RankState& state = m_state;
    const EventKind kind = events.kind(i);
    const uint64_t index = m_opBase + m_ops.size();
    PendingOp op;
    op.kind = kind;
    op.span = spanId;
    const CallSpan& call = span(spanId).call;
    if (kind == EventKind::MpiCollectiveEnd) {
        op.collective = events.collective(i);
        if (op.collective.comm < m_contributed.size() && !isSelf(op.collective.comm)) {
            m_uncontributed[op.collective.comm].push_back(index);
        }
        m_tally.addCollective(op.collective,
                              state.classOf(state.result.tree.node(call.node).region));
        m_ops.push_back(op);
        return;
    }
    op.message = events.message(i);
    const uint64_t request = op.message.request;
    if (kind == EventKind::MpiIrecvRequest) {
        // Its call is what the receive that completes it was posted by: kept until then.
        reference(spanId);
        if (const auto old = m_postedReceives.find(request); old != m_postedReceives.end()) {
            release(old->second);
        }
        m_postedReceives[request] = spanId;
    } else if (kind == EventKind::MpiIrecv) {
        if (const auto found = m_postedReceives.find(request); found != m_postedReceives.end()) {
            // The request's call, referenced by the map until now, by this operation from now.
            op.partner = found->second;
            m_postedReceives.erase(found);
        }
    } else if (kind == EventKind::MpiIsend) {
        op.partnerKnown = false;
        // A request id used again before its send completed: that send has no completion.
        if (const auto old = m_pendingSends.find(request); old != m_pendingSends.end()) {
            m_ops[old->second - m_opBase].partnerKnown = true;
        }
        m_pendingSends[request] = index;
    } else if (kind == EventKind::MpiIsendComplete) {
        if (const auto found = m_pendingSends.find(request); found != m_pendingSends.end()) {
            PendingOp& send = m_ops[found->second - m_opBase];
            send.partner = spanId;
            send.partnerKnown = true;
            reference(spanId);
            m_pendingSends.erase(found);
        }
    }
    const bool isRequest =
        kind == EventKind::MpiIrecvRequest || kind == EventKind::MpiIsendComplete;
    if (!isRequest) {
        const bool send = kind == EventKind::MpiSend || kind == EventKind::MpiIsend;
        m_tally.addMessage(send, op.message,
                           state.worldRankOf(op.message.comm, op.message.partner));
    }
    m_ops.push_back(op);
}

void WindowedReplay::close(uint64_t id, double exit) {
    SpanEntry& entry = span(id);
    entry.call.exit = exit;
    entry.closed = true;
}

// Every rank tells how many collectives per communicator it has ready and whether it has read
// and posted everything; the bound of each communicator is what all its members have ready.
// Returns whether every rank had read and posted everything before this step.
Result<bool> WindowedReplay::agree() {
    // Ready: per communicator, the collectives not contributed yet whose calls have ended, in
    // order.
    std::vector<uint64_t> ready = m_contributed;
    bool allContributed = true;
    for (const auto& [comm, waiting] : m_uncontributed) {
        for (const uint64_t k : waiting) {
            if (!closed(m_ops[k - m_opBase].span)) {
                break;
            }
            ++ready[comm];
        }
        allContributed = allContributed && waiting.empty();
    }
    const bool finished =
        m_reader.done() && m_nextPost == m_opBase + m_ops.size() && allContributed;
    // [finished, failed, ready per communicator]
    constexpr size_t kHead = 2;
    std::vector<double> mine(ready.size() + kHead);
    mine[0] = finished ? 1.0 : 0.0;
    mine[1] = m_failure ? 1.0 : 0.0;
    for (size_t c = 0; c < ready.size(); ++c) {
        mine[c + kHead] = static_cast<double>(ready[c]);
    }
    auto all = m_transport.allGather(kWorldComm, mine);
    if (!all) {
        return all.error();
    }
    const size_t width = mine.size();
    const uint32_t n = m_transport.size();
    // A rank that could not read its events stops every rank here, together.
    for (uint32_t r = 0; r < n; ++r) {
        if ((*all)[r * width + 1] != 0.0) {
            if (m_failure) {
                return *m_failure;
            }
            return Error("rank " + std::to_string(m_state.result.rank) +
                         ": analysis stopped because rank " + std::to_string(r) +
                         " could not read its events");
        }
    }
    m_bound = ready;
    return agreeOnStep(*all, width, kHead, n, m_state.defs, m_bound);
}

// Posts, in event order, the records of the operations whose calls have ended, and the
// collectives up to the agreed bound.
Status WindowedReplay::post() {
    m_contributedNow.clear();
    for (; m_nextPost < m_opBase + m_ops.size(); ++m_nextPost) {
        PendingOp& op = m_ops[m_nextPost - m_opBase];
        if (!postable(op)) {
            break;
        }
        const CallSpan& call = span(op.span).call;
        switch (op.kind) {
        case EventKind::MpiSend:
        case EventKind::MpiIsend: {
            const trace::MessageRecord& m = op.message;
            if (Status s = m_transport.send(m.comm, m.partner, m.tag,
                                            ReplayRecord{call.enter, call.exit, 0.0});
                !s) {
                return s;
            }
            break;
        }
        case EventKind::MpiRecv:
        case EventKind::MpiIrecv: {
            // The receive's times for its sender: when the call that posted it ran.
            const CallSpan& posted = op.partner != kNone ? span(op.partner).call : call;
            const trace::MessageRecord& m = op.message;
            const double enter = op.receiveEnter.value_or(posted.enter);
            if (Status s = m_transport.send(m.comm, m.partner, m.tag | kBackwardTag,
                                            ReplayRecord{enter, posted.exit, 0.0});
                !s) {
                return s;
            }
            break;
        }
        case EventKind::MpiCollectiveEnd:
            if (!isSelf(op.collective.comm)) {
                continue; // contributed below, once all members have it
            }
            break;
        default:
            break;
        }
        op.posted = true;
    }
    // The collectives up to the agreed bound of their communicator: every member contributes
    // the same ones in this exchange.
    for (auto& [comm, waiting] : m_uncontributed) {
        while (!waiting.empty() && m_contributed[comm] < m_bound[comm]) {
            PendingOp& op = m_ops[waiting.front() - m_opBase];
            const CallSpan& call = span(op.span).call;
            if (Status s = m_transport.contribute(comm, std::array{call.enter, call.exit}); !s) {
                return s;
            }
            op.posted = true;
            waiting.pop_front();
            ++m_contributed[comm];
            ++m_contributedNow[comm];
        }
    }
    return Status::success();
}

// Takes everything the exchange delivered: the records into this rank's queues, this step's
// collectives (as many per communicator as it contributed).
Status WindowedReplay::take() {
    m_transport.takeRecords(
        [this](uint32_t comm, uint32_t source, uint32_t tag, const ReplayRecord& record) {
            m_records[{comm, source, tag}].push_back(record);
        });
    for (const auto& [comm, count] : m_contributedNow) {
        auto& queue = m_collectives[comm];
        for (uint64_t k = 0; k < count; ++k) {
            auto gathered = m_transport.gathered(comm);
            if (!gathered) {
                return gathered.error();
            }
            queue.push_back(std::move(*gathered));
        }
    }
    return Status::success();
}

// Whether what `op` needs has arrived.
bool WindowedReplay::consumable(const PendingOp& op) {
    if (!op.posted ||
        (op.kind == EventKind::MpiIsend && (!op.partnerKnown || !closed(op.partner)))) {
        return false;
    }
    const trace::MessageRecord& m = op.message;
    switch (op.kind) {
    case EventKind::MpiRecv:
    case EventKind::MpiIrecv:
    case EventKind::MpiSend:
    case EventKind::MpiIsend: {
        const bool receive = op.kind == EventKind::MpiRecv || op.kind == EventKind::MpiIrecv;
        const auto found = m_records.find({m.comm, m_state.worldRankOf(m.comm, m.partner),
                                           receive ? m.tag : m.tag | kBackwardTag});
        return found != m_records.end() && !found->second.empty();
    }
    case EventKind::MpiCollectiveEnd: {
        if (isSelf(op.collective.comm)) {
            return true;
        }
        const auto found = m_collectives.find(op.collective.comm);
        return found != m_collectives.end() && !found->second.empty();
    }
    default:
        return true;
    }
}

// The Late Sender of the receive call just left behind.
void WindowedReplay::completeReceiveCall() {
    if (m_openReceiveSpan == kNone) {
        return;
    }
    if (m_lateSender.completeCall()) {
        if (const auto found = m_multiWaits.find(m_openReceiveSpan); found != m_multiWaits.end()) {
            found->second.lateSender = true;
        }
    }
    const uint64_t id = m_openReceiveSpan;
    m_openReceiveSpan = kNone;
    release(id);
}

// The forward replay's and the backward replay's work at `op` (forward_replay_stage.cpp,
// backward_replay_stage.cpp).
Status WindowedReplay::consumeOne(PendingOp& op, uint64_t index) {
    RankState& state = m_state;
    const CallSpan call = span(op.span).call;
    const trace::MessageRecord& m = op.message;
    const auto takeRecord = [this, &m](uint32_t tag) {
        auto& queue = m_records[{m.comm, m_state.worldRankOf(m.comm, m.partner), tag}];
        const ReplayRecord record = queue.front();
        queue.pop_front();
        return record;
    };
    switch (op.kind) {
    case EventKind::MpiRecv:
    case EventKind::MpiIrecv: {
        const ReplayRecord record = takeRecord(m.tag);
        m_lateSender.onMessage(call, state.worldRankOf(m.comm, m.partner), record, m.length,
                               static_cast<uint32_t>(index),
                               nameOf(call).rfind("MPI_Test", 0) == 0);
        if (m_openReceiveSpan != op.span) {
            m_openReceiveSpan = op.span;
            reference(op.span);
        }
        break;
    }
    case EventKind::MpiSend:
    case EventKind::MpiIsend: {
        const ReplayRecord record = takeRecord(m.tag | kBackwardTag);
        const std::string_view name = nameOf(call);
        if (op.kind == EventKind::MpiSend && (name == "MPI_Send" || name == "MPI_Ssend")) {
            detectLateReceiver(call, record, m.length, m_backwardSink);
        } else if (op.kind == EventKind::MpiIsend && op.partner != kNone) {
            const CallSpan& completion = span(op.partner).call;
            const std::string_view completedBy = nameOf(completion);
            if (completedBy == "MPI_Wait" || completedBy == "MPI_Waitany") {
                detectLateReceiver(completion, record, m.length, m_backwardSink);
            } else if (completedBy == "MPI_Waitall" || completedBy == "MPI_Waitsome") {
                const double wait =
                    lateReceiverWait(completion.enter, completion.exit, record.enter);
                if (wait > 0.0) {
                    // Ties: the later send (Scalasca 2.6 visits them backward).
                    MultiWait& longest = m_multiWaits[op.partner];
                    if (wait >= longest.wait) {
                        longest.call = completion;
                        longest.wait = wait;
                        longest.length = m.length;
                    }
                }
            }
        }
        break;
    }
    case EventKind::MpiCollectiveEnd: {
        const trace::CollectiveRecord& c = op.collective;
        if (isSelf(c.comm)) {
            break;
        }
        auto& queue = m_collectives[c.comm];
        std::shared_ptr<const GatheredCollective> gathered = std::move(queue.front());
        queue.pop_front();
        const RegionClass cls = state.classOf(state.result.tree.node(call.node).region);
        if (Status s = replayCollectivePattern(state, static_cast<uint32_t>(index), call, c, cls,
                                               std::move(gathered));
            !s) {
            return s;
        }
        break;
    }
    default:
        break;
    }
    return Status::success();
}

// Consumes the pending operations in event order as far as what they need has arrived.
Status WindowedReplay::consume() {
    while (!m_ops.empty()) {
        PendingOp& op = m_ops.front();
        if (m_openReceiveSpan != kNone && m_openReceiveSpan != op.span) {
            completeReceiveCall();
        }
        if (!consumable(op)) {
            break;
        }
        if (Status s = consumeOne(op, m_opBase); !s) {
            return s;
        }
        const uint64_t own = op.span;
        const uint64_t partner = op.partner;
        m_ops.pop_front();
        ++m_opBase;
        release(partner);
        release(own);
    }
    return Status::success();
}

// After the last step: the Late Receivers of MPI_Waitall / MPI_Waitsome, the backward
// instances after the forward ones (the whole-rank order), the consistency check, and a
// refusal of what could not be consumed.
Status WindowedReplay::finish() {
    RankState& state = m_state;
    if (m_ops.empty()) {
        completeReceiveCall();
    }
    for (const auto& [id, w] : m_multiWaits) {
        if (!w.lateSender) {
            m_backwardSink.record(Metric::MpiLateReceiver, w.call, w.wait);
            m_backwardSink.add(w.length > 0 ? Metric::MpiClrCount : Metric::MpiSlrCount,
                               w.call.node, 1.0);
        }
    }
    state.result.instances.insert(state.result.instances.end(), m_backwardInstances.begin(),
                                  m_backwardInstances.end());
    std::vector<PatternInstance>().swap(m_backwardInstances);
    state.result.events = m_location.events();
    if (Status consistent = checkConsistency(state, m_transport, m_tally); !consistent) {
        return consistent;
    }
    if (!m_ops.empty()) {
        const PendingOp& op = m_ops.front();
        return Error("rank " + std::to_string(state.result.rank) +
                     ": replay stalled at operation " + std::to_string(m_opBase) + " (" +
                     std::string(nameOf(span(op.span).call)) +
                     "): what it waits for never arrived");
    }
    return Status::success();
}

Status WindowedReplay::run() {
    m_transport.carryRecordInfo(false);
    for (uint64_t step = 0;; ++step) {
        if (!m_reader.done() && !m_failure) {
            if (Status read = readWindow(); !read) {
                m_failure = read.error(); // told to the others in the next agreement
                if (m_state.input.readFailed) {
                    m_state.input.readFailed(*m_failure);
                }
            }
            m_state.report("windowed replay", m_reader.read(),
                           std::max(m_announced, m_reader.read()));
        }
        auto everyone = agree();
        if (!everyone) {
            return everyone.error();
        }
        if (*everyone) {
            // Everything was posted before the last exchange; what the last window told (a
            // send without completion) may still free operations.
            if (Status s = consume(); !s) {
                return s;
            }
            break;
        }
        if (Status s = post(); !s) {
            return s;
        }
        if (Status s = m_transport.exchange(); !s) {
            return s;
        }
        if (Status s = take(); !s) {
            return s;
        }
        if (Status s = consume(); !s) {
            return s;
        }
    }
    Status finished = finish();
    m_state.report("windowed replay", 100, 100);
    return finished;
}

} // namespace

Status windowedReplayStage(RankState& state, Transport& transport) {
    WindowedReplay replay(state, transport, *state.input.windows, state.input.options.windowEvents);
    return replay.run();
}

} // namespace waitscope::analysis
