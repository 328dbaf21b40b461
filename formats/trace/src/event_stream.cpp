// Storage of one location's events.
#include "waitscope/trace/event_stream.h"

#include <algorithm>

namespace waitscope::trace {
namespace {

bool isBlocking(EventKind kind) {
    return kind == EventKind::MpiSend || kind == EventKind::MpiRecv;
}

bool isNonblocking(EventKind kind) {
    return kind == EventKind::MpiIsend || kind == EventKind::MpiIrecv;
}

template <typename Table> auto findIndex(Table& table, uint64_t index) {
    return std::lower_bound(table.begin(), table.end(), index,
                            [](const auto& entry, uint64_t i) { return entry.first < i; });
}

} // namespace

uint64_t EventStream::farTime(size_t i) const {
    if (!m_movedFarTimes.empty()) {
        const auto moved = m_movedFarTimes.find(i);
        if (moved != m_movedFarTimes.end()) {
            return moved->second;
        }
    }
    const auto found = findIndex(m_farTimes, i);
    return found != m_farTimes.end() && found->first == i ? found->second : 0;
}

void EventStream::setTime(size_t i, uint64_t time) {
    // A time read as far may stay listed in m_farTimes after it moved near: its offset no
    // longer sends a lookup there, and a later far time of the event goes to m_movedFarTimes,
    // which is looked up first. So no call costs more than a map update, whatever the order.
    const uint64_t base = m_timeBases[i >> kTimeBlockBits];
    if (time >= base && time - base < kFarTime) {
        m_timeOffsets[i] = static_cast<uint32_t>(time - base);
        m_movedFarTimes.erase(i);
        return;
    }
    m_timeOffsets[i] = kFarTime;
    m_movedFarTimes[i] = time;
}

uint32_t EventStream::storedLength(uint64_t length, bool nonblocking) {
    if (length < kLongLength) {
        return static_cast<uint32_t>(length);
    }
    const uint32_t index = nonblocking ? m_nonblocking.size() : m_blocking.size();
    m_longLengths[nonblocking].emplace_back(index, length);
    return kLongLength;
}

uint64_t EventStream::lengthOf(const BlockingMessage& m, bool nonblocking, uint32_t index) const {
    if (m.length != kLongLength) {
        return m.length;
    }
    const auto& table = m_longLengths[nonblocking];
    const auto found = findIndex(table, index);
    return found != table.end() && found->first == index ? found->second : 0;
}

void EventStream::appendMessage(EventKind kind, uint64_t time, const MessageRecord& message) {
    if (isBlocking(kind)) {
        const BlockingMessage m{message.partner, message.comm, message.tag,
                                storedLength(message.length, false)};
        append(kind, time, m_blocking.push(m));
    } else if (isNonblocking(kind)) {
        const BlockingMessage m{message.partner, message.comm, message.tag,
                                storedLength(message.length, true)};
        append(kind, time, m_nonblocking.push(NonblockingMessage{m, message.request}));
    } else {
        append(kind, time, m_requests.push(message.request));
    }
}

MessageRecord EventStream::message(size_t i) const {
    const EventKind kind = m_kinds[i];
    const uint32_t index = m_refs[i];
    if (isBlocking(kind)) {
        const BlockingMessage& m = m_blocking[index];
        return MessageRecord{lengthOf(m, false, index), 0, m.partner, m.comm, m.tag};
    }
    if (isNonblocking(kind)) {
        const NonblockingMessage& n = m_nonblocking[index];
        const BlockingMessage& m = n.message;
        return MessageRecord{lengthOf(m, true, index), n.request, m.partner, m.comm, m.tag};
    }
    return MessageRecord{0, m_requests[index], 0, 0, 0};
}

void EventStream::appendCollective(uint64_t time, const CollectiveRecord& collective) {
    append(EventKind::MpiCollectiveEnd, time, static_cast<uint32_t>(m_collectives.size()));
    m_collectives.push_back(collective);
}

size_t EventStream::memoryBytes() const {
    return m_kinds.capacity() * sizeof(EventKind) + m_timeOffsets.capacity() * sizeof(uint32_t) +
           m_timeBases.capacity() * sizeof(uint64_t) +
           m_farTimes.capacity() * sizeof(m_farTimes[0]) +
           m_movedFarTimes.size() * 48 /* a map node */ + m_refs.capacity() * sizeof(uint32_t) +
           m_blocking.bytes() + m_nonblocking.bytes() + m_requests.bytes() +
           (m_longLengths[0].capacity() + m_longLengths[1].capacity()) *
               sizeof(m_longLengths[0][0]) +
           m_collectives.capacity() * sizeof(CollectiveRecord) +
           m_rma.capacity() * sizeof(RmaRecord) + m_io.capacity() * sizeof(IoOperationRecord);
}

void EventStream::shrink() {
    // The event arrays were reserved with little slack; copying them now would double the
    // peak memory, so only the small tables are trimmed.
    m_blocking.shrink();
    m_nonblocking.shrink();
    m_requests.shrink();
    m_farTimes.shrink_to_fit();
    m_collectives.shrink_to_fit();
    m_rma.shrink_to_fit();
    m_io.shrink_to_fit();
}

void EventStream::clear() {
    m_kinds.clear();
    m_timeOffsets.clear();
    m_timeBases.clear();
    m_farTimes.clear();
    m_movedFarTimes.clear();
    m_refs.clear();
    m_blocking = {};
    m_nonblocking = {};
    m_requests = {};
    m_longLengths[0].clear();
    m_longLengths[1].clear();
    m_collectives.clear();
    m_rma.clear();
    m_io.clear();
    m_skipped = 0;
    m_nonMonotonic = 0;
}

} // namespace waitscope::trace
