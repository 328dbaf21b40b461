// Memory-mapping with POSIX mmap, so that opening a large report reads only what is used.
#include "mapped_file.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace waitscope::report::detail {

Result<std::shared_ptr<MappedFile>> MappedFile::open(const std::string& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return Error(path + ": cannot open: " + std::strerror(errno));
    struct stat info {};
    if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
        ::close(fd);
        return Error(path + ": not a regular file");
    }
    std::shared_ptr<MappedFile> file(new MappedFile());
    file->m_size = static_cast<std::size_t>(info.st_size);
    if (file->m_size > 0) {
        void* map = ::mmap(nullptr, file->m_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED) {
            int saved = errno;
            ::close(fd);
            return Error(path + ": cannot map: " + std::strerror(saved));
        }
        file->m_map = map;
        file->m_data = static_cast<const unsigned char*>(map);
    }
    ::close(fd);
    return file;
}

std::shared_ptr<MappedFile> MappedFile::fromBytes(std::string bytes) {
    std::shared_ptr<MappedFile> file(new MappedFile());
    file->m_owned = std::move(bytes);
    file->m_data = reinterpret_cast<const unsigned char*>(file->m_owned.data());
    file->m_size = file->m_owned.size();
    return file;
}

MappedFile::~MappedFile() {
    if (m_map)
        ::munmap(m_map, m_size);
}

} // namespace waitscope::report::detail
