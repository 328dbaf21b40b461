// An open-addressing hash map from MPI handles (requests, communicators, messages) to values.
//
// Lookups and inserts on the hot path are a hash and a short linear probe; erasing shifts the
// following entries back, so no tombstones accumulate in long runs. Main thread only.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

namespace waitscope::measure {

/// The bits of a handle as a key; works for pointer handles (Open MPI) and integer ones (MPICH).
template <class Handle> inline std::uint64_t handleKey(Handle handle) noexcept {
    // A pointer handle's own bits are the key: sizeof of a pointer is meant (clang-tidy asks).
    static_assert(sizeof(Handle) <= sizeof(std::uint64_t)); // NOLINT(bugprone-sizeof-expression)
    std::uint64_t key = 0;
    std::memcpy(&key, &handle, sizeof(Handle)); // NOLINT(bugprone-sizeof-expression)
    return key;
}

template <class Value> class HandleMap {
public:
    /// The value stored for `key`, or nullptr.
    Value* find(std::uint64_t key) noexcept {
        if (m_slots.empty())
            return nullptr;
        for (std::size_t i = index(key);; i = (i + 1) & m_mask) {
            Slot& s = m_slots[i];
            if (!s.used)
                return nullptr;
            if (s.key == key)
                return &s.value;
        }
    }

    /// Inserts or overwrites the value for `key` and returns it.
    Value& insert(std::uint64_t key, const Value& value) {
        if ((m_count + 1) * 2 > m_slots.size())
            grow();
        for (std::size_t i = index(key);; i = (i + 1) & m_mask) {
            Slot& s = m_slots[i];
            if (!s.used) {
                s.used = true;
                s.key = key;
                s.value = value;
                ++m_count;
                return s.value;
            }
            if (s.key == key) {
                s.value = value;
                return s.value;
            }
        }
    }

    /// Removes `key` if present.
    void erase(std::uint64_t key) noexcept {
        if (m_slots.empty())
            return;
        std::size_t i = index(key);
        while (true) {
            if (!m_slots[i].used)
                return;
            if (m_slots[i].key == key)
                break;
            i = (i + 1) & m_mask;
        }
        // Backward-shift deletion: move later members of the probe run into the hole.
        std::size_t hole = i;
        for (std::size_t j = (i + 1) & m_mask; m_slots[j].used; j = (j + 1) & m_mask) {
            std::size_t home = index(m_slots[j].key);
            bool movable = hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
            if (movable) {
                m_slots[hole] = m_slots[j];
                hole = j;
            }
        }
        m_slots[hole].used = false;
        --m_count;
    }

    std::size_t size() const noexcept { return m_count; }

private:
    struct Slot {
        std::uint64_t key = 0;
        Value value{};
        bool used = false;
    };

    std::size_t index(std::uint64_t key) const noexcept {
        key ^= key >> 33;
        key *= 0xff51afd7ed558ccdull;
        key ^= key >> 33;
        return static_cast<std::size_t>(key) & m_mask;
    }

    void grow() {
        std::vector<Slot> old;
        old.swap(m_slots);
        m_slots.resize(old.empty() ? 64 : old.size() * 2);
        m_mask = m_slots.size() - 1;
        m_count = 0;
        for (const Slot& s : old)
            if (s.used)
                insert(s.key, s.value);
    }

    std::vector<Slot> m_slots;
    std::size_t m_mask = 0;
    std::size_t m_count = 0;
};

} // namespace waitscope::measure
