// Escaping text for XML and HTML output (report anchors, summary pages).
#pragma once

#include <string>
#include <string_view>

namespace waitscope {

/// `text` with &, <, >, " and ' as entities, and control characters other than tab, newline
/// and carriage return (not allowed in XML 1.0) as '?'. Valid in XML and HTML alike.
inline std::string escapeMarkup(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        switch (c) {
        case '&':
            out += "&amp;";
            break;
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '"':
            out += "&quot;";
            break;
        case '\'':
            out += "&apos;";
            break;
        default:
            if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r')
                out += '?';
            else
                out += c;
        }
    }
    return out;
}

} // namespace waitscope
