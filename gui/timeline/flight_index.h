// Messages found by time window without scanning everything sent within the longest flight:
// the messages in classes of flight length, each class in send-time order.
#pragma once

#include "timeline_data.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace waitscope::timeline {

/// An index over messages in send-time order that finds those with an end in a time window or
/// crossing it. The messages are split by the length of their flight (|receive - send|) into
/// classes whose bounds double (those under 2^e seconds and at least 2^(e-1) in one class); a
/// window is looked up per class by binary search on the send time, within that class's bound
/// of the window. A read then costs the messages of the window, those sent within about their
/// own flight of it, and a binary search per class: one long message no longer widens the
/// search for all the others.
class FlightIndex {
public:
    FlightIndex() = default;
    /// Indexes `messages` (by send time; the index keeps positions, not the messages).
    explicit FlightIndex(const std::vector<Message>& messages);

    /// Appends to `out` the positions of the messages of `messages` (those indexed) with an
    /// end in [from, to] or crossing it, ascending (send-time order). Returns how many
    /// messages were looked at.
    uint64_t find(const std::vector<Message>& messages, double from, double to,
                  std::vector<size_t>& out) const;

    /// Whether message `m` has an end in [from, to] or crosses it.
    static bool inWindow(const Message& m, double from, double to) {
        return std::min(m.sendTime, m.receiveTime) <= to &&
               std::max(m.sendTime, m.receiveTime) >= from;
    }

private:
    struct Class {
        double bound = 0.0;          ///< every flight of the class is at most this long
        std::vector<size_t> members; ///< positions, in send-time order
    };
    std::vector<Class> m_classes; ///< by bound
};

} // namespace waitscope::timeline
