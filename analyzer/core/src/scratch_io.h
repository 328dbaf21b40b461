// Whole reads and writes at an offset of a scratch file, for the analysis's files that hold
// what does not fit in memory (instance_spill.cpp, and ScratchFile: a rank's root-cause state).
#pragma once

#include "waitscope/base/result.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace waitscope::analysis {

/// Writes all of `bytes` at `offset` of `fd`; false when a write fails.
bool writeAt(int fd, const void* bytes, size_t size, uint64_t offset);
/// Reads all of `bytes` at `offset` of `fd`; false when a read fails or the file ends first.
bool readAt(int fd, void* bytes, size_t size, uint64_t offset);
/// Creates a scratch file in `directory` whose name starts with `stem`, and removes its name at
/// once: the file lives as long as the returned descriptor, whatever happens to the process.
/// Returns -1 (errno set) when it cannot be created; `path` receives the name it had.
int openAnonymousScratch(const std::string& directory, const std::string& stem, std::string& path);

/// One rank's scratch file of the root-cause passes, which several arrays append their blocks
/// to (each keeps the offsets of its own blocks: SpilledArray, OperationProfile). Used by one
/// thread at a time. A failed write or read is remembered, naming the file (error()), and later
/// ones are skipped: the caller checks error() after a pass instead of after every block.
class ScratchFile {
public:
    ScratchFile() = default;
    ScratchFile(const ScratchFile&) = delete;
    ScratchFile& operator=(const ScratchFile&) = delete;
    ~ScratchFile();

    /// Creates the file in `directory` (named `stem` and a unique suffix, removed at once).
    /// Fails naming the directory and `what` the file would have held.
    Status open(const std::string& directory, const std::string& stem, const std::string& what);
    /// Writes `size` bytes at the end of the file and returns their offset.
    uint64_t append(const void* bytes, size_t size);
    /// Reads `size` bytes at `offset`; false when that or an earlier write or read failed.
    bool read(void* bytes, size_t size, uint64_t offset) const;
    /// The first write or read that failed, naming the file; empty when none did.
    const std::string& error() const { return m_error; }
    /// Bytes written so far.
    uint64_t size() const { return m_end; }

private:
    int m_fd = -1;
    std::string m_path;
    uint64_t m_end = 0;
    mutable std::string m_error;
};

} // namespace waitscope::analysis
