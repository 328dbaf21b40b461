// The recording of the time profile between operations and its gap exceptions.
#include "operation_profile.h"

#include <cassert>

namespace waitscope::analysis {

void OperationProfile::reserve(size_t charges, size_t operations) {
    m_nodes.reserve(charges);
    m_seconds.reserve(charges);
    m_starts.reserve(operations + 2);
    m_gapSegment.reserve(operations + 1);
}

void OperationProfile::grow(NodeId node) {
    assert(node <= kNodeMask && "call tree too large for the marks of the time profile");
    m_open.resize(node + 1, 0.0);
    m_mask.resize(node + 1, 0);
    m_gapOpen.resize(node + 1, 0.0);
    m_gapStamp.resize(node + 1, 0);
}

void OperationProfile::openSpan() {
    endGap();
    m_inSpan = true;
}

void OperationProfile::closeSegment() {
    // Without a span opened at this operation, the open gap goes on past it.
    m_gapCrossed = m_gapCrossed || !m_inSpan;
    flushSegment();
    ++m_segments;
}

// Appends the open segment's entries (in the order their nodes were first charged) and
// clears it. A node whose time summed to zero is left out.
void OperationProfile::flushSegment() {
    for (NodeId node : m_touched) {
        const double seconds = m_open[node];
        const uint8_t mask = m_mask[node];
        m_open[node] = 0.0;
        m_mask[node] = 0;
        if (seconds == 0.0) {
            continue;
        }
        NodeId entry = node;
        if ((mask & kInGap) != 0) {
            entry |= kGapEntry;
            if ((mask & kInSpan) != 0) {
                entry |= kMixedEntry;
                m_mixed.emplace_back(static_cast<uint32_t>(m_nodes.size()), m_gapOpen[node]);
            }
        }
        m_nodes.push_back(entry);
        m_seconds.push_back(seconds);
    }
    m_touched.clear();
    m_starts.push_back(static_cast<uint32_t>(m_nodes.size()));
}

// The open gap ends in the open segment (the one the next closeSegment() closes); a gap that
// reached over segment boundaries keeps its own entries.
void OperationProfile::endGap() {
    const auto gap = static_cast<uint32_t>(m_gapSegment.size());
    m_gapSegment.push_back(static_cast<uint32_t>(m_segments));
    if (m_gapCrossed) {
        m_gapsAside.emplace_back(gap, static_cast<uint32_t>(m_asideNodes.size()));
        for (NodeId node : m_gapTouched) {
            m_asideNodes.push_back(node);
            m_asideSeconds.push_back(m_gapOpen[node]);
        }
    }
    m_gapTouched.clear();
    m_gapCrossed = false;
    ++m_gapCount;
}

void OperationProfile::beginLocation() {
    for (NodeId node : m_touched) {
        m_open[node] = 0.0;
        m_mask[node] = 0;
    }
    m_touched.clear();
    m_gapTouched.clear();
    ++m_gapCount; // the open gap's values are stale from here on
    m_gapCrossed = false;
    m_inSpan = false;
}

void OperationProfile::finish() {
    // The time after the last operation holds the last gap: a trailing segment that sum()
    // never reads.
    endGap();
    flushSegment();
    m_open = {};
    m_mask = {};
    m_touched = {};
    m_gapOpen = {};
    m_gapStamp = {};
    m_gapTouched = {};
}

double OperationProfile::mixedGapSeconds(size_t entry) const {
    const auto it = std::lower_bound(m_mixed.begin(), m_mixed.end(),
                                     std::make_pair(static_cast<uint32_t>(entry), 0.0));
    return it != m_mixed.end() && it->first == entry ? it->second : 0.0;
}

size_t OperationProfile::bytes() const {
    return m_nodes.capacity() * sizeof(NodeId) + m_seconds.capacity() * sizeof(double) +
           m_starts.capacity() * sizeof(uint32_t) + m_gapSegment.capacity() * sizeof(uint32_t) +
           m_mixed.capacity() * sizeof(m_mixed[0]) +
           m_gapsAside.capacity() * sizeof(m_gapsAside[0]) +
           m_asideNodes.capacity() * sizeof(NodeId) + m_asideSeconds.capacity() * sizeof(double);
}

} // namespace waitscope::analysis
