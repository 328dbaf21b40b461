// Function names, files and lines for instrumented addresses, through elfutils' libdwfl.
#include "waitscope/measure/symbol_resolver.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cxxabi.h>
#include <elfutils/libdwfl.h>
#include <link.h>
#include <unistd.h>

namespace waitscope::measure {

namespace {

/// Separate debug information by build id (/usr/lib/debug/.build-id), then, for a module that
/// names one, by its debug link. A module with neither (the vDSO, a program built without
/// separate debug files) uses its own symbols at once: libdwfl's standard search would end by
/// loading the debuginfod client, which pulls some 25 libraries (curl, TLS, Kerberos, LDAP) into
/// the program's process and cost about 6 ms of every sampled rank's MPI_Init.
int findDebuginfo(Dwfl_Module* module, void** user, const char* moduleName, Dwarf_Addr base,
                  const char* fileName, const char* debugLink, GElf_Word debugLinkCrc,
                  char** debugFileName) {
    int fd = dwfl_build_id_find_debuginfo(module, user, moduleName, base, fileName, debugLink,
                                          debugLinkCrc, debugFileName);
    if (fd >= 0 || debugLink == nullptr)
        return fd;
    return dwfl_standard_find_debuginfo(module, user, moduleName, base, fileName, debugLink,
                                        debugLinkCrc, debugFileName);
}

char* g_debuginfoPath = nullptr;
const Dwfl_Callbacks kCallbacks = {dwfl_linux_proc_find_elf, findDebuginfo, nullptr,
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

/// A dynamic symbol's name without its version ("__libc_start_main@@GLIBC_2.34"): linker
/// names of C, C++ and Fortran never contain '@'.
std::string withoutVersion(const char* symbol) {
    const char* at = std::strchr(symbol, '@');
    return at ? std::string(symbol, static_cast<size_t>(at - symbol)) : std::string(symbol);
}

std::string demangle(const char* mangled) {
    // gfortran's module procedures: __<module>_MOD_<procedure> reads <module>::<procedure>.
    if (std::strncmp(mangled, "__", 2) == 0) {
        const char* mod = std::strstr(mangled + 2, "_MOD_");
        if (mod && mod > mangled + 2 && mod[5] != '\0')
            return std::string(mangled + 2, static_cast<size_t>(mod - mangled - 2)) +
                   "::" + (mod + 5);
    }
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

namespace {

struct FunctionTableSearch {
    std::uintptr_t address;
    std::uintptr_t start = 0;
};

/// Looks the address up in its module's .eh_frame_hdr, the sorted table of function starts
/// (FDE initial locations) the unwinder itself uses, as the linker writes it (version 1,
/// 4-byte count, table of 4-byte offsets from the header: DW_EH_PE_datarel | sdata4).
int searchFunctionTable(dl_phdr_info* info, size_t, void* data) {
    auto* search = static_cast<FunctionTableSearch*>(data);
    bool holds = false;
    const unsigned char* header = nullptr;
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr)& segment = info->dlpi_phdr[i];
        const std::uintptr_t from = info->dlpi_addr + segment.p_vaddr;
        if (segment.p_type == PT_LOAD && search->address >= from &&
            search->address < from + segment.p_memsz)
            holds = true;
        if (segment.p_type == PT_GNU_EH_FRAME)
            // The loaded segment's address, as the dynamic linker reports it.
            header =
                reinterpret_cast<const unsigned char*>(from); // NOLINT(performance-no-int-to-ptr)
    }
    if (!holds)
        return 0;
    constexpr unsigned char kUdata4 = 0x03, kDatarelSdata4 = 0x3b;
    if (!header || header[0] != 1 || header[2] != kUdata4 || header[3] != kDatarelSdata4 ||
        (header[1] & 0x0f) != 0x0b)
        return 1; // another layout: no function starts from it
    std::uint32_t count = 0;
    std::memcpy(&count, header + 8, sizeof(count));
    const unsigned char* table = header + 12;
    auto entry = [&](std::uint32_t i, int field) {
        std::int32_t value = 0;
        std::memcpy(&value, table + 8 * static_cast<size_t>(i) + 4 * field, sizeof(value));
        return value;
    };
    const auto base = reinterpret_cast<std::intptr_t>(header);
    const std::intptr_t relative = static_cast<std::intptr_t>(search->address) - base;
    std::uint32_t low = 0, high = count; // the last entry starting at or before the address
    while (low < high) {
        const std::uint32_t middle = low + (high - low) / 2;
        if (entry(middle, 0) <= relative)
            low = middle + 1;
        else
            high = middle;
    }
    if (low == 0)
        return 1;
    const std::uintptr_t start = static_cast<std::uintptr_t>(base + entry(low - 1, 0));
    // The FDE's range (pc_begin and pc_range of 4 bytes each after length and CIE pointer, as
    // the usual pcrel | sdata4 encoding has them): code past it belongs to no function.
    // An address in the loaded .eh_frame the table points to.
    const unsigned char* fde =
        reinterpret_cast<const unsigned char*>( // NOLINT(performance-no-int-to-ptr)
            base + entry(low - 1, 1));
    std::uint32_t range = 0;
    std::memcpy(&range, fde + 12, sizeof(range));
    if (search->address < start + range)
        search->start = start;
    return 1;
}

} // namespace

std::uintptr_t unwindInfoStart(std::uintptr_t address) noexcept {
    FunctionTableSearch search{address};
    dl_iterate_phdr(searchFunctionTable, &search);
    return search.start;
}

std::string moduleOffsetName(std::uintptr_t address) noexcept {
    Dwfl_Module* module = moduleOf(address);
    const char* name = module ? dwfl_module_info(module, nullptr, nullptr, nullptr, nullptr,
                                                 nullptr, nullptr, nullptr)
                              : nullptr;
    Dwarf_Addr bias = 0;
    // The address as the binary's own tools (addr2line -e) take it: its ELF virtual address.
    if (module && !dwfl_module_getelf(module, &bias))
        dwfl_module_info(module, nullptr, &bias, nullptr, nullptr, nullptr, nullptr, nullptr);
    std::string base = name ? name : "?";
    base = base.substr(base.find_last_of('/') + 1);
    char offset[32];
    std::snprintf(offset, sizeof(offset), "+0x%lx",
                  static_cast<unsigned long>(address - static_cast<std::uintptr_t>(bias)));
    return base + offset;
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
    GElf_Off offset = 0;
    GElf_Sym elfSymbol{};
    const char* symbol = module ? dwfl_module_addrinfo(module, address, &offset, &elfSymbol,
                                                       nullptr, nullptr, nullptr)
                                : nullptr;
    if (symbol) {
        info.mangled = withoutVersion(symbol);
        info.name = demangle(info.mangled.c_str());
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
            info.endLine = info.line;
        }
        // The last line: that of the function's last instruction (its closing brace), when it
        // lies in the same file after the first (not an inlined header function's).
        const std::uintptr_t last = address - offset + elfSymbol.st_size - 1;
        Dwfl_Line* lastLine = symbol && elfSymbol.st_size > 0 && last >= address
                                  ? dwfl_module_getsrc(module, last)
                                  : nullptr;
        int lastNumber = 0;
        const char* lastFile =
            lastLine ? dwfl_lineinfo(lastLine, nullptr, &lastNumber, nullptr, nullptr, nullptr)
                     : nullptr;
        if (lastFile && info.file == lastFile && lastNumber > static_cast<int>(info.line))
            info.endLine = static_cast<std::uint32_t>(lastNumber);
    }
    if (info.file.empty() && moduleName)
        info.file = moduleName;
    return info;
}

} // namespace

} // namespace waitscope::measure
