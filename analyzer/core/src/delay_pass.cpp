// The root-cause pass's backward walk over one rank's operations (see delay_analysis.cpp for
// the algorithm): it hands each synchronization point to the point-to-point or collective
// delay computation.
#include "delay_pass.h"

#include <algorithm>

namespace waitscope::analysis::delay {

Pass::Pass(const trace::Definitions& definitions, const trace::EventStream& events,
           Transport& transport, RankResult& result, SyncPoints& points,
           const std::vector<Collective>& collectives,
           const std::vector<ReplayOperation>& operations, const std::vector<uint32_t>& paired,
           const OperationProfile& profile)
    : m_defs(definitions), m_events(events), m_transport(transport), m_result(result),
      m_points(points), m_collectives(collectives), m_operations(operations), m_paired(paired),
      m_intervals(points, profile, result.tree.size()), m_payload(result.tree),
      m_ledger(points, result.tree.size()) {}

Status Pass::run() {
    if (Status s = postEarlyShares(); !s) {
        return s;
    }
    if (Status s = walk(); !s) {
        return s;
    }
    if (Status s = settleIndirect(); !s) {
        return s;
    }
    if (Status s = m_transport.finishPass(); !s) {
        return s;
    }
    classifyWaitStates(m_points, m_result, m_ledger);
    m_ledger.addSums(m_result);
    return Status::success();
}

// The members of collectives that synchronized there with every rank post their shares before
// the walk: such a wait state can take on no costs in the walk (only those seeded before it).
Status Pass::postEarlyShares() {
    int p = static_cast<int>(m_points.size()) - 1;
    for (size_t k = m_collectives.size(); k-- > 0;) {
        const Collective& early = m_collectives[k];
        while (p >= 0 && m_points.at(p).operation > early.operation) {
            --p;
        }
        if (!early.postEarly || p < 0 || m_points.at(p).operation != early.operation) {
            continue;
        }
        const ReplayOperation& op = m_operations[early.operation];
        const uint32_t comm = m_events.collective(op.event).comm;
        const SyncPoint& sp = m_points.at(p);
        Interval& own = m_own;
        m_intervals.compute(
            m_points.previousWith(p, m_defs.communicators[comm].worldRanks[early.late]), p, own);
        if (Status s =
                m_transport.post(comm, early.late, kCollectiveUpEarly,
                                 m_payload.write(std::max(sp.wait, 0.0), m_ledger.costsOf(p), own));
            !s) {
            return s;
        }
    }
    return Status::success();
}

// Backward over the operations: each SP's delay computation in turn.
Status Pass::walk() {
    int point = static_cast<int>(m_points.size()) - 1;
    int collective = static_cast<int>(m_collectives.size()) - 1;
    for (size_t k = m_operations.size(); k-- > 0;) {
        while (point >= 0 && m_points.at(point).operation > k) {
            --point;
        }
        while (collective >= 0 && m_collectives[static_cast<size_t>(collective)].operation > k) {
            --collective;
        }
        const bool isPoint = point >= 0 && m_points.at(point).operation == k;
        if (collective >= 0 && m_collectives[static_cast<size_t>(collective)].operation == k) {
            if (Status s = collectiveDelay(m_collectives[static_cast<size_t>(collective)],
                                           isPoint ? point : -1);
                !s) {
                return s;
            }
            continue;
        }
        if (!isPoint || m_points.at(point).role == Role::Group) {
            continue;
        }
        if (Status s = pointToPoint(point); !s) {
            return s;
        }
    }
    return Status::success();
}

} // namespace waitscope::analysis::delay
