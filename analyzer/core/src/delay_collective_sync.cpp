// Collective synchronization points: which members of a replayed collective synchronized,
// who the latecomer is, and what this rank waited there (the forward pass's part of the
// root-cause analysis; see delay_analysis.cpp).
#include "delay_analysis.h"

#include <algorithm>
#include <limits>

namespace waitscope::analysis {
namespace {

using delay::kBarrier;
using delay::kKinds;
using delay::kNxn;
using delay::kOneToN;
using delay::Role;

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

uint32_t worldRankAt(const std::vector<uint32_t>& world, size_t member) {
    return member < world.size() ? world[member] : 0u;
}

} // namespace

void DelayAnalysis::onCollective(uint32_t operation, const CollectiveView& view, RegionClass cls,
                                 const trace::CollectiveRecord& record) {
    if (cls == RegionClass::MpiInit || cls == RegionClass::MpiFinalize) {
        initFinalizePoint(operation, view, cls);
        return;
    }
    const Kind kind = delay::kindOf(record.op);
    const size_t members = view.members();
    if (kind == kKinds || members < 2 || record.comm >= m_defs.communicators.size()) {
        return;
    }
    // Who synchronizes follows from the members' call times alone, so that every member
    // comes to the same conclusion (Scalasca also looks at the bytes moved).
    std::vector<double>& enters = m_scratch.enters;
    enters.resize(members);
    for (size_t m = 0; m < members; ++m) {
        enters[m] = view.enterOf(m);
    }
    const auto& world = m_defs.communicators[record.comm].worldRanks;
    Synchronization sync;
    sync.late = latest(enters);
    m_scratch.synchronizes.assign(members, 0);
    m_scratch.partners.clear();
    const bool synchronized = kind == kBarrier || kind == kNxn ? nToNSync(kind, view, world, sync)
                              : kind == kOneToN                ? oneToNSync(view, world, sync)
                                                               : nToOneSync(view, world, sync);
    if (!synchronized || !m_scratch.synchronizes[sync.late]) {
        return;
    }
    addCollective(operation, view, kind, sync.late);
    if (m_scratch.synchronizes[view.self]) {
        const std::vector<uint32_t>& partners = m_scratch.partners;
        addGroupPoint(operation, view.span, sync.wait, sync.completion,
                      kind == kBarrier || partners.size() == world.size()
                          ? m_points.memberSet(record.comm)
                          : m_points.rankSet(m_scratch.partners));
    }
}

// One SP per call: MPI_Init may hold several communicator creations.
void DelayAnalysis::initFinalizePoint(uint32_t operation, const CollectiveView& view,
                                      RegionClass cls) {
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
    addGroupPoint(operation, view.span, 0.0, completion, m_points.memberSet(kWorldComm));
}

// Barrier and n-to-n: everyone waits for the last to enter; with partial overlap only who
// entered before the last one, and the last one.
bool DelayAnalysis::nToNSync(Kind kind, const CollectiveView& view,
                             const std::vector<uint32_t>& world, Synchronization& sync) {
    const std::vector<double>& enters = m_scratch.enters;
    std::vector<char>& synchronizes = m_scratch.synchronizes;
    const size_t members = view.members();
    const double duration = view.span.exit - view.span.enter;
    const double maxEnter = view.maxEnter();
    sync.wait = std::clamp(maxEnter - view.span.enter, 0.0, duration);
    sync.completion = std::clamp(view.span.exit - view.minExit(), 0.0, duration - sync.wait);
    const bool overlap = kind == kBarrier || view.minExit() > maxEnter;
    for (size_t m = 0; m < members; ++m) {
        synchronizes[m] = overlap || enters[m] < enters[sync.late] || m == sync.late;
    }
    for (size_t m = 0; m < members; ++m) {
        if (synchronizes[m]) {
            m_scratch.partners.push_back(worldRankAt(world, m));
        }
    }
    return true;
}

// 1-to-n: the receivers that entered before the root wait for it. False without a valid root.
bool DelayAnalysis::oneToNSync(const CollectiveView& view, const std::vector<uint32_t>& world,
                               Synchronization& sync) {
    const std::vector<double>& enters = m_scratch.enters;
    std::vector<char>& synchronizes = m_scratch.synchronizes;
    const size_t members = view.members();
    const double duration = view.span.exit - view.span.enter;
    if (view.root >= members) {
        return false;
    }
    sync.late = view.root;
    const double rootEnter = enters[view.root];
    // Completion: the time after the first waiting receiver left.
    double earliestEnd = std::numeric_limits<double>::infinity();
    for (size_t m = 0; m < members; ++m) {
        if (m != view.root && enters[m] < rootEnter) {
            synchronizes[m] = synchronizes[view.root] = true;
            earliestEnd = std::min(earliestEnd, view.exitOf(m));
        }
    }
    sync.completion = std::clamp(view.span.exit - earliestEnd, 0.0, duration);
    if (view.self != view.root) {
        sync.wait = std::clamp(rootEnter - view.span.enter, 0.0, duration);
        sync.completion = std::min(sync.completion, duration - sync.wait);
        m_scratch.partners.push_back(worldRankAt(world, view.root));
    } else {
        for (size_t m = 0; m < members; ++m) {
            if (m != view.root && synchronizes[m]) {
                m_scratch.partners.push_back(worldRankAt(world, m));
            }
        }
    }
    return true;
}

// n-to-1: the root waits for the last sender when it entered before it. False otherwise or
// without a valid root.
bool DelayAnalysis::nToOneSync(const CollectiveView& view, const std::vector<uint32_t>& world,
                               Synchronization& sync) {
    const std::vector<double>& enters = m_scratch.enters;
    std::vector<char>& synchronizes = m_scratch.synchronizes;
    const size_t members = view.members();
    const double duration = view.span.exit - view.span.enter;
    const size_t late = sync.late;
    if (view.root >= members || !(enters[view.root] < enters[late])) {
        return false;
    }
    synchronizes[view.root] = synchronizes[late] = true;
    // Completion: the time after the first of the two synchronizing ranks left.
    sync.completion = std::clamp(
        view.span.exit - std::min(view.exitOf(view.root), view.exitOf(late)), 0.0, duration);
    if (view.self == view.root) {
        double lastSender = -std::numeric_limits<double>::infinity();
        for (size_t m = 0; m < members; ++m) {
            if (m != view.root) {
                lastSender = std::max(lastSender, enters[m]);
            }
        }
        sync.wait = std::clamp(lastSender - view.span.enter, 0.0, duration);
        sync.completion = std::min(sync.completion, duration - sync.wait);
        m_scratch.partners.push_back(worldRankAt(world, late));
    } else {
        m_scratch.partners.push_back(worldRankAt(world, view.root));
    }
    return true;
}

// A member that synchronizes here with every other rank can never be inside a later
// synchronization interval, so its wait state here takes on no costs: its share is known
// before the walk and posted then, sparing the latecomer a wait for it.
bool DelayAnalysis::postsEarly(Kind kind, size_t member) const {
    const std::vector<char>& synchronizes = m_scratch.synchronizes;
    size_t others = 0;
    if (kind == kBarrier || kind == kNxn) {
        for (size_t o = 0; o < synchronizes.size(); ++o) {
            others += o != member && synchronizes[o];
        }
    } else {
        others = 1; // the root or the latecomer
    }
    return others + 1 >= m_transport.size();
}

void DelayAnalysis::addCollective(uint32_t operation, const CollectiveView& view, Kind kind,
                                  size_t late) {
    const std::vector<char>& synchronizes = m_scratch.synchronizes;
    delay::Collective collective;
    collective.operation = operation;
    collective.late = static_cast<uint32_t>(late);
    collective.postEarly =
        view.self != late && synchronizes[view.self] && postsEarly(kind, view.self);
    if (view.self == late) {
        std::vector<uint32_t>& waiting = m_scratch.waiting;
        std::vector<uint32_t>& early = m_scratch.early;
        waiting.clear();
        early.clear();
        for (size_t m = 0; m < synchronizes.size(); ++m) {
            if (m != late && synchronizes[m]) {
                (postsEarly(kind, m) ? early : waiting).push_back(static_cast<uint32_t>(m));
            }
        }
        collective.waiting = m_points.rankSet(waiting);
        collective.early = m_points.rankSet(early);
    }
    m_collectives.push_back(collective);
}

void DelayAnalysis::addGroupPoint(uint32_t operation, const CallSpan& call, double wait,
                                  double completion, uint32_t set) {
    m_points.push(delay::SyncPoint::at(operation, Role::Group, call, wait, completion, set));
    m_lastGroupNode = call.node;
    m_lastGroupEnter = call.enter;
}

} // namespace waitscope::analysis
