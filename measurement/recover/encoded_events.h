// Reads back the OTF2 events a rank's spill writer translated during the run (the event file
// `ranks/<rank>.records.evt` up to its mark, see EncodedMark in spill_file.h) as the records
// they were translated from, so that recovery needs no second copy of those records.
#pragma once

#include "records_file.h"

#include <cstdint>
#include <string>

namespace waitscope::measure {

/// Decodes `bytes`, the first bytes of an event file written by Otf2EventEncoder in chunks of
/// `chunkBytes`, into the records the measurement translated them from (the inverse of the
/// translation in trace_writer.cpp: the same event, time and operands; a large collective's
/// byte counts as MpiCollectiveEndLarge). Each event's operands are checked against `defs` as
/// readRecords() checks records; the first damage (an unknown type, a record cut or longer
/// than its length byte, a missing chunk header) ends the reading and is described with its
/// byte offset, the events before it kept.
RecordsRead readEncodedEvents(const std::string& bytes, std::uint64_t chunkBytes,
                              const Definitions& defs);

} // namespace waitscope::measure
