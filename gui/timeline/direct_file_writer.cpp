// The buffer's pages go out with O_DIRECT as they fill; the pages at the ends of the writer's
// range that it shares with other writers' bytes go out buffered, with its own bytes only.
#include "direct_file_writer.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <new>
#include <unistd.h>

namespace waitscope::timeline {

void DirectFileWriter::FreeAligned::operator()(char* buffer) const {
    std::free(buffer); // from std::aligned_alloc
}

DirectFileWriter::DirectFileWriter(const std::string& path, bool create, uint64_t start)
    : m_truncated(create), m_start(start) {
    const int flags = O_WRONLY | O_CLOEXEC | (create ? O_CREAT | O_TRUNC : 0);
    m_file = ::open(path.c_str(), flags | O_DIRECT, 0644);
    m_direct = m_file >= 0;
    if (m_file < 0 && errno == EINVAL) {
        m_file = ::open(path.c_str(), flags, 0644); // a file system without O_DIRECT
    }
    auto* buffer = static_cast<char*>(std::aligned_alloc(kPage, kBufferBytes));
    if (buffer == nullptr) {
        throw std::bad_alloc();
    }
    m_buffer.reset(buffer);
    m_bufferStart = start / kPage * kPage;
    m_used = static_cast<size_t>(start - m_bufferStart);
    m_headBytes = m_used;
    std::memset(m_buffer.get(), 0, m_used);
}

DirectFileWriter::~DirectFileWriter() {
    if (m_file >= 0) {
        ::close(m_file);
    }
}

void DirectFileWriter::write(const void* data, size_t bytes) {
    const auto* from = static_cast<const char*>(data);
    while (bytes > 0) {
        const size_t n = std::min(bytes, kBufferBytes - m_used);
        std::memcpy(m_buffer.get() + m_used, from, n);
        m_used += n;
        from += n;
        bytes -= n;
        if (m_used == kBufferBytes) {
            flush(false);
        }
    }
}

void DirectFileWriter::skip(uint64_t bytes) {
    if (bytes < 2 * kPage) {
        while (bytes > 0) {
            const size_t n = static_cast<size_t>(std::min<uint64_t>(bytes, kBufferBytes - m_used));
            std::memset(m_buffer.get() + m_used, 0, n);
            m_used += n;
            bytes -= n;
            if (m_used == kBufferBytes) {
                flush(false);
            }
        }
        return;
    }
    // Everything gathered goes out, the last page padded with zeros (of the bytes skipped, which
    // their writer writes afterwards); the buffer starts again at the page the skip ends in.
    const uint64_t next = offset() + bytes;
    const size_t padded = (m_used + kPage - 1) / kPage * kPage;
    std::memset(m_buffer.get() + m_used, 0, padded - m_used);
    m_used = padded;
    flush(true);
    m_bufferStart = next / kPage * kPage;
    m_used = static_cast<size_t>(next - m_bufferStart);
    std::memset(m_buffer.get(), 0, m_used);
}

void DirectFileWriter::put(const char* data, size_t bytes, uint64_t at, bool buffered) {
    const auto setDirect = [this](bool on) {
        const int flags = ::fcntl(m_file, F_GETFL);
        return flags >= 0 &&
               ::fcntl(m_file, F_SETFL, on ? flags | O_DIRECT : flags & ~O_DIRECT) == 0;
    };
    if (m_failed || bytes == 0) {
        return;
    }
    if (m_direct && buffered && !setDirect(false)) {
        m_failed = true;
        return;
    }
    while (bytes > 0) {
        const ssize_t written = ::pwrite(m_file, data, bytes, static_cast<off_t>(at));
        if (written < 0 && errno == EINTR) {
            continue;
        }
        if (written < 0 && errno == EINVAL && m_direct && !buffered) {
            // Refused (an alignment this file system does not take): buffered from here on.
            m_direct = false;
            if (!setDirect(false)) {
                m_failed = true;
                return;
            }
            continue;
        }
        if (written <= 0) {
            m_failed = true;
            return;
        }
        data += written;
        at += static_cast<uint64_t>(written);
        bytes -= static_cast<size_t>(written);
    }
    if (m_direct && buffered && !setDirect(true)) {
        m_failed = true;
    }
}

void DirectFileWriter::flush(bool all) {
    char* buffer = m_buffer.get();
    size_t from = 0;
    if (m_headBytes > 0) {
        // The first page's bytes before the writer's start are another writer's.
        const size_t headEnd = std::min(kPage, m_used);
        put(buffer + m_headBytes, headEnd - m_headBytes, m_bufferStart + m_headBytes, true);
        from = headEnd;
        if (headEnd == kPage) {
            m_headBytes = 0;
        }
    }
    const size_t whole = std::max(from, m_used / kPage * kPage);
    put(buffer + from, whole - from, m_bufferStart + from, false);
    if (all) {
        if (whole < m_used) {
            // The last page: padded and direct when nothing follows (the file is cut at its
            // end when closed); else only its own bytes, buffered.
            if (m_truncated) {
                std::memset(buffer + m_used, 0, kPage - (m_used - whole));
                put(buffer + whole, kPage, m_bufferStart + whole, false);
            } else {
                put(buffer + whole, m_used - whole, m_bufferStart + whole, true);
            }
        }
        return;
    }
    // The partial last page stays, moved to the buffer's start.
    std::memmove(buffer, buffer + whole, m_used - whole);
    m_bufferStart += whole;
    m_used -= whole;
}

bool DirectFileWriter::close(uint64_t patchAt, uint64_t value) {
    if (m_file < 0) {
        return false;
    }
    const uint64_t end = offset();
    if (m_used > 0 && end > m_start) {
        flush(true);
    }
    if (m_truncated && !m_failed && ::ftruncate(m_file, static_cast<off_t>(end)) != 0) {
        m_failed = true;
    }
    if (patchAt != kNoPatch) {
        char bytes[sizeof value];
        std::memcpy(bytes, &value, sizeof value);
        put(bytes, sizeof bytes, patchAt, true);
    }
    const bool closed = ::close(m_file) == 0;
    m_file = -1;
    return closed && !m_failed;
}

} // namespace waitscope::timeline
