// The address range of the measurement's own code, so unwound stacks can drop its frames.
#pragma once

#include <cstdint>

namespace waitscope::measure {

/// The executable segments of the module that holds the measurement (libwaitscope.so, or the
/// program the measurement objects are linked into).
class OwnCode {
public:
    /// Finds the range from the address of one of the measurement's functions. Not for signal
    /// context. Without a range found, contains() is always false.
    void find() noexcept;
    bool contains(std::uintptr_t address) const noexcept {
        return address >= m_begin && address < m_end;
    }

private:
    std::uintptr_t m_begin = 0;
    std::uintptr_t m_end = 0;
};

} // namespace waitscope::measure
