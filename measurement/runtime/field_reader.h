// FieldReader: reads the little binary fields (u32, u64, length-prefixed strings) of the
// measurement's definition keys and files, refusing to read past the end.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

namespace waitscope::measure {

/// Reads fields from `bytes` (which must outlive the reader), remembering how far it got; every
/// read returns false instead of reading past the end.
class FieldReader {
public:
    explicit FieldReader(const std::string& bytes) : m_bytes(bytes) {}
    bool bytes(void* out, std::size_t n) {
        if (m_bytes.size() - m_pos < n)
            return false;
        std::memcpy(out, m_bytes.data() + m_pos, n);
        m_pos += n;
        return true;
    }
    bool u32(std::uint32_t& v) { return bytes(&v, 4); }
    bool u64(std::uint64_t& v) { return bytes(&v, 8); }
    bool string(std::string& s) {
        std::uint32_t n = 0;
        if (!u32(n) || m_bytes.size() - m_pos < n)
            return false;
        s.assign(m_bytes, m_pos, n);
        m_pos += n;
        return true;
    }
    /// A count of items each at least `itemBytes` long: no larger than the bytes left allow.
    bool count(std::uint32_t& n, std::size_t itemBytes) {
        return u32(n) && static_cast<std::uint64_t>(n) * itemBytes <= m_bytes.size() - m_pos;
    }
    std::size_t position() const { return m_pos; }
    bool atEnd() const { return m_pos == m_bytes.size(); }

private:
    const std::string& m_bytes;
    std::size_t m_pos = 0;
};

} // namespace waitscope::measure
