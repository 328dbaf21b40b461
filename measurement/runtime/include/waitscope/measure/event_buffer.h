// The per-rank in-memory event buffer: compact records appended on the hot path.
//
// A record is one 64-bit header word followed by 0 to 4 extra words whose number depends only
// on the kind. The header packs the kind (6 bits), one operand (26 bits) and the time since the
// previous record (32 bits); a TimeBase record carrying the absolute time goes first when the
// gap does not fit (or time went backwards), so decoding needs only the previous time. A barrier
// call (Enter, CollectiveBegin, CollectiveEnd, Leave) takes 48 bytes.
#pragma once

#include <cstddef>
#include <cstdint>

namespace waitscope::measure {

/// The kinds of buffered records. Keep kExtraWords in step.
enum class EventKind : std::uint32_t {
    Enter,                 ///< a = region
    Leave,                 ///< a = region
    MpiSend,               ///< a = peer; w0 = comm | tag << 32; w1 = bytes
    MpiIsend,              ///< as MpiSend; w2 = request id
    MpiIsendComplete,      ///< w0 = request id
    MpiIrecvRequest,       ///< w0 = request id
    MpiRecv,               ///< a = peer; w0 = comm | tag << 32; w1 = bytes
    MpiIrecv,              ///< as MpiRecv; w2 = request id
    MpiRequestTest,        ///< w0 = request id
    MpiRequestCancelled,   ///< w0 = request id
    MpiCollectiveBegin,    ///< no operands
    MpiCollectiveEnd,      ///< a = operation; w0 = comm | root << 32; w1 = sent | received << 32
    MpiCollectiveEndLarge, ///< a = operation; w0 = comm | root << 32; w1 = sent; w2 = received
    NbCollRequest,         ///< w0 = request id
    NbCollComplete, ///< a = operation; w0 = comm | root << 32; w1 = sent; w2 = received; w3 = id
    CommCreate,     ///< a = comm
    CommDestroy,    ///< a = comm
    ProgramBegin,   ///< no operands
    ProgramEnd,     ///< a = exit status (kUnknownExit: unknown)
    TimeBase,       ///< w0 = absolute time of the next record
    CallingContextEnter,  ///< a = calling context (the call path of an MPI call, unwound)
    CallingContextLeave,  ///< a = calling context (its whole path is left)
    CallingContextSample, ///< a = calling context (a sample: the path ran since the last record)
    // One-sided communication (docs/rma_records.md): `win` a local window id, `remote` a rank
    // of the window's communicator.
    RmaWinCreate,       ///< a = window
    RmaWinDestroy,      ///< a = window
    RmaCollectiveBegin, ///< no operands
    RmaCollectiveEnd,   ///< a = op | sync level << 8; w0 = win | root << 32; w1 sent; w2 received
    RmaGroupSync,       ///< a = sync level; w0 = win | group << 32
    RmaRequestLock,     ///< a = lock type; w0 = win | remote << 32; w1 = lock id
    RmaReleaseLock,     ///< w0 = win | remote << 32; w1 = lock id
    RmaPut,             ///< w0 = win | remote << 32; w1 = bytes; w2 = matching id
    RmaGet,             ///< w0 = win | remote << 32; w1 = bytes; w2 = matching id
    RmaAtomic,          ///< a = type; w0 = win | remote << 32; w1 sent; w2 received; w3 id
    RmaOpCompleteNonBlocking, ///< w0 = win; w1 = matching id
    RmaOpCompleteRemote,      ///< w0 = win; w1 = matching id
    // File I/O (MPI-IO): a = I/O handle (local id).
    IoCreateHandle,      ///< w0 = access mode | creation flags << 8 | status flags << 32
    IoDestroyHandle,     ///< no words
    IoOperationBegin,    ///< w0 = operation mode | flags << 8; w1 = bytes requested; w2 = id
    IoOperationIssued,   ///< w0 = matching id
    IoOperationComplete, ///< w0 = bytes done; w1 = matching id
    IoSeek, ///< w0 = offset requested; w1 = resulting offset; w2 = whence (OTF2_IoSeekOption)
    // The order of POSIX threads (measurement/threads/thread_order.cpp): a = the created
    // thread's sequence number in the rank's thread contingent (1, 2, ...).
    ThreadCreate, ///< on the creating thread, before the thread can run
    ThreadBegin,  ///< the new thread's first record
    ThreadWait,   ///< on the joining thread, when pthread_join returned
    ThreadEnd,    ///< the thread's last record
    Count
};

inline constexpr std::uint8_t kExtraWords[] = {0, 0, 2, 3, 1, 1, 2, 3, 1, 1, 0, 2, 3, 1, 4, 0, 0, 0,
                                               0, 1, 0, 0, 0,
                                               // one-sided communication
                                               0, 0, 0, 3, 1, 2, 2, 3, 3, 4, 2, 2,
                                               // file I/O
                                               1, 0, 3, 1, 2, 3,
                                               // thread order
                                               0, 0, 0, 0};
static_assert(sizeof(kExtraWords) == static_cast<std::size_t>(EventKind::Count));

/// True for the records of one-sided communication.
inline constexpr bool isRmaRecord(EventKind kind) {
    return kind >= EventKind::RmaWinCreate && kind <= EventKind::RmaOpCompleteRemote;
}

/// The most words one record takes, with the TimeBase that may precede it.
inline constexpr std::size_t kMaxRecordWords = 2 + 1 + 4;
inline constexpr std::uint32_t kOperandMask = (1u << 26) - 1;
inline constexpr std::uint32_t kUnknownExit = kOperandMask;

/// A decoded record header.
struct RecordHeader {
    std::uint64_t time;
    std::uint32_t kind;
    std::uint32_t a;
};

/// A bounded append-only buffer of records. Trivially constructible, so a global instance
/// needs no static constructor; `reset` gives it memory.
struct EventBuffer {
    std::uint64_t* begin = nullptr;
    std::uint64_t* cursor = nullptr;
    std::uint64_t* end = nullptr;
    std::uint64_t lastTime = 0; ///< time of the last record appended (the delta base)
    std::uint64_t events = 0;   ///< events appended since the start of the run

    void reset(std::uint64_t* memory, std::size_t words) {
        begin = cursor = memory;
        end = memory + words;
    }
    void clear() { cursor = begin; }
    bool empty() const { return cursor == begin; }
    std::size_t usedBytes() const { return static_cast<std::size_t>(cursor - begin) * 8; }
    bool fits(std::size_t words) const { return static_cast<std::size_t>(end - cursor) >= words; }
};

/// Words the record of `kind` at `time` needs, TimeBase included.
inline std::size_t recordWords(const EventBuffer& b, std::uint64_t time, EventKind kind) {
    bool far = time < b.lastTime || time - b.lastTime > 0xffffffffull;
    return 1 + kExtraWords[static_cast<std::uint32_t>(kind)] + (far ? 2 : 0);
}

/// Writes one record (with a TimeBase if needed) at the buffer's cursor, which must have
/// `recordWords` words of room, and returns the slot of its extra words.
inline std::uint64_t* writeRecord(EventBuffer& b, std::uint64_t time, EventKind kind,
                                  std::uint32_t a) {
    std::uint64_t* slot = b.cursor;
    std::uint64_t delta = time - b.lastTime;
    if (time < b.lastTime || delta > 0xffffffffull) {
        slot[0] = static_cast<std::uint64_t>(EventKind::TimeBase);
        slot[1] = time;
        slot += 2;
        delta = 0;
    }
    slot[0] = static_cast<std::uint64_t>(kind) |
              (static_cast<std::uint64_t>(a & kOperandMask) << 6) | (delta << 32);
    b.lastTime = time;
    b.cursor = slot + 1 + kExtraWords[static_cast<std::uint32_t>(kind)];
    return slot + 1;
}

/// Walks the records of a filled range in order. `time` carries the delta base across
/// ranges (a spilled stream is decoded in pieces); it starts at 0.
class RecordCursor {
public:
    RecordCursor(const std::uint64_t* begin, const std::uint64_t* end, std::uint64_t& time)
        : m_pos(begin), m_end(end), m_time(time) {}

    /// The next record, or false at the end, at a record cut by the range's end, or at a
    /// damaged record (which ends the walk). `consumed()` tells where it stopped.
    bool next(RecordHeader& header, const std::uint64_t*& extra) {
        while (m_pos < m_end) {
            std::uint64_t word = m_pos[0];
            std::uint32_t kind = static_cast<std::uint32_t>(word & 0x3f);
            if (kind >= static_cast<std::uint32_t>(EventKind::Count))
                return false;
            std::size_t words = 1 + kExtraWords[kind];
            if (static_cast<std::size_t>(m_end - m_pos) < words)
                return false;
            if (kind == static_cast<std::uint32_t>(EventKind::TimeBase)) {
                m_time = m_pos[1];
                m_pos += words;
                continue;
            }
            m_time += word >> 32;
            header.time = m_time;
            header.kind = kind;
            header.a = static_cast<std::uint32_t>(word >> 6) & kOperandMask;
            extra = m_pos + 1;
            m_pos += words;
            return true;
        }
        return false;
    }
    const std::uint64_t* consumed() const { return m_pos; }

private:
    const std::uint64_t* m_pos;
    const std::uint64_t* m_end;
    std::uint64_t& m_time;
};

inline std::uint64_t packPair(std::uint32_t low, std::uint32_t high) {
    return static_cast<std::uint64_t>(low) | (static_cast<std::uint64_t>(high) << 32);
}

} // namespace waitscope::measure
