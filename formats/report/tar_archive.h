// TarArchive: the member table of a ustar archive, for random access without unpacking.
#pragma once

#include "mapped_file.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <waitscope/base/result.h>

namespace waitscope::report::detail {

/// Where one member's bytes are inside the archive.
struct TarMember {
    std::uint64_t offset = 0;
    std::uint64_t size = 0;
};

/// The regular-file members of a POSIX ustar archive (with PAX size/path records).
class TarArchive {
public:
    /// Indexes the archive's members. Fails naming `name` and the offending member on a bad
    /// header checksum, a member running past the end of the file, a duplicate member or a
    /// malformed PAX record.
    static Result<TarArchive> index(std::shared_ptr<MappedFile> file, const std::string& name);

    /// The member called `member`, or nullptr.
    const TarMember* find(std::string_view member) const;
    /// Bytes of a member (valid while the archive lives).
    std::string_view bytes(const TarMember& member) const;
    const std::map<std::string, TarMember, std::less<>>& members() const { return m_members; }
    const std::string& name() const { return m_name; }

private:
    std::shared_ptr<MappedFile> m_file;
    std::string m_name;
    std::map<std::string, TarMember, std::less<>> m_members;
};

/// Appends a ustar archive member (header, data, padding) to `out`; sizes of 8 GiB or more
/// get a PAX size record. `mtime` is seconds since 1970.
void appendTarHeader(std::string& out, const std::string& name, std::uint64_t size,
                     std::int64_t mtime);
/// Appends zero padding up to the next 512-byte boundary after `size` bytes of member data.
void appendTarPadding(std::string& out, std::uint64_t size);

} // namespace waitscope::report::detail
