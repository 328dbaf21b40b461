// A rank's definitions on disk (`ranks/<rank>.defs`), so that its records can be turned into a
// trace after the rank died: written during the run and when it ends abnormally, read by
// `waitscope recover`.
//
// Layout (native byte order, strings as u32 length + bytes):
//   "WSDEFS02"  u32 rank  u32 size  u64 ticks per second  string host  string program
//   u32 regions   { string regionKey(region) }            (local id order)
//   u32 comms     { u64 key  string commDescription(comm) }
//   u32 contexts  { u32 region  u32 parent }
//   u32 windows   { u64 comm key  u32 sequence  string name }   (one-sided communication)
//   u32 groups    { u32 n  { u32 world rank } }                  (of post/start)
//   u32 handles   { u64 comm key  string file }                  (MPI-IO; sequences recounted)
//   "WSDEFEND"
#pragma once

#include "waitscope/base/result.h"
#include "waitscope/measure/definitions.h"

#include <cstdint>
#include <string>

namespace waitscope::measure {

/// What a rank's definitions file says about the rank besides its definitions.
struct RankIdentity {
    std::uint32_t rank = 0;
    std::uint32_t size = 1;
    std::uint64_t ticksPerSecond = 0;
    std::string host;
    std::string program;
};

/// Writes the definitions file to `fd`. Async-signal-safe: no allocation, only write(2) from a
/// stack buffer, so a fatal-signal handler may call it (the definitions must not be changing
/// meanwhile). Returns false when a write failed (errno tells why).
bool writeRankDefinitions(int fd, const RankIdentity& identity, const Definitions& defs) noexcept;

/// A rank's definitions read back.
struct RankDefinitionsFile {
    RankIdentity identity;
    Definitions defs;
};

/// Parses a definitions file. Fails, naming `where` and the byte offset, on anything damaged:
/// a bad magic, a truncated field, an id out of range, or a missing end marker.
Result<RankDefinitionsFile> parseRankDefinitions(const std::string& bytes,
                                                 const std::string& where);

} // namespace waitscope::measure
