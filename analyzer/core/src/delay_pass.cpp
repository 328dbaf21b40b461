// The root-cause pass's backward walk over one rank's operations (see delay_analysis.cpp for
// the algorithm): each location's synchronization points in turn go to the point-to-point or
// collective delay computation, the rank's locations interleaved by time (RankPass).
#include "delay_pass.h"

#include <algorithm>
#include <limits>

namespace waitscope::analysis::delay {

Pass::Pass(const trace::Definitions& definitions, const trace::EventStream& events,
           Transport& transport, const CallTree& tree, SyncPoints& points,
           const std::vector<Collective>& collectives,
           const std::vector<ReplayOperation>& operations, const std::vector<CallSpan>& spans,
           const std::vector<uint32_t>& paired, const OperationProfile& profile, size_t first,
           uint32_t location, RankShares& shared)
    : m_defs(definitions), m_events(events), m_transport(transport), m_tree(tree), m_points(points),
      m_collectives(collectives), m_operations(operations), m_spans(spans), m_paired(paired),
      m_location(location), m_shared(shared), m_intervals(points, profile, tree.size(), first),
      m_payload(tree), m_ledger(points, tree.size()), m_point(static_cast<int>(points.size()) - 1),
      m_collective(static_cast<int>(collectives.size()) - 1), m_earlyPoint(m_point),
      m_earlyCollective(m_collective) {}

// The members of collectives that synchronized there with every rank post their shares before
// the walk: such a wait state can take on no costs.
bool Pass::nextEarly(Step& step) {
    for (; m_earlyCollective >= 0; --m_earlyCollective) {
        const Collective& early = m_collectives[static_cast<size_t>(m_earlyCollective)];
        while (m_earlyPoint >= 0 && m_points.at(m_earlyPoint).operation > early.operation) {
            --m_earlyPoint;
        }
        if (!early.postEarly || m_earlyPoint < 0 ||
            m_points.at(m_earlyPoint).operation != early.operation) {
            continue;
        }
        step.operation = early.operation;
        step.point = m_earlyPoint;
        step.collective = m_earlyCollective;
        step.time = m_spans[m_operations[early.operation].span].exit;
        return true;
    }
    return false;
}

Status Pass::takeEarly(const Step& step) {
    --m_earlyCollective;
    const Collective& early = m_collectives[static_cast<size_t>(step.collective)];
    const uint32_t comm = m_events.collective(m_operations[early.operation].event).comm;
    const SyncPoint sp = m_points.at(step.point);
    Interval& own = m_own;
    m_intervals.compute(
        m_points.previousWith(step.point, m_defs.communicators[comm].worldRanks[early.late]),
        step.point, own);
    return m_transport.post(
        comm, early.late, kCollectiveUpEarly,
        m_payload.write(std::max(sp.wait, 0.0), m_ledger.costsOf(step.point), own));
}

void Pass::skipPast(uint32_t operation) {
    while (m_point >= 0 && m_points.at(m_point).operation >= operation) {
        --m_point;
    }
    while (m_collective >= 0 &&
           m_collectives[static_cast<size_t>(m_collective)].operation >= operation) {
        --m_collective;
    }
}

// Backward over the operations with an SP or a collective: the last SP at an operation stands
// for it; an SP of a collective that needs no delay computation (MPI_Init, MPI_Finalize, a
// member without a latecomer to tell) is passed over.
bool Pass::next(Step& step) {
    for (;;) {
        const bool point = m_point >= 0;
        const bool collective = m_collective >= 0;
        if (!point && !collective) {
            return false;
        }
        const uint32_t pointAt = point ? m_points.at(m_point).operation : 0;
        const uint32_t collectiveAt =
            collective ? m_collectives[static_cast<size_t>(m_collective)].operation : 0;
        const uint32_t at = !point        ? collectiveAt
                            : !collective ? pointAt
                                          : std::max(pointAt, collectiveAt);
        step.operation = at;
        step.point = point && pointAt == at ? m_point : -1;
        step.collective = collective && collectiveAt == at ? m_collective : -1;
        if (step.collective < 0 && m_points.at(step.point).role == Role::Group) {
            skipPast(at);
            continue;
        }
        if (!m_interleaved) {
            return true; // the only location: no time needed
        }
        // Awaiting: the delayer of a point-to-point wait state, the latecomer of a collective.
        bool awaits = false;
        if (step.collective >= 0) {
            const Collective& c = m_collectives[static_cast<size_t>(step.collective)];
            const uint32_t comm = m_events.collective(m_operations[c.operation].event).comm;
            awaits = commRankOf(m_defs, comm, m_transport.rank()) == c.late;
        } else {
            const Role role = m_points.at(step.point).role;
            awaits = role == Role::SenderOfLate || role == Role::ReceiverOfLate;
        }
        const CallSpan& call = m_spans[m_operations[at].span];
        step.time = awaits ? call.enter : call.exit;
        return true;
    }
}

bool Pass::timesFall() {
    const int point = m_point;
    const int collective = m_collective;
    double last = std::numeric_limits<double>::infinity();
    bool fall = true;
    Step step;
    while (fall && next(step)) {
        fall = step.time <= last; // false for a NaN time too
        last = step.time;
        skipPast(step.operation);
    }
    m_point = point;
    m_collective = collective;
    return fall;
}

Status Pass::take(const Step& step) {
    skipPast(step.operation);
    Status taken =
        step.collective >= 0
            ? collectiveDelay(m_collectives[static_cast<size_t>(step.collective)], step.point)
            : pointToPoint(step.point);
    // The intervals of later steps end below the cursor: the SPs above it are final.
    m_ledger.retireAbove(m_point);
    return taken;
}

void Pass::finish(SeverityRows& rows) {
    m_ledger.retireAbove(-1);
    classifyWaitStates(rows, m_tree.size(), m_ledger);
    m_ledger.addSums(rows);
}

Status RankPass::merge(bool (Pass::*next)(Pass::Step&), Status (Pass::*take)(const Pass::Step&)) {
    std::vector<Pass::Step> heads(m_passes.size());
    std::vector<uint8_t> pending(m_passes.size(), 0);
    for (size_t l = 0; l < m_passes.size(); ++l) {
        pending[l] = (m_passes[l].*next)(heads[l]) ? 1 : 0;
    }
    for (;;) {
        size_t latest = m_passes.size();
        for (size_t l = 0; l < m_passes.size(); ++l) {
            if (pending[l] != 0 &&
                (latest == m_passes.size() || heads[l].time > heads[latest].time)) {
                latest = l;
            }
        }
        if (latest == m_passes.size()) {
            return Status::success();
        }
        if (Status s = (m_passes[latest].*take)(heads[latest]); !s) {
            return s;
        }
        pending[latest] = (m_passes[latest].*next)(heads[latest]) ? 1 : 0;
    }
}

// One gather: every rank says whether it can walk in slabs (one location, no payload posted
// before its await, its times falling along its walk).
Result<bool> RankPass::slabsAgreed() {
    const bool able = m_passes.size() == 1 && !m_postedBeforeAwait && m_passes.front().timesFall();
    auto all = m_transport.awaitAll(kWorldComm, {able ? 1.0 : 0.0});
    if (!all) {
        return all.error();
    }
    return std::all_of(all->begin(), all->end(), [](double a) { return a != 0.0; });
}

// Per slab, one gather of (steps left, proposed start) from every rank; then the early shares
// posted in the slab (a member's share comes at its exit, as its step in the walk) and the
// walk's steps in it. Ends when no rank has steps left.
Status RankPass::walkSlabs() {
    Pass& pass = m_passes.front();
    Pass::Step early;
    Pass::Step step;
    bool earlyLeft = pass.nextEarly(early);
    bool left = pass.next(step);
    for (;;) {
        double proposal = -std::numeric_limits<double>::infinity(); // the rest at once
        if (left && step.operation >= m_slabOperations) {
            proposal = pass.enterOf(static_cast<uint32_t>(step.operation - m_slabOperations));
        }
        auto all = m_transport.awaitAll(kWorldComm, {left || earlyLeft ? 1.0 : 0.0, proposal});
        if (!all) {
            return all.error();
        }
        bool anyLeft = false;
        double start = -std::numeric_limits<double>::infinity();
        for (size_t r = 0; r + 1 < all->size(); r += 2) {
            anyLeft = anyLeft || (*all)[r] != 0.0;
            start = std::max(start, (*all)[r + 1]);
        }
        if (!anyLeft) {
            return Status::success();
        }
        for (; earlyLeft && early.time >= start; earlyLeft = pass.nextEarly(early)) {
            if (Status s = pass.takeEarly(early); !s) {
                return s;
            }
        }
        for (; left && step.time >= start; left = pass.next(step)) {
            if (Status s = pass.take(step); !s) {
                return s;
            }
        }
    }
}

Status RankPass::run(const std::vector<SeverityRows*>& rows) {
    bool slabs = false;
    if (m_slabOperations > 0) {
        m_passes.front().interleave(); // the times of the steps, for the slabs
        auto agreed = slabsAgreed();
        if (!agreed) {
            return agreed.error();
        }
        slabs = *agreed;
    }
    if (m_passes.size() > 1) {
        for (Pass& pass : m_passes) {
            pass.interleave();
        }
    }
    if (slabs) {
        if (Status s = walkSlabs(); !s) {
            return s;
        }
    } else {
        if (Status s = merge(&Pass::nextEarly, &Pass::takeEarly); !s) {
            return s;
        }
        if (Status s = merge(&Pass::next, &Pass::take); !s) {
            return s;
        }
    }
    if (Status s = settleIndirect(); !s) {
        return s;
    }
    if (Status s = m_transport.finishPass(); !s) {
        return s;
    }
    for (size_t l = 0; l < m_passes.size() && l < rows.size(); ++l) {
        m_passes[l].finish(*rows[l]);
    }
    return Status::success();
}

} // namespace waitscope::analysis::delay
