// Exclusive time per call path between consecutive communication operations of one rank.
#pragma once

#include "waitscope/analysis/call_tree.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace waitscope::analysis {

/// The time profile of every stretch between two communication operations, recorded during
/// the profile pass so that the root-cause pass can sum the profile of any synchronization
/// interval after the event timestamps are gone. Segment k holds the exclusive time charged
/// (at Enter and Leave events) after operation k-1 and up to operation k; an MPI call's own
/// duration is charged at its Leave, so it lands in the segment of the next operation.
/// Memory: 12 bytes (node and seconds, in two arrays) per call path touched between two
/// operations, 4 per operation.
class OperationProfile {
public:
    /// Charges `seconds` of exclusive time to `node` in the open segment.
    void add(NodeId node, double seconds) {
        if (node >= m_open.size()) {
            m_open.resize(node + 1, 0.0);
        }
        if (m_open[node] == 0.0) {
            m_touched.push_back(node);
        }
        m_open[node] += seconds;
    }
    /// Closes the open segment as the one of the next operation.
    void closeSegment() {
        m_starts.push_back(static_cast<uint32_t>(m_nodes.size()));
        // A node may be listed twice when its time summed to zero in between; the second
        // listing finds zero and is skipped.
        for (NodeId node : m_touched) {
            if (m_open[node] != 0.0) {
                m_nodes.push_back(node);
                m_seconds.push_back(m_open[node]);
                m_open[node] = 0.0;
            }
        }
        m_touched.clear();
    }
    /// Number of closed segments (= operations seen).
    size_t segments() const { return m_starts.size(); }
    /// Adds segments [first, last) to `dense` (indexed by node), listing new nodes in `touched`
    /// (possibly twice: the reader takes a value and zeroes it).
    void sum(size_t first, size_t last, std::vector<double>& dense,
             std::vector<NodeId>& touched) const {
        const size_t begin = first < m_starts.size() ? m_starts[first] : m_nodes.size();
        const size_t end = last < m_starts.size() ? m_starts[last] : m_nodes.size();
        for (size_t e = begin; e < end; ++e) {
            const NodeId node = m_nodes[e];
            const double seconds = m_seconds[e];
            if (node >= dense.size()) {
                dense.resize(node + 1, 0.0);
            }
            if (dense[node] == 0.0) {
                touched.push_back(node);
            }
            dense[node] += seconds;
        }
    }
    /// Frees the open-segment scratch space once the profile pass is over.
    void finish() {
        m_open = {};
        m_touched = {};
        m_nodes.shrink_to_fit();
        m_seconds.shrink_to_fit();
    }
    /// Bytes held by the recorded segments.
    size_t bytes() const {
        return m_nodes.capacity() * sizeof(NodeId) + m_seconds.capacity() * sizeof(double) +
               m_starts.capacity() * sizeof(uint32_t);
    }

private:
    // Two arrays rather than one of pairs: a pair pads to 16 bytes.
    std::vector<NodeId> m_nodes;
    std::vector<double> m_seconds;
    std::vector<uint32_t> m_starts;
    std::vector<double> m_open;
    std::vector<NodeId> m_touched;
};

} // namespace waitscope::analysis
