// Synchronization intervals of the root-cause pass (see delay_analysis.cpp for their use).
#include "delay_interval.h"

#include <algorithm>
#include <limits>

namespace waitscope::analysis::delay {

SyncIntervals::SyncIntervals(const SyncPoints& points, const OperationProfile& profile,
                             size_t nodes, size_t first)
    : m_points(points), m_profile(profile), m_dense(nodes, 0.0), m_denseWait(nodes, 0.0),
      m_first(first) {}

void SyncIntervals::compute(int from, int to, Interval& result) {
    result.from = from;
    result.to = to;
    result.times.clear();
    result.sum = 0.0;
    result.waiting = 0.0;
    sumTimes(from, to, result);
    if (result.times.size() > 1) {
        std::sort(result.times.begin(), result.times.end());
    }
    if (from >= 0) {
        trimOpening(from, result);
    }
}

void SyncIntervals::sumTimes(int from, int to, Interval& result) {
    const size_t first = from < 0 ? m_first : m_points.at(from).operation + size_t{1};
    const size_t last = m_points.at(to).operation + size_t{1};
    m_touched.clear();
    m_profile.sum(first, last, m_dense, m_touched);
    if (m_denseWait.size() < m_dense.size()) {
        m_denseWait.resize(m_dense.size(), 0.0);
    }
    std::vector<NodeId>& waited = m_waited;
    waited.clear();
    for (int k = from + 1; k < to; ++k) {
        const SyncPoint sp = m_points.at(k);
        if (sp.wait > 0.0) {
            const NodeId node = sp.node;
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
}

void SyncIntervals::trimOpening(int from, Interval& result) const {
    const SyncPoint opening = m_points.at(from);
    const NodeId node = opening.node;
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

} // namespace waitscope::analysis::delay
