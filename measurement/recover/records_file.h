// Reads a rank's raw records file (`ranks/<rank>.records`, the event buffer's layout, see
// event_buffer.h) back into events, checking every record against the rank's definitions.
#pragma once

#include "waitscope/measure/definitions.h"
#include "waitscope/measure/event_buffer.h"

#include <cstdint>
#include <string>
#include <vector>

namespace waitscope::measure {

/// One decoded record: the header's fields and the kind's extra words.
struct RecordEvent {
    std::uint64_t time = 0;
    std::uint32_t kind = 0;
    std::uint32_t a = 0;
    std::uint64_t x[4] = {0, 0, 0, 0};

    EventKind eventKind() const { return static_cast<EventKind>(kind); }
};

/// The events of a records file up to its first damage.
struct RecordsRead {
    std::vector<RecordEvent> events;
    /// Empty when every byte was a valid record; else what ended the reading and where
    /// ("record 12 (byte 96): unknown kind 63"). The events before it are kept.
    std::string damage;
};

/// Decodes `bytes`. A record must have a known kind, all its words, and operands that name
/// definitions of `defs` (regions, communicators, calling contexts) and a collective operation
/// OTF2 knows; the first one that does not ends the reading, as does a cut final record. A
/// rank that died writes a whole number of records, so any damage is reported, never skipped.
/// `time`: the delta base of the first record (records that follow others, read elsewhere).
RecordsRead readRecords(const std::string& bytes, const Definitions& defs, std::uint64_t time = 0);

/// Why `e` cannot be an event of a rank with definitions `defs` (an operand names no
/// definition of it, or no collective operation OTF2 knows), or nullptr when it can.
const char* invalidOperand(const RecordEvent& e, const Definitions& defs);

/// Encodes events back into the records layout (the inverse of readRecords on clean input).
std::string encodeRecords(const std::vector<RecordEvent>& events);

} // namespace waitscope::measure
