// Where the running program's executable lives, for commands that find their siblings.
#pragma once

#include <climits>
#include <string>
#include <unistd.h>

namespace waitscope {

/// The absolute path of the running executable (from /proc/self/exe); empty if unknown.
inline std::string executablePath() {
    char path[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
    if (n <= 0)
        return {};
    return std::string(path, static_cast<size_t>(n));
}

/// The directory of the running executable; "." if unknown.
inline std::string executableDirectory() {
    std::string path = executablePath();
    size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

} // namespace waitscope
