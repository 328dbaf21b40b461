// One replayed collective as its members see it: every member's contribution (call times and
// what more a pass sends), and the reductions over them that the patterns read, computed once
// per collective instead of once per member.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace waitscope::analysis {

/// The contributions of all members of one collective operation, `width` values each (enter,
/// exit, ...) in communicator rank order, with the maximum enter, the minimum exit and the
/// member that entered last ready at construction. Immutable once built (the lazily computed
/// reductions are guarded), so that all members replayed in one process share one instance:
/// a collective then costs each member O(1), not O(members), and the process holds its
/// members' times once.
class GatheredCollective {
public:
    /// Takes `values` (`width` per member; a trailing partial member is ignored).
    GatheredCollective(std::vector<double> values, size_t width);
    GatheredCollective(const GatheredCollective&) = delete;
    GatheredCollective& operator=(const GatheredCollective&) = delete;

    size_t members() const { return m_members; }
    size_t width() const { return m_width; }
    /// All contributions, `width()` values per member.
    const std::vector<double>& values() const { return m_values; }
    double valueOf(size_t member, size_t k) const { return m_values[m_width * member + k]; }
    double enterOf(size_t member) const { return m_values[m_width * member]; }
    double exitOf(size_t member) const { return m_values[m_width * member + 1]; }

    /// The latest enter (-inf without members).
    double maxEnter() const { return m_maxEnter; }
    /// The earliest exit (+inf without members or with one value per member).
    double minExit() const { return m_minExit; }
    /// The member that entered last (the lowest among equals; members() when there is none).
    uint32_t latest() const { return m_latest; }
    /// How many members entered at maxEnter().
    size_t entersAtMax() const { return m_entersAtMax; }
    /// The latest enter of the members other than `member` (-inf when there is none).
    double maxEnterExcept(uint32_t member) const {
        return member == m_latest ? m_secondEnter : m_maxEnter;
    }
    /// The latest enter of the members below `member` (-inf for member 0): for scans.
    double maxEnterBelow(uint32_t member) const;

    /// The members other than `root` that entered before it (a 1-to-N operation's waiters).
    struct BeforeRoot {
        size_t count = 0;          ///< how many
        double earliestExit = 0.0; ///< their earliest exit (+inf when none)
    };
    /// BeforeRoot for `root` (< members()); computed once for the first root asked (all
    /// members of a consistent trace ask for the same one), directly for any other.
    BeforeRoot beforeRoot(uint32_t root) const;

private:
    BeforeRoot computeBeforeRoot(uint32_t root) const;

    std::vector<double> m_values;
    size_t m_width;
    size_t m_members;
    double m_maxEnter;
    double m_secondEnter; ///< the latest enter of all members but m_latest
    double m_minExit;
    uint32_t m_latest;
    size_t m_entersAtMax = 0;

    mutable std::once_flag m_prefixOnce;
    mutable std::vector<double> m_prefixMax; ///< per member: the latest enter below it
    mutable std::once_flag m_rootOnce;
    mutable uint32_t m_root = 0;
    mutable BeforeRoot m_beforeRoot;
};

} // namespace waitscope::analysis
