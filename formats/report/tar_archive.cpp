// Reading and writing ustar headers. Written by hand: the format needs ~100 lines, and
// libarchive would unpack sequentially where we need random access into a memory map.
#include "tar_archive.h"

#include <algorithm>
#include <cstring>
#include <optional>

namespace waitscope::report::detail {
namespace {

constexpr std::size_t kBlock = 512;

// Parses a tar numeric field: octal text (NUL/space terminated), or GNU base-256 when the
// first byte has its high bit set.
bool parseNumber(const unsigned char* field, std::size_t width, std::uint64_t& value) {
    value = 0;
    if (field[0] & 0x80) {
        if (field[0] != 0x80)
            return false; // negative or unsupported
        for (std::size_t i = 1; i < width; ++i) {
            if (value >> 56)
                return false;
            value = (value << 8) | field[i];
        }
        return true;
    }
    std::size_t i = 0;
    while (i < width && field[i] == ' ')
        ++i;
    bool any = false;
    for (; i < width && field[i] >= '0' && field[i] <= '7'; ++i) {
        if (value >> 60)
            return false;
        value = value * 8 + (field[i] - '0');
        any = true;
    }
    for (; i < width; ++i)
        if (field[i] != ' ' && field[i] != '\0')
            return false;
    return any;
}

std::string fieldText(const unsigned char* field, std::size_t width) {
    std::size_t n = 0;
    while (n < width && field[n] != '\0')
        ++n;
    return std::string(reinterpret_cast<const char*>(field), n);
}

bool allZero(const unsigned char* block) {
    for (std::size_t i = 0; i < kBlock; ++i)
        if (block[i] != 0)
            return false;
    return true;
}

// Parses PAX extended header records "<len> key=value\n"; picks out size and path.
bool parsePax(std::string_view records, std::uint64_t& size, bool& hasSize,
              std::optional<std::string>& path) {
    while (!records.empty()) {
        std::size_t space = records.find(' ');
        if (space == std::string_view::npos || space == 0 || space > 20)
            return false;
        std::uint64_t length = 0;
        for (std::size_t i = 0; i < space; ++i) {
            if (records[i] < '0' || records[i] > '9')
                return false;
            length = length * 10 + static_cast<std::uint64_t>(records[i] - '0');
        }
        if (length <= space + 1 || length > records.size() || records[length - 1] != '\n')
            return false;
        std::string_view record = records.substr(space + 1, length - space - 2);
        std::size_t equals = record.find('=');
        if (equals == std::string_view::npos)
            return false;
        std::string_view key = record.substr(0, equals);
        std::string_view value = record.substr(equals + 1);
        if (key == "size") {
            std::uint64_t v = 0;
            if (value.empty() || value.size() > 19)
                return false;
            for (char c : value) {
                if (c < '0' || c > '9')
                    return false;
                v = v * 10 + static_cast<std::uint64_t>(c - '0');
            }
            size = v;
            hasSize = true;
        } else if (key == "path") {
            path = std::string(value);
        }
        records.remove_prefix(length);
    }
    return true;
}

} // namespace

Result<TarArchive> TarArchive::index(std::shared_ptr<MappedFile> file, const std::string& name) {
    TarArchive archive;
    archive.m_file = file;
    archive.m_name = name;
    const unsigned char* data = file->data();
    const std::uint64_t total = file->size();
    std::uint64_t pos = 0;
    std::uint64_t paxSize = 0;
    bool hasPaxSize = false;
    std::optional<std::string> paxPath;
    bool sawEnd = false;
    std::string lastMember;
    if (total == 0)
        return Error(name + ": not a CUBE4 report (.cubex): empty file");
    if (total < kBlock)
        return Error(name + ": not a CUBE4 report (.cubex): " + std::to_string(total) +
                     " bytes, shorter than one tar header");
    while (pos + kBlock <= total) {
        const unsigned char* header = data + pos;
        if (allZero(header)) {
            sawEnd = true;
            break;
        }
        std::string memberName = fieldText(header, 100);
        std::string where = name + ": tar header at offset " + std::to_string(pos);
        if (std::memcmp(header + 257, "ustar", 5) != 0) {
            if (pos == 0) // not a tar archive at all: say what the user needs to know
                return Error(name + ": not a CUBE4 report (.cubex)");
            return Error(where + ": not a ustar header (archive corrupt)");
        }
        std::uint64_t checksum = 0;
        if (!parseNumber(header + 148, 8, checksum))
            return Error(where + ": bad checksum field");
        std::uint64_t sum = 0;
        for (std::size_t i = 0; i < kBlock; ++i)
            sum += (i >= 148 && i < 156) ? ' ' : header[i];
        if (sum != checksum)
            return Error(where + ": checksum mismatch (archive corrupt)");
        std::string prefix = fieldText(header + 345, 155);
        if (!prefix.empty())
            memberName = prefix + "/" + memberName;
        std::uint64_t size = 0;
        if (!parseNumber(header + 124, 12, size))
            return Error(where + ": member '" + memberName + "': bad size field");
        if (hasPaxSize)
            size = paxSize;
        if (paxPath)
            memberName = *paxPath;
        char type = static_cast<char>(header[156]);
        std::uint64_t dataStart = pos + kBlock;
        if (size > total - dataStart)
            return Error(name + ": member '" + memberName + "' needs " + std::to_string(size) +
                         " bytes but only " + std::to_string(total - dataStart) +
                         " remain (truncated archive)");
        std::uint64_t padded = (size + kBlock - 1) / kBlock * kBlock;
        if (type == 'x') {
            hasPaxSize = false;
            paxPath.reset();
            std::string_view records(reinterpret_cast<const char*>(data + dataStart),
                                     static_cast<std::size_t>(size));
            if (!parsePax(records, paxSize, hasPaxSize, paxPath))
                return Error(where + ": malformed pax header");
        } else {
            hasPaxSize = false;
            paxPath.reset();
            if (type == '0' || type == '\0') {
                if (memberName.rfind("./", 0) == 0)
                    memberName.erase(0, 2);
                if (!archive.m_members.emplace(memberName, TarMember{dataStart, size}).second)
                    return Error(name + ": member '" + memberName + "' appears twice");
            }
        }
        lastMember = memberName;
        pos = dataStart + std::min(padded, total - dataStart);
    }
    if (!sawEnd && pos != total)
        return Error(name + ": truncated archive: partial tar header at offset " +
                     std::to_string(pos));
    // Without the end-of-archive blocks, members may be missing: refuse rather than show a
    // report with silently absent data.
    if (!sawEnd)
        return Error(
            name + ": truncated archive: no end-of-archive blocks after " +
            (lastMember.empty() ? std::string("the start") : "member '" + lastMember + "'"));
    if (archive.m_members.empty())
        return Error(name + ": tar archive has no members");
    return archive;
}

const TarMember* TarArchive::find(std::string_view member) const {
    auto it = m_members.find(member);
    return it == m_members.end() ? nullptr : &it->second;
}

std::string_view TarArchive::bytes(const TarMember& member) const {
    return {reinterpret_cast<const char*>(m_file->data() + member.offset),
            static_cast<std::size_t>(member.size)};
}

namespace {

void writeOctal(char* field, std::size_t width, std::uint64_t value) {
    // width-1 octal digits, zero padded, then NUL.
    field[width - 1] = '\0';
    for (std::size_t i = width - 1; i-- > 0;) {
        field[i] = static_cast<char>('0' + (value & 7));
        value >>= 3;
    }
}

void appendBlock(std::string& out, const std::string& name, std::uint64_t size, char type,
                 std::int64_t mtime) {
    char header[kBlock];
    std::memset(header, 0, kBlock);
    std::memcpy(header, name.data(), std::min<std::size_t>(name.size(), 100));
    writeOctal(header + 100, 8, 0644);
    writeOctal(header + 108, 8, 0);
    writeOctal(header + 116, 8, 0);
    writeOctal(header + 124, 12, size < (std::uint64_t(1) << 33) ? size : 0);
    writeOctal(header + 136, 12, static_cast<std::uint64_t>(mtime < 0 ? 0 : mtime));
    std::memset(header + 148, ' ', 8);
    header[156] = type;
    std::memcpy(header + 257, "ustar", 6); // magic with NUL
    std::memcpy(header + 263, "00", 2);    // version
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < kBlock; ++i)
        sum += static_cast<unsigned char>(header[i]);
    writeOctal(header + 148, 7, sum);
    header[155] = ' ';
    out.append(header, kBlock);
}

} // namespace

void appendTarHeader(std::string& out, const std::string& name, std::uint64_t size,
                     std::int64_t mtime) {
    if (size >= (std::uint64_t(1) << 33)) {
        std::string record = " size=" + std::to_string(size) + "\n";
        // The record's length prefix counts itself.
        std::size_t length = record.size() + 1;
        while (std::to_string(length).size() + record.size() != length)
            ++length;
        record = std::to_string(length) + record;
        appendBlock(out, "PaxHeader/" + name, record.size(), 'x', mtime);
        out += record;
        appendTarPadding(out, record.size());
    }
    appendBlock(out, name, size, '0', mtime);
}

void appendTarPadding(std::string& out, std::uint64_t size) {
    std::uint64_t rest = size % kBlock;
    if (rest)
        out.append(static_cast<std::size_t>(kBlock - rest), '\0');
}

} // namespace waitscope::report::detail
