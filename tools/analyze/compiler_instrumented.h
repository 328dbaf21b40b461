// isCompilerInstrumented: was a program built with compiler instrumentation (function hooks)?
#pragma once

#include <string>

namespace waitscope::analysis {

/// True when the executable at `path` calls the compiler's function-entry hook
/// (__cyg_profile_func_enter, from -finstrument-functions as `waitscope instrument` builds).
/// Such programs record their own call paths; others get them by sampling. False if the file
/// cannot be read.
bool isCompilerInstrumented(const std::string& path);

} // namespace waitscope::analysis
