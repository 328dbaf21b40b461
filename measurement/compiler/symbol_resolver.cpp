// Function names, files and lines for instrumented addresses, through elfutils' libdwfl.
#include "waitscope/measure/symbol_resolver.h"

#include <cstdio>
#include <cstdlib>
#include <cxxabi.h>
#include <elfutils/libdwfl.h>
#include <unistd.h>

namespace waitscope::measure {

namespace {

char* g_debuginfoPath = nullptr;
const Dwfl_Callbacks kCallbacks = {dwfl_linux_proc_find_elf, dwfl_standard_find_debuginfo, nullptr,
                                   &g_debuginfoPath};
Dwfl* g_dwfl = nullptr;

/// (Re)reports the process's modules; called again when an address is in none (dlopen).
bool reportModules() {
    if (!g_dwfl)
        g_dwfl = dwfl_begin(&kCallbacks);
    if (!g_dwfl)
        return false;
    dwfl_report_begin(g_dwfl);
    int rc = dwfl_linux_proc_report(g_dwfl, getpid());
    dwfl_report_end(g_dwfl, nullptr, nullptr);
    return rc == 0;
}

std::string demangle(const char* mangled) {
    int status = 0;
    char* text = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
    if (status != 0 || !text)
        return mangled;
    std::string result(text);
    std::free(text);
    return result;
}

Dwfl_Module* moduleOf(std::uintptr_t address) {
    if (!g_dwfl)
        reportModules();
    Dwfl_Module* module = g_dwfl ? dwfl_addrmodule(g_dwfl, address) : nullptr;
    if (!module && reportModules())
        module = dwfl_addrmodule(g_dwfl, address);
    return module;
}

} // namespace

namespace {
SymbolInfo resolve(std::uintptr_t address, bool lines) noexcept;
} // namespace

std::uintptr_t functionStart(std::uintptr_t address, bool& known) noexcept {
    known = false;
    Dwfl_Module* module = moduleOf(address);
    if (!module)
        return 0;
    GElf_Off offset = 0;
    GElf_Sym symbol;
    if (dwfl_module_addrinfo(module, address, &offset, &symbol, nullptr, nullptr, nullptr) &&
        offset <= address) {
        known = true;
        return address - offset;
    }
    Dwarf_Addr base = 0;
    dwfl_module_info(module, nullptr, &base, nullptr, nullptr, nullptr, nullptr, nullptr);
    return static_cast<std::uintptr_t>(base);
}

std::string moduleName(std::uintptr_t address) noexcept {
    Dwfl_Module* module = moduleOf(address);
    const char* name = module ? dwfl_module_info(module, nullptr, nullptr, nullptr, nullptr,
                                                 nullptr, nullptr, nullptr)
                              : nullptr;
    return name ? name : "?";
}

SymbolInfo resolveSymbolName(std::uintptr_t address) noexcept {
    return resolve(address, false);
}

SymbolInfo resolveSymbol(std::uintptr_t address) noexcept {
    return resolve(address, true);
}

namespace {

SymbolInfo resolve(std::uintptr_t address, bool lines) noexcept {
    SymbolInfo info;
    Dwfl_Module* module = moduleOf(address);
    const char* moduleName = nullptr;
    if (module)
        moduleName =
            dwfl_module_info(module, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr);
    const char* symbol = module ? dwfl_module_addrname(module, address) : nullptr;
    if (symbol) {
        info.mangled = symbol;
        info.name = demangle(symbol);
    } else {
        char text[64];
        std::snprintf(text, sizeof(text), "0x%lx", static_cast<unsigned long>(address));
        info.name = info.mangled = std::string(text) + "@" + (moduleName ? moduleName : "?");
    }
    if (Dwfl_Line* line = module && lines ? dwfl_module_getsrc(module, address) : nullptr) {
        int lineNumber = 0;
        if (const char* file =
                dwfl_lineinfo(line, nullptr, &lineNumber, nullptr, nullptr, nullptr)) {
            info.file = file;
            info.line = lineNumber > 0 ? static_cast<std::uint32_t>(lineNumber) : 0;
        }
    }
    if (info.file.empty() && moduleName)
        info.file = moduleName;
    return info;
}

} // namespace

} // namespace waitscope::measure
