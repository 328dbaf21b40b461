// Resolves code addresses to function names, source files and lines with elfutils (libdw).
#pragma once

#include <cstdint>
#include <string>

namespace waitscope::measure {

struct SymbolInfo {
    std::string name;    ///< demangled
    std::string mangled; ///< as in the symbol table
    std::string file;    ///< source file from the debug info, else the binary's path
    std::uint32_t line = 0;
};

/// Looks `address` up in the process's loaded modules (symbol tables and DWARF line info).
/// Unknown addresses get a name of the form "0x401a2b@binary". Not thread-safe; not for
/// signal context. Called once per function: results are cached by the caller.
SymbolInfo resolveSymbol(std::uintptr_t address) noexcept;

} // namespace waitscope::measure
