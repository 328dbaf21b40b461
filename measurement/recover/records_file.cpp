// Decoding and checking a rank's raw records, and encoding them again.
#include "records_file.h"

#include "waitscope/measure/event_buffer.h"

#include <cstring>

namespace waitscope::measure {

namespace {

constexpr std::uint32_t kLastCollectiveOp = 22; // OTF2_COLLECTIVE_OP_DESTROY_HANDLE_AND_DEALLOCATE

} // namespace

const char* invalidOperand(const RecordEvent& e, const Definitions& defs) {
    const auto regions = defs.regions().size();
    const auto comms = defs.comms().size();
    const auto contexts = defs.callingContexts().size();
    const auto comm = [](std::uint64_t word) { return static_cast<std::uint32_t>(word); };
    switch (e.eventKind()) {
    case EventKind::Enter:
    case EventKind::Leave:
        return e.a < regions ? nullptr : "undefined region";
    case EventKind::MpiSend:
    case EventKind::MpiIsend:
    case EventKind::MpiRecv:
    case EventKind::MpiIrecv:
        return comm(e.x[0]) < comms ? nullptr : "undefined communicator";
    case EventKind::MpiCollectiveEnd:
    case EventKind::MpiCollectiveEndLarge:
    case EventKind::NbCollComplete:
        if (e.a > kLastCollectiveOp)
            return "unknown collective operation";
        return comm(e.x[0]) < comms ? nullptr : "undefined communicator";
    case EventKind::CommCreate:
    case EventKind::CommDestroy:
        return e.a < comms ? nullptr : "undefined communicator";
    case EventKind::CallingContextEnter:
    case EventKind::CallingContextLeave:
    case EventKind::CallingContextSample:
        return e.a < contexts ? nullptr : "undefined calling context";
    case EventKind::MpiCollectiveBegin:
    case EventKind::ProgramBegin:
        return e.a == 0 ? nullptr : "operand on a record without one";
    default:
        return nullptr;
    }
}

RecordsRead readRecords(const std::string& bytes, const Definitions& defs, std::uint64_t time) {
    RecordsRead out;
    const std::size_t words = bytes.size() / 8;
    auto word = [&bytes](std::size_t i) {
        std::uint64_t w = 0;
        std::memcpy(&w, bytes.data() + 8 * i, 8);
        return w;
    };
    std::size_t records = 0;
    std::size_t i = 0;
    auto damage = [&](const std::string& what) {
        out.damage =
            "record " + std::to_string(records) + " (byte " + std::to_string(8 * i) + "): " + what;
    };
    while (i < words) {
        const std::uint64_t header = word(i);
        const std::uint32_t kind = static_cast<std::uint32_t>(header & 0x3f);
        if (kind >= static_cast<std::uint32_t>(EventKind::Count)) {
            damage("unknown kind " + std::to_string(kind));
            return out;
        }
        const std::size_t length = 1 + kExtraWords[kind];
        if (words - i < length) {
            damage("cut off after " + std::to_string(words - i) + " of its " +
                   std::to_string(length) + " words");
            return out;
        }
        if (kind == static_cast<std::uint32_t>(EventKind::TimeBase)) {
            // Written by writeRecord with nothing but the kind in its header.
            if (header != kind) {
                damage("time base with stray bits");
                return out;
            }
            time = word(i + 1);
            i += length;
            ++records;
            continue;
        }
        RecordEvent e;
        const std::uint64_t delta = header >> 32;
        if (time + delta < time) {
            damage("time overflows");
            return out;
        }
        time += delta;
        e.time = time;
        e.kind = kind;
        e.a = static_cast<std::uint32_t>(header >> 6) & kOperandMask;
        for (std::size_t k = 0; k + 1 < length; ++k)
            e.x[k] = word(i + 1 + k);
        if (const char* why = invalidOperand(e, defs)) {
            damage(why);
            return out;
        }
        out.events.push_back(e);
        i += length;
        ++records;
    }
    if (bytes.size() % 8 != 0) {
        i = words;
        damage("cut off: " + std::to_string(bytes.size() % 8) + " stray bytes at the end");
    }
    return out;
}

std::string encodeRecords(const std::vector<RecordEvent>& events) {
    std::vector<std::uint64_t> memory(events.size() * kMaxRecordWords + 1);
    EventBuffer buffer;
    buffer.reset(memory.data(), memory.size());
    for (const RecordEvent& e : events) {
        std::uint64_t* x = writeRecord(buffer, e.time, e.eventKind(), e.a);
        for (std::size_t k = 0; k < kExtraWords[e.kind]; ++k)
            x[k] = e.x[k];
    }
    return std::string(reinterpret_cast<const char*>(buffer.begin), buffer.usedBytes());
}

} // namespace waitscope::measure
