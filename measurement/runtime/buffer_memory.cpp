// Huge-page blocks for the event buffer (see buffer_memory.h).
#include "buffer_memory.h"

#include <cstdint>
#include <sys/mman.h>
#include <unistd.h>

namespace waitscope::measure {

namespace {

std::size_t pageRounded(std::size_t bytes) noexcept {
    const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    return (bytes + page - 1) / page * page;
}

} // namespace

void* mapHugeBlock(std::size_t bytes) noexcept {
    const std::size_t length = pageRounded(bytes);
    // One huge page more than asked, so that an aligned start lies within; the rest is
    // given back.
    const std::size_t mapped = length + kHugePageBytes;
    void* raw = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED)
        return nullptr;
    const auto begin = reinterpret_cast<std::uintptr_t>(raw);
    const std::uintptr_t aligned = (begin + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
    if (aligned > begin)
        ::munmap(raw, aligned - begin);
    if (const std::uintptr_t end = begin + mapped; aligned + length < end)
        // NOLINTNEXTLINE(performance-no-int-to-ptr): an address within our own mapping
        ::munmap(reinterpret_cast<void*>(aligned + length), end - aligned - length);
    // NOLINTNEXTLINE(performance-no-int-to-ptr): an address within our own mapping
    void* block = reinterpret_cast<void*>(aligned);
#ifdef MADV_HUGEPAGE
    // Refused (EINVAL) by a kernel without transparent huge pages: 4 KiB pages then, as before.
    ::madvise(block, length, MADV_HUGEPAGE);
#endif
    return block;
}

void unmapHugeBlock(void* block, std::size_t bytes) noexcept {
    if (block != nullptr)
        ::munmap(block, pageRounded(bytes));
}

} // namespace waitscope::measure
