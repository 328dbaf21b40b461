// Decoding the event file's bytes (otf2_event_encoder.h's layout) back into records.
#include "encoded_events.h"

#include "waitscope/measure/event_buffer.h"
#include "waitscope/trace/otf2_event_encoder.h"

#include <cstring>

namespace waitscope::measure {

namespace {

/// The event type ids and chunk bytes of the encoder.
using Otf2 = trace::Otf2EventRecords<trace::Otf2EventEncoder>;

std::uint64_t pack(std::uint32_t low, std::uint32_t high) {
    return static_cast<std::uint64_t>(low) | static_cast<std::uint64_t>(high) << 32;
}

/// The fields of one record, read in order; `ok` turns false at the first one cut or damaged.
class FieldReader {
public:
    FieldReader(const std::string& bytes, std::size_t pos, std::size_t end)
        : m_bytes(bytes), m_pos(pos), m_end(end) {}

    std::uint8_t byte() {
        if (m_pos >= m_end) {
            ok = false;
            return 0;
        }
        return static_cast<std::uint8_t>(m_bytes[m_pos++]);
    }
    /// OTF2's compressed integers: a size byte (0 and all ones stand for themselves) and that
    /// many low bytes.
    std::uint64_t compressed(unsigned maxBytes, std::uint64_t allOnes) {
        const std::uint8_t size = byte();
        if (size == 0 || !ok)
            return 0;
        if (size == 0xff)
            return allOnes;
        if (size > maxBytes || m_end - m_pos < size) {
            ok = false;
            return 0;
        }
        std::uint64_t value = 0;
        std::memcpy(&value, m_bytes.data() + m_pos, size);
        m_pos += size;
        return value;
    }
    std::uint32_t u32() { return static_cast<std::uint32_t>(compressed(4, UINT32_MAX)); }
    std::uint64_t u64() { return compressed(8, UINT64_MAX); }
    std::int64_t i64() {
        const std::uint64_t bits = compressed(8, 0);
        std::int64_t value = 0;
        std::memcpy(&value, &bits, 8);
        return value;
    }
    std::size_t pos() const { return m_pos; }

    bool ok = true;

private:
    const std::string& m_bytes;
    std::size_t m_pos;
    std::size_t m_end;
};

/// Whether records of OTF2 type `type` carry a length byte after it (see the encoder).
bool hasLength(std::uint8_t type) {
    switch (type) {
    case Otf2::kEnter:
    case Otf2::kLeave:
    case Otf2::kMpiIsendComplete:
    case Otf2::kMpiIrecvRequest:
    case Otf2::kMpiRequestTest:
    case Otf2::kMpiRequestCancelled:
        return false;
    default:
        return true;
    }
}

/// Reads the fields of a record of `type` into `e` (the inverse of `translate` in
/// trace_writer.cpp); false for a type the measurement never writes.
bool decodeFields(std::uint8_t type, FieldReader& f, RecordEvent& e) {
    auto kind = [&e](EventKind k) { e.kind = static_cast<std::uint32_t>(k); };
    switch (type) {
    case Otf2::kEnter:
    case Otf2::kLeave:
        kind(type == Otf2::kEnter ? EventKind::Enter : EventKind::Leave);
        e.a = f.u32();
        return true;
    case Otf2::kMpiSend:
    case Otf2::kMpiRecv:
    case Otf2::kMpiIsend:
    case Otf2::kMpiIrecv: {
        kind(type == Otf2::kMpiSend    ? EventKind::MpiSend
             : type == Otf2::kMpiRecv  ? EventKind::MpiRecv
             : type == Otf2::kMpiIsend ? EventKind::MpiIsend
                                       : EventKind::MpiIrecv);
        e.a = f.u32();
        const std::uint32_t comm = f.u32();
        e.x[0] = pack(comm, f.u32());
        e.x[1] = f.u64();
        if (type == Otf2::kMpiIsend || type == Otf2::kMpiIrecv)
            e.x[2] = f.u64();
        return true;
    }
    case Otf2::kMpiIsendComplete:
    case Otf2::kMpiIrecvRequest:
    case Otf2::kMpiRequestTest:
    case Otf2::kMpiRequestCancelled:
    case Otf2::kNonBlockingCollectiveRequest:
        kind(type == Otf2::kMpiIsendComplete      ? EventKind::MpiIsendComplete
             : type == Otf2::kMpiIrecvRequest     ? EventKind::MpiIrecvRequest
             : type == Otf2::kMpiRequestTest      ? EventKind::MpiRequestTest
             : type == Otf2::kMpiRequestCancelled ? EventKind::MpiRequestCancelled
                                                  : EventKind::NbCollRequest);
        e.x[0] = f.u64();
        return true;
    case Otf2::kMpiCollectiveBegin:
        kind(EventKind::MpiCollectiveBegin);
        return true;
    case Otf2::kMpiCollectiveEnd:
    case Otf2::kNonBlockingCollectiveComplete: {
        e.a = f.byte();
        const std::uint32_t comm = f.u32();
        e.x[0] = pack(comm, f.u32());
        const std::uint64_t sent = f.u64();
        const std::uint64_t received = f.u64();
        if (type == Otf2::kNonBlockingCollectiveComplete) {
            kind(EventKind::NbCollComplete);
            e.x[1] = sent;
            e.x[2] = received;
            e.x[3] = f.u64();
        } else if (sent <= UINT32_MAX && received <= UINT32_MAX) {
            kind(EventKind::MpiCollectiveEnd);
            e.x[1] = pack(static_cast<std::uint32_t>(sent), static_cast<std::uint32_t>(received));
        } else {
            kind(EventKind::MpiCollectiveEndLarge);
            e.x[1] = sent;
            e.x[2] = received;
        }
        return true;
    }
    case Otf2::kCommCreate:
    case Otf2::kCommDestroy:
        kind(type == Otf2::kCommCreate ? EventKind::CommCreate : EventKind::CommDestroy);
        e.a = f.u32();
        return true;
    case Otf2::kProgramBegin:
        kind(EventKind::ProgramBegin);
        f.u32(); // the program's name, global string 0
        f.u32(); // no arguments
        return true;
    case Otf2::kProgramEnd: {
        kind(EventKind::ProgramEnd);
        const std::int64_t status = f.i64();
        e.a =
            status == trace::kUnknownExitStatus ? kUnknownExit : static_cast<std::uint32_t>(status);
        return true;
    }
    case Otf2::kCallingContextEnter:
    case Otf2::kCallingContextLeave:
    case Otf2::kCallingContextSample:
        kind(type == Otf2::kCallingContextEnter   ? EventKind::CallingContextEnter
             : type == Otf2::kCallingContextLeave ? EventKind::CallingContextLeave
                                                  : EventKind::CallingContextSample);
        e.a = f.u32();
        if (type != Otf2::kCallingContextLeave)
            f.u32(); // the unwind distance, derived from the tree again when written
        if (type == Otf2::kCallingContextSample)
            f.u32(); // the interrupt generator: the sampling timer
        return true;
    case Otf2::kThreadCreate:
    case Otf2::kThreadBegin:
    case Otf2::kThreadWait:
    case Otf2::kThreadEnd:
        kind(type == Otf2::kThreadCreate  ? EventKind::ThreadCreate
             : type == Otf2::kThreadBegin ? EventKind::ThreadBegin
             : type == Otf2::kThreadWait  ? EventKind::ThreadWait
                                          : EventKind::ThreadEnd);
        f.u32(); // the rank's thread contingent, mapped from a fixed local id when written
        e.a = static_cast<std::uint32_t>(f.u64());
        return true;
    case Otf2::kRmaWinCreate:
    case Otf2::kRmaWinDestroy:
        kind(type == Otf2::kRmaWinCreate ? EventKind::RmaWinCreate : EventKind::RmaWinDestroy);
        e.a = f.u32();
        return true;
    case Otf2::kRmaCollectiveBegin:
        kind(EventKind::RmaCollectiveBegin);
        return true;
    case Otf2::kRmaCollectiveEnd: {
        kind(EventKind::RmaCollectiveEnd);
        const std::uint32_t op = f.byte();
        e.a = op | f.u32() << 8;
        const std::uint32_t win = f.u32();
        e.x[0] = pack(win, f.u32());
        e.x[1] = f.u64();
        e.x[2] = f.u64();
        return true;
    }
    case Otf2::kRmaGroupSync: {
        kind(EventKind::RmaGroupSync);
        e.a = f.u32();
        const std::uint32_t win = f.u32();
        e.x[0] = pack(win, f.u32());
        return true;
    }
    case Otf2::kRmaRequestLock:
    case Otf2::kRmaReleaseLock: {
        kind(type == Otf2::kRmaRequestLock ? EventKind::RmaRequestLock : EventKind::RmaReleaseLock);
        const std::uint32_t win = f.u32();
        e.x[0] = pack(win, f.u32());
        e.x[1] = f.u64();
        if (type == Otf2::kRmaRequestLock)
            e.a = f.byte();
        return true;
    }
    case Otf2::kRmaPut:
    case Otf2::kRmaGet: {
        kind(type == Otf2::kRmaPut ? EventKind::RmaPut : EventKind::RmaGet);
        const std::uint32_t win = f.u32();
        e.x[0] = pack(win, f.u32());
        e.x[1] = f.u64();
        e.x[2] = f.u64();
        return true;
    }
    case Otf2::kRmaAtomic: {
        kind(EventKind::RmaAtomic);
        const std::uint32_t win = f.u32();
        e.x[0] = pack(win, f.u32());
        e.a = f.byte();
        e.x[1] = f.u64();
        e.x[2] = f.u64();
        e.x[3] = f.u64();
        return true;
    }
    case Otf2::kRmaOpCompleteNonBlocking:
    case Otf2::kRmaOpCompleteRemote:
        kind(type == Otf2::kRmaOpCompleteNonBlocking ? EventKind::RmaOpCompleteNonBlocking
                                                     : EventKind::RmaOpCompleteRemote);
        e.x[0] = f.u32();
        e.x[1] = f.u64();
        return true;
    case Otf2::kIoCreateHandle: {
        kind(EventKind::IoCreateHandle);
        e.a = f.u32();
        const std::uint64_t mode = f.byte();
        const std::uint64_t creation = f.u32() & 0xFFFFFFu;
        e.x[0] = mode | creation << 8 | static_cast<std::uint64_t>(f.u32()) << 32;
        return true;
    }
    case Otf2::kIoDestroyHandle:
        kind(EventKind::IoDestroyHandle);
        e.a = f.u32();
        return true;
    case Otf2::kIoOperationBegin: {
        kind(EventKind::IoOperationBegin);
        e.a = f.u32();
        const std::uint64_t mode = f.byte();
        e.x[0] = mode | static_cast<std::uint64_t>(f.u32()) << 8;
        e.x[1] = f.u64();
        e.x[2] = f.u64();
        return true;
    }
    case Otf2::kIoOperationIssued:
        kind(EventKind::IoOperationIssued);
        e.a = f.u32();
        e.x[0] = f.u64();
        return true;
    case Otf2::kIoOperationComplete:
        kind(EventKind::IoOperationComplete);
        e.a = f.u32();
        e.x[0] = f.u64();
        e.x[1] = f.u64();
        return true;
    case Otf2::kIoSeek: {
        kind(EventKind::IoSeek);
        e.a = f.u32();
        const std::int64_t requested = f.i64();
        std::memcpy(&e.x[0], &requested, 8);
        e.x[2] = f.byte();
        e.x[1] = f.u64();
        return true;
    }
    default:
        return false;
    }
}

} // namespace

RecordsRead readEncodedEvents(const std::string& bytes, std::uint64_t chunkBytes,
                              const Definitions& defs) {
    RecordsRead out;
    const std::size_t end = bytes.size();
    std::size_t pos = 0;
    std::uint64_t time = 0;
    auto damage = [&](std::size_t at, const std::string& what) {
        out.damage = "event " + std::to_string(out.events.size()) + " (byte " + std::to_string(at) +
                     "): " + what;
    };
    if (chunkBytes < Otf2::kChunkHeaderBytes + 2) {
        damage(0, "chunk size " + std::to_string(chunkBytes) + " too small");
        return out;
    }
    while (pos < end) {
        const std::size_t at = pos;
        if (pos % chunkBytes == 0) {
            if (static_cast<std::uint8_t>(bytes[pos]) != Otf2::kChunkHeader ||
                end - pos < Otf2::kChunkHeaderBytes) {
                damage(at, "no chunk header");
                return out;
            }
            pos += Otf2::kChunkHeaderBytes;
            continue;
        }
        const auto type = static_cast<std::uint8_t>(bytes[pos++]);
        if (type == Otf2::kEndOfChunk) {
            pos = (at / chunkBytes + 1) * chunkBytes;
            continue;
        }
        if (type == Otf2::kEndOfFile || type == Otf2::kEndOfBuffer)
            return out; // a finished file: nothing follows
        if (type == Otf2::kTimestamp) {
            if (end - pos < 8) {
                damage(at, "timestamp cut off");
                return out;
            }
            std::memcpy(&time, bytes.data() + pos, 8);
            pos += 8;
            continue;
        }
        std::size_t recordEnd = end;
        if (hasLength(type)) {
            if (pos >= end) {
                damage(at, "cut off after its type");
                return out;
            }
            recordEnd = pos + 1 + static_cast<std::uint8_t>(bytes[pos]);
            ++pos;
            if (recordEnd > end) {
                damage(at, "cut off inside its " + std::to_string(recordEnd - pos) + " bytes");
                return out;
            }
        }
        RecordEvent e;
        e.time = time;
        FieldReader fields(bytes, pos, recordEnd);
        if (!decodeFields(type, fields, e)) {
            damage(at, "unknown event type " + std::to_string(type));
            return out;
        }
        if (!fields.ok || (hasLength(type) && fields.pos() != recordEnd)) {
            damage(at, "fields do not fit its length");
            return out;
        }
        if (const char* why = invalidOperand(e, defs)) {
            damage(at, why);
            return out;
        }
        pos = fields.pos();
        out.events.push_back(e);
    }
    return out;
}

} // namespace waitscope::measure
