// Timestamp correction with the controlled logical clock.
//
// Source: D. Becker, R. Rabenseifner, F. Wolf, J. Linford, "Scalable timestamp synchronization
// for event traces of message-passing applications", Parallel Computing 35(12), 2009, as
// Scalasca's clc_synchronize applies it (with the controller's gamma at 1: a jump is kept, not
// decayed, so a rank whose clock is behind stays corrected).
//
//   sender     ------------s-----------------------          s: send event
//                           \  >= mu
//   receiver   --a-----b--r  \                                r recorded before s + mu:
//                              r'--x'---y'                    forward: r' = s + mu, the events
//                                                             after keep their spacing
//   amortized  ---a'----b'---r'--x'---y'                      backward: the events before r
//                                                             move by a ramp rising to the jump
//
// 1. forward (message-driven, every rank walks its events in order at once): an event's
//    corrected time is its original time plus the rank's shift, never before the previous
//    event. A send posts its corrected time to the receiver; a receive awaits it, and when it
//    lies before send + mu the receive jumps there and the shift grows by the jump. A
//    collective hands its members the corrected enter; an exit jumps to the latest enter that
//    binds it (clock_condition.h: only exits of members that receive data, and barriers') + mu.
// 2. limits (only when some rank jumped; one bulk exchange, as every time is known): each
//    receive tells its sender its corrected time, each collective exit its members; a
//    send-like event (send, enter of a collective whose enter binds others) may later move to
//    at most that partner's time - mu.
// 0. before these, unless a latency is given: mu per rank pair is estimated as the smallest
//    gap from a send to its receive among the pair's messages that keep the clock condition,
//    and for collectives as the smallest gap from the latest binding enter to an exit (each at
//    most the given bound, 1 us by default), so that a trace that keeps the clock condition is
//    not moved at all, however fast its messages (Scalasca uses fixed latencies instead).
// 3. backward amortization (local): for each jump of delta at event R, whose time was r before
//    the jump, the events in (l, R) with l = r - delta / m (at the earliest the first event)
//    move by g(t) = delta (t - l) / (r - l): intervals before the jump stretch by at most m
//    instead of a gap opening in front of R. When g would carry a send-like event s past its
//    limit (headroom h), the ramp runs from s instead, g(t) = h + (delta - h)(t - s)/(r - s)
//    with the steepest such slope, and the events before s are amortized again with h as the
//    jump (the paper's piecewise linear interpolation).
// Times are kept in ticks relative to the clock's global offset, so the doubles that travel
// between ranks hold them exactly (up to 2^53 ticks).
#include "waitscope/analysis/clock_correction.h"

#include "clock_condition.h"
#include "consistency_check.h"
#include "exchange_signature.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace waitscope::analysis {
namespace {

using trace::EventKind;

bool isSend(EventKind kind) {
    return kind == EventKind::MpiSend || kind == EventKind::MpiIsend;
}

bool isReceive(EventKind kind) {
    return kind == EventKind::MpiRecv || kind == EventKind::MpiIrecv;
}

bool isSelf(const trace::Definitions& defs, uint32_t comm) {
    return comm < defs.communicators.size() && defs.communicators[comm].isSelf;
}

// Whether every rank has events and the ranks' messages and collectives match (counts per
// rank pair and per communicator), so that the message-driven passes cannot stall. The same
// answer on every rank, from one gather of a few sums per rank (tallyAgreement()). The
// replay's own check names the problem.
Result<bool> exchangesMatch(const trace::Definitions& defs, const trace::EventStream* events,
                            Transport& transport) {
    const uint32_t n = transport.size();
    const uint32_t self = transport.rank();
    ConsistencyTally tally(n, defs.communicators.size());
    for (size_t i = 0; events != nullptr && i < events->size(); ++i) {
        const EventKind kind = events->kind(i);
        if (isSend(kind) || isReceive(kind)) {
            const trace::MessageRecord& m = events->message(i);
            // A partner outside the communicator counts as a problem (beyond the ranks).
            const uint32_t peer = std::min(defs.worldRank(m.comm, m.partner, self), n);
            tally.addMessage(isSend(kind), m, peer);
        } else if (kind == EventKind::MpiCollectiveEnd) {
            // Count and operations: which collectives exchange enters follows from the
            // operation, and every member must take part in the same ones.
            tally.addCollective(events->collective(i), RegionClass::MpiCollective);
        }
    }
    auto agreement = tallyAgreement(tally, defs, transport, events == nullptr, false);
    if (!agreement) {
        return agreement.error();
    }
    return agreement->agree;
}

// A forward jump: `event` moved by `delta` ticks from `before`.
struct Jump {
    uint32_t event;
    int64_t before;
    int64_t delta;
};

// The latest time (ticks) a send-like event may move to.
struct Limit {
    uint32_t event;
    double latest;
};

class ClockCorrection {
public:
    ClockCorrection(const trace::Definitions& definitions, trace::EventStream& events,
                    Transport& transport, const ClockCorrectionOptions& options)
        : m_defs(definitions), m_events(events), m_transport(transport), m_self(transport.rank()),
          m_maxSlope(options.maxSlope), m_estimate(options.estimateLatency) {
        // Whole ticks, rounded up: mu is a lower bound.
        m_latency = static_cast<int64_t>(
            std::ceil(options.minLatency * static_cast<double>(definitions.clock.ticksPerSecond)));
        m_latency = std::max<int64_t>(m_latency, 0);
        m_pairLatency.assign(transport.size(), m_latency);
        m_collectiveLatency = m_latency;
    }

    Result<Diagnostics> run() {
        if (m_estimate) {
            if (Status status = estimateLatency(); !status) {
                return status.error();
            }
        }
        if (Status status = forward(); !status) {
            return status.error();
        }
        if (Status status = m_transport.finishPass(); !status) {
            return status.error();
        }
        auto jumps = m_transport.allGather(kWorldComm, {static_cast<double>(m_jumps.size())});
        if (!jumps) {
            return jumps.error();
        }
        double total = 0.0;
        for (const double count : *jumps) {
            total += count;
        }
        if (total == 0.0) {
            return m_counters;
        }
        if (Status status = exchangeLimits(); !status) {
            return status.error();
        }
        amortize();
        return m_counters;
    }

private:
    int64_t relative(size_t event) const {
        return static_cast<int64_t>(m_events.time(event) - m_defs.clock.globalOffset);
    }
    void setRelative(size_t event, int64_t ticks) {
        m_events.setTime(event, static_cast<uint64_t>(ticks) + m_defs.clock.globalOffset);
    }

    void jump(uint32_t event, int64_t before, int64_t delta, experiment::Diagnostic corrected) {
        m_jumps.push_back(Jump{event, before, delta});
        m_counters[corrected] += 1;
        const auto ns = static_cast<uint64_t>(std::llround(
            1e9 * static_cast<double>(delta) / static_cast<double>(m_defs.clock.ticksPerSecond)));
        uint64_t& largest = m_counters[experiment::Diagnostic::ClockCorrectionMaxShiftNs];
        largest = std::max(largest, ns);
    }

    // The reading pass of a bulk exchange (after m_transport.exchange()): `onMessage(event,
    // message, record)` for each message event whose kind `reads` with the record its partner
    // sent for it, `onCollective(event, collective)` for each synchronizing collective with every
    // member's contribution in m_exits.
    template <class OnMessage, class OnCollective>
    Status readExchange(bool (*reads)(EventKind), OnMessage onMessage, OnCollective onCollective) {
        for (size_t i = 0; i < m_events.size(); ++i) {
            const EventKind kind = m_events.kind(i);
            if (reads(kind)) {
                const trace::MessageRecord& m = m_events.message(i);
                auto record = m_transport.receive(m.comm, m.partner, m.tag);
                if (!record) {
                    return record.error();
                }
                onMessage(i, m, *record);
            } else if (kind == EventKind::MpiCollectiveEnd) {
                const trace::CollectiveRecord& c = m_events.collective(i);
                if (isSelf(m_defs, c.comm) || !synchronizes(c.op)) {
                    continue;
                }
                if (Status s = m_transport.collected(c.comm, m_exits); !s) {
                    return s;
                }
                onCollective(i, c);
            }
        }
        return Status::success();
    }

    // --- 0. latency estimate ----------------------------------------------------------------

    // The latest enter binding the exit of this rank's collective `c` among `enters` (in
    // communicator rank order), or the least int64 when none binds it.
    int64_t latestBindingEnter(const trace::CollectiveRecord& c,
                               const std::vector<double>& enters) const {
        int64_t latest = std::numeric_limits<int64_t>::min();
        const uint32_t me = commRankOf(m_defs, c.comm, m_self);
        for (uint32_t member = 0; exitIsBound(c) && member < enters.size(); ++member) {
            if (enterBindsExit(c.op, member, me, c.root)) {
                latest = std::max(latest, static_cast<int64_t>(enters[member]));
            }
        }
        return latest;
    }

    // The least latencies as the trace shows them (see ClockCorrectionOptions), with the
    // original times: one bulk exchange of every send's and collective enter's time.
    Status estimateLatency() {
        int64_t enter = 0;
        for (size_t i = 0; i < m_events.size(); ++i) {
            const EventKind kind = m_events.kind(i);
            if (kind == EventKind::Enter || kind == EventKind::MpiCollectiveBegin) {
                enter = relative(i);
            } else if (isSend(kind)) {
                const trace::MessageRecord& m = m_events.message(i);
                const double t = static_cast<double>(relative(i));
                if (Status s = m_transport.send(m.comm, m.partner, m.tag, ReplayRecord{t, t}); !s) {
                    return s;
                }
            } else if (kind == EventKind::MpiCollectiveEnd) {
                const trace::CollectiveRecord& c = m_events.collective(i);
                if (!isSelf(m_defs, c.comm) && synchronizes(c.op)) {
                    if (Status s =
                            m_transport.contribute(c.comm, std::array{static_cast<double>(enter)});
                        !s) {
                        return s;
                    }
                }
            }
        }
        if (Status s = m_transport.exchange(); !s) {
            return s;
        }
        constexpr int64_t kNone = std::numeric_limits<int64_t>::max();
        std::vector<int64_t> pairGap(m_transport.size(), kNone);
        int64_t collectiveGap = kNone;
        Status read = readExchange(
            isReceive,
            [&](size_t i, const trace::MessageRecord& m, const ReplayRecord& send) {
                const int64_t gap = relative(i) - static_cast<int64_t>(send.enter);
                const uint32_t source = m_defs.worldRank(m.comm, m.partner, m_self);
                if (gap >= 0 && source < pairGap.size()) {
                    pairGap[source] = std::min(pairGap[source], gap);
                }
            },
            [&](size_t i, const trace::CollectiveRecord& c) {
                const int64_t latest = latestBindingEnter(c, m_exits);
                if (latest != std::numeric_limits<int64_t>::min() && relative(i) >= latest) {
                    collectiveGap = std::min(collectiveGap, relative(i) - latest);
                }
            });
        if (!read) {
            return read;
        }
        // Pairs without a message that keeps the clock condition take the smallest gap of all.
        int64_t smallest = kNone;
        for (const int64_t gap : pairGap) {
            smallest = std::min(smallest, gap);
        }
        auto all = m_transport.allGather(
            kWorldComm, {static_cast<double>(smallest), static_cast<double>(collectiveGap)});
        if (!all) {
            return all.error();
        }
        double anyPair = static_cast<double>(kNone);
        double anyCollective = static_cast<double>(kNone);
        for (size_t r = 0; r + 1 < all->size(); r += 2) {
            anyPair = std::min(anyPair, (*all)[r]);
            anyCollective = std::min(anyCollective, (*all)[r + 1]);
        }
        const auto capped = [this](double gap) {
            return gap < static_cast<double>(m_latency) ? static_cast<int64_t>(gap) : m_latency;
        };
        int64_t least = capped(anyCollective);
        m_collectiveLatency = least;
        for (size_t source = 0; source < pairGap.size(); ++source) {
            m_pairLatency[source] =
                capped(pairGap[source] != kNone ? static_cast<double>(pairGap[source]) : anyPair);
            least = std::min(least, m_pairLatency[source]);
        }
        m_counters[experiment::Diagnostic::ClockCorrectionMinLatencyNs] =
            static_cast<uint64_t>(std::llround(1e9 * static_cast<double>(least) /
                                               static_cast<double>(m_defs.clock.ticksPerSecond)));
        return Status::success();
    }

    // The least latency of a message to this rank from communicator rank `partner` of `comm`.
    int64_t pairLatency(uint32_t comm, uint32_t partner) const {
        const uint32_t source = m_defs.worldRank(comm, partner, m_self);
        return source < m_pairLatency.size() ? m_pairLatency[source] : m_latency;
    }

    // --- 1. forward -------------------------------------------------------------------------

    Status forward() {
        int64_t shift = 0;
        int64_t previous = std::numeric_limits<int64_t>::min();
        int64_t enter = 0;
        uint32_t enterEvent = 0;
        for (size_t i = 0; i < m_events.size(); ++i) {
            int64_t t = std::max(relative(i) + shift, previous);
            const EventKind kind = m_events.kind(i);
            const auto event = static_cast<uint32_t>(i);
            if (kind == EventKind::Enter || kind == EventKind::MpiCollectiveBegin) {
                enter = t;
                enterEvent = event;
            } else if (isSend(kind)) {
                const trace::MessageRecord& m = m_events.message(i);
                if (Status s = m_transport.post(m.comm, m.partner, m.tag, {static_cast<double>(t)});
                    !s) {
                    return s;
                }
            } else if (isReceive(kind)) {
                const trace::MessageRecord& m = m_events.message(i);
                if (Status s = m_transport.await(m.comm, m.partner, m.tag, m_arrived); !s) {
                    return s;
                }
                if (m_arrived.empty()) {
                    return Error("rank " + std::to_string(m_self) +
                                 ": empty clock payload from communicator rank " +
                                 std::to_string(m.partner));
                }
                const int64_t bound =
                    static_cast<int64_t>(m_arrived[0]) + pairLatency(m.comm, m.partner);
                if (t < bound) {
                    jump(event, t, bound - t, experiment::Diagnostic::ClockCorrectedP2p);
                    shift += bound - t;
                    t = bound;
                }
            } else if (kind == EventKind::MpiCollectiveEnd) {
                const trace::CollectiveRecord& c = m_events.collective(i);
                if (!isSelf(m_defs, c.comm) && synchronizes(c.op)) {
                    m_collectiveEnters.push_back(enterEvent);
                    auto enters = m_transport.awaitAll(c.comm, {static_cast<double>(enter)});
                    if (!enters) {
                        return enters.error();
                    }
                    const int64_t latest = latestBindingEnter(c, *enters);
                    const int64_t mu = m_collectiveLatency;
                    if (latest != std::numeric_limits<int64_t>::min() && t < latest + mu) {
                        jump(event, t, latest + mu - t,
                             experiment::Diagnostic::ClockCorrectedCollective);
                        shift += latest + mu - t;
                        t = latest + mu;
                    }
                }
            }
            setRelative(i, t);
            previous = t;
        }
        return Status::success();
    }

    // --- 2. limits --------------------------------------------------------------------------

    Status exchangeLimits() {
        // Every time is known now: one bulk exchange instead of message-driven steps.
        for (size_t i = 0; i < m_events.size(); ++i) {
            const EventKind kind = m_events.kind(i);
            if (isReceive(kind)) {
                // The latest time its send may move to: the receive minus the pair's latency.
                const trace::MessageRecord& m = m_events.message(i);
                const double t = static_cast<double>(relative(i) - pairLatency(m.comm, m.partner));
                if (Status s = m_transport.send(m.comm, m.partner, m.tag, ReplayRecord{t, t}); !s) {
                    return s;
                }
            } else if (kind == EventKind::MpiCollectiveEnd) {
                const trace::CollectiveRecord& c = m_events.collective(i);
                if (!isSelf(m_defs, c.comm) && synchronizes(c.op)) {
                    // An exit that no enter binds limits no one.
                    const double exit = exitIsBound(c) ? static_cast<double>(relative(i))
                                                       : std::numeric_limits<double>::infinity();
                    if (Status s = m_transport.contribute(c.comm, std::array{exit}); !s) {
                        return s;
                    }
                }
            }
        }
        if (Status s = m_transport.exchange(); !s) {
            return s;
        }
        const double latency = static_cast<double>(m_collectiveLatency);
        size_t collective = 0;
        Status read = readExchange(
            isSend,
            [&](size_t i, const trace::MessageRecord&, const ReplayRecord& receive) {
                m_limits.push_back(Limit{static_cast<uint32_t>(i), receive.enter});
            },
            [&](size_t, const trace::CollectiveRecord& c) {
                const uint32_t me = commRankOf(m_defs, c.comm, m_self);
                double latest = std::numeric_limits<double>::infinity();
                for (uint32_t member = 0; member < m_exits.size(); ++member) {
                    if (member != me && enterBindsExit(c.op, me, member, c.root)) {
                        latest = std::min(latest, m_exits[member] - latency);
                    }
                }
                if (latest != std::numeric_limits<double>::infinity() &&
                    collective < m_collectiveEnters.size()) {
                    m_limits.push_back(Limit{m_collectiveEnters[collective], latest});
                }
                ++collective;
            });
        if (!read) {
            return read;
        }
        std::sort(m_limits.begin(), m_limits.end(),
                  [](const Limit& a, const Limit& b) { return a.event < b.event; });
        return Status::success();
    }

    // --- 3. backward amortization -----------------------------------------------------------

    void amortize() {
        if (m_events.size() == 0) {
            return;
        }
        const double first = static_cast<double>(relative(0));
        for (const Jump& jump : m_jumps) {
            amortizeBefore(jump, first);
        }
    }

    // Moves the events before jump.event by the ramp described in the overview.
    void amortizeBefore(const Jump& jump, double first) {
        uint32_t right = jump.event;
        double before = static_cast<double>(jump.before);
        double delta = static_cast<double>(jump.delta);
        double left = before - delta / m_maxSlope;
        if (left < first) {
            left = first;
        }
        while (delta > 0.0 && before > left) {
            double slope = delta / (before - left);
            // The send-like event in (left, right) that needs the steepest ramp to stay
            // within its limit.
            const Limit* steepest = nullptr;
            double headroom = 0.0;
            auto it = std::lower_bound(m_limits.begin(), m_limits.end(), right,
                                       [](const Limit& l, uint32_t e) { return l.event < e; });
            while (it != m_limits.begin()) {
                --it;
                const double s = static_cast<double>(relative(it->event));
                if (s <= left) {
                    break;
                }
                const double room = std::max(0.0, it->latest - s);
                const double needed = (delta - room) / std::max(before - s, 1.0);
                if (needed > slope) {
                    slope = needed;
                    steepest = &*it;
                    headroom = room;
                }
            }
            if (steepest == nullptr) {
                for (size_t j = right; j-- > 0;) {
                    const double t = static_cast<double>(relative(j));
                    if (t <= left) {
                        break;
                    }
                    shiftBy(j, slope * (t - left));
                }
                return;
            }
            const double s = static_cast<double>(relative(steepest->event));
            for (size_t j = right; j-- > steepest->event;) {
                shiftBy(j, headroom + slope * (static_cast<double>(relative(j)) - s));
            }
            // Amortize the send's own move over the events before it.
            right = steepest->event;
            before = s;
            delta = headroom;
        }
    }

    void shiftBy(size_t event, double ticks) {
        setRelative(event, relative(event) + static_cast<int64_t>(std::floor(ticks)));
    }

    const trace::Definitions& m_defs;
    trace::EventStream& m_events;
    Transport& m_transport;
    uint32_t m_self;
    double m_maxSlope;
    bool m_estimate;
    int64_t m_latency = 0;              ///< the given least latency (ticks)
    std::vector<int64_t> m_pairLatency; ///< per world source rank, for its messages here
    int64_t m_collectiveLatency = 0;    ///< for collective exits
    std::vector<Jump> m_jumps;
    std::vector<uint32_t> m_collectiveEnters; ///< enter event of each exchanged collective
    std::vector<Limit> m_limits;              ///< by event index
    std::vector<double> m_exits;              ///< scratch: one collective's exits
    std::vector<double> m_arrived;            ///< scratch: a send's corrected time
    Diagnostics m_counters;
};

} // namespace

Result<Diagnostics> correctClocks(const trace::Definitions& definitions, trace::EventStream* events,
                                  Transport& transport, const ClockCorrectionOptions& options) {
    auto match = exchangesMatch(definitions, events, transport);
    if (!match) {
        return match.error();
    }
    if (!*match) {
        Diagnostics skipped;
        skipped[experiment::Diagnostic::ClockCorrectionSkipped] = 1;
        return skipped;
    }
    ClockCorrection correction(definitions, *events, transport, options);
    return correction.run();
}

} // namespace waitscope::analysis
