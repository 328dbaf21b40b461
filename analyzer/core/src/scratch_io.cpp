// Whole reads and writes of scratch files (see scratch_io.h).
#include "scratch_io.h"

#include <cstdlib>
#include <filesystem>
#include <unistd.h>
#include <vector>

namespace waitscope::analysis {

bool writeAt(int fd, const void* bytes, size_t size, uint64_t offset) {
    const auto* at = static_cast<const char*>(bytes);
    while (size > 0) {
        const ssize_t put = ::pwrite(fd, at, size, static_cast<off_t>(offset));
        if (put <= 0) {
            return false;
        }
        at += put;
        offset += static_cast<uint64_t>(put);
        size -= static_cast<size_t>(put);
    }
    return true;
}

bool readAt(int fd, void* bytes, size_t size, uint64_t offset) {
    auto* at = static_cast<char*>(bytes);
    while (size > 0) {
        const ssize_t got = ::pread(fd, at, size, static_cast<off_t>(offset));
        if (got <= 0) {
            return false;
        }
        at += got;
        offset += static_cast<uint64_t>(got);
        size -= static_cast<size_t>(got);
    }
    return true;
}

int openAnonymousScratch(const std::string& directory, const std::string& stem, std::string& path) {
    path =
        (std::filesystem::path(directory.empty() ? "." : directory) / (stem + ".XXXXXX")).string();
    std::vector<char> name(path.begin(), path.end());
    name.push_back('\0');
    const int fd = ::mkstemp(name.data());
    path.assign(name.data());
    if (fd >= 0) {
        ::unlink(name.data());
    }
    return fd;
}

} // namespace waitscope::analysis
