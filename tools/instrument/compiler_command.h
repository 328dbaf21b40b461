// Understands a compiler command line and builds its instrumented form (`waitscope instrument`).
#pragma once

#include "waitscope/base/result.h"

#include <string>
#include <vector>

namespace waitscope::measure {

/// What the wrapper adds, from its own options.
struct InstrumentOptions {
    bool mpi = true;      ///< link the MPI measurement (--mpi / --nompi)
    bool compiler = true; ///< compiler instrumentation of functions (--compiler / --nocompiler)
    bool user = false;    ///< enable the annotation macros (--user)
    std::string filter;   ///< filter file applied when compiling (--filter FILE)
    bool dryRun = false;
    bool verbose = false;
    std::string includeDir; ///< where waitscope/user.h is
    std::string libraryDir; ///< where libwaitscope.so is
};

/// The invocation's kind, from the compiler's own flags.
enum class CommandKind {
    CompileOnly,    ///< -c, -S or -E: no linking
    LinkOnly,       ///< only objects and libraries in, an executable or library out
    CompileAndLink, ///< sources in, linked output
    Other,          ///< no inputs (e.g. --version): passed through unchanged
};

struct CompilerCommand {
    CommandKind kind = CommandKind::Other;
    bool cxx = false;                   ///< C++ driver (links the C++ runtime)
    bool clang = false;                 ///< clang's flags differ for instrumentation
    std::vector<std::string> arguments; ///< the final command, compiler first
};

/// Builds the instrumented command. `@file` response files are read to classify the call but
/// passed on as they are. Fails with a message naming an unreadable response file or filter.
Result<CompilerCommand> instrumentCommand(const InstrumentOptions& options,
                                          const std::vector<std::string>& command);

/// Quotes an argument for display in a shell ("-v" and "--dry-run" output).
std::string shellQuote(const std::string& argument);

} // namespace waitscope::measure
