// Point-to-point delay: the delayer's side of a Late Sender or Late Receiver wait state in the
// root-cause pass, and the indirect shares it sends back to the waiters (see
// delay_analysis.cpp for the formulas).
#include "delay_pass.h"

#include <algorithm>

namespace waitscope::analysis::delay {

void OwedShares::add(uint32_t waiter, uint32_t comm, uint32_t tag, uint32_t kind, double value) {
    const Channel channel{waiter, comm, tag, kind};
    if (m_position == nullptr || channel != m_positionOf) {
        m_position = &m_sequence[channel];
        m_positionOf = channel;
    }
    if (value > 0.0) {
        m_owed[waiter].push_back(Owed{comm, tag, kind, *m_position, value});
    }
    ++*m_position;
}

// The waiter posts its wait, costs and interval since it last synchronized with the delayer;
// the delayer awaits them at its matching operation.
Status Pass::pointToPoint(int point) {
    const SyncPoint sp = m_points.at(point);
    const trace::MessageRecord m = messageOf(sp.operation);
    const bool lateSender = sp.role == Role::LateSender || sp.role == Role::SenderOfLate;
    const uint32_t tag = lateSender ? m.tag : m.tag | kLateReceiverTag;
    if (sp.role == Role::LateSender || sp.role == Role::LateReceiver) {
        Interval& own = m_own;
        m_intervals.compute(m_points.previousWith(point, sp.partner), point, own);
        m_shared.posted.push(RankShares::Posted{m_location, point});
        return m_transport.post(m.comm, m.partner, tag,
                                m_payload.write(sp.wait, m_ledger.costsOf(point), own));
    }
    Inputs inputs{};
    if (Status s = m_transport.await(m.comm, m.partner, tag, m_arrived); !s) {
        return s;
    }
    if (Status s = m_payload.read(m_arrived, m_transport.rank(), sp.partner, inputs); !s) {
        return s;
    }
    const Kind kind = lateSender ? kLateSender : kLateReceiver;
    const double indirect = delayAtPartner(point, kind, sp.partner, inputs);
    m_shared.owed.add(sp.partner, m.comm, m.tag, kind, indirect);
    return Status::success();
}

// The delayer's side of a point-to-point wait state of type `kind` at SP `point`: `inputs` and
// the payload read last hold what the waiter (world rank `waiterRank`) posted. Returns the
// indirect share of the wait.
double Pass::delayAtPartner(int point, Kind kind, uint32_t waiterRank, const Inputs& inputs) {
    const double wait = inputs[0];
    Costs costs{};
    std::copy(inputs.begin() + 1, inputs.end(), costs.begin());
    if (!(wait > 0.0)) {
        return 0.0;
    }
    Interval& own = m_own;
    m_intervals.compute(m_points.previousWith(point, waiterRank), point, own);
    std::vector<std::pair<NodeId, double>>& delay = m_delays;
    delay.clear();
    double delaySum = 0.0;
    for (const auto& [node, t] : own.times) {
        const double d = t - m_payload.remoteTime(node);
        if (d > 0.0) {
            delay.emplace_back(node, d);
            delaySum += d;
        }
    }
    const double denominator = delaySum + own.waiting;
    if (!(denominator > 0.0)) {
        return 0.0;
    }
    const double scale = std::min(wait / denominator, 1.0);
    if (delaySum > 0.0) {
        for (const auto& [node, d] : delay) {
            m_ledger.addUp(shortTermMetric(kind), node, scale * d);
        }
    }
    for (size_t x = 0; x < kKinds; ++x) {
        const double longScale = costs[x] / denominator;
        if (longScale > 0.0) {
            for (const auto& [node, d] : delay) {
                m_ledger.addUp(longTermMetric(static_cast<Kind>(x)), node, longScale * d);
            }
        }
        if (own.to - own.from > 1) { // SPs inside the interval take on costs
            m_ledger.addCosts(own, static_cast<Kind>(x), longScale + (x == kind ? scale : 0.0));
        }
    }
    if (own.waiting > 0.0 && scale > 0.0) {
        for (int k = own.from + 1; k < own.to; ++k) {
            const double w = m_points.at(k).wait;
            if (w > 0.0) {
                m_ledger.propagate(k, scale * w);
            }
        }
    }
    return own.waiting > 0.0 ? scale * own.waiting : 0.0;
}

// Every delayer sends each of its waiters one payload with the nonzero indirect shares; the
// waiters find the wait state of each by its channel and position, counted the same way.
Status RankPass::settleIndirect() {
    std::vector<uint32_t> delayers, waiters;
    partnerRanks(delayers, waiters);
    if (Status s = postOwedShares(waiters); !s) {
        return s;
    }
    OwedShares::Received shares;
    if (Status s = awaitOwedShares(delayers, shares); !s) {
        return s;
    }
    if (!shares.empty()) {
        creditIndirect(shares);
    }
    return Status::success();
}

// The ranks that delayed this one's point-to-point wait states and those that waited for it,
// ascending.
void RankPass::partnerRanks(std::vector<uint32_t>& delayers, std::vector<uint32_t>& waiters) const {
    std::vector<char> isDelayer(m_transport.size(), 0), isWaiter(m_transport.size(), 0);
    for (const Pass& pass : m_passes) {
        const SyncPoints& points = pass.points();
        for (size_t k = 0; k < points.size(); ++k) {
            const SyncPoint sp = points[k];
            if (sp.role == Role::SenderOfLate || sp.role == Role::ReceiverOfLate) {
                isWaiter[sp.partner] = 1;
            } else if (sp.role == Role::LateSender || sp.role == Role::LateReceiver) {
                isDelayer[sp.partner] = 1;
            }
        }
    }
    for (uint32_t r = 0; r < m_transport.size(); ++r) {
        if (isDelayer[r]) {
            delayers.push_back(r);
        }
        if (isWaiter[r]) {
            waiters.push_back(r);
        }
    }
}

// One payload per waiter: (comm, tag, kind, position, share) per share, possibly none.
Status RankPass::postOwedShares(const std::vector<uint32_t>& waiters) {
    const auto& owed = m_shared.owed.byWaiter();
    for (const uint32_t waiter : waiters) {
        std::vector<double> payload;
        const auto it = owed.find(waiter);
        if (it != owed.end()) {
            for (const OwedShares::Owed& o : it->second) {
                payload.insert(payload.end(),
                               {static_cast<double>(o.comm), static_cast<double>(o.tag),
                                static_cast<double>(o.kind), static_cast<double>(o.sequence),
                                o.value});
            }
        }
        if (Status s = m_transport.post(kWorldComm, waiter, kIndirectTag, payload); !s) {
            return s;
        }
    }
    return Status::success();
}

Status RankPass::awaitOwedShares(const std::vector<uint32_t>& delayers,
                                 OwedShares::Received& shares) {
    for (const uint32_t delayer : delayers) {
        std::vector<double>& payload = m_arrived;
        if (Status s = m_transport.await(kWorldComm, delayer, kIndirectTag, payload); !s) {
            return s;
        }
        for (size_t i = 0; i + 5 <= payload.size(); i += 5) {
            const auto field = [&](size_t f) { return static_cast<uint32_t>(payload[i + f]); };
            shares[std::make_tuple(delayer, field(0), field(1), field(2), field(3))] =
                payload[i + 4];
        }
    }
    return Status::success();
}

// Counts this rank's wait states per channel in the order they were posted, as the delayers
// counted them, to find each share's.
void RankPass::creditIndirect(const OwedShares::Received& shares) {
    std::map<std::tuple<uint32_t, uint32_t, uint32_t, uint32_t>, uint32_t> sequence;
    for (size_t k = 0; k < m_shared.posted.size(); ++k) {
        const auto [location, point] = m_shared.posted[k];
        Pass& pass = m_passes[location];
        const SyncPoint sp = pass.points().at(point);
        const trace::MessageRecord m = pass.messageOf(sp.operation);
        const Kind kind = sp.role == Role::LateSender ? kLateSender : kLateReceiver;
        const uint32_t position = sequence[{sp.partner, m.comm, m.tag, kind}]++;
        const auto it = shares.find(
            std::make_tuple(sp.partner, m.comm, m.tag, static_cast<uint32_t>(kind), position));
        if (it != shares.end()) {
            pass.ledger().addIndirect(kind, sp.node, it->second);
        }
    }
}

} // namespace waitscope::analysis::delay
