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
    std::uint32_t endLine = 0; ///< the function's last source line (0: not known)
};

/// Looks `address` up in the process's loaded modules (symbol tables and DWARF line info).
/// Unknown addresses get a name of the form "0x401a2b@binary". Symbol versions are dropped
/// ("__libc_start_main", not "__libc_start_main@@GLIBC_2.34"). Not thread-safe; not for
/// signal context. Called once per function: results are cached by the caller.
SymbolInfo resolveSymbol(std::uintptr_t address) noexcept;

/// As resolveSymbol, without the source line: file is the binary's path. Much cheaper for code
/// whose debug information is large (reading a line table loads a whole unit's lines).
SymbolInfo resolveSymbolName(std::uintptr_t address) noexcept;

/// Where the code at `address` starts: its function's entry from the symbol table, or, when no
/// symbol covers it, the base of its module (`known` false). 0 for an address in no module.
/// Not thread-safe; not for signal context.
std::uintptr_t functionStart(std::uintptr_t address, bool& known) noexcept;

/// Where the function around `address` starts by its module's unwind information (the
/// .eh_frame_hdr table of function starts), for code no symbol covers (a stripped binary); 0
/// when the module has no such table or no entry covers the address.
/// Not thread-safe; not for signal context.
std::uintptr_t unwindInfoStart(std::uintptr_t address) noexcept;

/// "module+0xoffset" for `address`: the module's file name and the address as `addr2line -e
/// module` takes it. Not thread-safe; not for signal context.
std::string moduleOffsetName(std::uintptr_t address) noexcept;

/// The file name of the module holding `address` ("?" if none).
std::string moduleName(std::uintptr_t address) noexcept;

} // namespace waitscope::measure
