// Whole reads and writes at an offset of a scratch file, for the analysis's files that hold
// what does not fit in memory (instance_spill.cpp, operation_profile.cpp).
#pragma once

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

} // namespace waitscope::analysis
