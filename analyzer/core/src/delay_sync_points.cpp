// Synchronization points: where a rank synchronized with whom, found during and after the
// replays, and the searches the root-cause pass makes over them (see delay_analysis.cpp).
#include "delay_sync_points.h"

#include "collective_shape.h"

#include <algorithm>
#include <cassert>

namespace waitscope::analysis::delay {

using trace::EventKind;

bool isSend(EventKind kind) {
    return kind == EventKind::MpiSend || kind == EventKind::MpiIsend;
}
bool isReceive(EventKind kind) {
    return kind == EventKind::MpiRecv || kind == EventKind::MpiIrecv;
}

uint32_t messageOperation(const std::vector<ReplayOperation>& operations,
                          const std::vector<uint32_t>& paired, const trace::EventStream& events,
                          uint32_t operation) {
    const EventKind kind = events.kind(operations[operation].event);
    const bool request = kind == EventKind::MpiIrecvRequest || kind == EventKind::MpiIsendComplete;
    return request && operation < paired.size() && paired[operation] < operations.size()
               ? paired[operation]
               : operation;
}

Kind kindOf(trace::CollectiveOp op) {
    switch (collectiveShape(op)) {
    case CollectiveShape::Barrier:
        return kBarrier;
    case CollectiveShape::OneToN:
        return kOneToN;
    case CollectiveShape::NToOne:
        return kNToOne;
    case CollectiveShape::NToN:
        // Alltoallv/w may hide any pattern of pairwise exchange: not a synchronization.
        return isPairwiseVariant(op) ? kKinds : kNxn;
    default:
        return kKinds;
    }
}

SyncPoint SyncPoint::at(uint32_t operation, Role role, const CallSpan& call, double wait,
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

// --- rank sets -------------------------------------------------------------------------------

uint32_t SyncPoints::rankSet(std::vector<uint32_t>& worldRanks) {
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

uint32_t SyncPoints::memberSet(uint32_t comm) {
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
        for (uint32_t r = 0; r < m_ranks; ++r) {
            ranks.push_back(r);
        }
    } else {
        ranks = m_defs.communicators[comm].worldRanks;
    }
    const uint32_t set = rankSet(ranks);
    m_memberSets[comm] = set;
    return set;
}

bool SyncPoints::contains(const SyncPoint& point, uint32_t worldRank) const {
    if (point.role != Role::Group) {
        return point.partner == worldRank;
    }
    const auto& ranks = m_rankSets[point.partner];
    return std::binary_search(ranks.begin(), ranks.end(), worldRank);
}

// --- searches --------------------------------------------------------------------------------

int SyncPoints::previousWith(int point, uint32_t worldRank) const {
    for (int k = point - 1; k >= 0; --k) {
        if (contains(at(k), worldRank)) {
            return k;
        }
    }
    return -1;
}

int SyncPoints::previousGroup(int point, const std::vector<uint32_t>& others,
                              std::vector<std::pair<uint32_t, int>>& intermediate) {
    intermediate.clear();
    std::vector<uint32_t>& remaining = m_remaining;
    std::vector<uint32_t>& left = m_left;
    remaining.assign(others.begin(), others.end());
    int k = point - 1;
    int last = -1;
    for (; k >= 0 && !remaining.empty(); --k) {
        const SyncPoint sp = at(k);
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

// --- completing the list ---------------------------------------------------------------------

void SyncPoints::buildInBlocks(ScratchFile* file, size_t blockEntries) {
    assert(file != nullptr && empty() && !m_kept);
    m_file = file;
    m_blockEntries = blockEntries;
    m_forward.spillTo(file, blockEntries);
    m_backward.spillTo(file, blockEntries);
}

void SyncPoints::mergeBackward() {
    if (inBlocks()) {
        return; // completeInBlocks() merges them as it reads them back
    }
    // The SPs so far: the forward replay's in operation order, then the backward replay's.
    const auto backward = std::find_if(m_points.begin(), m_points.end(), [](const SyncPoint& p) {
        return p.role == Role::LateReceiver;
    });
    mergeTail(static_cast<size_t>(backward - m_points.begin()));
}

void SyncPoints::keep(ScratchFile* file, size_t blockEntries) {
    m_keptPoints = SpilledArray<SyncPoint>(std::move(m_points));
    m_points = {};
    m_kept = true;
    if (file != nullptr) {
        m_keptPoints.spillTo(file, blockEntries);
    }
}

// From the back: only the tail is copied, and std::inplace_merge's buffer of the whole list is
// not needed.
void SyncPoints::mergeTail(size_t first) {
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

// The partners of point-to-point wait states learned in the forward and backward replays that
// their send or receive is an SP, with the call times of the waiter.
void SyncPoints::addPartnerPoints(const std::vector<ReplayOperation>& operations,
                                  const std::vector<CallSpan>& spans,
                                  const trace::EventStream& events,
                                  const SpilledArray<ReplayRecord>& partners,
                                  const std::vector<uint8_t>& partnerWaited, size_t first,
                                  size_t end) {
    const auto& ops = operations;
    // The operations that become SPs, in order; then a merge from the back into the list in
    // place (its room is reserved), instead of a second list of SPs.
    std::vector<uint32_t> found;
    const size_t before = m_points.size();
    size_t own = 0; // the first SP at or after operation k
    const size_t last = std::min({end, ops.size(), partnerWaited.size()});
    for (size_t k = first; k < last; ++k) {
        while (own < before && m_points[own].operation < k) {
            ++own;
        }
        if ((partnerWaited[k] & 1) == 0) { // the partner did not wait here
            continue;
        }
        // Not when this rank waited there itself (the SP is already listed).
        bool waited = false;
        for (size_t j = own; j < before && m_points[j].operation == k; ++j) {
            waited = waited || m_points[j].role == Role::LateSender ||
                     m_points[j].role == Role::LateReceiver;
        }
        // A send, or a receive's request (a receive itself when blocking).
        const EventKind kind = events.kind(ops[k].event);
        if (!waited && (isSend(kind) || isReceive(kind) || kind == EventKind::MpiIrecvRequest)) {
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
        m_points[--out] = partnerPoint(found[--rest], ops, spans, events, partners);
    }
}

SyncPoint SyncPoints::partnerPoint(uint32_t k, const std::vector<ReplayOperation>& operations,
                                   const std::vector<CallSpan>& spans,
                                   const trace::EventStream& events,
                                   const SpilledArray<ReplayRecord>& partners) {
    const CallSpan& span = spans[operations[k].span];
    const Role role =
        isSend(events.kind(operations[k].event)) ? Role::SenderOfLate : Role::ReceiverOfLate;
    const ReplayRecord partner = partners[k];
    // The waiter posts at its call's exit what this call awaits at its enter.
    m_partnerEndedBefore = m_partnerEndedBefore || partner.exit < span.enter;
    return SyncPoint::at(k, role, span, 0.0, std::max(0.0, span.exit - partner.exit), 0);
}

void SyncPoints::resolvePartner(SyncPoint& sp, const std::vector<ReplayOperation>& operations,
                                const std::vector<uint32_t>& paired,
                                const trace::EventStream& events, uint32_t self) const {
    if (sp.role != Role::Group) {
        const ReplayOperation& op =
            operations[messageOperation(operations, paired, events, sp.operation)];
        const trace::MessageRecord& m = events.message(op.event);
        sp.partner = m_defs.worldRank(m.comm, m.partner, self);
    }
}

void SyncPoints::resolvePartners(const std::vector<ReplayOperation>& operations,
                                 const std::vector<uint32_t>& paired,
                                 const trace::EventStream& events, uint32_t self) {
    for (SyncPoint& sp : m_points) {
        resolvePartner(sp, operations, paired, events, self);
    }
}

// The merge of addPartnerPoints() and mergeTail() from the front, as the SPs are read back: at
// one operation the forward replay's SP comes first, then the backward replay's, then the
// partner's (which an SP where this rank waited itself replaces).
void SyncPoints::completeInBlocks(const std::vector<ReplayOperation>& operations,
                                  const std::vector<CallSpan>& spans,
                                  const trace::EventStream& events,
                                  const SpilledArray<ReplayRecord>& partners,
                                  const std::vector<uint8_t>& partnerWaited, size_t first,
                                  size_t end, const std::vector<uint32_t>& paired, uint32_t self) {
    assert(inBlocks() && !m_kept);
    SpilledArray<SyncPoint> out;
    out.spillTo(m_file, m_blockEntries);
    out.reserve(size());
    size_t f = 0;
    size_t b = 0;
    // The last operation at which this rank waited (a Late Sender or Late Receiver SP written)
    uint64_t waitedAt = UINT64_MAX;
    const auto emit = [&](SyncPoint sp) {
        if (sp.role == Role::LateSender || sp.role == Role::LateReceiver) {
            waitedAt = sp.operation;
        }
        resolvePartner(sp, operations, paired, events, self);
        out.push(sp);
    };
    // The replays' SPs up to operation `last` (all: UINT64_MAX), in operation order.
    const auto emitUpTo = [&](uint64_t last) {
        while (f < m_forward.size() || b < m_backward.size()) {
            const SyncPoint forward = f < m_forward.size() ? m_forward[f] : SyncPoint{};
            const SyncPoint backward = b < m_backward.size() ? m_backward[b] : SyncPoint{};
            const bool fromBackward =
                f == m_forward.size() ||
                (b < m_backward.size() && backward.operation < forward.operation);
            const SyncPoint& next = fromBackward ? backward : forward;
            if (next.operation > last) {
                return;
            }
            emit(next);
            ++(fromBackward ? b : f);
        }
    };
    const size_t last = std::min({end, operations.size(), partnerWaited.size()});
    for (size_t k = first; k < last; ++k) {
        if ((partnerWaited[k] & 1) == 0) { // the partner did not wait here
            continue;
        }
        const EventKind kind = events.kind(operations[k].event);
        if (!isSend(kind) && !isReceive(kind) && kind != EventKind::MpiIrecvRequest) {
            continue;
        }
        emitUpTo(k);
        // Not when this rank waited there itself (the SP is already listed).
        if (waitedAt != k) {
            emit(partnerPoint(static_cast<uint32_t>(k), operations, spans, events, partners));
        }
    }
    emitUpTo(UINT64_MAX);
    m_forward.clear();
    m_backward.clear();
    m_file = nullptr;
    m_keptPoints = std::move(out);
    m_kept = true;
}

} // namespace waitscope::analysis::delay
