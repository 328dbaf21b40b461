// Storage of one location's events.
#include "waitscope/trace/event_stream.h"

namespace waitscope::trace {

void EventStream::appendMessage(EventKind kind, uint64_t time, const MessageRecord& message) {
    if ((m_messageCount & (kChunkSize - 1)) == 0) {
        m_messages.emplace_back();
        m_messages.back().reserve(kChunkSize);
    }
    append(kind, time, m_messageCount++);
    m_messages.back().push_back(message);
}

void EventStream::appendCollective(uint64_t time, const CollectiveRecord& collective) {
    append(EventKind::MpiCollectiveEnd, time, static_cast<uint32_t>(m_collectives.size()));
    m_collectives.push_back(collective);
}

size_t EventStream::memoryBytes() const {
    return m_kinds.capacity() * sizeof(EventKind) + m_times.capacity() * sizeof(uint64_t) +
           m_refs.capacity() * sizeof(uint32_t) +
           m_messages.size() * kChunkSize * sizeof(MessageRecord) +
           m_collectives.capacity() * sizeof(CollectiveRecord);
}

void EventStream::shrink() {
    // The event arrays were reserved with little slack; copying them now would double the
    // peak memory, so only the small tables are trimmed.
    if (!m_messages.empty()) {
        m_messages.back().shrink_to_fit();
    }
    m_collectives.shrink_to_fit();
}

} // namespace waitscope::trace
