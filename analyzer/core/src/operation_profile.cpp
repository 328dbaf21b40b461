// The recording of the time profile between operations and its gap exceptions.
#include "operation_profile.h"

#include <cassert>

namespace waitscope::analysis {

void OperationProfile::spillTo(ScratchFile* file, size_t blockEntries) {
    assert(m_file == nullptr && m_nodes.empty() && "spillTo() before recording, once");
    m_file = file;
    m_blockEntries = blockEntries > 0 ? blockEntries : kDefaultBlockEntries;
    m_starts.spillTo(file, m_blockEntries);
    m_gapSegment.spillTo(file, m_blockEntries);
}

void OperationProfile::writeBlocks() {
    size_t written = 0;
    while (m_nodes.size() - written >= m_blockEntries) {
        // A block's nodes and then its seconds, one after the other.
        m_blockOffsets.push_back(
            m_file->append(m_nodes.data() + written, m_blockEntries * sizeof(NodeId)));
        m_file->append(m_seconds.data() + written, m_blockEntries * sizeof(double));
        written += m_blockEntries;
        m_spilled += m_blockEntries;
    }
    m_nodes.erase(m_nodes.begin(), m_nodes.begin() + static_cast<std::ptrdiff_t>(written));
    m_seconds.erase(m_seconds.begin(), m_seconds.begin() + static_cast<std::ptrdiff_t>(written));
}

bool OperationProfile::readBlock(size_t block) const {
    if (block == m_readBlock) {
        return true;
    }
    m_readNodes.resize(m_blockEntries);
    m_readSeconds.resize(m_blockEntries);
    const uint64_t offset = m_blockOffsets[block];
    const size_t nodeBytes = m_blockEntries * sizeof(NodeId);
    if (!m_file->read(m_readNodes.data(), nodeBytes, offset) ||
        !m_file->read(m_readSeconds.data(), m_blockEntries * sizeof(double), offset + nodeBytes)) {
        m_readBlock = SIZE_MAX;
        return false;
    }
    m_readBlock = block;
    return true;
}

void OperationProfile::reserve(size_t charges, size_t operations) {
    // Spilled, a block and what one segment may add beyond it.
    charges = m_file != nullptr ? std::min(charges, 2 * m_blockEntries) : charges;
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
                m_mixed.emplace_back(static_cast<uint32_t>(m_spilled + m_nodes.size()),
                                     m_gapOpen[node]);
            }
        }
        m_nodes.push_back(entry);
        m_seconds.push_back(seconds);
    }
    m_touched.clear();
    m_starts.push(static_cast<uint32_t>(m_spilled + m_nodes.size()));
    if (m_file != nullptr && m_nodes.size() >= m_blockEntries) {
        writeBlocks();
    }
}

// The open gap ends in the open segment (the one the next closeSegment() closes); a gap that
// reached over segment boundaries keeps its own entries.
void OperationProfile::endGap() {
    const auto gap = static_cast<uint32_t>(m_gapSegment.size());
    m_gapSegment.push(static_cast<uint32_t>(m_segments));
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
    // The previous location's time after its last call: its trailing gap, kept apart.
    m_trailingStarts.push_back(static_cast<uint32_t>(m_trailingNodes.size()));
    if (!m_inSpan) {
        for (NodeId node : m_gapTouched) {
            m_trailingNodes.push_back(node);
            m_trailingSeconds.push_back(m_gapOpen[node]);
        }
    }
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
           m_readNodes.capacity() * sizeof(NodeId) + m_readSeconds.capacity() * sizeof(double) +
           m_starts.bytes() + m_gapSegment.bytes() + m_mixed.capacity() * sizeof(m_mixed[0]) +
           m_gapsAside.capacity() * sizeof(m_gapsAside[0]) +
           m_asideNodes.capacity() * sizeof(NodeId) + m_asideSeconds.capacity() * sizeof(double) +
           m_blockOffsets.capacity() * sizeof(uint64_t) +
           m_trailingStarts.capacity() * sizeof(uint32_t) +
           m_trailingNodes.capacity() * sizeof(NodeId) +
           m_trailingSeconds.capacity() * sizeof(double);
}

} // namespace waitscope::analysis
