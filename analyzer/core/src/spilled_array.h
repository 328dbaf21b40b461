// An array of fixed-size records that goes to a rank's scratch file in blocks as it grows, and is
// read back through a cache of two blocks (the root-cause passes' per-operation state).
#pragma once

#include "scratch_io.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

namespace waitscope::analysis {

/// An append-only array of `T`. In memory unless spillTo() names a scratch file: then every
/// full block of `blockEntries` records is written to the file as it fills, and only the block
/// being filled and the two blocks read last stay in memory. Block b lies at the offset noted
/// when it was written (8 bytes per block: the file is shared with other arrays), so record r
/// is record r mod B of block r / B. Reads are by index (operator[]); the passes read backward
/// or forward, and often alternate between two places (an interval's two ends), which the two
/// cached blocks serve without reading again. A failed read yields T{} and is remembered by the
/// file (ScratchFile::error()), which the caller checks after the pass.
template <typename T> class SpilledArray {
    static_assert(std::is_trivially_copyable_v<T>, "records are written as bytes");

public:
    SpilledArray() = default;
    /// Holds `records` in memory (not spilled).
    explicit SpilledArray(std::vector<T>&& records) : m_tail(std::move(records)) {}
    SpilledArray(SpilledArray&&) noexcept = default;
    SpilledArray& operator=(SpilledArray&&) noexcept = default;

    /// From now on, full blocks of `blockEntries` records (at least 1) go to `file`, which
    /// must outlive the array; the records held already are written at once as far as they
    /// fill blocks.
    void spillTo(ScratchFile* file, size_t blockEntries) {
        assert(m_file == nullptr && file != nullptr && blockEntries > 0);
        m_file = file;
        m_blockEntries = blockEntries;
        if (m_tail.size() >= m_blockEntries) {
            writeBlocks();
            m_tail.shrink_to_fit();
        }
    }
    bool spilled() const { return m_file != nullptr; }
    /// Makes room for `records` records: spilled, for a block and one more record.
    void reserve(size_t records) {
        m_tail.reserve(m_file != nullptr ? std::min(records, m_blockEntries + 1) : records);
    }
    void push(const T& record) {
        m_tail.push_back(record);
        if (m_file != nullptr && m_tail.size() >= m_blockEntries) {
            writeBlocks();
        }
    }
    size_t size() const { return m_spilled + m_tail.size(); }
    bool empty() const { return size() == 0; }
    T operator[](size_t i) const {
        assert(i < size());
        return i >= m_spilled ? m_tail[i - m_spilled]
                              : cachedBlock(i / m_blockEntries)[i % m_blockEntries];
    }
    /// Frees everything (the blocks on disk stay until the file is closed).
    void clear() { *this = SpilledArray(); }
    /// Bytes held in memory.
    size_t bytes() const {
        return m_tail.capacity() * sizeof(T) + m_offsets.capacity() * sizeof(uint64_t) +
               (m_cache[0].capacity() + m_cache[1].capacity()) * sizeof(T);
    }

private:
    // Writes the full blocks at the front of the tail; what is left moves to the front.
    void writeBlocks() {
        size_t written = 0;
        while (m_tail.size() - written >= m_blockEntries) {
            m_offsets.push_back(
                m_file->append(m_tail.data() + written, m_blockEntries * sizeof(T)));
            written += m_blockEntries;
        }
        m_spilled += written;
        m_tail.erase(m_tail.begin(), m_tail.begin() + static_cast<std::ptrdiff_t>(written));
    }
    // Block `block` (written), read into the cache slot used less recently unless cached (the
    // slot read last is looked at inline, the rest is not).
    const std::vector<T>& cachedBlock(size_t block) const {
        if (m_cachedBlock[m_recent] == block) {
            return m_cache[m_recent];
        }
        return readBlock(block);
    }
    const std::vector<T>& readBlock(size_t block) const {
        for (size_t slot = 0; slot < 2; ++slot) {
            if (m_cachedBlock[slot] == block) {
                m_recent = slot;
                return m_cache[slot];
            }
        }
        const size_t slot = 1 - m_recent;
        std::vector<T>& records = m_cache[slot];
        records.resize(m_blockEntries);
        if (m_file->read(records.data(), m_blockEntries * sizeof(T), m_offsets[block])) {
            m_cachedBlock[slot] = block;
        } else {
            std::fill(records.begin(), records.end(), T{});
            m_cachedBlock[slot] = kNoBlock;
        }
        m_recent = slot;
        return records;
    }

    static constexpr size_t kNoBlock = SIZE_MAX;
    ScratchFile* m_file = nullptr;
    size_t m_blockEntries = 0;
    size_t m_spilled = 0;            ///< records written to the file: m_tail[0] is record m_spilled
    std::vector<T> m_tail;           ///< the records not written (all of them when not spilled)
    std::vector<uint64_t> m_offsets; ///< per written block, its offset in the file
    mutable std::array<std::vector<T>, 2> m_cache;
    mutable std::array<size_t, 2> m_cachedBlock{kNoBlock, kNoBlock};
    mutable size_t m_recent = 0; ///< the slot read last
};

} // namespace waitscope::analysis
