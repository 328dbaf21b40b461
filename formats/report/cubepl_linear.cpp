// A small recursive-descent parser for the linear subset of CubePL (no general evaluator:
// Scalasca's derived metrics are almost all sums and differences of other metrics).
#include "cubepl_linear.h"

#include <cctype>
#include <cstdlib>
#include <unordered_map>

namespace waitscope::report::detail {
namespace {

class Parser {
public:
    Parser(std::string_view text,
           const std::function<std::optional<MetricId>(std::string_view)>& lookup)
        : m_text(text), m_lookup(lookup) {}

    std::optional<std::vector<LinearTerm>> parse(std::string& why) {
        skipSpace();
        // Accept a "{ return EXPR; }" wrapper, which CubePL allows around an expression.
        bool braced = false;
        if (peek() == '{') {
            ++m_pos;
            skipSpace();
            if (!consumeWord("return")) {
                why = "statement blocks are not supported";
                return std::nullopt;
            }
            braced = true;
        }
        std::vector<LinearTerm> terms;
        if (!expression(1.0, terms, 0))
            return fail(why);
        skipSpace();
        if (braced) {
            if (peek() == ';')
                ++m_pos;
            skipSpace();
            if (peek() != '}') {
                m_error = "expected '}'";
                return fail(why);
            }
            ++m_pos;
            skipSpace();
        }
        if (m_pos != m_text.size()) {
            m_error = "unexpected '" + std::string(1, m_text[m_pos]) + "' at offset " +
                      std::to_string(m_pos);
            return fail(why);
        }
        if (terms.empty()) {
            m_error = "no metric referenced";
            return fail(why);
        }
        return terms;
    }

private:
    static constexpr int kMaxDepth = 64;

    std::optional<std::vector<LinearTerm>> fail(std::string& why) {
        why = m_error.empty() ? "not a sum or difference of metrics" : m_error;
        return std::nullopt;
    }
    char peek() const { return m_pos < m_text.size() ? m_text[m_pos] : '\0'; }
    void skipSpace() {
        while (m_pos < m_text.size() && std::isspace(static_cast<unsigned char>(m_text[m_pos])))
            ++m_pos;
    }
    bool consumeWord(std::string_view word) {
        if (m_text.substr(m_pos, word.size()) != word)
            return false;
        m_pos += word.size();
        skipSpace();
        return true;
    }

    // expression := term (('+' | '-') term)*
    bool expression(double sign, std::vector<LinearTerm>& out, int depth) {
        if (depth > kMaxDepth) {
            m_error = "expression nested too deeply";
            return false;
        }
        if (!term(sign, out, depth))
            return false;
        for (;;) {
            skipSpace();
            char c = peek();
            if (c != '+' && c != '-')
                return true;
            ++m_pos;
            if (!term(c == '-' ? -sign : sign, out, depth))
                return false;
        }
    }

    // term := [number '*'] factor ['*' number]
    bool term(double sign, std::vector<LinearTerm>& out, int depth) {
        skipSpace();
        double coefficient = sign;
        if (std::isdigit(static_cast<unsigned char>(peek())) || peek() == '.') {
            double number = 0;
            if (!numberLiteral(number))
                return false;
            skipSpace();
            if (peek() != '*') {
                m_error = "constants are not supported";
                return false;
            }
            ++m_pos;
            coefficient *= number;
        }
        if (!factor(coefficient, out, depth))
            return false;
        skipSpace();
        if (peek() == '*') {
            ++m_pos;
            skipSpace();
            double number = 0;
            if (!numberLiteral(number)) {
                m_error = "products of metrics are not supported";
                return false;
            }
            // Scale the terms this factor just added.
            for (std::size_t i = m_lastFactorStart; i < out.size(); ++i)
                out[i].coefficient *= number;
        }
        return true;
    }

    // factor := '(' expression ')' | '-' factor | metric reference
    bool factor(double coefficient, std::vector<LinearTerm>& out, int depth) {
        skipSpace();
        std::size_t start = out.size();
        if (peek() == '(') {
            ++m_pos;
            if (!expression(coefficient, out, depth + 1))
                return false;
            skipSpace();
            if (peek() != ')') {
                m_error = "expected ')' at offset " + std::to_string(m_pos);
                return false;
            }
            ++m_pos;
        } else if (peek() == '-') {
            ++m_pos;
            if (depth > kMaxDepth)
                return false;
            if (!factor(-coefficient, out, depth + 1))
                return false;
        } else if (!metricReference(coefficient, out)) {
            return false;
        }
        m_lastFactorStart = start;
        return true;
    }

    // metric reference := "metric::" ["fixed::" | "call::" ...] name '(' args ')'
    bool metricReference(double coefficient, std::vector<LinearTerm>& out) {
        if (!consumeWord("metric::")) {
            m_error = "unsupported syntax at offset " + std::to_string(m_pos);
            return false;
        }
        std::size_t begin = m_pos;
        while (m_pos < m_text.size() && (std::isalnum(static_cast<unsigned char>(m_text[m_pos])) ||
                                         m_text[m_pos] == '_' || m_text[m_pos] == ':'))
            ++m_pos;
        std::string_view name = m_text.substr(begin, m_pos - begin);
        if (auto colons = name.rfind("::"); colons != std::string_view::npos) {
            std::string_view qualifier = name.substr(0, colons);
            if (qualifier != "fixed") {
                m_error = "metric qualifier '" + std::string(qualifier) + "' is not supported";
                return false;
            }
            name = name.substr(colons + 2);
        }
        skipSpace();
        if (peek() != '(') {
            m_error = "expected '(' after metric::" + std::string(name);
            return false;
        }
        ++m_pos;
        // Arguments select inclusive/exclusive operands ("i", "e") or are empty; either way
        // the operand is evaluated in the view the caller asked for.
        while (m_pos < m_text.size() && m_text[m_pos] != ')') {
            char c = m_text[m_pos];
            if (!std::isalnum(static_cast<unsigned char>(c)) &&
                !std::isspace(static_cast<unsigned char>(c)) && c != ',' && c != '#') {
                m_error = "unsupported metric argument";
                return false;
            }
            ++m_pos;
        }
        if (peek() != ')') {
            m_error = "expected ')' after metric::" + std::string(name);
            return false;
        }
        ++m_pos;
        std::optional<MetricId> id = m_lookup(name);
        if (!id) {
            m_error = "unknown metric '" + std::string(name) + "'";
            return false;
        }
        out.push_back({coefficient, *id});
        return true;
    }

    bool numberLiteral(double& value) {
        std::size_t begin = m_pos;
        while (m_pos < m_text.size() &&
               (std::isdigit(static_cast<unsigned char>(m_text[m_pos])) || m_text[m_pos] == '.' ||
                m_text[m_pos] == 'e' || m_text[m_pos] == 'E'))
            ++m_pos;
        std::string literal(m_text.substr(begin, m_pos - begin));
        if (literal.empty())
            return false;
        char* end = nullptr;
        value = std::strtod(literal.c_str(), &end);
        if (end != literal.c_str() + literal.size()) {
            m_error = "bad number '" + literal + "'";
            return false;
        }
        return true;
    }

    std::string_view m_text;
    const std::function<std::optional<MetricId>(std::string_view)>& m_lookup;
    std::size_t m_pos = 0;
    std::size_t m_lastFactorStart = 0;
    std::string m_error;
};

} // namespace

std::optional<std::vector<LinearTerm>>
parseLinearCubePL(std::string_view expression,
                  const std::function<std::optional<MetricId>(std::string_view)>& lookup,
                  std::string& why) {
    if (expression.size() > kMaxExpressionLength) {
        why = "expression longer than " + std::to_string(kMaxExpressionLength) + " characters";
        return std::nullopt;
    }
    Parser parser(expression, lookup);
    auto terms = parser.parse(why);
    if (!terms)
        return terms;
    // One term per metric: "a + a" and "2 * (a + b) - b" evaluate each operand once.
    std::vector<LinearTerm> merged;
    std::unordered_map<MetricId, std::size_t> slot;
    for (const LinearTerm& term : *terms) {
        auto [it, fresh] = slot.emplace(term.metric, merged.size());
        if (fresh)
            merged.push_back(term);
        else
            merged[it->second].coefficient += term.coefficient;
    }
    return merged;
}

} // namespace waitscope::report::detail
