// Function names, files and lines for instrumented addresses, through elfutils' libdwfl.
#include "symbol_resolver.h"

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

} // namespace

SymbolInfo resolveSymbol(std::uintptr_t address) noexcept {
    SymbolInfo info;
    if (!g_dwfl)
        reportModules();
    Dwfl_Module* module = g_dwfl ? dwfl_addrmodule(g_dwfl, address) : nullptr;
    if (!module && reportModules())
        module = dwfl_addrmodule(g_dwfl, address);
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
    if (Dwfl_Line* line = module ? dwfl_module_getsrc(module, address) : nullptr) {
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

} // namespace waitscope::measure
