// Raw samples taken in signal context, kept in preallocated memory until the main thread
// turns them into calling contexts and records them.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace waitscope::measure {

/// The most frames kept of one unwound stack (deeper stacks keep their innermost frames).
inline constexpr int kMaxFrames = 128;

/// A lock-free single-producer, single-consumer ring of samples. The producer is one thread's
/// sampling signal handler; the consumer is the main thread outside signal context (the same
/// thread for the main thread's ring, which the handler may then interrupt while it drains).
/// A sample is [time, depth, frame...]; frames are program counters, innermost first. The
/// indices count words written and read since reset(); the producer publishes a sample with a
/// release store of the head, the consumer frees its words with a release store of the tail.
/// A sample never wraps around the end of the memory: a pad word sends the rest of the memory
/// back to the consumer unread. Writing neither allocates nor locks.
class SampleRing {
public:
    /// Depth of a sample whose stack was not unwound: recorded as "failed unwind".
    static constexpr std::uint64_t kNotUnwound = ~0ull;

    /// Gives the ring its memory (`words` 64-bit words). Not for signal context, and not while
    /// the producer may run.
    void reset(std::uint64_t* memory, std::size_t words) noexcept {
        m_words = memory;
        m_capacity = words;
        m_head.store(0, std::memory_order_relaxed);
        m_tail.store(0, std::memory_order_relaxed);
        m_pending = 0;
    }

    /// Producer (signal context): starts a sample at `time`. Returns the slots for up to
    /// kMaxFrames frames, or nullptr when they do not fit. `kept` is false when not even the
    /// sample's two words fit (the sample is lost); otherwise finish it with commit()
    /// (kNotUnwound when there were no slots).
    std::uintptr_t* begin(std::uint64_t time, bool& kept) noexcept {
        std::uint64_t head = m_head.load(std::memory_order_relaxed);
        const std::uint64_t tail = m_tail.load(std::memory_order_acquire);
        std::size_t free = m_capacity - static_cast<std::size_t>(head - tail);
        std::size_t at = static_cast<std::size_t>(head % m_capacity);
        std::size_t contiguous = m_capacity - at;
        if (contiguous < kFullSample && free >= contiguous + kFullSample) {
            m_words[at] = kPad; // the rest of the memory is skipped; the sample starts at 0
            head += contiguous;
            free -= contiguous;
            at = 0;
            contiguous = m_capacity;
        }
        const std::size_t room = std::min(free, contiguous);
        kept = room >= 2;
        if (!kept)
            return nullptr;
        m_pending = head;
        m_words[at] = time;
        if (room < kFullSample)
            return nullptr;
        static_assert(sizeof(std::uintptr_t) == sizeof(std::uint64_t));
        return reinterpret_cast<std::uintptr_t*>(m_words + at + 2);
    }
    /// Producer (signal context): ends the sample begun last with `depth` frames (kNotUnwound:
    /// failed) and publishes it to the consumer.
    void commit(std::uint64_t depth) noexcept {
        m_words[m_pending % m_capacity + 1] = depth;
        m_head.store(m_pending + 2 + (depth == kNotUnwound ? 0 : depth), std::memory_order_release);
    }

    /// Consumer: true when no sample is waiting.
    bool empty() const noexcept {
        return m_head.load(std::memory_order_acquire) == m_tail.load(std::memory_order_relaxed);
    }

    /// Consumer, outside signal context: calls `f(time, frames, depth)` for every sample
    /// published so far, in order (`depth` kNotUnwound for one not unwound), freeing each
    /// after `f` returned. The producer may go on writing meanwhile.
    template <class F> void drain(F&& f) {
        std::uint64_t tail = m_tail.load(std::memory_order_relaxed);
        const std::uint64_t head = m_head.load(std::memory_order_acquire);
        while (tail != head) {
            std::size_t at = static_cast<std::size_t>(tail % m_capacity);
            if (m_words[at] == kPad) {
                tail += m_capacity - at;
            } else {
                std::uint64_t depth = m_words[at + 1];
                const auto* frames = reinterpret_cast<const std::uintptr_t*>(m_words + at + 2);
                f(m_words[at], frames, depth);
                tail += 2 + (depth == kNotUnwound ? 0 : depth);
            }
            m_tail.store(tail, std::memory_order_release);
        }
    }

private:
    static constexpr std::size_t kFullSample = 2 + static_cast<std::size_t>(kMaxFrames);
    /// In a sample's time word: the memory's end is skipped (no clock reads all ones).
    static constexpr std::uint64_t kPad = ~0ull;

    std::uint64_t* m_words = nullptr;
    std::size_t m_capacity = 0;
    std::atomic<std::uint64_t> m_head{0}; ///< written by the producer
    std::atomic<std::uint64_t> m_tail{0}; ///< written by the consumer
    std::uint64_t m_pending = 0;          ///< producer only: where the open sample starts
};

} // namespace waitscope::measure
