// Collects the threads a rank's main location created and joined (see thread_joins.h).
#include "thread_joins.h"

#include <algorithm>

namespace waitscope::analysis {

namespace {

std::vector<OmpWork> sortedByNode(const std::unordered_map<NodeId, double>& time) {
    std::vector<OmpWork> work;
    work.reserve(time.size());
    for (const auto& [node, seconds] : time) {
        work.push_back(OmpWork{node, seconds});
    }
    std::sort(work.begin(), work.end(),
              [](const OmpWork& a, const OmpWork& b) { return a.node < b.node; });
    return work;
}

} // namespace

void ThreadJoins::create(uint32_t sequence, double time, NodeId node) {
    if (m_open.size() >= kMaxOpen) {
        ++untracked;
        return;
    }
    Open open;
    open.join.sequence = sequence;
    open.join.created = time;
    open.join.createNode = node;
    if (m_trackGaps) {
        open.join.createGap = m_gap;
        open.join.beforeCreate = sinceGap();
    }
    m_open.push_back(std::move(open));
}

void ThreadJoins::join(uint32_t sequence, double enter, double time, NodeId node) {
    const auto it = std::find_if(m_open.begin(), m_open.end(),
                                 [sequence](const Open& o) { return o.join.sequence == sequence; });
    if (it == m_open.end()) {
        return; // its creation was not recorded here (another thread created it)
    }
    ThreadJoin join = std::move(it->join);
    join.joinEnter = enter;
    join.joined = time;
    join.joinNode = node;
    if (m_trackGaps) {
        join.joinGap = m_gap;
        join.beforeJoin = sinceGap();
    }
    join.between = sortedByNode(it->time);
    m_open.erase(it);
    m_joins.push_back(std::move(join));
}

std::vector<OmpWork> ThreadJoins::sinceGap() const {
    return sortedByNode(m_sinceGap);
}

void ThreadJoins::chargeOpen(NodeId node, double seconds) {
    for (Open& open : m_open) {
        open.time[node] += seconds;
    }
}

std::unordered_map<uint32_t, ThreadResult*> threadsBySequence(std::vector<ThreadResult>& threads) {
    std::unordered_map<uint32_t, ThreadResult*> bySequence;
    for (ThreadResult& thread : threads) {
        if (thread.sequence != 0 && thread.end > 0.0) {
            bySequence.emplace(thread.sequence, &thread);
        }
    }
    return bySequence;
}

} // namespace waitscope::analysis
