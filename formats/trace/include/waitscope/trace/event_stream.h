// The events of one location in a compact structure-of-arrays form.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>
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
    // One-sided communication (OTF2's RMA records as Score-P writes them for MPI windows); the
    // payload is an RmaRecord.
    RmaWinCreate,
    RmaWinDestroy,
    RmaCollectiveBegin,
    RmaCollectiveEnd,
    RmaGroupSync,
    RmaRequestLock,
    RmaAcquireLock,
    RmaTryLock,
    RmaReleaseLock,
    RmaSync,
    RmaWaitChange,
    RmaPut,
    RmaGet,
    RmaAtomic,
    RmaOpCompleteBlocking,
    RmaOpCompleteNonBlocking,
    RmaOpTest,
    RmaOpCompleteRemote,
    /// A file read or write that completed (IoOperationComplete): its bytes and mode are the
    /// stream's ioOperation() of the event.
    IoOperationComplete,
    // The order of POSIX threads (OTF2's thread create/wait model); `ref` is the created
    // thread's sequence number in the process's thread contingent, which pairs ThreadCreate on
    // the creator with ThreadBegin on the thread, and ThreadEnd with ThreadWait on its joiner.
    ThreadCreate,
    ThreadBegin,
    ThreadWait,
    ThreadEnd,
};

/// Whether `kind` is one of the thread order records.
inline bool isThreadOrderEvent(EventKind kind) {
    return kind >= EventKind::ThreadCreate && kind <= EventKind::ThreadEnd;
}

/// Whether `kind` is one of the one-sided (RMA) records, which carry an RmaRecord.
inline bool isRmaEvent(EventKind kind) {
    return kind >= EventKind::RmaWinCreate && kind <= EventKind::RmaOpCompleteRemote;
}

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
    /// Not an OTF2 operation: a collective file operation (open, close, a collective read or
    /// write, a sync) over its file's communicator, as the reader models it from the MPI-IO
    /// records (otf2_archive.cpp), so that the replay finds who waited for the last member.
    FileIo,
};

/// Payload of a completed file I/O operation: the bytes done, the handle (a global I/O handle)
/// and whether it read or wrote (OTF2's operation mode: 0 read, 1 write, 2 flush).
struct IoOperationRecord {
    uint64_t bytes = 0;
    uint32_t handle = 0;
    uint8_t mode = 0;
};

/// Payload of a collective end event; `root` is a communicator rank or kUndefined.
struct CollectiveRecord {
    uint64_t sent = 0;
    uint64_t received = 0;
    uint32_t comm = 0;
    uint32_t root = 0;
    CollectiveOp op = CollectiveOp::Other;
};

/// Payload of a one-sided (RMA) record. Which fields an event uses:
///   RmaCollectiveEnd   window, op (the collective), level, remote (root), sent, received
///   RmaGroupSync       window, level, remote (the group's definition)
///   Rma*Lock           window, remote (target rank in the window's communicator, or
///                      kUndefined for all targets), id (lock id), exclusive (not ReleaseLock)
///   RmaSync            window, remote, level (the OTF2_RmaSyncType)
///   RmaPut, RmaGet     window, remote, sent (put) or received (get), id (matching id)
///   RmaAtomic          window, remote, level (the OTF2_RmaAtomicType), sent, received, id
///   RmaOpComplete*, RmaOpTest  window, id (matching id)
///   RmaWinCreate, RmaWinDestroy, RmaWaitChange  window
struct RmaRecord {
    uint64_t sent = 0;
    uint64_t received = 0;
    uint64_t id = 0;
    uint32_t window = 0;
    uint32_t remote = 0;
    uint32_t level = 0;
    CollectiveOp op = CollectiveOp::Other;
    bool exclusive = false;
};

/// Events of one location in timestamp order, stored compactly: an event costs 9 bytes (kind,
/// a 32-bit time offset from its block's first time, a reference), a blocking message 16 more,
/// a nonblocking one 24, a request-only event 8. Timestamps that do not fit their block's
/// offset range, and message lengths of 4 GiB or more, go to small sorted side tables.
class EventStream { // NOLINT(bugprone-reserved-identifier): an implicit member (clang-tidy 14)
public:
    /// Appends an event; `ref` is a region, calling context or side-table index.
    void append(EventKind kind, uint64_t time, uint32_t ref) {
        m_kinds.push_back(kind);
        appendTime(time);
        m_refs.push_back(ref);
    }
    /// Appends a point-to-point or request event and its payload (request-only events keep
    /// only `request`).
    void appendMessage(EventKind kind, uint64_t time, const MessageRecord& message);
    /// Appends a collective end event and its payload.
    void appendCollective(uint64_t time, const CollectiveRecord& collective);
    /// Appends a one-sided (RMA) event and its payload.
    void appendRma(EventKind kind, uint64_t time, const RmaRecord& rma) {
        append(kind, time, static_cast<uint32_t>(m_rma.size()));
        m_rma.push_back(rma);
    }
    /// Appends a completed file I/O operation (EventKind::IoOperationComplete).
    void appendIoOperation(uint64_t time, const IoOperationRecord& operation) {
        append(EventKind::IoOperationComplete, time, static_cast<uint32_t>(m_io.size()));
        m_io.push_back(operation);
    }

    size_t size() const { return m_kinds.size(); }
    EventKind kind(size_t i) const { return m_kinds[i]; }
    uint64_t time(size_t i) const {
        const uint32_t offset = m_timeOffsets[i];
        return offset != kFarTime ? m_timeBases[i >> kTimeBlockBits] + offset : farTime(i);
    }
    /// Replaces the timestamp of event `i` in place (timestamp correction); the caller keeps
    /// the events in order.
    void setTime(size_t i, uint64_t time);
    uint32_t ref(size_t i) const { return m_refs[i]; }
    /// The payload of a point-to-point or request event (fields the event does not carry are 0).
    MessageRecord message(size_t i) const;
    const CollectiveRecord& collective(size_t i) const { return m_collectives[m_refs[i]]; }
    /// The payload of a one-sided event (isRmaEvent()).
    const RmaRecord& rma(size_t i) const { return m_rma[m_refs[i]]; }
    /// The payload of an IoOperationComplete event.
    const IoOperationRecord& ioOperation(size_t i) const { return m_io[m_refs[i]]; }

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
        m_timeOffsets.reserve(room);
        m_timeBases.reserve((room >> kTimeBlockBits) + 1);
        m_refs.reserve(room);
    }
    /// Frees the timestamps (time() must not be called afterwards): for consumers that have
    /// taken what they need from them and want the memory back.
    void releaseTimes() {
        std::vector<uint32_t>().swap(m_timeOffsets);
        std::vector<uint64_t>().swap(m_timeBases);
        std::vector<std::pair<uint64_t, uint64_t>>().swap(m_farTimes);
        m_movedFarTimes.clear();
    }
    /// Releases spare capacity of the small tables after reading.
    void shrink();
    /// Removes every event, keeping the event arrays' capacity: for reading the next window of
    /// a location into the same memory instead of fresh pages.
    void clear();

private:
    // Times: one 64-bit base per block of 2^kTimeBlockBits events (the block's first time)
    // and a 32-bit offset per event. kFarTime marks a time stored in m_farTimes instead:
    // earlier than its base, or more than 2^32 ticks after it (a sparse stretch of the trace).
    static constexpr uint32_t kTimeBlockBits = 10;
    static constexpr uint32_t kFarTime = 0xFFFFFFFFu;
    void appendTime(uint64_t time) {
        const size_t i = m_timeOffsets.size();
        if ((i & ((size_t{1} << kTimeBlockBits) - 1)) == 0) {
            m_timeBases.push_back(time);
        }
        const uint64_t base = m_timeBases.back();
        if (time >= base && time - base < kFarTime) {
            m_timeOffsets.push_back(static_cast<uint32_t>(time - base));
        } else {
            m_timeOffsets.push_back(kFarTime);
            m_farTimes.emplace_back(i, time);
        }
    }
    uint64_t farTime(size_t i) const;

    // A message's length as stored: kLongLength marks one kept in m_longLengths.
    static constexpr uint32_t kLongLength = 0xFFFFFFFFu;
    struct BlockingMessage {
        uint32_t partner;
        uint32_t comm;
        uint32_t tag;
        uint32_t length;
    };
    struct NonblockingMessage {
        BlockingMessage message;
        uint64_t request;
    };
    uint32_t storedLength(uint64_t length, bool nonblocking);
    uint64_t lengthOf(const BlockingMessage& m, bool nonblocking, uint32_t index) const;

    // Side tables grow in fixed-size chunks: growing never copies them, so reading peaks at
    // the size of the data rather than twice that.
    template <typename T> class ChunkedTable {
    public:
        uint32_t push(const T& value) {
            if ((m_count & (kChunkSize - 1)) == 0) {
                m_chunks.emplace_back();
                m_chunks.back().reserve(kChunkSize);
            }
            m_chunks.back().push_back(value);
            return m_count++;
        }
        const T& operator[](uint32_t i) const {
            return m_chunks[i >> kChunkBits][i & (kChunkSize - 1)];
        }
        uint32_t size() const { return m_count; }
        size_t bytes() const { return m_chunks.size() * kChunkSize * sizeof(T); }
        void shrink() {
            if (!m_chunks.empty()) {
                m_chunks.back().shrink_to_fit();
            }
        }

    private:
        static constexpr uint32_t kChunkBits = 16;
        static constexpr uint32_t kChunkSize = 1u << kChunkBits;
        std::vector<std::vector<T>> m_chunks;
        uint32_t m_count = 0;
    };

    std::vector<EventKind> m_kinds;
    std::vector<uint32_t> m_timeOffsets;
    std::vector<uint64_t> m_timeBases;
    std::vector<std::pair<uint64_t, uint64_t>> m_farTimes; ///< (event, time) as read, sorted
    std::map<uint64_t, uint64_t> m_movedFarTimes;          ///< far times set by setTime()
    std::vector<uint32_t> m_refs;
    ChunkedTable<BlockingMessage> m_blocking;       ///< MpiSend, MpiRecv
    ChunkedTable<NonblockingMessage> m_nonblocking; ///< MpiIsend, MpiIrecv
    ChunkedTable<uint64_t> m_requests;              ///< request-only events
    /// (index in m_blocking or m_nonblocking, length) of lengths >= kLongLength; one table per
    /// kind of message, each sorted by index.
    std::vector<std::pair<uint32_t, uint64_t>> m_longLengths[2];
    std::vector<CollectiveRecord> m_collectives;
    std::vector<RmaRecord> m_rma;
    std::vector<IoOperationRecord> m_io; ///< IoOperationComplete
    uint64_t m_skipped = 0;
    uint64_t m_nonMonotonic = 0;
};

} // namespace waitscope::trace
