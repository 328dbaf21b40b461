// guardedMain: the outermost frame of every command's main(). An exception that escapes the
// command (out of memory, a library's throw the command did not expect) ends it with one line
// `<program>: error: <what>` on stderr and exit status 1 instead of std::terminate.
#pragma once

#include <cstdio>
#include <exception>
#include <string_view>

namespace waitscope::cli {

/// Returns `body()`, or 1 after printing `<program>: error: ...` when it throws.
///
///     int main(int argc, char** argv) {
///         return cli::guardedMain("waitscope score", [&] { return run(argc, argv); });
///     }
template <class Body> int guardedMain(std::string_view program, Body body) noexcept {
    const int width = static_cast<int>(program.size());
    try {
        return body();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%.*s: error: %s\n", width, program.data(), e.what());
    } catch (...) {
        std::fprintf(stderr, "%.*s: error: an unknown exception ended the command\n", width,
                     program.data());
    }
    return 1;
}

} // namespace waitscope::cli
