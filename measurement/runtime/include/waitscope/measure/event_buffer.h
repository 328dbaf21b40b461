// The per-rank in-memory event buffer: compact fixed-layout records appended on the hot path.
//
// Records are a 16-byte header (timestamp, kind, one 32-bit operand) followed by 0 to 4 extra
// 64-bit words whose number depends only on the kind. Appending is a bounds check and a few
// stores; when the buffer is full the owner's flush function empties it (into OTF2) and the
// append goes on, so no event is ever dropped.
#pragma once

#include <cstddef>
#include <cstdint>

namespace waitscope::measure {

/// The kinds of buffered records. Keep kExtraWords in step.
enum class EventKind : std::uint32_t {
    Enter,               ///< a = region
    Leave,               ///< a = region
    MpiSend,             ///< a = peer; w0 = comm | tag << 32; w1 = bytes
    MpiIsend,            ///< as MpiSend; w2 = request id
    MpiIsendComplete,    ///< w0 = request id
    MpiIrecvRequest,     ///< w0 = request id
    MpiRecv,             ///< a = peer; w0 = comm | tag << 32; w1 = bytes
    MpiIrecv,            ///< as MpiRecv; w2 = request id
    MpiRequestTest,      ///< w0 = request id
    MpiRequestCancelled, ///< w0 = request id
    MpiCollectiveBegin,  ///< no operands
    MpiCollectiveEnd,    ///< a = operation; w0 = comm | root << 32; w1 = sent; w2 = received
    NbCollRequest,       ///< w0 = request id
    NbCollComplete,      ///< as MpiCollectiveEnd; w3 = request id
    CommCreate,          ///< a = comm
    CommDestroy,         ///< a = comm
    ProgramBegin,        ///< no operands
    ProgramEnd,          ///< a = exit status (0xffffffff: unknown)
    Count
};

inline constexpr std::uint8_t kExtraWords[] = {0, 0, 2, 3, 1, 1, 2, 3, 1, 1, 0, 3, 1, 4, 0, 0, 0, 0};
static_assert(sizeof(kExtraWords) == static_cast<std::size_t>(EventKind::Count));

/// The most words one record takes (header + extras).
inline constexpr std::size_t kMaxRecordWords = 2 + 4;

/// The record header as laid out in the buffer.
struct RecordHeader {
    std::uint64_t time;
    std::uint32_t kind;
    std::uint32_t a;
};
static_assert(sizeof(RecordHeader) == 16);

/// A bounded append-only buffer of records. Trivially constructible, so a global instance
/// needs no static constructor; `reset` gives it memory.
struct EventBuffer {
    std::uint64_t* begin = nullptr;
    std::uint64_t* cursor = nullptr;
    std::uint64_t* end = nullptr;
    std::uint64_t events = 0; ///< events appended since the start of the run

    void reset(std::uint64_t* memory, std::size_t words) {
        begin = cursor = memory;
        end = memory + words;
    }
    void clear() { cursor = begin; }
    bool empty() const { return cursor == begin; }
    std::size_t usedBytes() const { return static_cast<std::size_t>(cursor - begin) * 8; }
    bool fits(std::size_t words) const { return static_cast<std::size_t>(end - cursor) >= words; }
};

/// Walks the records of a filled range in order.
class RecordCursor {
public:
    RecordCursor(const std::uint64_t* begin, const std::uint64_t* end) : m_pos(begin), m_end(end) {}

    /// The next record, or false at the end (or at a damaged record, which ends the walk).
    bool next(RecordHeader& header, const std::uint64_t*& extra) {
        if (m_end - m_pos < 2)
            return false;
        header.time = m_pos[0];
        header.kind = static_cast<std::uint32_t>(m_pos[1]);
        header.a = static_cast<std::uint32_t>(m_pos[1] >> 32);
        if (header.kind >= static_cast<std::uint32_t>(EventKind::Count))
            return false;
        std::size_t words = 2 + kExtraWords[header.kind];
        if (static_cast<std::size_t>(m_end - m_pos) < words)
            return false;
        extra = m_pos + 2;
        m_pos += words;
        return true;
    }

private:
    const std::uint64_t* m_pos;
    const std::uint64_t* m_end;
};

/// Writes one record at `slot` (which must have room) and returns the position after it.
inline std::uint64_t* writeRecord(std::uint64_t* slot, std::uint64_t time, EventKind kind,
                                  std::uint32_t a) {
    slot[0] = time;
    slot[1] = static_cast<std::uint64_t>(kind) | (static_cast<std::uint64_t>(a) << 32);
    return slot + 2;
}

inline std::uint64_t packPair(std::uint32_t low, std::uint32_t high) {
    return static_cast<std::uint64_t>(low) | (static_cast<std::uint64_t>(high) << 32);
}

} // namespace waitscope::measure
