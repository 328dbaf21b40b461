// What a rank keeps on disk during the run for `waitscope recover`: its full buffers as raw
// records (the spill file, encoded into OTF2 at finalize) and the definitions they name.
#pragma once

#include "waitscope/base/result.h"

#include <cstddef>
#include <cstdint>

namespace waitscope::measure {

struct RuntimeState;

/// Where a rank's events translated during the run end, for `waitscope recover`: the file
/// `<records>.encoded` beside the records file, rewritten (one write of its 40 bytes) after each
/// chunk the spill writer kept as OTF2 events only (SpillWriter::Encoded::Kept). A killed rank's
/// events are then the event file `<records>.evt` up to `eventFileBytes`, followed by the records
/// file from `recordBytes` on (a hole before it), decoded from the time `decodeTime`.
struct EncodedMark {
    static constexpr std::uint64_t kMagic = 0x31304b52414d5357; ///< "WSMARK01", little-endian
    std::uint64_t magic = kMagic;
    std::uint64_t eventFileBytes = 0; ///< the event file's bytes that hold the kept chunks
    std::uint64_t recordBytes = 0;    ///< the records file's bytes they replace
    std::uint64_t decodeTime = 0;     ///< the delta base of the record at recordBytes
    std::uint64_t chunkBytes = 0;     ///< the event file's chunk size
};
static_assert(sizeof(EncodedMark) == 40);

/// Writes all `n` bytes to `fd`. Signal context: only async-signal-safe calls, no allocation,
/// no locks. False when the data could not all be written (errno says why; ENOSPC for a
/// short write).
bool writeAll(int fd, const void* data, size_t n);

/// Writes all `n` bytes at `offset` of `fd` (pwrite: the file's position stays), as writeAll().
bool writeAllAt(int fd, const void* data, size_t n, std::uint64_t offset);

/// Writes the rank's definitions file (a new one beside, then renamed over the old one, so a
/// rank killed meanwhile leaves the previous one whole). Signal-safe.
bool saveDefinitions(RuntimeState& s);

/// Saves the definitions when they grew since the last save (normal context).
void saveNewDefinitions(RuntimeState& s);

/// Gives the rank its spill file (taking over records spilled before MPI_Init).
Status openSpill(RuntimeState& s);

/// Starts the spill writer thread (spill_writer.h) on the rank's spill file, once the file is
/// named; without it (a small buffer, no thread) the program flushes the buffer itself.
void startSpillWriter(RuntimeState& s) noexcept;

/// Waits until the spill writer wrote every chunk handed to it and stops it (finalize,
/// MPI_Abort); a chunk it could not write ends the spill file, its events and later ones lost.
/// With `translate` (finalize, the archive open) the chunks written now are also translated into
/// the trace, after the thread's (no reading back from the file).
void drainSpillWriter(RuntimeState& s, bool translate = false) noexcept;

/// Encodes the records spilled during the run into the OTF2 event file; the records still in
/// the event buffer follow them: the caller encodes what the buffer holds afterwards.
void encodeSpilledRecords(RuntimeState& s);

} // namespace waitscope::measure
