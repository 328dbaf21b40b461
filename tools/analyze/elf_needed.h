// neededLibraries: the DT_NEEDED entries of an ELF executable (is it linked with libwaitscope?).
#pragma once

#include <optional>
#include <string>
#include <vector>
#include <waitscope/base/result.h>

namespace waitscope::analysis {

/// The shared libraries `path` names in its dynamic section, in order. A static executable
/// yields an empty list. Fails, naming the file, if it cannot be read or is not a 64-bit ELF
/// file (a script, for example).
Result<std::vector<std::string>> neededLibraries(const std::string& path);

/// Searches PATH for `program` unless it contains a '/'; returns the path found, or nullopt.
std::optional<std::string> findInPath(const std::string& program);

} // namespace waitscope::analysis
