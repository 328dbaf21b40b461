// Storage of one location's events.
#include "waitscope/trace/event_stream.h"

namespace waitscope::trace {

void EventStream::appendMessage(EventKind kind, uint64_t time, const MessageRecord& message) {
    append(kind, time, static_cast<uint32_t>(m_messages.size()));
    m_messages.push_back(message);
}

void EventStream::appendCollective(uint64_t time, const CollectiveRecord& collective) {
    append(EventKind::MpiCollectiveEnd, time, static_cast<uint32_t>(m_collectives.size()));
    m_collectives.push_back(collective);
}

size_t EventStream::memoryBytes() const {
    return m_kinds.capacity() * sizeof(EventKind) + m_times.capacity() * sizeof(uint64_t) +
           m_refs.capacity() * sizeof(uint32_t) + m_messages.capacity() * sizeof(MessageRecord) +
           m_collectives.capacity() * sizeof(CollectiveRecord);
}

void EventStream::shrink() {
    m_kinds.shrink_to_fit();
    m_times.shrink_to_fit();
    m_refs.shrink_to_fit();
    m_messages.shrink_to_fit();
    m_collectives.shrink_to_fit();
}

} // namespace waitscope::trace
