// Lines of text fields and numbers written as printf writes them ("%u", "%.9f"), by
// std::to_chars: the analysis's text files (the wait-state instances, the critical path) hold a
// line per instance or stretch, and printf's conversion of doubles took a fifth of the CPU time
// of an analysis of generated traces (issue 22). Both convert exactly, so the text is the same.
#pragma once

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <string_view>

namespace waitscope::analysis {

/// One line, its fields separated by a space, written to a FILE at once.
class DecimalLine {
public:
    /// Appends `field` (cut at the line's room, which no field of ours comes near).
    DecimalLine& text(std::string_view field) {
        separate();
        const size_t length = std::min(field.size(), room());
        std::copy_n(field.data(), length, m_chars.data() + m_used);
        m_used += length;
        return *this;
    }
    /// Appends `value` as "%u" writes it.
    DecimalLine& number(uint32_t value) {
        separate();
        m_used = static_cast<size_t>(
            std::to_chars(m_chars.data() + m_used, m_chars.data() + m_used + room(), value).ptr -
            m_chars.data());
        return *this;
    }
    /// Appends `value` as "%.9f" writes it (at most 320 characters).
    DecimalLine& seconds(double value) {
        separate();
        const auto written =
            std::to_chars(m_chars.data() + m_used, m_chars.data() + m_used + room(), value,
                          std::chars_format::fixed, 9);
        if (written.ec == std::errc()) {
            m_used = static_cast<size_t>(written.ptr - m_chars.data());
        }
        return *this;
    }
    /// Ends the line and writes it to `file` (its errors show in std::ferror()).
    void writeTo(FILE* file) {
        m_chars[m_used++] = '\n';
        std::fwrite(m_chars.data(), 1, m_used, file);
    }

private:
    // Room for a field, keeping one character for the end of the line.
    size_t room() const { return m_chars.size() - 1 - m_used; }
    void separate() {
        if (m_used > 0 && room() > 0) {
            m_chars[m_used++] = ' ';
        }
    }

    std::array<char, 1024> m_chars{};
    size_t m_used = 0;
};

} // namespace waitscope::analysis
