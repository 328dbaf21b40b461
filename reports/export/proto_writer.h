// A minimal protocol buffers encoder: varint, fixed64 and length-delimited fields into a byte
// string, enough to write Perfetto's trace format without a protobuf library.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace waitscope::exporter {

/// One message being encoded; nested messages are encoded apart and added as bytes.
class ProtoWriter {
public:
    /// A varint field (wire type 0): unsigned and non-negative integers, enums, bools.
    ProtoWriter& varint(uint32_t field, uint64_t value) {
        key(field, 0);
        raw(value);
        return *this;
    }
    /// A fixed64 field (wire type 1).
    ProtoWriter& fixed64(uint32_t field, uint64_t value) {
        key(field, 1);
        for (int b = 0; b < 8; ++b) {
            m_bytes += static_cast<char>((value >> (8 * b)) & 0xFF);
        }
        return *this;
    }
    /// A length-delimited field (wire type 2): a string, bytes or an encoded message.
    ProtoWriter& bytes(uint32_t field, std::string_view value) {
        key(field, 2);
        raw(value.size());
        m_bytes.append(value);
        return *this;
    }
    const std::string& data() const { return m_bytes; }
    void clear() { m_bytes.clear(); }

private:
    void key(uint32_t field, uint32_t wireType) { raw((uint64_t{field} << 3) | wireType); }
    void raw(uint64_t value) {
        while (value >= 0x80) {
            m_bytes += static_cast<char>((value & 0x7F) | 0x80);
            value >>= 7;
        }
        m_bytes += static_cast<char>(value);
    }

    std::string m_bytes;
};

} // namespace waitscope::exporter
