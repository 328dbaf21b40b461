// Classes of flight length: a message of flight f in [2^e, 2^(e+1)) is in the class of bound
// 2^(e+1), so a class's window lookup reaches at most twice its members' flights past the window.
#include "flight_index.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace waitscope::timeline {

FlightIndex::FlightIndex(const std::vector<Message>& messages) {
    std::map<int, size_t> classOf; // exponent -> position in m_classes (sorted at the end)
    // Flights of 0 (and NaN: never in a window) form a class of bound 0, infinite ones a class
    // of infinite bound (looked at for every window).
    constexpr int kZero = std::numeric_limits<int>::min();
    constexpr int kInfinite = std::numeric_limits<int>::max();
    for (size_t k = 0; k < messages.size(); ++k) {
        const double flight = std::abs(messages[k].receiveTime - messages[k].sendTime);
        const int exponent = std::isinf(flight) ? kInfinite
                             : flight > 0.0     ? std::ilogb(flight)
                                                : kZero;
        auto [at, added] = classOf.try_emplace(exponent, m_classes.size());
        if (added) {
            const double bound = exponent == kZero       ? 0.0
                                 : exponent == kInfinite ? std::numeric_limits<double>::infinity()
                                                         : std::ldexp(1.0, exponent + 1);
            m_classes.push_back({bound, {}});
        }
        m_classes[at->second].members.push_back(k);
    }
    std::sort(m_classes.begin(), m_classes.end(),
              [](const Class& a, const Class& b) { return a.bound < b.bound; });
}

uint64_t FlightIndex::find(const std::vector<Message>& messages, double from, double to,
                           std::vector<size_t>& out) const {
    const size_t before = out.size();
    uint64_t looked = 0;
    for (const Class& c : m_classes) {
        // A message of this class with an end in the window or crossing it was sent at most
        // the bound before `from` and at most the bound after `to`.
        auto it =
            std::lower_bound(c.members.begin(), c.members.end(), from - c.bound,
                             [&messages](size_t k, double t) { return messages[k].sendTime < t; });
        for (; it != c.members.end() && messages[*it].sendTime <= to + c.bound; ++it) {
            ++looked;
            if (inWindow(messages[*it], from, to)) {
                out.push_back(*it);
            }
        }
    }
    // Each class's in send order: merged by position (classes are few, a sort is cheap).
    std::sort(out.begin() + static_cast<std::ptrdiff_t>(before), out.end());
    return looked;
}

} // namespace waitscope::timeline
