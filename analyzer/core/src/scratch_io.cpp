// Whole reads and writes of scratch files (see scratch_io.h).
#include "scratch_io.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
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

ScratchFile::~ScratchFile() {
    if (m_fd >= 0) {
        ::close(m_fd);
    }
}

Status ScratchFile::open(const std::string& directory, const std::string& stem,
                         const std::string& what) {
    m_fd = openAnonymousScratch(directory, stem, m_path);
    if (m_fd < 0) {
        return Error("cannot create a scratch file of " + what + " in " + directory + ": " +
                     std::strerror(errno));
    }
    return Status::success();
}

uint64_t ScratchFile::append(const void* bytes, size_t size) {
    const uint64_t offset = m_end;
    if (m_error.empty() && !writeAt(m_fd, bytes, size, offset)) {
        m_error = "cannot write the scratch file " + m_path + ": " + std::strerror(errno);
    }
    m_end += size;
    return offset;
}

bool ScratchFile::read(void* bytes, size_t size, uint64_t offset) const {
    if (!m_error.empty()) {
        return false;
    }
    errno = 0;
    if (!readAt(m_fd, bytes, size, offset)) {
        m_error = "cannot read the scratch file " + m_path +
                  " back: " + (errno != 0 ? std::strerror(errno) : "it ended early");
        return false;
    }
    return true;
}

} // namespace waitscope::analysis
