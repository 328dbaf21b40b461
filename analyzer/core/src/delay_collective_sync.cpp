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

uint32_t worldRankAt(const std::vector<uint32_t>& world, size_t member) {
    return member < world.size() ? world[member] : 0u;
}

} // namespace

// Who synchronizes is a rule on the members' enters (see the Synchronization modes), asked per
// member in O(1) from the collective's reductions: only the latecomer and a 1-to-n root, which
// list their partners, look at every member.
bool DelayAnalysis::Synchronization::includes(const CollectiveView& view, size_t member) const {
    switch (mode) {
    case Mode::All:
        return true;
    case Mode::BeforeLatest:
        return member == late || view.enterOf(member) < view.maxEnter();
    case Mode::BeforeRoot:
        return member == late ? count > 1 : view.enterOf(member) < view.enterOf(late);
    case Mode::Pair:
        return member == late || member == view.root;
    }
    return false;
}

void DelayAnalysis::onCollective(uint32_t operation, const CollectiveView& view, RegionClass cls,
                                 const trace::CollectiveRecord& record) {
    Timeline& line = timeline(view.span.lane);
    if (cls == RegionClass::MpiInit || cls == RegionClass::MpiFinalize) {
        initFinalizePoint(line, operation, view, cls);
        return;
    }
    const Kind kind = delay::kindOf(record.op);
    const size_t members = view.members();
    if (kind == kKinds || members < 2 || record.comm >= m_defs.communicators.size()) {
        return;
    }
    // Who synchronizes follows from the members' call times alone, so that every member
    // comes to the same conclusion (Scalasca also looks at the bytes moved).
    const auto& world = m_defs.communicators[record.comm].worldRanks;
    Synchronization sync;
    sync.late = view.gathered->latest();
    const bool synchronized = kind == kBarrier || kind == kNxn ? nToNSync(kind, view, sync)
                              : kind == kOneToN                ? oneToNSync(view, sync)
                                                               : nToOneSync(view, sync);
    if (!synchronized || !sync.includes(view, sync.late)) {
        return;
    }
    addCollective(line, operation, view, kind, sync);
    if (!sync.includes(view, view.self)) {
        return;
    }
    // The ranks this rank synchronizes with (itself among them in n-to-n operations).
    if (kind == kBarrier || (sync.mode == Synchronization::Mode::All && members == world.size())) {
        addGroupPoint(line, operation, view.span, sync.wait, sync.completion,
                      line.points.memberSet(record.comm));
        return;
    }
    std::vector<uint32_t>& partners = m_scratch.partners;
    partners.clear();
    if (kind == kBarrier || kind == kNxn) {
        for (size_t m = 0; m < members; ++m) {
            if (sync.includes(view, m)) {
                partners.push_back(worldRankAt(world, m));
            }
        }
    } else if (view.self != sync.late) {
        partners.push_back(worldRankAt(world, sync.late));
    } else if (kind == kOneToN) {
        for (size_t m = 0; m < members; ++m) {
            if (m != view.root && sync.includes(view, m)) {
                partners.push_back(worldRankAt(world, m));
            }
        }
    } else {
        partners.push_back(worldRankAt(world, view.root));
    }
    addGroupPoint(line, operation, view.span, sync.wait, sync.completion,
                  partners.size() == world.size() ? line.points.memberSet(record.comm)
                                                  : line.points.rankSet(partners));
}

// One SP per call: MPI_Init may hold several communicator creations.
void DelayAnalysis::initFinalizePoint(Timeline& line, uint32_t operation,
                                      const CollectiveView& view, RegionClass cls) {
    if (!line.points.empty() && line.points.back().role == Role::Group &&
        line.lastGroupNode == view.span.node && line.lastGroupEnter == view.span.enter) {
        return;
    }
    double completion = 0.0;
    if (cls == RegionClass::MpiInit) {
        const double latestBegin = std::min(view.maxEnter(), view.span.exit);
        const double earliestEnd = std::max(view.minExit(), latestBegin);
        completion = std::max(0.0, view.span.exit - earliestEnd);
    }
    addGroupPoint(line, operation, view.span, 0.0, completion, line.points.memberSet(kWorldComm));
}

// Barrier and n-to-n: everyone waits for the last to enter; with partial overlap only who
// entered before the last one, and the last one.
bool DelayAnalysis::nToNSync(Kind kind, const CollectiveView& view, Synchronization& sync) {
    const double duration = view.span.exit - view.span.enter;
    const double maxEnter = view.maxEnter();
    sync.wait = std::clamp(maxEnter - view.span.enter, 0.0, duration);
    sync.completion = std::clamp(view.span.exit - view.minExit(), 0.0, duration - sync.wait);
    const bool overlap = kind == kBarrier || view.minExit() > maxEnter;
    const size_t tied = view.gathered->entersAtMax();
    if (overlap || tied <= 1) {
        sync.mode = Synchronization::Mode::All;
        sync.count = view.members();
    } else {
        // Those that entered with the last one, but for the last one itself, do not wait.
        sync.mode = Synchronization::Mode::BeforeLatest;
        sync.count = view.members() - tied + 1;
    }
    return true;
}

// 1-to-n: the receivers that entered before the root wait for it. False without a valid root.
bool DelayAnalysis::oneToNSync(const CollectiveView& view, Synchronization& sync) {
    const size_t members = view.members();
    const double duration = view.span.exit - view.span.enter;
    if (view.root >= members) {
        return false;
    }
    sync.late = view.root;
    sync.mode = Synchronization::Mode::BeforeRoot;
    const double rootEnter = view.enterOf(view.root);
    // Completion: the time after the first waiting receiver left.
    const GatheredCollective::BeforeRoot before = view.gathered->beforeRoot(view.root);
    sync.count = before.count + 1;
    sync.completion = std::clamp(view.span.exit - before.earliestExit, 0.0, duration);
    if (view.self != view.root) {
        sync.wait = std::clamp(rootEnter - view.span.enter, 0.0, duration);
        sync.completion = std::min(sync.completion, duration - sync.wait);
    }
    return true;
}

// n-to-1: the root waits for the last sender when it entered before it. False otherwise or
// without a valid root.
bool DelayAnalysis::nToOneSync(const CollectiveView& view, Synchronization& sync) {
    const size_t members = view.members();
    const double duration = view.span.exit - view.span.enter;
    const size_t late = sync.late;
    if (view.root >= members || !(view.enterOf(view.root) < view.enterOf(late))) {
        return false;
    }
    sync.mode = Synchronization::Mode::Pair;
    sync.count = 2;
    // Completion: the time after the first of the two synchronizing ranks left.
    sync.completion = std::clamp(
        view.span.exit - std::min(view.exitOf(view.root), view.exitOf(late)), 0.0, duration);
    if (view.self == view.root) {
        const double lastSender = view.gathered->maxEnterExcept(view.root);
        sync.wait = std::clamp(lastSender - view.span.enter, 0.0, duration);
        sync.completion = std::min(sync.completion, duration - sync.wait);
    }
    return true;
}

// A member that synchronizes here with every other rank can never be inside a later
// synchronization interval, so its wait state here takes on no costs: its share is known
// before the walk and posted then, sparing the latecomer a wait for it.
bool DelayAnalysis::postsEarly(Kind kind, const CollectiveView& view, const Synchronization& sync,
                               size_t member) const {
    size_t others = 1; // the root or the latecomer
    if (kind == kBarrier || kind == kNxn) {
        others = sync.count - (sync.includes(view, member) ? 1 : 0);
    }
    return others + 1 >= m_transport.size();
}

void DelayAnalysis::addCollective(Timeline& line, uint32_t operation, const CollectiveView& view,
                                  Kind kind, const Synchronization& sync) {
    const size_t late = sync.late;
    delay::Collective collective;
    collective.operation = operation;
    collective.late = static_cast<uint32_t>(late);
    collective.postEarly = view.self != late && sync.includes(view, view.self) &&
                           postsEarly(kind, view, sync, view.self);
    if (view.self == late) {
        std::vector<uint32_t>& waiting = m_scratch.waiting;
        std::vector<uint32_t>& early = m_scratch.early;
        waiting.clear();
        early.clear();
        for (size_t m = 0; m < view.members(); ++m) {
            if (m != late && sync.includes(view, m)) {
                (postsEarly(kind, view, sync, m) ? early : waiting)
                    .push_back(static_cast<uint32_t>(m));
                // The member posts at its exit what the latecomer awaits at its enter.
                m_postedBeforeAwait = m_postedBeforeAwait || view.exitOf(m) < view.span.enter;
            }
        }
        collective.waiting = line.points.rankSet(waiting);
        collective.early = line.points.rankSet(early);
    }
    line.collectives.push_back(collective);
}

void DelayAnalysis::addGroupPoint(Timeline& line, uint32_t operation, const CallSpan& call,
                                  double wait, double completion, uint32_t set) {
    line.points.push(delay::SyncPoint::at(operation, Role::Group, call, wait, completion, set));
    line.lastGroupNode = call.node;
    line.lastGroupEnter = call.enter;
}

} // namespace waitscope::analysis
