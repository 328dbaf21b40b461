// Writes a rank's definitions file without allocating (signal context), and parses it back.
#include "waitscope/measure/rank_definitions_file.h"

#include "field_reader.h"

#include <cerrno>
#include <cstring>
#include <unistd.h>

namespace waitscope::measure {

namespace {

constexpr char kMagic[8] = {'W', 'S', 'D', 'E', 'F', 'S', '0', '2'};
constexpr char kEnd[8] = {'W', 'S', 'D', 'E', 'F', 'E', 'N', 'D'};

/// Collects bytes in a stack buffer and writes them out when it fills. Signal-safe.
class FdWriter {
public:
    explicit FdWriter(int fd) : m_fd(fd) {}
    void bytes(const void* data, std::size_t n) {
        const char* p = static_cast<const char*>(data);
        while (n > 0 && m_ok) {
            std::size_t room = sizeof(m_buffer) - m_used;
            std::size_t take = n < room ? n : room;
            std::memcpy(m_buffer + m_used, p, take);
            m_used += take;
            p += take;
            n -= take;
            if (m_used == sizeof(m_buffer))
                flush();
        }
    }
    void u32(std::uint32_t v) { bytes(&v, 4); }
    void u64(std::uint64_t v) { bytes(&v, 8); }
    void string(const std::string& s) {
        u32(static_cast<std::uint32_t>(s.size()));
        bytes(s.data(), s.size());
    }
    bool finish() {
        flush();
        return m_ok;
    }

private:
    void flush() {
        const char* p = m_buffer;
        while (m_used > 0 && m_ok) {
            ssize_t w = ::write(m_fd, p, m_used);
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0) {
                if (w == 0)
                    errno = ENOSPC;
                m_ok = false;
                break;
            }
            p += w;
            m_used -= static_cast<std::size_t>(w);
        }
        m_used = 0;
    }
    int m_fd;
    bool m_ok = true;
    std::size_t m_used = 0;
    char m_buffer[4096];
};

/// The fields of regionKey(), checked: three strings and three numbers, nothing after them.
bool validRegionKey(const std::string& key) {
    FieldReader in(key);
    std::string s;
    std::uint32_t v = 0;
    return in.string(s) && in.string(s) && in.string(s) && in.u32(v) && in.u32(v) && in.u32(v) &&
           in.atEnd();
}

/// The fields of commDescription(), checked (empty: the rank does not describe the comm).
bool validCommDescription(const std::string& description, std::uint32_t worldSize) {
    if (description.empty())
        return true;
    FieldReader in(description);
    std::uint64_t parent = 0;
    std::string name;
    std::uint32_t n = 0;
    if (!in.u64(parent) || !in.string(name) || !in.count(n, 4))
        return false;
    for (std::uint32_t i = 0; i < n; ++i) {
        std::uint32_t member = 0;
        if (!in.u32(member) || member >= worldSize)
            return false;
    }
    return in.atEnd();
}

} // namespace

bool writeRankDefinitions(int fd, const RankIdentity& identity, const Definitions& defs) noexcept {
    FdWriter out(fd);
    out.bytes(kMagic, sizeof(kMagic));
    out.u32(identity.rank);
    out.u32(identity.size);
    out.u64(identity.ticksPerSecond);
    out.string(identity.host);
    out.string(identity.program);
    // Each region as regionKey() lays it out, behind the key's length.
    out.u32(static_cast<std::uint32_t>(defs.regions().size()));
    for (const RegionDefinition& r : defs.regions()) {
        std::uint32_t length = static_cast<std::uint32_t>(
            4 + r.name.size() + 4 + r.canonicalName.size() + 4 + r.file.size() + 12);
        out.u32(length);
        out.string(r.name);
        out.string(r.canonicalName);
        out.string(r.file);
        out.u32(r.beginLine);
        out.u32(r.endLine);
        out.u32(static_cast<std::uint32_t>(r.role) | (static_cast<std::uint32_t>(r.paradigm) << 8));
    }
    // Each communicator with commDescription()'s layout (empty when this rank does not hold it).
    out.u32(static_cast<std::uint32_t>(defs.comms().size()));
    for (const CommDefinition& c : defs.comms()) {
        out.u64(c.key);
        if (!c.describes) {
            out.u32(0);
            continue;
        }
        std::uint32_t length =
            static_cast<std::uint32_t>(8 + 4 + c.name.size() + 4 + 4 * c.members.size());
        out.u32(length);
        out.u64(c.parent);
        out.string(c.name);
        out.u32(static_cast<std::uint32_t>(c.members.size()));
        for (std::uint32_t m : c.members)
            out.u32(m);
    }
    out.u32(static_cast<std::uint32_t>(defs.callingContexts().size()));
    for (const CallingContextDefinition& c : defs.callingContexts()) {
        out.u32(c.region);
        out.u32(c.parent);
    }
    out.u32(static_cast<std::uint32_t>(defs.rmaWindows().size()));
    for (const RmaWindowDefinition& w : defs.rmaWindows()) {
        out.u64(w.comm);
        out.u32(w.sequence);
        out.string(w.name);
    }
    out.u32(static_cast<std::uint32_t>(defs.rmaGroups().size()));
    for (const std::vector<std::uint32_t>& g : defs.rmaGroups()) {
        out.u32(static_cast<std::uint32_t>(g.size()));
        for (std::uint32_t m : g)
            out.u32(m);
    }
    out.u32(static_cast<std::uint32_t>(defs.ioHandles().size()));
    for (const IoHandleDefinition& h : defs.ioHandles()) {
        out.u64(h.comm);
        out.string(h.file);
    }
    out.bytes(kEnd, sizeof(kEnd));
    return out.finish();
}

Result<RankDefinitionsFile> parseRankDefinitions(const std::string& bytes,
                                                 const std::string& where) {
    FieldReader in(bytes);
    auto damaged = [&](const char* what) {
        return Error(where + ": " + what + " at byte " + std::to_string(in.position()));
    };
    char magic[8] = {};
    if (!in.bytes(magic, sizeof(magic)) || std::memcmp(magic, kMagic, sizeof(kMagic)) != 0)
        return Error(where + ": not a Waitscope definitions file");
    RankDefinitionsFile file;
    RankIdentity& id = file.identity;
    if (!in.u32(id.rank) || !in.u32(id.size) || !in.u64(id.ticksPerSecond) || !in.string(id.host) ||
        !in.string(id.program))
        return damaged("truncated header");
    if (id.size == 0 || id.rank >= id.size)
        return damaged("rank out of range");
    if (id.ticksPerSecond == 0)
        return damaged("clock rate 0");
    std::uint32_t n = 0;
    if (!in.count(n, 4 + 24))
        return damaged("bad region count");
    for (std::uint32_t i = 0; i < n; ++i) {
        std::string key;
        if (!in.string(key) || !validRegionKey(key))
            return damaged("damaged region");
        file.defs.addRegion(regionFromKey(key));
    }
    if (!in.count(n, 12))
        return damaged("bad communicator count");
    for (std::uint32_t i = 0; i < n; ++i) {
        std::uint64_t key = 0;
        std::string description;
        if (!in.u64(key) || !in.string(description) || !validCommDescription(description, id.size))
            return damaged("damaged communicator");
        file.defs.addComm(commFromEntry(commKeyBytes(key), description));
    }
    const std::uint32_t regions = static_cast<std::uint32_t>(file.defs.regions().size());
    if (!in.count(n, 8))
        return damaged("bad calling-context count");
    for (std::uint32_t i = 0; i < n; ++i) {
        std::uint32_t region = 0, parent = 0;
        if (!in.u32(region) || !in.u32(parent))
            return damaged("truncated calling context");
        // A parent is defined before its children, so ids stay dense and in order.
        if (region >= regions || (parent != kNoContext && parent >= i))
            return damaged("calling context out of range");
        if (file.defs.callingContext(region, parent) != i)
            return damaged("calling context defined twice");
    }
    if (!in.count(n, 16))
        return damaged("bad window count");
    for (std::uint32_t i = 0; i < n; ++i) {
        RmaWindowDefinition window;
        if (!in.u64(window.comm) || !in.u32(window.sequence) || !in.string(window.name))
            return damaged("damaged window");
        file.defs.addRmaWindow(std::move(window));
    }
    if (!in.count(n, 4))
        return damaged("bad group count");
    for (std::uint32_t i = 0; i < n; ++i) {
        std::uint32_t members = 0;
        if (!in.count(members, 4))
            return damaged("bad group size");
        std::vector<std::uint32_t> group(members);
        for (std::uint32_t& m : group)
            if (!in.u32(m) || m >= id.size)
                return damaged("damaged group");
        if (file.defs.rmaGroup(group) != i)
            return damaged("group defined twice");
    }
    if (!in.count(n, 12))
        return damaged("bad I/O handle count");
    for (std::uint32_t i = 0; i < n; ++i) {
        std::uint64_t comm = 0;
        std::string name;
        if (!in.u64(comm) || !in.string(name))
            return damaged("damaged I/O handle");
        file.defs.addIoHandle(name, comm);
    }
    char end[8] = {};
    if (!in.bytes(end, sizeof(end)) || std::memcmp(end, kEnd, sizeof(kEnd)) != 0)
        return damaged("missing end marker");
    if (!in.atEnd())
        return damaged("trailing bytes");
    return file;
}

} // namespace waitscope::measure
