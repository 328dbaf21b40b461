// Raw samples taken in signal context, kept in preallocated memory until the main thread
// turns them into calling contexts and records them.
#pragma once

#include <cstddef>
#include <cstdint>

namespace waitscope::measure {

/// The most frames kept of one unwound stack (deeper stacks keep their innermost frames).
inline constexpr int kMaxFrames = 128;

/// Single producer (the sampling signal handler), single consumer (the same thread outside the
/// handler, with the handler held off by a flag). A sample is [time, depth, frame...]; frames
/// are program counters, innermost first. Writing neither allocates nor locks.
class SampleRing {
public:
    /// Depth of a sample whose stack was not unwound: recorded as "failed unwind".
    static constexpr std::uint64_t kNotUnwound = ~0ull;

    /// Gives the ring its memory (`words` 64-bit words). Not for signal context.
    void reset(std::uint64_t* memory, std::size_t words) noexcept {
        m_words = memory;
        m_capacity = words;
        m_head = 0;
    }

    /// Signal context: starts a sample at `time`. Returns the slots for up to kMaxFrames
    /// frames, or nullptr when they do not fit. `kept` is false when not even the sample's
    /// two words fit (the sample is lost); otherwise finish it with commit() (kNotUnwound
    /// when there were no slots).
    std::uintptr_t* begin(std::uint64_t time, bool& kept) noexcept {
        kept = m_capacity - m_head >= 2;
        if (!kept)
            return nullptr;
        m_words[m_head] = time;
        if (m_capacity - m_head < 2 + static_cast<std::size_t>(kMaxFrames))
            return nullptr;
        static_assert(sizeof(std::uintptr_t) == sizeof(std::uint64_t));
        return reinterpret_cast<std::uintptr_t*>(m_words + m_head + 2);
    }
    /// Signal context: ends the sample begun last with `depth` frames (kNotUnwound: failed).
    void commit(std::uint64_t depth) noexcept {
        m_words[m_head + 1] = depth;
        m_head = m_head + 2 + (depth == kNotUnwound ? 0 : depth);
    }

    bool empty() const noexcept { return m_head == 0; }

    /// Outside signal context, with the producer held off: calls `f(time, frames, depth)` for
    /// every sample in order (`depth` kNotUnwound for one not unwound), then empties the ring.
    template <class F> void drain(F&& f) {
        for (std::size_t at = 0; at + 2 <= m_head;) {
            std::uint64_t depth = m_words[at + 1];
            const auto* frames = reinterpret_cast<const std::uintptr_t*>(m_words + at + 2);
            f(m_words[at], frames, depth);
            at += 2 + (depth == kNotUnwound ? 0 : depth);
        }
        m_head = 0;
    }

private:
    std::uint64_t* m_words = nullptr;
    std::size_t m_capacity = 0;
    volatile std::size_t m_head = 0;
};

} // namespace waitscope::measure
