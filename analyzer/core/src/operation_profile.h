// Exclusive time per call path between consecutive communication operations of one rank, with
// the gaps between communicating MPI calls marked in it.
#pragma once

#include "spilled_array.h"
#include "waitscope/analysis/call_tree.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace waitscope::analysis {

/// The time profile of every stretch between two communication operations, recorded during
/// the profile pass so that both root-cause passes can sum profiles after the event timestamps
/// are gone. One recording serves both:
///
///   - Segment k holds the exclusive time charged (at Enter and Leave events) after operation
///     k-1 and up to operation k; an MPI call's own duration is charged at its Leave, so it
///     lands in the segment of the next operation. The delay pass sums segments (sum()).
///   - Gap g is the time outside communicating MPI calls ("spans") before span g; the last gap
///     follows the last span. A span opens at its first operation, so a gap ends where a
///     segment does, and normally lies inside that one segment: after the close of the
///     previous span. The critical path reads gaps (forEachInGap()).
///
/// Segment entries carry a mark when their node was charged in the gap part of the segment.
/// Two rare cases keep their gap values aside, so that both views add up exactly as separate
/// recordings would: a node charged both inside and outside a span within one segment (its
/// entry holds the sum of both), and a gap that spans several segments (nested spans).
/// Memory: 12 bytes (node and seconds, in two arrays) per call path touched between two
/// operations, 4 per operation, 4 per span. Spilled (spillTo(), for a rank read in windows), the
/// entries, the segment starts and the gaps' segments go to the rank's scratch file in blocks of
/// a fixed number of records as they are recorded, and only the blocks being filled and the
/// ones last read stay in memory: entry block b lies at the offset noted when it was written
/// (its nodes, then its seconds), so entry e is entry e mod B of block e / B; the starts and
/// the gaps' segments are SpilledArrays. The readers walk backward (the critical path over
/// gaps, the delay pass over intervals that end ever earlier), so each block is read about once
/// per walk.
class OperationProfile {
public:
    OperationProfile() { m_starts.push(0); }
    OperationProfile(const OperationProfile&) = delete;
    OperationProfile& operator=(const OperationProfile&) = delete;

    /// Records the entries, segment starts and gaps' segments into `file` (which outlives the
    /// profile), `blockEntries` at a time (0: the default). Call before recording. A write or
    /// read that fails is remembered by the file (ScratchFile::error()).
    void spillTo(ScratchFile* file, size_t blockEntries = 0);
    static constexpr size_t kDefaultBlockEntries = size_t{1} << 15;
    /// The records per block when spilled (0 when not).
    size_t blockEntries() const { return m_blockEntries; }
    /// Makes room for the recording of `charges` charges (at most one entry each) and
    /// `operations` operations: the arrays then never move while they grow, and only the
    /// part used takes up memory.
    void reserve(size_t charges, size_t operations);
    /// Charges `seconds` of exclusive time to `node` in the open segment (and in the open gap
    /// when no span is open).
    void charge(NodeId node, double seconds) {
        if (node >= m_open.size()) {
            grow(node);
        }
        uint8_t& mask = m_mask[node];
        if (mask == 0) {
            m_touched.push_back(node);
        }
        m_open[node] += seconds;
        if (m_inSpan) {
            mask |= kInSpan;
            return;
        }
        mask |= kInGap;
        if (m_gapStamp[node] != m_gapCount) {
            m_gapStamp[node] = m_gapCount;
            m_gapOpen[node] = seconds;
            m_gapTouched.push_back(node);
        } else {
            m_gapOpen[node] += seconds;
        }
    }
    /// A communicating MPI call was entered at the operation about to close its segment: the
    /// open gap ends.
    void openSpan();
    /// The communicating MPI call was left: what follows belongs to the next gap.
    void closeSpan() { m_inSpan = false; }
    /// Closes the open segment as the one of the next operation.
    void closeSegment();
    /// The next location's recording begins (a replay lane's, after the main location's): the
    /// time charged since the previous location's last operation is dropped, so that the first
    /// segment of the next one holds only its own time. (The gap open then goes on with the
    /// next location's time alone; the previous location's time after its last call is kept
    /// apart, forEachTrailing().)
    void beginLocation();
    /// Ends the recording: the open gap becomes the last, and the scratch space is freed.
    void finish();

    /// Number of segments (= operations seen).
    size_t segments() const { return m_segments; }
    /// Adds segments [first, last) to `dense` (indexed by node), listing new nodes in `touched`
    /// (possibly twice: the reader takes a value and zeroes it).
    void sum(size_t first, size_t last, std::vector<double>& dense,
             std::vector<NodeId>& touched) const {
        const size_t begin = m_starts[std::min(first, m_segments)];
        const size_t end = m_starts[std::min(last, m_segments)];
        forEntries(begin, end, [&](size_t, NodeId entry, double seconds) {
            const NodeId node = entry & kNodeMask;
            if (node >= dense.size()) {
                dense.resize(node + 1, 0.0);
            }
            if (dense[node] == 0.0) {
                touched.push_back(node);
            }
            dense[node] += seconds;
        });
    }

    /// Number of gaps (spans + 1), once finished.
    size_t gaps() const { return m_gapSegment.size(); }
    /// Calls `f(node, seconds)` for every call path charged in gap `g`.
    template <typename F> void forEachInGap(size_t g, F&& f) const {
        const auto aside = std::lower_bound(m_gapsAside.begin(), m_gapsAside.end(),
                                            std::make_pair(static_cast<uint32_t>(g), uint32_t{0}));
        if (aside != m_gapsAside.end() && aside->first == g) {
            const size_t last =
                aside + 1 != m_gapsAside.end() ? (aside + 1)->second : m_asideNodes.size();
            for (size_t i = aside->second; i < last; ++i) {
                f(m_asideNodes[i], m_asideSeconds[i]);
            }
            return;
        }
        const uint32_t segment = m_gapSegment[g];
        const size_t begin = m_starts[segment];
        const size_t end = m_starts[segment + 1];
        forEntries(begin, end, [&](size_t e, NodeId entry, double seconds) {
            if ((entry & kGapEntry) != 0) {
                f(entry & kNodeMask, (entry & kMixedEntry) == 0 ? seconds : mixedGapSeconds(e));
            }
        });
    }
    /// Calls `f(node, seconds)` for every call path charged on the `location`-th location
    /// recorded (0: the main one, then one per beginLocation()) after its last communicating
    /// call; the last location's is the last gap.
    template <typename F> void forEachTrailing(size_t location, F&& f) const {
        if (location >= m_trailingStarts.size()) {
            if (location == m_trailingStarts.size() && gaps() > 0) {
                forEachInGap(gaps() - 1, f);
            }
            return;
        }
        const size_t end = location + 1 < m_trailingStarts.size() ? m_trailingStarts[location + 1]
                                                                  : m_trailingNodes.size();
        for (size_t i = m_trailingStarts[location]; i < end; ++i) {
            f(m_trailingNodes[i], m_trailingSeconds[i]);
        }
    }
    /// Bytes held by the recording.
    size_t bytes() const;

private:
    static constexpr uint8_t kInSpan = 1; ///< charged inside a span in the open segment
    static constexpr uint8_t kInGap = 2;  ///< charged outside spans in the open segment
    // The top bits of a segment entry's node: charged in the gap part of the segment, and
    // charged in both parts (its gap value kept aside).
    static constexpr NodeId kGapEntry = 0x80000000u;
    static constexpr NodeId kMixedEntry = 0x40000000u;
    static constexpr NodeId kNodeMask = 0x3FFFFFFFu;

    /// Calls `f(e, node entry, seconds)` for entries [begin, end), reading spilled blocks.
    template <typename F> void forEntries(size_t begin, size_t end, F&& f) const {
        size_t e = begin;
        while (e < end && e < m_spilled) {
            if (!readBlock(e / m_blockEntries)) {
                return;
            }
            const size_t base = m_readBlock * m_blockEntries;
            const size_t stop = std::min(end, base + m_blockEntries);
            for (; e < stop; ++e) {
                f(e, m_readNodes[e - base], m_readSeconds[e - base]);
            }
        }
        for (; e < end; ++e) {
            f(e, m_nodes[e - m_spilled], m_seconds[e - m_spilled]);
        }
    }
    /// Makes spilled block `block` the one read (false after a failed read).
    bool readBlock(size_t block) const;
    /// Writes the full blocks of the entries in memory to the scratch file.
    void writeBlocks();

    void grow(NodeId node);
    void flushSegment();
    void endGap();
    double mixedGapSeconds(size_t entry) const;

    // Spilled: the scratch file, the entries in it (m_nodes[0] is entry m_spilled) and the
    // offset of each of their blocks, and the block last read from it.
    ScratchFile* m_file = nullptr;
    std::vector<uint64_t> m_blockOffsets;
    size_t m_blockEntries = 0;
    size_t m_spilled = 0;
    mutable size_t m_readBlock = SIZE_MAX;
    mutable std::vector<NodeId> m_readNodes;
    mutable std::vector<double> m_readSeconds;
    // Segments: two arrays rather than one of pairs (a pair pads to 16 bytes); m_starts has
    // one more element than there are segments (plus the trailing one after the last
    // operation, which only holds the last gap).
    std::vector<NodeId> m_nodes;
    std::vector<double> m_seconds;
    SpilledArray<uint32_t> m_starts;
    size_t m_segments = 0;
    // Gaps: the segment each one lies in, and the exceptions.
    SpilledArray<uint32_t> m_gapSegment;
    std::vector<std::pair<uint32_t, double>> m_mixed;       ///< entry, its gap part (ascending)
    std::vector<std::pair<uint32_t, uint32_t>> m_gapsAside; ///< gap, first of its entries
    std::vector<NodeId> m_asideNodes;
    std::vector<double> m_asideSeconds;
    // Each location's time after its last call but the last location's (beginLocation()): the
    // first of its entries, and the entries.
    std::vector<uint32_t> m_trailingStarts;
    std::vector<NodeId> m_trailingNodes;
    std::vector<double> m_trailingSeconds;
    // Recording scratch, per node.
    std::vector<double> m_open;
    std::vector<uint8_t> m_mask;
    std::vector<NodeId> m_touched;
    std::vector<double> m_gapOpen;
    std::vector<uint32_t> m_gapStamp; ///< the gap m_gapOpen belongs to, plus one
    std::vector<NodeId> m_gapTouched;
    uint32_t m_gapCount = 1; ///< the open gap, plus one
    bool m_inSpan = false;
    bool m_gapCrossed = false; ///< the open gap reaches over a segment boundary
};

} // namespace waitscope::analysis
