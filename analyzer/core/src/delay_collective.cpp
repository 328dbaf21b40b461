// Collective delay: the latecomer of a synchronizing collective plays the delayer against
// every waiting member, with interval starts per member when it met some of them since it
// last synchronized with all (see delay_analysis.cpp for the formulas).
#include "delay_pass.h"

#include <algorithm>
#include <limits>

namespace waitscope::analysis::delay {

int LatecomerShares::metAt(uint32_t worldRank) const {
    const auto it = std::lower_bound(intermediate.begin(), intermediate.end(),
                                     std::make_pair(worldRank, std::numeric_limits<int>::min()));
    return it != intermediate.end() && it->first == worldRank ? it->second : -1;
}

// Inputs that no member has (most often the costs carried from later wait states) add nothing
// anywhere: their scales, sums and costs are skipped.
Inputs LatecomerShares::addShare(double propagatingWait, const Inputs& inputs) {
    double delaySum = 0.0;
    for (size_t i = 0; i < count; ++i) {
        delaySum += delay[i];
    }
    Inputs scales{};
    const double denominator = delaySum + propagatingWait;
    for (size_t j = 0; j < kInputs; ++j) {
        scales[j] = denominator > 0.0 ? inputs[j] / denominator : 0.0;
        if (scales[j] == 0.0) {
            continue;
        }
        used[j] = true;
        double* row = sums.data() + j * count;
        for (size_t i = 0; i < count; ++i) {
            row[i] += delay[i] * scales[j];
        }
    }
    return scales;
}

// The latecomer of one collective (as found in the forward pass) gets each waiting member's
// inputs and interval; the members do not wait for anything. See the overview for the roles.
Status Pass::collectiveDelay(const Collective& collective, int point) {
    const ReplayOperation& op = m_operations[collective.operation];
    const trace::CollectiveRecord& c = m_events.collective(op.event);
    const Kind kind = kindOf(c.op);
    const auto& world = m_defs.communicators[c.comm].worldRanks;
    const uint32_t self = commRankOf(m_defs, c.comm, m_transport.rank());
    const uint32_t late = collective.late;
    if (self != late) {
        if (point < 0 || collective.postEarly) {
            return Status::success();
        }
        const SyncPoint sp = m_points.at(point);
        Interval& own = m_own;
        m_intervals.compute(m_points.previousWith(point, world[late]), point, own);
        return m_transport.post(
            c.comm, late, kCollectiveUp,
            m_payload.write(std::max(sp.wait, 0.0), m_ledger.costsOf(point), own));
    }
    if (point < 0) {
        return Status::success(); // cannot happen: the latecomer is an SP
    }
    const int groupStart = groupInterval(world, self, point);
    latecomerShare(point, self);
    for (uint32_t m : m_points.ranks(collective.waiting)) {
        if (Status s = memberShare(c.comm, world, m, kCollectiveUp, point); !s) {
            return s;
        }
    }
    for (uint32_t m : m_points.ranks(collective.early)) {
        if (Status s = memberShare(c.comm, world, m, kCollectiveUpEarly, point); !s) {
            return s;
        }
    }
    buildScaleMaps(world, groupStart);
    addCollectiveDelays(kind);
    return Status::success();
}

// The latecomer's interval since it last synchronized with all others (into m_group), and the
// members it synchronized with since (m_latecomer.intermediate). Returns the group SP.
int Pass::groupInterval(const std::vector<uint32_t>& world, uint32_t self, int point) {
    LatecomerShares& shares = m_latecomer;
    shares.others.clear();
    for (size_t m = 0; m < world.size(); ++m) {
        if (m != self) {
            shares.others.push_back(world[m]);
        }
    }
    const int groupStart = m_points.previousGroup(point, shares.others, shares.intermediate);
    m_intervals.compute(groupStart, point, m_group);
    shares.count = m_group.times.size();
    shares.sums.assign(kInputs * shares.count, 0.0);
    shares.used = {};
    shares.memberScales.assign(world.size(), Inputs{});
    return groupStart;
}

// The latecomer's own share: all of its time is excess against nobody.
void Pass::latecomerShare(int point, uint32_t self) {
    LatecomerShares& shares = m_latecomer;
    shares.delay.resize(shares.count);
    for (size_t i = 0; i < shares.count; ++i) {
        shares.delay[i] = std::max(m_group.times[i].second, 0.0);
    }
    Inputs inputs{};
    inputs[0] = std::max(m_points.at(point).wait, 0.0);
    const Costs costs = m_ledger.costsOf(point);
    std::copy(costs.begin(), costs.end(), inputs.begin() + 1);
    shares.memberScales[self] = shares.addShare(m_group.waiting, inputs);
}

// A waiting member's share, posted to the latecomer with `tag`: the latecomer's excess time
// over the member's interval.
Status Pass::memberShare(uint32_t comm, const std::vector<uint32_t>& world, uint32_t member,
                         uint32_t tag, int point) {
    LatecomerShares& shares = m_latecomer;
    Inputs inputs{};
    if (Status s = m_transport.await(comm, member, tag, m_arrived); !s) {
        return s;
    }
    if (Status s = m_payload.read(m_arrived, m_transport.rank(), world[member], inputs); !s) {
        return s;
    }
    // The latecomer's times over the member's interval: since the group SP, or since a later
    // SP with this member (on the group's call paths).
    const int met = shares.metAt(world[member]);
    const Interval* mine = &m_group;
    if (met >= 0) {
        m_intervals.compute(met, point, m_since);
        mine = &m_since;
    }
    for (size_t i = 0; i < shares.count; ++i) {
        const NodeId node = m_group.times[i].first;
        double own = m_group.times[i].second;
        if (met >= 0) {
            const auto it =
                std::lower_bound(mine->times.begin(), mine->times.end(),
                                 std::make_pair(node, -std::numeric_limits<double>::infinity()));
            own = it != mine->times.end() && it->first == node ? it->second : 0.0;
        }
        shares.delay[i] = std::max(own - m_payload.remoteTime(node), 0.0);
    }
    shares.memberScales[member] = shares.addShare(mine->waiting, inputs);
    return Status::success();
}

// Scales for the waiting inside the interval: all members' before the first member met in
// between, Scalasca's way of growing them at each such meeting afterwards.
void Pass::buildScaleMaps(const std::vector<uint32_t>& world, int groupStart) {
    LatecomerShares& shares = m_latecomer;
    for (size_t j = 0; j < kInputs; ++j) {
        double sum = 0.0;
        for (size_t m = 0; m < world.size(); ++m) {
            sum += shares.memberScales[m][j];
        }
        ScaleMap& scales = shares.scaleMaps[j];
        scales.clear();
        if (!shares.used[j]) {
            continue; // no scale: addCosts() adds nothing
        }
        if (shares.intermediate.empty()) {
            scales.emplace_back(groupStart, sum); // met no one in between: one scale throughout
            continue;
        }
        shares.increments.clear();
        for (size_t m = 0; m < world.size(); ++m) {
            const int met = shares.metAt(world[m]);
            if (met >= 0) {
                sum -= shares.memberScales[m][j];
                shares.increments.emplace_back(met, shares.memberScales[m][j]);
            }
        }
        std::sort(shares.increments.begin(), shares.increments.end());
        scales.emplace_back(groupStart, sum);
        for (const auto& [sp, s] : shares.increments) {
            // Several members met at one SP grow the scale once, by all of their scales.
            if (scales.back().first != sp) {
                scales.emplace_back(sp, sum);
            }
            sum += s;
        }
    }
}

// The summed shares become the short-term delay of type `kind` and the long-term delays of
// the types with costs; the SPs inside the group interval take on costs.
void Pass::addCollectiveDelays(Kind kind) {
    const LatecomerShares& shares = m_latecomer;
    const size_t count = shares.count;
    for (size_t i = 0; i < count; ++i) {
        const NodeId node = m_group.times[i].first;
        m_ledger.addUp(shortTermMetric(kind), node, shares.sums[i]);
        for (size_t x = 0; x < kKinds; ++x) {
            if (shares.used[1 + x]) {
                m_ledger.addUp(longTermMetric(static_cast<Kind>(x)), node,
                               shares.sums[(1 + x) * count + i]);
            }
        }
    }
    for (size_t x = 0; x < kKinds; ++x) {
        m_ledger.addCosts(m_group, static_cast<Kind>(x), shares.scaleMaps[1 + x]);
    }
    m_ledger.addCosts(m_group, kind, shares.scaleMaps[0]);
}

} // namespace waitscope::analysis::delay
