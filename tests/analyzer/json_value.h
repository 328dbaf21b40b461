// A minimal JSON reader for the reference files of the tests (objects, numbers, strings).
#pragma once

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>

namespace waitscope::testing {

/// A parsed JSON value: a number, a string, or an object (arrays, booleans and null are
/// accepted as opaque values; the reference files do not use them).
struct JsonValue {
    double number = 0.0;
    std::string text;
    std::map<std::string, JsonValue> object;

    const JsonValue& at(const std::string& key) const {
        const auto it = object.find(key);
        if (it == object.end()) {
            throw std::runtime_error("json: no key " + key);
        }
        return it->second;
    }
};

/// Parses `input`; throws std::runtime_error naming the offset on malformed input.
class JsonParser {
public:
    explicit JsonParser(const std::string& input) : m_in(input) {}

    JsonValue parse() {
        JsonValue value = parseValue();
        skipSpace();
        if (m_pos != m_in.size()) {
            fail("trailing characters");
        }
        return value;
    }

private:
    [[noreturn]] void fail(const std::string& what) const {
        throw std::runtime_error("json: " + what + " at offset " + std::to_string(m_pos));
    }
    void skipSpace() {
        while (m_pos < m_in.size() && std::isspace(static_cast<unsigned char>(m_in[m_pos]))) {
            ++m_pos;
        }
    }
    JsonValue parseValue() {
        skipSpace();
        if (m_pos >= m_in.size()) {
            fail("unexpected end");
        }
        const char c = m_in[m_pos];
        JsonValue value;
        if (c == '{') {
            ++m_pos;
            skipSpace();
            if (m_in[m_pos] == '}') {
                ++m_pos;
                return value;
            }
            while (true) {
                skipSpace();
                const std::string key = parseString();
                skipSpace();
                if (m_in[m_pos++] != ':') {
                    fail("expected ':'");
                }
                value.object[key] = parseValue();
                skipSpace();
                const char next = m_in[m_pos++];
                if (next == '}') {
                    return value;
                }
                if (next != ',') {
                    fail("expected ',' or '}'");
                }
            }
        }
        if (c == '"') {
            value.text = parseString();
            return value;
        }
        const char* begin = m_in.c_str() + m_pos;
        char* end = nullptr;
        value.number = std::strtod(begin, &end);
        if (end == begin) {
            fail("unsupported value");
        }
        m_pos += static_cast<size_t>(end - begin);
        return value;
    }
    std::string parseString() {
        if (m_in[m_pos] != '"') {
            fail("expected string");
        }
        ++m_pos;
        std::string out;
        while (m_pos < m_in.size() && m_in[m_pos] != '"') {
            if (m_in[m_pos] == '\\') {
                ++m_pos;
            }
            out += m_in[m_pos++];
        }
        ++m_pos;
        return out;
    }

    const std::string& m_in;
    size_t m_pos = 0;
};

/// The parsed JSON file `file`; throws std::runtime_error naming the file when it is unreadable.
inline JsonValue loadJson(const std::string& file) {
    std::ifstream in(file);
    if (!in) {
        throw std::runtime_error(file + ": cannot be read");
    }
    std::stringstream buffer;
    buffer << in.rdbuf();
    const std::string text = buffer.str();
    return JsonParser(text).parse();
}

} // namespace waitscope::testing
