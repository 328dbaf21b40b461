// The events of one location in a compact structure-of-arrays form.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace waitscope::trace {

/// The event records the analysis uses; everything else is only counted.
enum class EventKind : uint8_t {
    Enter,
    Leave,
    MpiSend,
    MpiIsend,
    MpiIsendComplete,
    MpiIrecvRequest,
    MpiRecv,
    MpiIrecv,
    MpiRequestTest,
    MpiRequestCancelled,
    MpiCollectiveBegin,
    MpiCollectiveEnd,
    ProgramBegin,
    ProgramEnd,
    CallingContextEnter,
    CallingContextLeave,
    CallingContextSample,
    BufferFlush,
};

/// Payload of a point-to-point event; `partner` is the rank within `comm`.
/// Request-only events (IsendComplete, IrecvRequest, Test, Cancelled) use only `request`.
struct MessageRecord {
    uint64_t length = 0;
    uint64_t request = 0;
    uint32_t partner = 0;
    uint32_t comm = 0;
    uint32_t tag = 0;
};

/// The operation recorded at the end of a collective (OTF2_CollectiveOp values).
enum class CollectiveOp : uint8_t {
    Barrier,
    Bcast,
    Gather,
    Gatherv,
    Scatter,
    Scatterv,
    Allgather,
    Allgatherv,
    Alltoall,
    Alltoallv,
    Alltoallw,
    Allreduce,
    Reduce,
    ReduceScatter,
    Scan,
    Exscan,
    ReduceScatterBlock,
    CreateHandle,
    DestroyHandle,
    Allocate,
    Deallocate,
    CreateHandleAndAllocate,
    DestroyHandleAndDeallocate,
    Other,
};

/// Payload of a collective end event; `root` is a communicator rank or kUndefined.
struct CollectiveRecord {
    uint64_t sent = 0;
    uint64_t received = 0;
    uint32_t comm = 0;
    uint32_t root = 0;
    CollectiveOp op = CollectiveOp::Other;
};

/// Events of one location in timestamp order. Enter/Leave cost 13 bytes each; messages and
/// collectives keep their payload in side tables that `ref` indexes.
class EventStream {
public:
    /// Appends an event; `ref` is a region, calling context or side-table index.
    void append(EventKind kind, uint64_t time, uint32_t ref) {
        m_kinds.push_back(kind);
        m_times.push_back(time);
        m_refs.push_back(ref);
    }
    /// Appends a point-to-point event and its payload.
    void appendMessage(EventKind kind, uint64_t time, const MessageRecord& message);
    /// Appends a collective end event and its payload.
    void appendCollective(uint64_t time, const CollectiveRecord& collective);

    size_t size() const { return m_kinds.size(); }
    EventKind kind(size_t i) const { return m_kinds[i]; }
    uint64_t time(size_t i) const { return m_times[i]; }
    /// Replaces the timestamp of event `i` in place (timestamp correction); the caller keeps
    /// the events in order.
    void setTime(size_t i, uint64_t time) { m_times[i] = time; }
    uint32_t ref(size_t i) const { return m_refs[i]; }
    const MessageRecord& message(size_t i) const {
        const uint32_t m = m_refs[i];
        return m_messages[m >> kChunkBits][m & (kChunkSize - 1)];
    }
    const CollectiveRecord& collective(size_t i) const { return m_collectives[m_refs[i]]; }

    /// Events read from the archive that are not stored (communicator creation, metrics, ...).
    uint64_t skippedEvents() const { return m_skipped; }
    void setSkippedEvents(uint64_t count) { m_skipped = count; }
    /// Events whose timestamp went backwards on this location.
    uint64_t nonMonotonicEvents() const { return m_nonMonotonic; }
    void countNonMonotonic() { ++m_nonMonotonic; }

    /// Bytes held by this stream.
    size_t memoryBytes() const;
    /// Reserves room for `events` events (the count the archive announces).
    void reserve(size_t events) {
        // A little slack: libotf2 may add buffer-flush records beyond the announced count,
        // and one element too many would double the largest arrays.
        const size_t room = events + events / 1024 + 64;
        m_kinds.reserve(room);
        m_times.reserve(room);
        m_refs.reserve(room);
    }
    /// Frees the timestamps (time() must not be called afterwards): for consumers that have
    /// taken what they need from them and want the memory back.
    void releaseTimes() { std::vector<uint64_t>().swap(m_times); }
    /// Releases spare capacity of the small tables after reading.
    void shrink();

private:
    std::vector<EventKind> m_kinds;
    std::vector<uint64_t> m_times;
    std::vector<uint32_t> m_refs;
    // Messages in fixed-size chunks: growing never copies them, so reading peaks at the size
    // of the data rather than twice that.
    static constexpr uint32_t kChunkBits = 16;
    static constexpr uint32_t kChunkSize = 1u << kChunkBits;
    std::vector<std::vector<MessageRecord>> m_messages;
    uint32_t m_messageCount = 0;
    std::vector<CollectiveRecord> m_collectives;
    uint64_t m_skipped = 0;
    uint64_t m_nonMonotonic = 0;
};

} // namespace waitscope::trace
