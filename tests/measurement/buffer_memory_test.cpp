// The event buffer's memory (measurement/runtime/buffer_memory.h): large blocks are mapped at a
// huge-page boundary with the kernel's huge-page advice, small ones come from the heap.
#include "buffer_memory.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/mman.h>
#include <vector>

using namespace waitscope::measure;

namespace {

/// The "VmFlags:" line of the mapping of /proc/self/smaps that holds `address`; empty if none.
std::string vmFlagsAt(const void* address) {
    const auto at = reinterpret_cast<std::uintptr_t>(address);
    std::ifstream smaps("/proc/self/smaps");
    std::string line;
    bool inside = false;
    while (std::getline(smaps, line)) {
        std::uintptr_t begin = 0, end = 0;
        char dash = 0;
        std::istringstream head(line);
        if (head >> std::hex >> begin >> dash >> end && dash == '-') {
            inside = begin <= at && at < end;
            continue;
        }
        if (inside && line.rfind("VmFlags:", 0) == 0)
            return line;
    }
    return {};
}

bool hasFlag(const std::string& flags, const std::string& flag) {
    std::istringstream words(flags);
    for (std::string word; words >> word;)
        if (word == flag)
            return true;
    return false;
}

} // namespace

TEST_CASE("a buffer of a huge page or more is mapped at a huge-page boundary, advised so",
          "[buffer]") {
    // The default buffer (16M in all, 4M of it OTF2's pool) and one just one huge page long.
    for (const std::size_t bytes : {std::size_t{12} << 20, kHugePageBytes}) {
        std::vector<std::uint64_t, UninitializedAllocator<std::uint64_t>> memory;
        memory.resize(bytes / 8);
        const auto address = reinterpret_cast<std::uintptr_t>(memory.data());
        CHECK(address % kHugePageBytes == 0);
        const std::string flags = vmFlagsAt(memory.data());
        REQUIRE_FALSE(flags.empty());
#ifdef MADV_HUGEPAGE
        // "hg": the mapping carries MADV_HUGEPAGE (a kernel without transparent huge pages
        // refuses the advice, and has no such directory).
        if (std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled"))
            CHECK(hasFlag(flags, "hg"));
#endif
        // Every word is ours: written and read back, first and last included.
        for (std::size_t i = 0; i < memory.size(); i += 509)
            memory[i] = i * 3 + 1;
        memory.back() = 77;
        std::size_t wrong = 0;
        for (std::size_t i = 0; i + 1 < memory.size(); i += 509)
            wrong += memory[i] != i * 3 + 1;
        CHECK(wrong == 0);
        CHECK(memory.back() == 77);
    }
}

TEST_CASE("a buffer below a huge page comes from the heap, without the advice", "[buffer]") {
    std::vector<std::uint64_t, UninitializedAllocator<std::uint64_t>> memory;
    memory.resize(1000);
    memory[999] = 5;
    CHECK(memory[999] == 5);
    CHECK_FALSE(hasFlag(vmFlagsAt(memory.data()), "hg"));
}
