// Finds the measurement's own code segments with dl_iterate_phdr.
#include "waitscope/measure/own_code.h"

#include <link.h>

namespace waitscope::measure {

namespace {

struct Search {
    std::uintptr_t probe;
    std::uintptr_t begin = 0;
    std::uintptr_t end = 0;
};

int visitModule(dl_phdr_info* info, size_t, void* data) {
    auto* search = static_cast<Search*>(data);
    std::uintptr_t begin = ~std::uintptr_t{0}, end = 0;
    bool holds = false;
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr)& segment = info->dlpi_phdr[i];
        if (segment.p_type != PT_LOAD || !(segment.p_flags & PF_X))
            continue;
        std::uintptr_t from = info->dlpi_addr + segment.p_vaddr;
        std::uintptr_t to = from + segment.p_memsz;
        begin = from < begin ? from : begin;
        end = to > end ? to : end;
        holds = holds || (search->probe >= from && search->probe < to);
    }
    if (!holds)
        return 0;
    search->begin = begin;
    search->end = end;
    return 1;
}

} // namespace

void OwnCode::find() noexcept {
    Search search{reinterpret_cast<std::uintptr_t>(&visitModule)};
    dl_iterate_phdr(visitModule, &search);
    m_begin = search.begin;
    m_end = search.end;
}

} // namespace waitscope::measure
