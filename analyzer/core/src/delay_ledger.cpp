// The root-cause pass's accounts of costs, shares and delay values (see delay_ledger.h).
#include "delay_ledger.h"

#include <algorithm>
#include <cassert>
#include <optional>

namespace waitscope::analysis::delay {
namespace {

constexpr Metric kShortTerm[kKinds] = {
    Metric::DelayLateSender, Metric::DelayLateReceiver, Metric::DelayBarrier,   Metric::DelayN2n,
    Metric::Delay12n,        Metric::DelayN21,          Metric::DelayOmpbarrier};
constexpr Metric kLongTerm[kKinds] = {
    Metric::DelayLateSenderLongterm, Metric::DelayLateReceiverLongterm,
    Metric::DelayBarrierLongterm,    Metric::DelayN2nLongterm,
    Metric::Delay12nLongterm,        Metric::DelayN21Longterm,
    Metric::DelayOmpbarrierLongterm};

} // namespace

Metric shortTermMetric(Kind kind) {
    return kShortTerm[kind];
}
Metric longTermMetric(Kind kind) {
    return kLongTerm[kind];
}

Ledger::Ledger(const SyncPoints& points, size_t nodes)
    : m_points(points), m_causedSlot(points.size(), 0),
      m_unretired(static_cast<int>(points.size()) - 1), m_indirectLs(nodes, 0.0),
      m_indirectLr(nodes, 0.0) {}

Ledger::Caused& Ledger::causedAt(int point) {
    uint32_t& slot = m_causedSlot[static_cast<size_t>(point)];
    if (slot == 0) {
        assert(point <= m_unretired && "a retired SP takes on no further costs or shares");
        m_live.push_back(Caused{point, Role::Group, false, 0, Costs{}, 0.0});
        slot = static_cast<uint32_t>(m_flushed + m_live.size());
    }
    Caused& caused = m_live[slot - 1 - m_flushed];
    assert(!caused.retired && "a retired SP takes on no further costs or shares");
    return caused;
}

Costs Ledger::costsOf(int point) const {
    const uint32_t slot = m_causedSlot[static_cast<size_t>(point)];
    assert((slot == 0 || slot > m_flushed) && "the costs of a retired SP are gone");
    return slot == 0 ? Costs{} : m_live[slot - 1 - m_flushed].costs;
}

void Ledger::retireAbove(int point) {
    for (; m_unretired > point; --m_unretired) {
        const uint32_t slot = m_causedSlot[static_cast<size_t>(m_unretired)];
        if (slot != 0) {
            Caused& caused = m_live[slot - 1 - m_flushed];
            // Read now, while the walk's block of SPs is at hand.
            const SyncPoint sp = m_points.at(m_unretired);
            caused.role = sp.role;
            caused.node = sp.node;
            caused.retired = true;
        }
    }
    // In the order of first cost: an entry waits for every earlier one. A share of 0 adds
    // nothing to the classification's sums (they start at +0 and the shares are not negative).
    while (!m_live.empty() && m_live.front().retired) {
        const Caused& caused = m_live.front();
        if (caused.propagating > 0.0 &&
            (caused.role == Role::LateSender || caused.role == Role::LateReceiver)) {
            m_retired.push(Propagating{caused.node, caused.role == Role::LateReceiver ? 1u : 0u,
                                       caused.propagating});
        }
        m_live.pop_front();
        ++m_flushed;
    }
}

void Ledger::addCost(int point, Kind kind, double cost) {
    if (cost > 0.0) {
        causedAt(point).costs[kind] += cost;
    }
}

void Ledger::addCosts(const Interval& span, Kind kind, double scale) {
    if (!(scale > 0.0)) {
        return;
    }
    for (int k = span.from + 1; k < span.to; ++k) {
        const double wait = m_points.at(k).wait;
        if (wait > 0.0) {
            causedAt(k).costs[kind] += scale * wait;
        }
    }
}

void Ledger::addCosts(const Interval& span, Kind kind, const ScaleMap& scales) {
    if (scales.empty()) {
        return;
    }
    double scale = scales.front().second;
    size_t next = 1;
    for (int k = span.from + 1; k < span.to; ++k) {
        while (next < scales.size() && scales[next].first < k) {
            ++next;
        }
        if (next < scales.size() && scales[next].first == k) {
            scale = scales[next].second;
        }
        const double wait = m_points.at(k).wait;
        if (scale > 0.0 && wait > 0.0) {
            causedAt(k).costs[kind] += scale * wait;
        }
    }
}

void Ledger::propagate(int point, double share) {
    double& pw = causedAt(point).propagating;
    pw = std::max(pw, share);
}

// Once per metric and call path rather than once per value.
void Ledger::addSums(SeverityRows& rows) {
    for (size_t i = 0; i < kMetricCount; ++i) {
        const auto metric = static_cast<Metric>(i);
        const std::vector<double>& row = m_leafSums.row(metric);
        if (row.empty()) {
            continue;
        }
        for (std::optional<Metric> m = metric; m; m = metricInfo(*m).parent) {
            for (NodeId node = 0; node < row.size(); ++node) {
                if (row[node] != 0.0) {
                    rows.add(*m, node, row[node]);
                }
            }
        }
    }
    m_leafSums = SeverityRows();
}

} // namespace waitscope::analysis::delay
