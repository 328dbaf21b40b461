// A minimal protocol buffers encoder: varint, fixed64 and length-delimited fields into a byte
// string, enough to write Perfetto's trace format without a protobuf library.
#pragma once

#include <cstddef>
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
    /// The key and length of a length-delimited field of `length` bytes, whose contents the
    /// caller adds next (so that a message is written in place, not encoded apart and copied).
    ProtoWriter& lengthPrefix(uint32_t field, uint64_t length) {
        key(field, 2);
        raw(length);
        return *this;
    }
    const std::string& data() const { return m_bytes; }
    /// The bytes themselves, to hand on (and get back) without copying.
    std::string& buffer() { return m_bytes; }
    void clear() { m_bytes.clear(); }

    /// Bytes of `value` as a varint.
    static size_t varintSize(uint64_t value) {
        size_t bytes = 1;
        while (value >= 0x80) {
            value >>= 7;
            ++bytes;
        }
        return bytes;
    }
    /// Bytes of a varint field.
    static size_t varintFieldSize(uint32_t field, uint64_t value) {
        return varintSize(uint64_t{field} << 3) + varintSize(value);
    }
    /// Bytes of a length-delimited field of `length` bytes.
    static size_t bytesFieldSize(uint32_t field, uint64_t length) {
        return varintSize((uint64_t{field} << 3) | 2) + varintSize(length) + length;
    }

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
