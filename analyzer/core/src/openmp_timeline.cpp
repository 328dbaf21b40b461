// The OpenMP constructs of one location, collected during its profile pass (see the header).
#include "openmp_timeline.h"

#include <algorithm>
#include <limits>
#include <tuple>
#include <utility>

namespace waitscope::analysis {

namespace {

/// Appends `times` to `list` by node (a fixed order: the sums do not depend on hashing) and
/// empties it; returns where they begin and end.
std::pair<uint32_t, uint32_t> flush(std::unordered_map<NodeId, double>& times,
                                    std::vector<OmpWork>& list) {
    const auto first = static_cast<uint32_t>(list.size());
    for (const auto& [node, seconds] : times) {
        list.push_back(OmpWork{node, seconds});
    }
    std::sort(list.begin() + first, list.end(),
              [](const OmpWork& a, const OmpWork& b) { return a.node < b.node; });
    times.clear();
    return {first, static_cast<uint32_t>(list.size())};
}

} // namespace

OpenmpTimeline::OpenmpTimeline(const trace::Definitions& definitions,
                               const std::vector<RegionClass>& classes) {
    using trace::RegionRole;
    m_kinds.assign(definitions.regions.size(), Kind::None);
    for (size_t r = 0; r < definitions.regions.size(); ++r) {
        const trace::Region& region = definitions.regions[r];
        if (region.paradigm != trace::Paradigm::OpenMp) {
            continue;
        }
        m_enabled = true;
        const RegionClass regionClass = r < classes.size() ? classes[r] : RegionClass::Computation;
        switch (region.role) {
        case RegionRole::Parallel:
            m_kinds[r] = Kind::Parallel;
            break;
        case RegionRole::Barrier:
            m_kinds[r] = Kind::Barrier;
            break;
        case RegionRole::ImplicitBarrier:
            m_kinds[r] = Kind::ImplicitBarrier;
            break;
        case RegionRole::Critical:
            m_kinds[r] = Kind::Critical;
            break;
        case RegionRole::CriticalSblock:
            m_kinds[r] = Kind::Sblock;
            break;
        case RegionRole::Task:
        case RegionRole::TaskUntied:
            m_kinds[r] = Kind::Task;
            break;
        default:
            m_kinds[r] = regionClass == RegionClass::OmpLockApi ? Kind::Lock : Kind::None;
            break;
        }
    }
}

const OmpSpan* OpenmpTimeline::masterSpan(uint32_t region, double time,
                                          const CallTree* tree) const {
    if (master == nullptr || region >= m_kinds.size() || m_kinds[region] != Kind::Parallel) {
        return nullptr;
    }
    const std::vector<OmpSpan>& spans = master->parallels;
    auto it = std::upper_bound(spans.begin(), spans.end(), time,
                               [](double t, const OmpSpan& s) { return t < s.enter; });
    // The master's region open at `time`; else the next one (a thread may begin its part
    // before the master has begun its own).
    const OmpSpan* span = nullptr;
    if (it != spans.begin() && time <= (it - 1)->leave) {
        span = &*(it - 1);
    } else if (it != spans.end()) {
        span = &*it;
    }
    if (span == nullptr || (tree != nullptr && tree->node(span->node).region != region)) {
        return nullptr;
    }
    return span;
}

NodeId OpenmpTimeline::anchorOf(uint32_t region, double time, const CallTree& tree) const {
    const OmpSpan* span = masterSpan(region, time, &tree);
    return span == nullptr ? kNoNode : tree.node(span->node).parent;
}

double OpenmpTimeline::chargeLimit() const {
    return m_joins.empty() ? std::numeric_limits<double>::infinity() : m_joins.back();
}

void OpenmpTimeline::charge(NodeId node, double from, double to) {
    if (!m_enabled || to <= from) {
        return;
    }
    if (m_openParallels.empty()) {
        serial[node] += to - from;
        return;
    }
    m_regionTime[node] += to - from;
    if (m_openBarriers.empty()) {
        m_pathInterval[node] += to - from;
    }
    if (m_openBarriers.empty() && (m_stack.empty() || (m_stack.back().kind != Kind::Critical &&
                                                       m_stack.back().kind != Kind::Lock))) {
        // Work of the synchronization interval; acquiring a critical section or a lock is not.
        m_interval[node] += to - from;
    }
}

void OpenmpTimeline::enter(uint32_t region, NodeId node, double time) {
    if (!m_enabled) {
        return;
    }
    const Kind kind = region < m_kinds.size() ? m_kinds[region] : Kind::None;
    OmpSpan span;
    span.node = node;
    span.enter = time;
    span.leave = time;
    uint32_t index = 0;
    switch (kind) {
    case Kind::Parallel: {
        index = static_cast<uint32_t>(parallels.size());
        parallels.push_back(span);
        m_openParallels.push_back(index);
        const OmpSpan* join = masterSpan(region, time, nullptr);
        m_joins.push_back(join != nullptr ? std::max(join->leave, time)
                                          : std::numeric_limits<double>::infinity());
        m_interval.clear(); // the thread's part of the region begins
        m_pathInterval.clear();
        if (m_openParallels.size() == 1) {
            m_regionTime.clear();
        }
        break;
    }
    case Kind::Barrier:
    case Kind::ImplicitBarrier:
        span.parallel = m_openParallels.empty() ? kNoParallel : m_openParallels.back();
        span.implicit = kind == Kind::ImplicitBarrier;
        // The interval before the barrier ends here; by node, for the delay costs.
        span.firstWork = static_cast<uint32_t>(barrierWork.size());
        for (const auto& [work, seconds] : m_interval) {
            barrierWork.push_back(OmpWork{work, seconds});
        }
        std::sort(barrierWork.begin() + span.firstWork, barrierWork.end(),
                  [](const OmpWork& a, const OmpWork& b) { return a.node < b.node; });
        span.endWork = static_cast<uint32_t>(barrierWork.size());
        m_interval.clear();
        std::tie(span.firstPath, span.endPath) = flush(m_pathInterval, pathTime);
        index = static_cast<uint32_t>(barriers.size());
        barriers.push_back(span);
        m_openBarriers.push_back(index);
        break;
    case Kind::Critical:
        span.entered = time;
        index = static_cast<uint32_t>(criticals.size());
        criticals.push_back(span);
        m_openCriticals.push_back(index);
        break;
    case Kind::Sblock:
        if (!m_openCriticals.empty()) {
            criticals[m_openCriticals.back()].entered = time;
        }
        index = static_cast<uint32_t>(sblocks.size());
        sblocks.push_back(span);
        break;
    case Kind::Lock:
        index = static_cast<uint32_t>(locks.size());
        locks.push_back(span);
        break;
    case Kind::Task:
        // A task inside a barrier (directly: a task's own barrier would be the innermost).
        if (!m_openBarriers.empty() && !m_stack.empty() &&
            (m_stack.back().kind == Kind::Barrier ||
             m_stack.back().kind == Kind::ImplicitBarrier)) {
            index = static_cast<uint32_t>(barrierTasks.size());
            OmpSpan& barrier = barriers[m_openBarriers.back()];
            if (barrier.endTask == 0) {
                barrier.firstTask = index;
            }
            barrier.endTask = index + 1;
            barrierTasks.push_back(OmpBarrierTask{m_openBarriers.back(), time, time, node});
        } else {
            index = kNoParallel;
        }
        break;
    case Kind::None:
        break;
    }
    m_stack.push_back(Open{kind, index});
}

void OpenmpTimeline::leave(double time) {
    if (!m_enabled || m_stack.empty()) {
        return;
    }
    const Open open = m_stack.back();
    m_stack.pop_back();
    time = std::min(time, chargeLimit());
    switch (open.kind) {
    case Kind::Parallel: {
        OmpSpan& region = parallels[open.index];
        region.leave = time;
        std::tie(region.firstPath, region.endPath) = flush(m_pathInterval, pathTime);
        if (m_openParallels.size() == 1) {
            std::tie(region.firstTime, region.endTime) = flush(m_regionTime, regionTime);
        }
        m_openParallels.pop_back();
        m_joins.pop_back();
        break;
    }
    case Kind::Barrier:
    case Kind::ImplicitBarrier:
        barriers[open.index].leave = time;
        m_openBarriers.pop_back();
        break;
    case Kind::Critical:
        criticals[open.index].leave = time;
        m_openCriticals.pop_back();
        break;
    case Kind::Sblock:
        sblocks[open.index].leave = time;
        break;
    case Kind::Lock:
        locks[open.index].leave = time;
        break;
    case Kind::Task:
        if (open.index != kNoParallel) {
            barrierTasks[open.index].leave = time;
        }
        break;
    case Kind::None:
        break;
    }
}

} // namespace waitscope::analysis
