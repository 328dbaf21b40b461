// The slow paths of the OTF2 event encoder: chunks, the file, errors.
#include "waitscope/trace/otf2_event_encoder.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace waitscope::trace {

namespace {

constexpr uint8_t kLittleEndian = 0x42;
/// Where a chunk's header keeps the number of its last event: after the header byte, the
/// endianness byte and the number of its first event.
constexpr size_t kLastEventOffset = 2 + 8;
/// The most bytes reserved ahead of the writes at a time (see Otf2EventEncoder::m_reserved):
/// as many as the file will hold after the write, at least one chunk, so that a small file
/// reserves little and a large one reserves once every few megabytes.
constexpr uint64_t kMostReservedAhead = uint64_t{8} << 20;

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "the OTF2 event encoder writes little-endian chunks");

OTF2_ErrorCode fromErrno(int error) {
    switch (error) {
    case ENOSPC:
        return OTF2_ERROR_ENOSPC;
    case EDQUOT:
        return OTF2_ERROR_EDQUOT;
    case EIO:
        return OTF2_ERROR_EIO;
    case EFBIG:
        return OTF2_ERROR_EFBIG;
    default:
        return OTF2_ERROR_FILE_INTERACTION;
    }
}

} // namespace

Otf2EventEncoder::Otf2EventEncoder(int fd, uint64_t location, size_t chunkBytes,
                                   Otf2ErrorLog* errors) noexcept
    : m_chunkBytes(chunkBytes), m_fd(fd), m_location(location), m_errors(errors) {
    // Windows of half a smaller chunk (whole pages), so that they are tested too; a chunk that
    // is not whole windows is one.
    m_window = std::min(kWindowBytes, chunkBytes / 2 / 4096 * 4096);
    if (m_window <= 2 * kSlack || chunkBytes % m_window != 0) {
        m_window = chunkBytes;
    }
    m_bufferBytes = std::min(chunkBytes, m_window + kSlack);
    m_buffer = static_cast<uint8_t*>(std::malloc(m_bufferBytes));
    if (m_buffer == nullptr) {
        if (m_fd >= 0) {
            ::close(m_fd);
        }
        m_fd = -1;
        return;
    }
    m_end = m_buffer + m_bufferBytes;
    m_pos = m_buffer;
    writeHeader();
    if (m_fd < 0) {
        m_failure = OTF2_ERROR_FILE_INTERACTION;
        m_errors->note(m_failure);
    }
}

Otf2EventEncoder::Otf2EventEncoder(Otf2EventEncoder&& other) noexcept {
    *this = std::move(other);
}

Otf2EventEncoder& Otf2EventEncoder::operator=(Otf2EventEncoder&& other) noexcept {
    if (this != &other) {
        release();
        m_pos = std::exchange(other.m_pos, nullptr);
        m_end = std::exchange(other.m_end, nullptr);
        m_time = std::exchange(other.m_time, 0);
        m_events = std::exchange(other.m_events, 0);
        m_buffer = std::exchange(other.m_buffer, nullptr);
        m_bufferBytes = std::exchange(other.m_bufferBytes, 0);
        m_window = std::exchange(other.m_window, 0);
        m_windowOffset = std::exchange(other.m_windowOffset, 0);
        m_chunkBytes = std::exchange(other.m_chunkBytes, 0);
        m_fd = std::exchange(other.m_fd, -1);
        m_location = std::exchange(other.m_location, 0);
        m_errors = std::exchange(other.m_errors, nullptr);
        m_failure = std::exchange(other.m_failure, OTF2_SUCCESS);
        m_chunkOffset = std::exchange(other.m_chunkOffset, 0);
        m_flushed = std::exchange(other.m_flushed, 0);
        m_reserved = std::exchange(other.m_reserved, 0);
    }
    return *this;
}

Otf2EventEncoder::~Otf2EventEncoder() {
    release();
}

void Otf2EventEncoder::release() noexcept {
    std::free(m_buffer);
    m_buffer = m_pos = m_end = nullptr;
    if (m_fd >= 0) {
        releaseReserved();
        ::close(m_fd);
    }
    m_fd = -1;
}

void Otf2EventEncoder::writeHeader() noexcept {
    *m_pos++ = kChunkHeader;
    *m_pos++ = kLittleEndian;
    const uint64_t first = m_events + 1;
    const uint64_t last = 0; // set when the chunk is written
    std::memcpy(m_pos, &first, 8);
    std::memcpy(m_pos + 8, &last, 8);
    m_pos += 16;
}

void Otf2EventEncoder::reserve(uint64_t end) noexcept {
    if (m_reserved == kNoReserve || end <= m_reserved) {
        return;
    }
    const uint64_t ahead = std::clamp<uint64_t>(end, m_chunkBytes, kMostReservedAhead);
    const uint64_t from = m_reserved;
    const uint64_t to = end + ahead;
    // Refused (a file system without fallocate, a full disk): the writes reserve their blocks
    // as before, and report a full disk themselves.
    if (::fallocate(m_fd, FALLOC_FL_KEEP_SIZE, static_cast<off_t>(from),
                    static_cast<off_t>(to - from)) != 0) {
        m_reserved = kNoReserve;
        return;
    }
    m_reserved = to;
}

void Otf2EventEncoder::releaseReserved() noexcept {
    // Truncated at its own size, the file gives back the blocks reserved beyond it (ext4 frees
    // them so; a rank killed before leaves them to the file's removal).
    struct stat info {};
    if (m_reserved == 0 || m_reserved == kNoReserve || ::fstat(m_fd, &info) != 0 ||
        static_cast<uint64_t>(info.st_size) >= m_reserved) {
        return;
    }
    while (::ftruncate(m_fd, info.st_size) != 0 && errno == EINTR) {
    }
}

void Otf2EventEncoder::writeAt(const uint8_t* from, size_t bytes, uint64_t offset) noexcept {
    if (m_failure != OTF2_SUCCESS) {
        return;
    }
    reserve(offset + bytes);
    while (bytes > 0) {
        const ssize_t written = ::pwrite(m_fd, from, bytes, static_cast<off_t>(offset));
        if (written < 0 && errno == EINTR) {
            continue;
        }
        if (written <= 0) {
            m_failure = fromErrno(written < 0 ? errno : ENOSPC);
            m_errors->note(m_failure);
            return;
        }
        from += written;
        offset += static_cast<uint64_t>(written);
        bytes -= static_cast<size_t>(written);
    }
}

void Otf2EventEncoder::writeOut(size_t bytes) noexcept {
    // The part already written (writePending, slide) stays; only its header's last event
    // changed. Not written yet, the header is at the buffer's start.
    if (m_flushed > 0) {
        uint8_t last[8];
        std::memcpy(last, &m_events, 8);
        writeAt(last, 8, m_chunkOffset + kLastEventOffset);
    } else {
        std::memcpy(m_buffer + kLastEventOffset, &m_events, 8);
    }
    writeAt(m_buffer + (m_flushed - m_windowOffset), bytes - m_flushed, m_chunkOffset + m_flushed);
    m_flushed = bytes;
}

bool Otf2EventEncoder::writePending() noexcept {
    if (!valid()) {
        return false;
    }
    const size_t used = chunkUsed();
    writeAt(m_buffer + (m_flushed - m_windowOffset), used - m_flushed, m_chunkOffset + m_flushed);
    m_flushed = used;
    return m_failure == OTF2_SUCCESS;
}

void Otf2EventEncoder::slide() noexcept {
    // The position is in the slack: a record might not fit in the rest of it, and every
    // record fits in the slack, so the one before ended beyond the window.
    const size_t windowEnd = m_windowOffset + m_window;
    if (m_flushed < windowEnd) {
        writeAt(m_buffer + (m_flushed - m_windowOffset), windowEnd - m_flushed,
                m_chunkOffset + m_flushed);
        m_flushed = windowEnd;
    }
    const auto beyond = static_cast<size_t>(m_pos - (m_buffer + m_window));
    std::memmove(m_buffer, m_buffer + m_window, beyond);
    m_windowOffset = windowEnd;
    m_pos = m_buffer + beyond;
    m_end = m_buffer + std::min(m_bufferBytes, m_chunkBytes - m_windowOffset);
}

void Otf2EventEncoder::makeRoom(uint64_t time) noexcept {
    // Before the chunk's last window, the next one has room for any record (a window less
    // the slack): whether a record starts a new chunk is decided in the last window only,
    // which ends where the chunk does, as if the whole chunk were in memory.
    if (bufferEndsBeforeChunk()) {
        slide();
        return;
    }
    newChunk(time);
}

void Otf2EventEncoder::newChunk(uint64_t time) noexcept {
    // The buffer ends where the chunk does (makeRoom): the rest of it is padding.
    std::memset(m_pos, kEndOfChunk, static_cast<size_t>(m_end - m_pos));
    m_pos = m_end;
    writeOut(m_chunkBytes);
    m_chunkOffset += m_chunkBytes;
    m_flushed = 0;
    m_windowOffset = 0;
    m_pos = m_buffer;
    m_end = m_buffer + m_bufferBytes;
    writeHeader();
    *m_pos++ = kTimestamp;
    std::memcpy(m_pos, &time, 8);
    m_pos += 8;
    m_time = time;
}

void Otf2EventEncoder::refuse() noexcept {
    m_errors->note(OTF2_ERROR_INVALID_ARGUMENT);
}

OTF2_ErrorCode Otf2EventEncoder::finish() noexcept {
    if (!valid()) {
        return OTF2_ERROR_INVALID_ARGUMENT;
    }
    // libotf2 ends the events with an end-of-file byte, then the buffer with an end-of-buffer
    // byte. A record leaves at least one byte free; when it left only one, the end of file ends
    // the chunk (libotf2 would write past it).
    *m_pos++ = kEndOfFile;
    if (m_pos == m_end && bufferEndsBeforeChunk()) {
        slide(); // the buffer is full, not the chunk
    }
    if (m_pos < m_end) {
        *m_pos++ = kEndOfBuffer;
    }
    writeOut(chunkUsed());
    if (m_fd >= 0) {
        releaseReserved();
    }
    if (m_fd >= 0 && ::close(m_fd) != 0 && m_failure == OTF2_SUCCESS) {
        m_failure = fromErrno(errno);
        m_errors->note(m_failure);
    }
    m_fd = -1;
    const OTF2_ErrorCode result = m_failure;
    release();
    return result;
}

} // namespace waitscope::trace
