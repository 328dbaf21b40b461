// MappedFile: a read-only memory map of a whole file, or an owned in-memory copy.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <waitscope/base/result.h>

namespace waitscope::report::detail {

/// Bytes of a report file. Pages of a mapped file are read from disk only when touched.
class MappedFile {
public:
    /// Maps `path` read-only. Fails naming the file if it cannot be opened or mapped.
    static Result<std::shared_ptr<MappedFile>> open(const std::string& path);
    /// Wraps bytes already in memory.
    static std::shared_ptr<MappedFile> fromBytes(std::string bytes);

    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    const unsigned char* data() const { return m_data; }
    std::size_t size() const { return m_size; }

private:
    MappedFile() = default;

    const unsigned char* m_data = nullptr;
    std::size_t m_size = 0;
    void* m_map = nullptr;
    std::string m_owned;
};

} // namespace waitscope::report::detail
