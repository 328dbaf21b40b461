// Delay costs and wait-state classification.
//
// Source: Böhme, Geimer, Wolf, Arnold, "Identifying the root causes of wait states in
// large-scale parallel applications" (ICPP 2010; TOPC 3(2), 2016), as Scalasca 2.6 computes it.
//
// Synchronization points (SPs) are the operations at which a rank synchronized with others:
// Late Sender receives and the sends they waited for, Late Receiver sends and the receives
// they waited for, barriers, n-to-n operations, 1-to-n and n-to-1 operations where someone
// waited, MPI_Init and MPI_Finalize. A synchronization interval runs from the previous SP
// that synchronized with the partner to the current one:
//
//   waiter    ..SP|----- work w_c ------|--enter......wait ω......|exit
//   delayer   ..SP|----- work t_c (own waits removed) ----------|--enter-----|
//                 <--------------- synchronization interval --------------->
//
//   delay d_c      = max(t_c - w_c, 0)        per call path c (the delayer's excess work)
//   short-term     += s * d_c,   s = min(ω / (Σd + Σwait), 1)
//   long-term(X)   += (γ_X / (Σd + Σwait)) * d_c
//
// where Σwait is the waiting time of the delayer's own SPs inside the interval and γ_X the
// waiting of type X that the waiter's wait state caused later on (its costs, accumulated by
// the replay so far). The delayer's own wait states inside the interval take on costs
// s·ω_k (same type) and γ_X/(Σd+Σwait)·ω_k: this is how long-term costs travel backward.
// The interval's times exclude the waiting of inner SPs and the non-completion part of the
// opening SP's call. For collectives the latecomer (last to enter; the root of 1-to-n; the
// last sender of n-to-1) plays the delayer against every waiting member, with interval
// starts per member when it synchronized with some members since the last SP with all.
//
// Classification (point-to-point wait states only, as in Scalasca): of a wait ω whose delayer
// itself waited Σwait inside the interval, s·Σwait is indirect (propagated to it) and the
// rest direct; a wait state ω_k of the delayer inside such an interval is propagating in the
// largest share s·ω_k any later point-to-point delay computation gave it, the rest terminal.
//
// Passes: (1) the profile pass records the exclusive time per call path between consecutive
// operations (OperationProfile: one node and its seconds per call path touched between two
// operations, kept after the timestamps are freed); (2) the forward and backward replays
// report Late Sender, collective and Late Receiver SPs, and tell the partners of
// point-to-point wait states that their send or receive is an SP, with the waiter's call times
// (a receive says whether it waited; a sender's waiting its receiver computes alike);
// (3) a message-driven backward replay. There each waiter posts
// [wait, its costs per type, its interval's times by call-path key] to its delayer, which
// awaits it at the matching operation; each waiting member of a collective posts the same to
// the latecomer (before the walk when it synchronized with every rank there, since such a
// wait state can take on no costs). Indirect shares travel back once per waiter at the end,
// each with its channel (communicator, tag, type) and position on it.
#include "delay_analysis.h"

#include "collective_shape.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

namespace waitscope::analysis {
namespace {

using trace::CollectiveOp;
using trace::EventKind;

// Tags of the message-driven exchange next to the traced ones (assumed below 0x7FFFFF00).
constexpr uint32_t kLateReceiverTag = 0x80000000u;   ///< ORed in: Late Receiver, sender to receiver
constexpr uint32_t kCollectiveUp = 0xFFFFFF02u;      ///< member to latecomer, in the walk
constexpr uint32_t kIndirectTag = 0xFFFFFF03u;       ///< delayer to waiter, after the walk
constexpr uint32_t kCollectiveUpEarly = 0xFFFFFF04u; ///< member to latecomer, before the walk
constexpr uint64_t kKeyMask = (uint64_t{1} << 53) - 1; // keys travel exactly as doubles

constexpr Metric kShortTerm[DelayAnalysis::kKinds] = {
    Metric::DelayLateSender, Metric::DelayLateReceiver, Metric::DelayBarrier,
    Metric::DelayN2n,        Metric::Delay12n,          Metric::DelayN21};
constexpr Metric kLongTerm[DelayAnalysis::kKinds] = {
    Metric::DelayLateSenderLongterm, Metric::DelayLateReceiverLongterm,
    Metric::DelayBarrierLongterm,    Metric::DelayN2nLongterm,
    Metric::Delay12nLongterm,        Metric::DelayN21Longterm};

uint64_t mixKey(uint64_t parent, uint32_t region) {
    uint64_t x = parent ^ (0x9E3779B97F4A7C15ull + region + (parent << 6) + (parent >> 2));
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 31;
    return x & kKeyMask;
}

bool isSend(EventKind kind) {
    return kind == EventKind::MpiSend || kind == EventKind::MpiIsend;
}
bool isReceive(EventKind kind) {
    return kind == EventKind::MpiRecv || kind == EventKind::MpiIrecv;
}

// The delay type of a collective operation, or kKinds when it synchronizes no one.
DelayAnalysis::Kind kindOf(CollectiveOp op) {
    switch (collectiveShape(op)) {
    case CollectiveShape::Barrier:
        return DelayAnalysis::kBarrier;
    case CollectiveShape::OneToN:
        return DelayAnalysis::kOneToN;
    case CollectiveShape::NToOne:
        return DelayAnalysis::kNToOne;
    case CollectiveShape::NToN:
        // Alltoallv/w may hide any pattern of pairwise exchange: not a synchronization.
        return isPairwiseVariant(op) ? DelayAnalysis::kKinds : DelayAnalysis::kNxn;
    default:
        return DelayAnalysis::kKinds;
    }
}

// Index of the largest value (the lowest index among equals).
size_t latest(const std::vector<double>& enters) {
    size_t best = enters.size();
    for (size_t m = 0; m < enters.size(); ++m) {
        if (best == enters.size() || enters[m] > enters[best]) {
            best = m;
        }
    }
    return best;
}

} // namespace

DelayAnalysis::DelayAnalysis(const trace::Definitions& definitions,
                             const trace::EventStream& events, Transport& transport,
                             RankResult& result)
    : m_defs(definitions), m_events(events), m_transport(transport), m_result(result) {}

// --- synchronization points ------------------------------------------------------------------

DelayAnalysis::SyncPoint DelayAnalysis::syncPoint(uint32_t operation, Role role,
                                                  const CallSpan& call, double wait,
                                                  double completion, uint32_t partner) {
    SyncPoint point;
    point.operation = operation;
    point.role = role;
    point.partner = partner;
    point.node = call.node;
    point.wait = wait;
    point.beforeCompletion = (call.exit - call.enter) - completion;
    return point;
}

uint32_t DelayAnalysis::rankSet(std::vector<uint32_t>& worldRanks) {
    std::sort(worldRanks.begin(), worldRanks.end());
    // Collectives repeat the same few sets: one copy each instead of one per collective, and
    // a loop asks for the same set again and again.
    for (const uint32_t recent : m_recentRankSets) {
        if (recent < m_rankSets.size() && m_rankSets[recent] == worldRanks) {
            return recent;
        }
    }
    uint32_t set = 0;
    if (const auto found = m_rankSetIds.find(worldRanks); found != m_rankSetIds.end()) {
        set = found->second;
    } else {
        set = static_cast<uint32_t>(m_rankSets.size());
        m_rankSetIds.emplace(worldRanks, set);
        m_rankSets.push_back(worldRanks);
    }
    // The newest first; a loop asks for the same few sets (members, waiting, early) in turn.
    std::copy_backward(m_recentRankSets.begin(), m_recentRankSets.end() - 1,
                       m_recentRankSets.end());
    m_recentRankSets[0] = set;
    return set;
}

uint32_t DelayAnalysis::memberSet(uint32_t comm) {
    if (comm == m_lastMemberComm) {
        return m_lastMemberSet;
    }
    if (const auto it = m_memberSets.find(comm); it != m_memberSets.end()) {
        m_lastMemberComm = comm;
        m_lastMemberSet = it->second;
        return it->second;
    }
    std::vector<uint32_t> ranks;
    if (comm == kWorldComm) {
        for (uint32_t r = 0; r < m_transport.size(); ++r) {
            ranks.push_back(r);
        }
    } else {
        ranks = m_defs.communicators[comm].worldRanks;
    }
    const uint32_t set = rankSet(ranks);
    m_memberSets[comm] = set;
    return set;
}

bool DelayAnalysis::contains(const SyncPoint& point, uint32_t worldRank) const {
    if (point.role != Role::Group) {
        return point.partner == worldRank;
    }
    const auto& ranks = m_rankSets[point.partner];
    return std::binary_search(ranks.begin(), ranks.end(), worldRank);
}

void DelayAnalysis::onLateSender(uint32_t operation, const CallSpan& call, double wait,
                                 double completion) {
    m_points.push_back(syncPoint(operation, Role::LateSender, call, wait, completion, 0));
}

void DelayAnalysis::onLateReceiver(uint32_t operation, const CallSpan& call, double wait,
                                   double completion) {
    m_points.push_back(syncPoint(operation, Role::LateReceiver, call, wait, completion, 0));
}

void DelayAnalysis::onCollective(uint32_t operation, const CollectiveView& view, RegionClass cls,
                                 const trace::CollectiveRecord& record) {
    const double duration = view.span.exit - view.span.enter;
    const auto groupPoint = [&](double wait, double completion, uint32_t set) {
        m_points.push_back(syncPoint(operation, Role::Group, view.span, wait, completion, set));
        m_lastGroupNode = view.span.node;
        m_lastGroupEnter = view.span.enter;
    };
    if (cls == RegionClass::MpiInit || cls == RegionClass::MpiFinalize) {
        // One SP per call: MPI_Init may hold several communicator creations.
        if (!m_points.empty() && m_points.back().role == Role::Group &&
            m_lastGroupNode == view.span.node && m_lastGroupEnter == view.span.enter) {
            return;
        }
        double completion = 0.0;
        if (cls == RegionClass::MpiInit) {
            const double latestBegin = std::min(view.maxEnter(), view.span.exit);
            const double earliestEnd = std::max(view.minExit(), latestBegin);
            completion = std::max(0.0, view.span.exit - earliestEnd);
        }
        groupPoint(0.0, completion, memberSet(kWorldComm));
        return;
    }
    const Kind kind = kindOf(record.op);
    const size_t members = view.members();
    if (kind == kKinds || members < 2 || record.comm >= m_defs.communicators.size()) {
        return;
    }
    // Who synchronizes follows from the members' call times alone, so that every member
    // comes to the same conclusion (Scalasca also looks at the bytes moved).
    // Scratch lists reused per collective (the forward pass calls this for each one).
    std::vector<double>& enters = m_enters;
    enters.resize(members);
    for (size_t m = 0; m < members; ++m) {
        enters[m] = view.enterOf(m);
    }
    const auto& world = m_defs.communicators[record.comm].worldRanks;
    const auto worldOf = [&](size_t m) { return m < world.size() ? world[m] : 0u; };
    const double maxEnter = view.maxEnter();
    size_t late = latest(enters);
    std::vector<char>& synchronizes = m_synchronizes;
    synchronizes.assign(members, 0);
    double wait = 0.0;
    double completion = 0.0;
    std::vector<uint32_t>& partners = m_partnerRanks; // world ranks this rank synchronizes with
    partners.clear();
    switch (kind) {
    case kBarrier:
    case kNxn: {
        wait = std::clamp(maxEnter - view.span.enter, 0.0, duration);
        completion = std::clamp(view.span.exit - view.minExit(), 0.0, duration - wait);
        const bool overlap = kind == kBarrier || view.minExit() > maxEnter;
        for (size_t m = 0; m < members; ++m) {
            // Partial overlap: only who entered before the last one, and the last one.
            synchronizes[m] = overlap || enters[m] < enters[late] || m == late;
        }
        for (size_t m = 0; m < members; ++m) {
            if (synchronizes[m]) {
                partners.push_back(worldOf(m));
            }
        }
        break;
    }
    case kOneToN: {
        if (view.root >= members) {
            return;
        }
        late = view.root;
        const double rootEnter = enters[view.root];
        // Completion: the time after the first waiting receiver left.
        double earliestEnd = std::numeric_limits<double>::infinity();
        for (size_t m = 0; m < members; ++m) {
            if (m != view.root && enters[m] < rootEnter) {
                synchronizes[m] = synchronizes[view.root] = true;
                earliestEnd = std::min(earliestEnd, view.exitOf(m));
            }
        }
        completion = std::clamp(view.span.exit - earliestEnd, 0.0, duration);
        if (view.self != view.root) {
            wait = std::clamp(rootEnter - view.span.enter, 0.0, duration);
            completion = std::min(completion, duration - wait);
            partners.push_back(worldOf(view.root));
        } else {
            for (size_t m = 0; m < members; ++m) {
                if (m != view.root && synchronizes[m]) {
                    partners.push_back(worldOf(m));
                }
            }
        }
        break;
    }
    case kNToOne: {
        if (view.root >= members || !(enters[view.root] < enters[late])) {
            return;
        }
        synchronizes[view.root] = synchronizes[late] = true;
        // Completion: the time after the first of the two synchronizing ranks left.
        completion = std::clamp(
            view.span.exit - std::min(view.exitOf(view.root), view.exitOf(late)), 0.0, duration);
        if (view.self == view.root) {
            double lastSender = -std::numeric_limits<double>::infinity();
            for (size_t m = 0; m < members; ++m) {
                if (m != view.root) {
                    lastSender = std::max(lastSender, enters[m]);
                }
            }
            wait = std::clamp(lastSender - view.span.enter, 0.0, duration);
            completion = std::min(completion, duration - wait);
            partners.push_back(worldOf(late));
        } else {
            partners.push_back(worldOf(view.root));
        }
        break;
    }
    default:
        return;
    }
    if (!synchronizes[late]) {
        return;
    }
    // A member that synchronizes here with every other rank can never be inside a later
    // synchronization interval, so its wait state here takes on no costs: its share is known
    // before the walk and posted then, sparing the latecomer a wait for it.
    const auto postsEarly = [&](size_t m) {
        size_t others = 0;
        if (kind == kBarrier || kind == kNxn) {
            for (size_t o = 0; o < members; ++o) {
                others += o != m && synchronizes[o];
            }
        } else {
            others = 1; // the root or the latecomer
        }
        return others + 1 >= m_transport.size();
    };
    Collective collective;
    collective.operation = operation;
    collective.late = static_cast<uint32_t>(late);
    collective.postEarly = view.self != late && synchronizes[view.self] && postsEarly(view.self);
    if (view.self == late) {
        std::vector<uint32_t>& waiting = m_waitingMembers;
        std::vector<uint32_t>& early = m_earlyMembers;
        waiting.clear();
        early.clear();
        for (size_t m = 0; m < members; ++m) {
            if (m != late && synchronizes[m]) {
                (postsEarly(m) ? early : waiting).push_back(static_cast<uint32_t>(m));
            }
        }
        collective.waiting = rankSet(waiting);
        collective.early = rankSet(early);
    }
    m_collectives.push_back(collective);
    if (synchronizes[view.self]) {
        groupPoint(wait, completion,
                   kind == kBarrier || partners.size() == world.size() ? memberSet(record.comm)
                                                                       : rankSet(partners));
    }
}

int DelayAnalysis::syncPointAt(uint32_t operation) const {
    const auto it =
        std::lower_bound(m_points.begin(), m_points.end(), operation,
                         [](const SyncPoint& point, uint32_t op) { return point.operation < op; });
    return it != m_points.end() && it->operation == operation
               ? static_cast<int>(it - m_points.begin())
               : -1;
}

int DelayAnalysis::previousWith(int point, uint32_t worldRank) const {
    for (int k = point - 1; k >= 0; --k) {
        if (contains(m_points[static_cast<size_t>(k)], worldRank)) {
            return k;
        }
    }
    return -1;
}

// The last SP before `point` at which this rank had synchronized with all of `others`
// (walking back, an SP covering all still missing ends the walk); members met on the way at
// later SPs are returned in `intermediate` with that SP.
int DelayAnalysis::previousGroup(int point, const std::vector<uint32_t>& others,
                                 std::vector<std::pair<uint32_t, int>>& intermediate) {
    intermediate.clear();
    std::vector<uint32_t>& remaining = m_remaining;
    std::vector<uint32_t>& left = m_left;
    remaining.assign(others.begin(), others.end());
    int k = point - 1;
    int last = -1;
    for (; k >= 0 && !remaining.empty(); --k) {
        const SyncPoint& sp = m_points[static_cast<size_t>(k)];
        last = k;
        left.clear();
        for (uint32_t r : remaining) {
            if (!contains(sp, r)) {
                left.push_back(r);
            }
        }
        if (left.empty()) {
            break; // this SP covers every member still missing
        }
        for (uint32_t r : remaining) {
            if (contains(sp, r)) {
                intermediate.emplace_back(r, k);
            }
        }
        remaining.swap(left);
    }
    std::sort(intermediate.begin(), intermediate.end());
    return last;
}

NodeId DelayAnalysis::nodeOf(int point) const {
    return m_points[static_cast<size_t>(point)].node;
}

DelayAnalysis::Caused& DelayAnalysis::causedAt(int point) {
    uint32_t& slot = m_causedSlot[static_cast<size_t>(point)];
    if (slot == 0) {
        m_caused.push_back(Caused{point, Costs{}, 0.0});
        slot = static_cast<uint32_t>(m_caused.size());
    }
    return m_caused[slot - 1];
}

// The interval's exclusive times per call path without the waiting of the SPs inside and
// without the part of the opening SP's call before its completion.
void DelayAnalysis::interval(int from, int to, Interval& result) {
    result.from = from;
    result.to = to;
    result.times.clear();
    result.sum = 0.0;
    result.waiting = 0.0;
    const size_t first = from < 0 ? 0 : m_points[static_cast<size_t>(from)].operation + size_t{1};
    const size_t last = m_points[static_cast<size_t>(to)].operation + size_t{1};
    m_touched.clear();
    m_profile->sum(first, last, m_dense, m_touched);
    if (m_denseWait.size() < m_dense.size()) {
        m_denseWait.resize(m_dense.size(), 0.0);
    }
    std::vector<NodeId>& waited = m_waited;
    waited.clear();
    for (int k = from + 1; k < to; ++k) {
        const SyncPoint& sp = m_points[static_cast<size_t>(k)];
        if (sp.wait > 0.0) {
            const NodeId node = nodeOf(k);
            if (node >= m_denseWait.size()) {
                m_denseWait.resize(node + 1, 0.0);
            }
            m_denseWait[node] += sp.wait;
            waited.push_back(node);
            result.waiting += sp.wait;
        }
    }
    for (NodeId node : m_touched) {
        const double t = m_dense[node];
        if (t == 0.0) {
            continue; // listed twice
        }
        m_dense[node] = 0.0;
        const double d = t - (node < m_denseWait.size() ? m_denseWait[node] : 0.0);
        if (d > 0.0) {
            result.times.emplace_back(node, d);
            result.sum += d;
        }
    }
    for (NodeId node : waited) {
        m_denseWait[node] = 0.0;
    }
    if (result.times.size() > 1) {
        std::sort(result.times.begin(), result.times.end());
    }
    if (from >= 0) {
        const SyncPoint& opening = m_points[static_cast<size_t>(from)];
        const NodeId node = nodeOf(from);
        auto it = std::lower_bound(result.times.begin(), result.times.end(),
                                   std::make_pair(node, -std::numeric_limits<double>::infinity()));
        if (it == result.times.end() || it->first != node) {
            it = result.times.insert(it, {node, 0.0});
        }
        const double t = it->second;
        const double before = opening.beforeCompletion;
        it->second = std::max(t - before, 0.0);
        result.sum -= std::min(before, t);
    }
}

// [wait, mask of the types with costs, those costs, count, (call-path key, seconds) x count]:
// costs are rare, so a payload usually carries none of them.
const std::vector<double>& DelayAnalysis::timesPayload(double wait, const Costs& costs,
                                                       const Interval& times) {
    std::vector<double>& payload = m_payload;
    payload.clear();
    payload.push_back(wait);
    payload.push_back(0.0);
    uint32_t mask = 0;
    for (size_t x = 0; x < kKinds; ++x) {
        if (costs[x] != 0.0) {
            mask |= 1u << x;
            payload.push_back(costs[x]);
        }
    }
    payload[1] = mask;
    payload.push_back(static_cast<double>(times.times.size()));
    for (const auto& [node, t] : times.times) {
        payload.push_back(static_cast<double>(m_keys[node]));
        payload.push_back(t);
    }
    return payload;
}

void DelayAnalysis::addUp(Metric metric, NodeId node, double value) {
    if (value != 0.0) {
        m_leafSums.add(metric, node, value); // its ancestors at the end (addSums())
    }
}

// Adds the sums of the pass to their metrics and all their ancestors in the result: once per
// metric and call path rather than once per value.
void DelayAnalysis::addSums() {
    for (size_t i = 0; i < kMetricCount; ++i) {
        const auto metric = static_cast<Metric>(i);
        const std::vector<double>& row = m_leafSums.row(metric);
        if (row.empty()) {
            continue;
        }
        for (std::optional<Metric> m = metric; m; m = metricInfo(*m).parent) {
            for (NodeId node = 0; node < row.size(); ++node) {
                if (row[node] != 0.0) {
                    m_result.severities.add(*m, node, row[node]);
                }
            }
        }
    }
    m_leafSums = SeverityRows();
}

void DelayAnalysis::addCosts(const Interval& span, Kind kind, double scale) {
    if (!(scale > 0.0)) {
        return;
    }
    for (int k = span.from + 1; k < span.to; ++k) {
        const double wait = m_points[static_cast<size_t>(k)].wait;
        if (wait > 0.0) {
            causedAt(k).costs[kind] += scale * wait;
        }
    }
}

void DelayAnalysis::addCosts(const Interval& span, Kind kind, const ScaleMap& scales) {
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
        const double wait = m_points[static_cast<size_t>(k)].wait;
        if (scale > 0.0 && wait > 0.0) {
            causedAt(k).costs[kind] += scale * wait;
        }
    }
}

// Reads a waiter's payload (see timesPayload()) from world rank `from`: its wait and costs
// into `inputs`, its times by call-path key into m_remote (see remoteTime()), sorted by key
// when there are more than a few.
Status DelayAnalysis::readTimesPayload(const std::vector<double>& payload, uint32_t from,
                                       std::array<double, kInputs>& inputs) {
    const auto malformed = [&] {
        return Error("rank " + std::to_string(m_transport.rank()) +
                     ": malformed delay payload from rank " + std::to_string(from));
    };
    if (payload.size() < 3) {
        return malformed();
    }
    inputs.fill(0.0);
    inputs[0] = payload[0];
    const auto mask = static_cast<uint32_t>(payload[1]);
    size_t next = 2;
    for (size_t x = 0; x < kKinds; ++x) {
        if ((mask & (1u << x)) != 0) {
            if (next >= payload.size()) {
                return malformed();
            }
            inputs[1 + x] = payload[next++];
        }
    }
    if (next >= payload.size()) {
        return malformed();
    }
    const auto count = static_cast<size_t>(payload[next++]);
    if (next + 2 * count != payload.size()) {
        return malformed();
    }
    m_remote.clear();
    for (const double* p = payload.data() + next; p != payload.data() + payload.size(); p += 2) {
        m_remote.emplace_back(static_cast<uint64_t>(p[0]), p[1]);
    }
    if (m_remote.size() > kScannedTimes) {
        std::sort(m_remote.begin(), m_remote.end());
    }
    return Status::success();
}

double DelayAnalysis::remoteTime(uint64_t key) const {
    if (m_remote.size() <= kScannedTimes) { // the usual few call paths: no sort, no search
        for (const auto& [k, t] : m_remote) {
            if (k == key) {
                return t;
            }
        }
        return 0.0;
    }
    const auto it = std::lower_bound(m_remote.begin(), m_remote.end(),
                                     std::make_pair(key, -std::numeric_limits<double>::infinity()));
    return it != m_remote.end() && it->first == key ? it->second : 0.0;
}

// The delayer's side of a point-to-point wait state of type `kind` at SP `point`: `inputs`
// and m_remote hold what the waiter (world rank `waiterRank`) posted. Returns the indirect
// share of the wait.
double DelayAnalysis::delayAtPartner(int point, Kind kind, uint32_t waiterRank,
                                     const std::array<double, kInputs>& inputs) {
    const double wait = inputs[0];
    Costs costs{};
    std::copy(inputs.begin() + 1, inputs.end(), costs.begin());
    if (!(wait > 0.0)) {
        return 0.0;
    }
    Interval& own = m_own;
    interval(previousWith(point, waiterRank), point, own);
    std::vector<std::pair<NodeId, double>>& delay = m_delays;
    delay.clear();
    double delaySum = 0.0;
    for (const auto& [node, t] : own.times) {
        const double d = t - remoteTime(m_keys[node]);
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
            addUp(kShortTerm[kind], node, scale * d);
        }
    }
    for (size_t x = 0; x < kKinds; ++x) {
        const double longScale = costs[x] / denominator;
        if (longScale > 0.0) {
            for (const auto& [node, d] : delay) {
                addUp(kLongTerm[x], node, longScale * d);
            }
        }
        if (own.to - own.from > 1) { // SPs inside the interval take on costs
            addCosts(own, static_cast<Kind>(x), longScale + (x == kind ? scale : 0.0));
        }
    }
    if (own.waiting > 0.0 && scale > 0.0) {
        for (int k = own.from + 1; k < own.to; ++k) {
            const double w = m_points[static_cast<size_t>(k)].wait;
            if (w > 0.0) {
                double& pw = causedAt(k).propagating;
                pw = std::max(pw, scale * w);
            }
        }
    }
    return own.waiting > 0.0 ? scale * own.waiting : 0.0;
}

// --- the passes --------------------------------------------------------------------------------

uint32_t DelayAnalysis::commRankOf(uint32_t comm) const {
    return analysis::commRankOf(m_defs, comm, m_transport.rank());
}

uint32_t DelayAnalysis::worldRankOf(uint32_t comm, uint32_t commRank) const {
    return analysis::worldRankOf(m_defs, comm, commRank, m_transport.rank());
}

void DelayAnalysis::replaysDone() {
    // The SPs so far: the forward pass's in operation order, then the backward pass's.
    const auto backward = std::find_if(m_points.begin(), m_points.end(), [](const SyncPoint& p) {
        return p.role == Role::LateReceiver;
    });
    mergeTail(static_cast<size_t>(backward - m_points.begin()));
}

// The partners of point-to-point wait states, who learned in the forward and backward replays
// that their send or receive is an SP, with the call times of the waiter.
void DelayAnalysis::findPartnerSyncPoints(const std::vector<ReplayRecord>& partners,
                                          const std::vector<uint8_t>& partnerWaited) {
    const auto& ops = *m_operations;
    // The operations that become SPs, in order; then a merge from the back into the list in
    // place (its room is reserved), instead of a second list of SPs.
    std::vector<uint32_t> found;
    const size_t before = m_points.size();
    size_t own = 0; // the first SP at or after operation k
    for (size_t k = 0; k < ops.size() && k < partnerWaited.size(); ++k) {
        while (own < before && m_points[own].operation < k) {
            ++own;
        }
        if (!partnerWaited[k]) {
            continue;
        }
        // Not when this rank waited there itself (the SP is already listed).
        bool waited = false;
        for (size_t j = own; j < before && m_points[j].operation == k; ++j) {
            waited = waited || m_points[j].role == Role::LateSender ||
                     m_points[j].role == Role::LateReceiver;
        }
        const EventKind kind = m_events.kind(ops[k].event);
        if (!waited && (isSend(kind) || isReceive(kind))) {
            found.push_back(static_cast<uint32_t>(k));
        }
    }
    m_points.resize(before + found.size());
    size_t head = before;
    for (size_t out = m_points.size(), rest = found.size(); rest > 0;) {
        if (head > 0 && m_points[head - 1].operation > found[rest - 1]) {
            m_points[--out] = m_points[--head];
            continue;
        }
        const uint32_t k = found[--rest];
        const CallSpan& span = (*m_spans)[ops[k].span];
        const Role role =
            isSend(m_events.kind(ops[k].event)) ? Role::SenderOfLate : Role::ReceiverOfLate;
        m_points[--out] =
            syncPoint(k, role, span, 0.0, std::max(0.0, span.exit - partners[k].exit), 0);
    }
}

// Merges the SPs from `first` on (in operation order) into those before (in operation order,
// none at the same operation), from the back: only the tail is copied, and std::inplace_merge's
// buffer of the whole list is not needed.
void DelayAnalysis::mergeTail(size_t first) {
    if (first == m_points.size() || first == 0 ||
        m_points[first - 1].operation < m_points[first].operation) {
        return;
    }
    const std::vector<SyncPoint> tail(m_points.begin() + static_cast<std::ptrdiff_t>(first),
                                      m_points.end());
    size_t head = first;
    size_t rest = tail.size();
    for (size_t out = m_points.size(); rest > 0;) {
        // Ties keep the head's SP first, as a stable merge does.
        if (head > 0 && m_points[head - 1].operation > tail[rest - 1].operation) {
            m_points[--out] = m_points[--head];
        } else {
            m_points[--out] = tail[--rest];
        }
    }
}

DelayAnalysis::Costs DelayAnalysis::costsOf(int point) const {
    const uint32_t slot = m_causedSlot[static_cast<size_t>(point)];
    return slot == 0 ? Costs{} : m_caused[slot - 1].costs;
}

Status DelayAnalysis::run(const std::vector<ReplayOperation>& operations,
                          const std::vector<CallSpan>& spans, const OperationProfile& profile,
                          std::vector<ReplayRecord> partners, std::vector<uint8_t> partnerWaited) {
    m_operations = &operations;
    m_spans = &spans;
    m_profile = &profile;
    const CallTree& tree = m_result.tree;
    m_keys.resize(tree.size());
    for (NodeId n = 0; n < tree.size(); ++n) {
        const NodeId parent = tree.node(n).parent;
        m_keys[n] = mixKey(parent == kNoNode ? 0x5EED : m_keys[parent], tree.node(n).region);
    }
    m_dense.assign(tree.size(), 0.0);
    m_denseWait.assign(tree.size(), 0.0);
    m_indirectLs.assign(tree.size(), 0.0);
    m_indirectLr.assign(tree.size(), 0.0);
    findPartnerSyncPoints(partners, partnerWaited);
    // Not needed in the walk: freed before it.
    partners = {};
    partnerWaited = {};
    // Partners, now that every SP is known.
    m_causedSlot.assign(m_points.size(), 0);
    for (SyncPoint& sp : m_points) {
        const ReplayOperation& op = operations[sp.operation];
        if (sp.role != Role::Group) {
            const trace::MessageRecord& m = m_events.message(op.event);
            sp.partner = worldRankOf(m.comm, m.partner);
        }
    }

    // Backward over the operations. Indirect shares owed to waiters are collected per waiter
    // rank and settled at the end, each with its channel and position on it.
    std::map<uint32_t, std::vector<Owed>> owed;
    std::map<std::tuple<uint32_t, uint32_t, uint32_t, uint32_t>, uint32_t> sequence;
    std::tuple<uint32_t, uint32_t, uint32_t, uint32_t> positionOf;
    uint32_t* position = nullptr; // sequence[positionOf]
    {
        int p = static_cast<int>(m_points.size()) - 1;
        for (size_t k = m_collectives.size(); k-- > 0;) {
            const Collective& early = m_collectives[k];
            while (p >= 0 && m_points[static_cast<size_t>(p)].operation > early.operation) {
                --p;
            }
            if (!early.postEarly || p < 0 ||
                m_points[static_cast<size_t>(p)].operation != early.operation) {
                continue;
            }
            const ReplayOperation& op = operations[early.operation];
            const uint32_t comm = m_events.collective(op.event).comm;
            const SyncPoint& sp = m_points[static_cast<size_t>(p)];
            Interval& own = m_own;
            interval(previousWith(p, m_defs.communicators[comm].worldRanks[early.late]), p, own);
            if (Status s = m_transport.post(comm, early.late, kCollectiveUpEarly,
                                            timesPayload(std::max(sp.wait, 0.0), Costs{}, own));
                !s) {
                return s;
            }
        }
    }
    int point = static_cast<int>(m_points.size()) - 1;
    int collective = static_cast<int>(m_collectives.size()) - 1;
    for (size_t k = operations.size(); k-- > 0;) {
        while (point >= 0 && m_points[static_cast<size_t>(point)].operation > k) {
            --point;
        }
        while (collective >= 0 && m_collectives[static_cast<size_t>(collective)].operation > k) {
            --collective;
        }
        const bool isPoint = point >= 0 && m_points[static_cast<size_t>(point)].operation == k;
        if (collective >= 0 && m_collectives[static_cast<size_t>(collective)].operation == k) {
            if (Status s = collectiveDelay(m_collectives[static_cast<size_t>(collective)],
                                           isPoint ? point : -1);
                !s) {
                return s;
            }
            continue;
        }
        if (!isPoint) {
            continue;
        }
        const SyncPoint& sp = m_points[static_cast<size_t>(point)];
        if (sp.role == Role::Group) {
            continue;
        }
        const ReplayOperation& op = operations[k];
        const trace::MessageRecord& m = m_events.message(op.event);
        const bool lateSender = sp.role == Role::LateSender || sp.role == Role::SenderOfLate;
        const uint32_t tag = lateSender ? m.tag : m.tag | kLateReceiverTag;
        if (sp.role == Role::LateSender || sp.role == Role::LateReceiver) {
            // The waiter: its interval since it last synchronized with the delayer.
            Interval& own = m_own;
            interval(previousWith(point, sp.partner), point, own);
            if (Status s = m_transport.post(m.comm, m.partner, tag,
                                            timesPayload(sp.wait, costsOf(point), own));
                !s) {
                return s;
            }
            continue;
        }
        std::array<double, kInputs> inputs{};
        if (Status s = m_transport.await(m.comm, m.partner, tag, m_arrived); !s) {
            return s;
        }
        if (Status s = readTimesPayload(m_arrived, sp.partner, inputs); !s) {
            return s;
        }
        const Kind kind = lateSender ? kLateSender : kLateReceiver;
        const double indirect = delayAtPartner(point, kind, sp.partner, inputs);
        // Runs of wait states on one channel: its position is looked up once per run.
        const std::tuple<uint32_t, uint32_t, uint32_t, uint32_t> channel{sp.partner, m.comm, m.tag,
                                                                         kind};
        if (position == nullptr || channel != positionOf) {
            position = &sequence[channel];
            positionOf = channel;
        }
        if (indirect > 0.0) {
            owed[sp.partner].push_back(Owed{m.comm, m.tag, kind, *position, indirect});
        }
        ++*position;
    }
    if (Status s = settleIndirect(owed); !s) {
        return s;
    }
    if (Status s = m_transport.finishPass(); !s) {
        return s;
    }
    classify();
    addSums();
    return Status::success();
}

// Every delayer sends each of its waiters one payload with the nonzero indirect shares; the
// waiters find the wait state of each by its channel and position, counted the same way.
Status DelayAnalysis::settleIndirect(const std::map<uint32_t, std::vector<Owed>>& owed) {
    std::vector<char> isDelayer(m_transport.size(), 0), isWaiter(m_transport.size(), 0);
    for (const SyncPoint& sp : m_points) {
        if (sp.role == Role::SenderOfLate || sp.role == Role::ReceiverOfLate) {
            isWaiter[sp.partner] = 1;
        } else if (sp.role == Role::LateSender || sp.role == Role::LateReceiver) {
            isDelayer[sp.partner] = 1;
        }
    }
    std::vector<uint32_t> delayers, waiters;
    for (uint32_t r = 0; r < m_transport.size(); ++r) {
        if (isDelayer[r]) {
            delayers.push_back(r);
        }
        if (isWaiter[r]) {
            waiters.push_back(r);
        }
    }
    for (const uint32_t waiter : waiters) {
        std::vector<double> payload;
        const auto it = owed.find(waiter);
        if (it != owed.end()) {
            for (const Owed& o : it->second) {
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
    std::map<std::tuple<uint32_t, uint32_t, uint32_t, uint32_t, uint32_t>, double> shares;
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
    if (shares.empty()) {
        return Status::success();
    }
    std::map<std::tuple<uint32_t, uint32_t, uint32_t, uint32_t>, uint32_t> sequence;
    for (size_t k = m_points.size(); k-- > 0;) {
        const SyncPoint& sp = m_points[k];
        if (sp.role != Role::LateSender && sp.role != Role::LateReceiver) {
            continue;
        }
        const trace::MessageRecord& m = m_events.message((*m_operations)[sp.operation].event);
        const uint32_t kind = sp.role == Role::LateSender ? kLateSender : kLateReceiver;
        const uint32_t position = sequence[{sp.partner, m.comm, m.tag, kind}]++;
        const auto it = shares.find(std::make_tuple(sp.partner, m.comm, m.tag, kind, position));
        if (it != shares.end()) {
            (kind == kLateSender ? m_indirectLs : m_indirectLr)[nodeOf(static_cast<int>(k))] +=
                it->second;
        }
    }
    return Status::success();
}

// The latecomer of one collective (as found in the forward pass) gets each waiting member's
// inputs and interval; the members do not wait for anything. See the overview for the roles.
Status DelayAnalysis::collectiveDelay(const Collective& collective, int point) {
    const ReplayOperation& op = (*m_operations)[collective.operation];
    const trace::CollectiveRecord& c = m_events.collective(op.event);
    const Kind kind = kindOf(c.op);
    const auto& world = m_defs.communicators[c.comm].worldRanks;
    const uint32_t self = commRankOf(c.comm);
    const uint32_t late = collective.late;
    if (self != late) {
        if (point < 0 || collective.postEarly) {
            return Status::success();
        }
        const SyncPoint& sp = m_points[static_cast<size_t>(point)];
        Interval& own = m_own;
        interval(previousWith(point, world[late]), point, own);
        return m_transport.post(c.comm, late, kCollectiveUp,
                                timesPayload(std::max(sp.wait, 0.0), costsOf(point), own));
    }
    if (point < 0) {
        return Status::success(); // cannot happen: the latecomer is an SP
    }

    // The latecomer: its interval since it last synchronized with all others, and shorter
    // ones for the members it synchronized with since. Every list below is scratch kept
    // across collectives: a barrier loop calls this once per barrier.
    std::vector<uint32_t>& others = m_others;
    others.clear();
    for (size_t m = 0; m < world.size(); ++m) {
        if (m != self) {
            others.push_back(world[m]);
        }
    }
    std::vector<std::pair<uint32_t, int>>& intermediate = m_intermediate; // world rank, SP
    const auto metAt = [&](uint32_t worldRank) {
        const auto it =
            std::lower_bound(intermediate.begin(), intermediate.end(),
                             std::make_pair(worldRank, std::numeric_limits<int>::min()));
        return it != intermediate.end() && it->first == worldRank ? it->second : -1;
    };
    const int groupStart = previousGroup(point, others, intermediate);
    Interval& group = m_group;
    interval(groupStart, point, group);
    const size_t count = group.times.size();
    std::vector<double>& sums = m_sums;
    sums.assign(kInputs * count, 0.0);
    std::vector<double>& delay = m_delay;
    // Inputs that no member has (most often the costs carried from later wait states) add
    // nothing anywhere: their scales, sums and costs are skipped.
    std::array<bool, kInputs> used{};
    const auto addShare = [&](double propagatingWait, const std::array<double, kInputs>& inputs) {
        double delaySum = 0.0;
        for (size_t i = 0; i < count; ++i) {
            delaySum += delay[i];
        }
        std::array<double, kInputs> scales{};
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
    };
    std::vector<std::array<double, kInputs>>& memberScales = m_memberScales;
    memberScales.assign(world.size(), std::array<double, kInputs>{});
    {
        // The latecomer's own share: all of its time is excess against nobody.
        delay.resize(count);
        for (size_t i = 0; i < count; ++i) {
            delay[i] = std::max(group.times[i].second, 0.0);
        }
        std::array<double, kInputs> inputs{};
        inputs[0] = std::max(m_points[static_cast<size_t>(point)].wait, 0.0);
        const Costs costs = costsOf(point);
        std::copy(costs.begin(), costs.end(), inputs.begin() + 1);
        memberScales[self] = addShare(group.waiting, inputs);
    }
    const auto memberShare = [&](uint32_t m, uint32_t tag) -> Status {
        std::array<double, kInputs> inputs{};
        if (Status s = m_transport.await(c.comm, m, tag, m_arrived); !s) {
            return s;
        }
        if (Status s = readTimesPayload(m_arrived, world[m], inputs); !s) {
            return s;
        }
        // The latecomer's times over the member's interval: since the group SP, or since a
        // later SP with this member (on the group's call paths).
        const int met = metAt(world[m]);
        const Interval* mine = &group;
        if (met >= 0) {
            interval(met, point, m_since);
            mine = &m_since;
        }
        for (size_t i = 0; i < count; ++i) {
            const NodeId node = group.times[i].first;
            double own = group.times[i].second;
            if (met >= 0) {
                const auto it = std::lower_bound(
                    mine->times.begin(), mine->times.end(),
                    std::make_pair(node, -std::numeric_limits<double>::infinity()));
                own = it != mine->times.end() && it->first == node ? it->second : 0.0;
            }
            delay[i] = std::max(own - remoteTime(m_keys[node]), 0.0);
        }
        memberScales[m] = addShare(mine->waiting, inputs);
        return Status::success();
    };
    for (uint32_t m : m_rankSets[collective.waiting]) {
        if (Status s = memberShare(m, kCollectiveUp); !s) {
            return s;
        }
    }
    for (uint32_t m : m_rankSets[collective.early]) {
        if (Status s = memberShare(m, kCollectiveUpEarly); !s) {
            return s;
        }
    }
    // Scales for the waiting inside the interval: all members' before the first member met
    // in between, Scalasca's way of growing them at each such meeting afterwards.
    std::vector<std::pair<int, double>>& increments = m_increments; // SP, scale met there
    for (size_t j = 0; j < kInputs; ++j) {
        double sum = 0.0;
        for (size_t m = 0; m < world.size(); ++m) {
            sum += memberScales[m][j];
        }
        ScaleMap& scales = m_scaleMaps[j];
        scales.clear();
        if (!used[j]) {
            continue; // no scale: addCosts() adds nothing
        }
        if (intermediate.empty()) {
            scales.emplace_back(groupStart, sum); // met no one in between: one scale throughout
            continue;
        }
        increments.clear();
        for (size_t m = 0; m < world.size(); ++m) {
            const int met = metAt(world[m]);
            if (met >= 0) {
                sum -= memberScales[m][j];
                increments.emplace_back(met, memberScales[m][j]);
            }
        }
        std::sort(increments.begin(), increments.end());
        scales.emplace_back(groupStart, sum);
        for (const auto& [sp, s] : increments) {
            // Several members met at one SP grow the scale once, by all of their scales.
            if (scales.back().first != sp) {
                scales.emplace_back(sp, sum);
            }
            sum += s;
        }
    }
    for (size_t i = 0; i < count; ++i) {
        const NodeId node = group.times[i].first;
        addUp(kShortTerm[kind], node, sums[i]);
        for (size_t x = 0; x < kKinds; ++x) {
            if (used[1 + x]) {
                addUp(kLongTerm[x], node, sums[(1 + x) * count + i]);
            }
        }
    }
    for (size_t x = 0; x < kKinds; ++x) {
        addCosts(group, static_cast<Kind>(x), m_scaleMaps[1 + x]);
    }
    addCosts(group, kind, m_scaleMaps[0]);
    return Status::success();
}

// Propagating/terminal and direct/indirect shares of the point-to-point wait states.
void DelayAnalysis::classify() {
    const size_t nodes = m_result.tree.size();
    std::vector<double> propagatingLs(nodes, 0.0), propagatingLr(nodes, 0.0);
    for (const Caused& caused : m_caused) {
        const Role role = m_points[static_cast<size_t>(caused.point)].role;
        if (role == Role::LateSender) {
            propagatingLs[nodeOf(caused.point)] += caused.propagating;
        } else if (role == Role::LateReceiver) {
            propagatingLr[nodeOf(caused.point)] += caused.propagating;
        }
    }
    // A node's waiting time splits into propagating and terminal, and into indirect and direct.
    struct Split {
        Metric wait, propagating, terminal, indirect, direct;
        const std::vector<double>& propagatingTime;
        const std::vector<double>& indirectTime;
    };
    const Split splits[] = {{Metric::MpiLateSender, Metric::MpiWaitPropagatingLs,
                             Metric::MpiWaitTerminalLs, Metric::MpiWaitIndirectLateSender,
                             Metric::MpiWaitDirectLateSender, propagatingLs, m_indirectLs},
                            {Metric::MpiLateReceiver, Metric::MpiWaitPropagatingLr,
                             Metric::MpiWaitTerminalLr, Metric::MpiWaitIndirectLateReceiver,
                             Metric::MpiWaitDirectLateReceiver, propagatingLr, m_indirectLr}};
    const SeverityRows& rows = m_result.severities;
    for (NodeId n = 0; n < nodes; ++n) {
        for (const Split& split : splits) {
            const double wait = rows.get(split.wait, n);
            if (wait > 0.0) {
                const double propagating = std::min(split.propagatingTime[n], wait);
                const double indirect = std::min(split.indirectTime[n], wait);
                addUp(split.propagating, n, propagating);
                addUp(split.terminal, n, wait - propagating);
                addUp(split.indirect, n, indirect);
                addUp(split.direct, n, wait - indirect);
            }
        }
    }
}

} // namespace waitscope::analysis
