// Error and Result<T>: how Waitscope libraries report failure without exceptions.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace waitscope {

/// A failure with a message in house style: lowercase, no final period, naming the thing,
/// for example "rank 3: trace truncated after event 1204".
class Error {
public:
    explicit Error(std::string message) : m_message(std::move(message)) {}

    const std::string& message() const { return m_message; }

    /// Returns this error with `context` prepended ("context: message").
    Error withContext(const std::string& context) const {
        return Error(context + ": " + m_message);
    }

private:
    std::string m_message;
};

/// Either a value or an Error. Test with `ok()` (or in a boolean context) before `value()`.
template <class T> class [[nodiscard]] Result {
public:
    Result(T value) : m_state(std::move(value)) {}
    Result(Error error) : m_state(std::move(error)) {}

    bool ok() const { return m_state.index() == 0; }
    explicit operator bool() const { return ok(); }

    T& value() & {
        assert(ok() && "Result::value() on an error");
        return std::get<0>(m_state);
    }
    const T& value() const& {
        assert(ok() && "Result::value() on an error");
        return std::get<0>(m_state);
    }
    T&& value() && {
        assert(ok() && "Result::value() on an error");
        return std::get<0>(std::move(m_state));
    }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }

    const Error& error() const {
        assert(!ok() && "Result::error() on a value");
        return std::get<1>(m_state);
    }

private:
    std::variant<T, Error> m_state;
};

/// Success or an Error, for operations that produce no value.
class [[nodiscard]] Status {
public:
    Status() = default;
    Status(Error error) : m_error(std::move(error)), m_failed(true) {}

    static Status success() { return {}; }

    bool ok() const { return !m_failed; }
    explicit operator bool() const { return ok(); }
    const Error& error() const {
        assert(m_failed && "Status::error() on success");
        return m_error;
    }

private:
    Error m_error{std::string()};
    bool m_failed = false;
};

} // namespace waitscope
