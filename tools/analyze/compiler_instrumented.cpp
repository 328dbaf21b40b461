// Looks for the function-entry hook's name in the executable's symbol tables.
#include "compiler_instrumented.h"

#include <fstream>
#include <iterator>

namespace waitscope::analysis {

bool isCompilerInstrumented(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return false;
    // The name is in the dynamic string table when the hook is imported (libwaitscope.so), in
    // the symbol table when linked statically; a byte search finds either.
    static const std::string kHook = "__cyg_profile_func_enter";
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return bytes.find(kHook) != std::string::npos;
}

} // namespace waitscope::analysis
