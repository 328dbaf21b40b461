// Lists the executable code segments of the program's own modules once (dl_iterate_phdr) and
// answers whether a return address lies in one of them, without locks afterwards.
#include "program_code.h"

#include <atomic>
#include <cstdint>
#include <cstring>
#include <link.h>

namespace waitscope::measure {
namespace {

constexpr int kMaxRanges = 64;

struct Range {
    std::uintptr_t begin;
    std::uintptr_t end;
};

Range g_ranges[kMaxRanges];
int g_rangeCount = 0;
std::atomic<int> g_state{0}; ///< 0: not listed, 1: being listed, 2: listed (release)

bool startsWith(const char* text, const char* prefix) {
    return std::strncmp(text, prefix, std::strlen(prefix)) == 0;
}

/// A module is the program's unless it is a system library, the vDSO or the measurement.
bool isProgramModule(const dl_phdr_info& info) {
    const char* name = info.dlpi_name != nullptr ? info.dlpi_name : "";
    if (name[0] == '\0')
        return true; // the executable
    return !startsWith(name, "/usr/") && !startsWith(name, "/lib") &&
           std::strstr(name, "linux-vdso") == nullptr &&
           std::strstr(name, "libwaitscope") == nullptr;
}

int visitModule(dl_phdr_info* info, size_t /*size*/, void* /*data*/) {
    if (!isProgramModule(*info))
        return 0;
    for (int i = 0; i < info->dlpi_phnum && g_rangeCount < kMaxRanges; ++i) {
        const ElfW(Phdr)& segment = info->dlpi_phdr[i];
        if (segment.p_type != PT_LOAD || (segment.p_flags & PF_X) == 0)
            continue;
        const std::uintptr_t from = info->dlpi_addr + segment.p_vaddr;
        g_ranges[g_rangeCount++] = Range{from, from + segment.p_memsz};
    }
    return 0;
}

} // namespace

bool isProgramCode(const void* address) noexcept {
    int state = g_state.load(std::memory_order_acquire);
    if (state == 0 && g_state.compare_exchange_strong(state, 1, std::memory_order_acq_rel)) {
        dl_iterate_phdr(visitModule, nullptr);
        g_state.store(2, std::memory_order_release);
        state = 2;
    }
    if (state != 2)
        return false;
    const auto a = reinterpret_cast<std::uintptr_t>(address);
    for (int i = 0; i < g_rangeCount; ++i)
        if (a >= g_ranges[i].begin && a < g_ranges[i].end)
            return true;
    return false;
}

} // namespace waitscope::measure
