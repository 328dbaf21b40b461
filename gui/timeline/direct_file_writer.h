// Writing the timeline's event cache past the page cache: the bytes are gathered in an aligned
// buffer and written with O_DIRECT a megabyte at a time, so that the kernel neither copies them
// into page-cache pages it must first find and charge, nor keeps those pages. The analysis never
// reads the cache back; writing it buffered cost about as much CPU as the collector's reading.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace waitscope::timeline {

/// Writes a file at increasing offsets from `start`, through an aligned buffer, with O_DIRECT
/// where the file system takes it (else, or after a direct write it refuses, buffered: the same
/// bytes). Pages it shares with bytes before `start` or after its last byte are written buffered
/// and only with its own bytes, so that other writers (other analysis processes) may fill the
/// rest of those pages. The first failure is kept; ok() and close() report it.
class DirectFileWriter {
public:
    /// Opens `path`: made (or made empty) with `create`, else an existing file written into as
    /// it is (opened() false when there is none).
    DirectFileWriter(const std::string& path, bool create, uint64_t start = 0);
    ~DirectFileWriter();
    DirectFileWriter(const DirectFileWriter&) = delete;
    DirectFileWriter& operator=(const DirectFileWriter&) = delete;

    bool opened() const { return m_file >= 0; }
    bool ok() const { return m_file >= 0 && !m_failed; }
    /// The offset the next byte goes to.
    uint64_t offset() const { return m_bufferStart + m_used; }
    void write(const void* data, size_t bytes);
    /// Leaves `bytes` bytes to another writer (zeros until it writes them; a hole where large).
    void skip(uint64_t bytes);
    /// Writes what is gathered and `value` at `patchAt` (before offset(); the file's header),
    /// unless `patchAt` is kNoPatch; ends the file at offset() when it was truncated at open;
    /// closes. False on any failure.
    static constexpr uint64_t kNoPatch = ~uint64_t{0};
    bool close(uint64_t patchAt = kNoPatch, uint64_t value = 0);

    /// Whether the bytes went past the page cache (for tests).
    bool direct() const { return m_direct; }

private:
    static constexpr size_t kPage = 4096;
    static constexpr size_t kBufferBytes = size_t{1} << 20;

    /// Writes the buffer's whole pages (all of it with `all`, the last page padded with zeros
    /// unless it is shared with bytes after it) and keeps a partial last page.
    void flush(bool all);
    /// pwrite of `bytes` at `at`, retried buffered when the direct write is refused.
    void put(const char* data, size_t bytes, uint64_t at, bool buffered);

    int m_file = -1;
    bool m_direct = false;
    bool m_truncated = false;
    bool m_failed = false;
    struct FreeAligned {
        void operator()(char* buffer) const;
    };
    std::unique_ptr<char[], FreeAligned> m_buffer;
    uint64_t m_bufferStart = 0; ///< the file offset of m_buffer[0] (a page's start)
    size_t m_used = 0;          ///< bytes of m_buffer in use
    uint64_t m_start = 0;       ///< the first byte this writer owns
    size_t m_headBytes = 0;     ///< bytes of the first page that are not its own (before m_start)
};

} // namespace waitscope::timeline
