// Reading an ELF file's dynamic section for its DT_NEEDED entries, and PATH lookup.
#include "elf_needed.h"

#include <cstdlib>
#include <cstring>
#include <elf.h>
#include <fstream>
#include <iterator>
#include <unistd.h>

namespace waitscope::analysis {

Result<std::vector<std::string>> neededLibraries(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return Error(path + ": cannot read the program");
    }
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    Elf64_Ehdr header;
    if (bytes.size() < sizeof header || std::memcmp(bytes.data(), ELFMAG, SELFMAG) != 0 ||
        bytes[EI_CLASS] != ELFCLASS64) {
        return Error(path + ": not a 64-bit ELF executable");
    }
    std::memcpy(&header, bytes.data(), sizeof header);
    const auto section = [&](size_t index, Elf64_Shdr& out) {
        const size_t offset = header.e_shoff + index * sizeof(Elf64_Shdr);
        if (header.e_shoff == 0 || offset + sizeof out > bytes.size()) {
            return false;
        }
        std::memcpy(&out, bytes.data() + offset, sizeof out);
        return true;
    };
    std::vector<std::string> needed;
    for (size_t s = 0; s < header.e_shnum; ++s) {
        Elf64_Shdr dynamic;
        Elf64_Shdr strings;
        if (!section(s, dynamic) || dynamic.sh_type != SHT_DYNAMIC ||
            !section(dynamic.sh_link, strings) ||
            dynamic.sh_offset + dynamic.sh_size > bytes.size() ||
            strings.sh_offset + strings.sh_size > bytes.size()) {
            continue;
        }
        for (size_t d = 0; d + sizeof(Elf64_Dyn) <= dynamic.sh_size; d += sizeof(Elf64_Dyn)) {
            Elf64_Dyn entry;
            std::memcpy(&entry, bytes.data() + dynamic.sh_offset + d, sizeof entry);
            if (entry.d_tag == DT_NULL) {
                break;
            }
            if (entry.d_tag == DT_NEEDED && entry.d_un.d_val < strings.sh_size) {
                const char* name = bytes.data() + strings.sh_offset + entry.d_un.d_val;
                needed.emplace_back(name, strnlen(name, strings.sh_size - entry.d_un.d_val));
            }
        }
    }
    return needed;
}

std::optional<std::string> findInPath(const std::string& program) {
    if (program.find('/') != std::string::npos) {
        return access(program.c_str(), X_OK) == 0 ? std::optional<std::string>(program)
                                                  : std::nullopt;
    }
    const char* path = std::getenv("PATH");
    std::string dirs = path ? path : "/usr/bin:/bin";
    size_t start = 0;
    while (start <= dirs.size()) {
        size_t end = dirs.find(':', start);
        if (end == std::string::npos) {
            end = dirs.size();
        }
        std::string dir = dirs.substr(start, end - start);
        const std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
        if (access(candidate.c_str(), X_OK) == 0) {
            return candidate;
        }
        start = end + 1;
    }
    return std::nullopt;
}

} // namespace waitscope::analysis
