// Local definitions and the canonical byte encodings that unification compares.
#include "waitscope/measure/definitions.h"

#include "field_reader.h"

#include <algorithm>
#include <cstring>
#include <map>

namespace waitscope::measure {

namespace {

void putU32(std::string& out, std::uint32_t v) {
    out.append(reinterpret_cast<const char*>(&v), 4);
}
void putU64(std::string& out, std::uint64_t v) {
    out.append(reinterpret_cast<const char*>(&v), 8);
}
void putString(std::string& out, const std::string& s) {
    putU32(out, static_cast<std::uint32_t>(s.size()));
    out += s;
}

bool keyLess(const std::pair<std::string, std::string>& e, const std::string& key) {
    return e.first < key;
}

} // namespace

std::uint32_t Definitions::addRegion(RegionDefinition region) {
    m_regions.push_back(std::move(region));
    return static_cast<std::uint32_t>(m_regions.size() - 1);
}

void Definitions::setRegion(std::uint32_t id, RegionDefinition region) {
    if (id < m_regions.size())
        m_regions[id] = std::move(region);
}

std::uint32_t Definitions::addComm(CommDefinition comm) {
    m_comms.push_back(std::move(comm));
    return static_cast<std::uint32_t>(m_comms.size() - 1);
}

std::uint32_t Definitions::callingContext(std::uint32_t region, std::uint32_t parent) {
    std::uint64_t key = (static_cast<std::uint64_t>(parent) << 32) | region;
    auto it = m_contextIds.find(key);
    if (it != m_contextIds.end())
        return it->second;
    m_contexts.push_back({region, parent});
    std::uint32_t id = static_cast<std::uint32_t>(m_contexts.size() - 1);
    m_contextIds.emplace(key, id);
    return id;
}

std::uint32_t Definitions::addRmaWindow(RmaWindowDefinition window) {
    m_rmaWindows.push_back(std::move(window));
    return static_cast<std::uint32_t>(m_rmaWindows.size() - 1);
}

std::uint32_t Definitions::rmaGroup(const std::vector<std::uint32_t>& worldRanks) {
    // Programs use few distinct groups: a linear search is enough.
    for (std::size_t i = 0; i < m_rmaGroups.size(); ++i)
        if (m_rmaGroups[i] == worldRanks)
            return static_cast<std::uint32_t>(i);
    m_rmaGroups.push_back(worldRanks);
    return static_cast<std::uint32_t>(m_rmaGroups.size() - 1);
}

std::uint32_t Definitions::addIoHandle(const std::string& file, CommKey comm) {
    std::uint32_t sequence = 0;
    for (const IoHandleDefinition& h : m_ioHandles)
        sequence += h.comm == comm && h.file == file;
    m_ioHandles.push_back({file, comm, sequence});
    return static_cast<std::uint32_t>(m_ioHandles.size() - 1);
}

void DefinitionSet::add(std::string key, std::string value) {
    auto it = std::lower_bound(entries.begin(), entries.end(), key, keyLess);
    if (it != entries.end() && it->first == key) {
        if (it->second.empty())
            it->second = std::move(value);
        return;
    }
    entries.emplace(it, std::move(key), std::move(value));
}

void DefinitionSet::merge(const DefinitionSet& other) {
    std::vector<std::pair<std::string, std::string>> merged;
    merged.reserve(entries.size() + other.entries.size());
    auto a = entries.begin();
    auto b = other.entries.begin();
    while (a != entries.end() || b != other.entries.end()) {
        if (b == other.entries.end() || (a != entries.end() && a->first < b->first)) {
            merged.push_back(std::move(*a++));
        } else if (a == entries.end() || b->first < a->first) {
            merged.push_back(*b++);
        } else {
            merged.push_back(std::move(*a));
            if (merged.back().second.empty())
                merged.back().second = b->second;
            ++a;
            ++b;
        }
    }
    entries = std::move(merged);
}

long DefinitionSet::find(const std::string& key) const {
    auto it = std::lower_bound(entries.begin(), entries.end(), key, keyLess);
    if (it == entries.end() || it->first != key)
        return -1;
    return static_cast<long>(it - entries.begin());
}

std::string DefinitionSet::serialize() const {
    std::string out;
    putU64(out, entries.size());
    for (const auto& [key, value] : entries) {
        putString(out, key);
        putString(out, value);
    }
    return out;
}

bool DefinitionSet::deserialize(const std::string& bytes) {
    FieldReader in(bytes);
    std::uint64_t n = 0;
    if (!in.u64(n))
        return false;
    entries.clear();
    for (std::uint64_t i = 0; i < n; ++i) {
        std::string key, value;
        if (!in.string(key) || !in.string(value))
            return false;
        entries.emplace_back(std::move(key), std::move(value));
    }
    return in.atEnd() && std::is_sorted(entries.begin(), entries.end());
}

std::string regionKey(const RegionDefinition& region) {
    std::string out;
    putString(out, region.name);
    putString(out, region.canonicalName);
    putString(out, region.file);
    putU32(out, region.beginLine);
    putU32(out, region.endLine);
    putU32(out, static_cast<std::uint32_t>(region.role) |
                    (static_cast<std::uint32_t>(region.paradigm) << 8));
    return out;
}

RegionDefinition regionFromKey(const std::string& key) {
    RegionDefinition region;
    FieldReader in(key);
    std::uint32_t kinds = 0;
    in.string(region.name);
    in.string(region.canonicalName);
    in.string(region.file);
    in.u32(region.beginLine);
    in.u32(region.endLine);
    in.u32(kinds);
    region.role = static_cast<RegionRole>(kinds & 0xff);
    region.paradigm = static_cast<Paradigm>((kinds >> 8) & 0xff);
    return region;
}

std::string callingContextKey(const Definitions& defs, std::uint32_t context) {
    std::vector<std::uint32_t> path;
    const auto& contexts = defs.callingContexts();
    for (std::uint32_t c = context; c < contexts.size(); c = contexts[c].parent)
        path.push_back(contexts[c].region);
    std::string key;
    for (auto it = path.rbegin(); it != path.rend(); ++it)
        putString(key, regionKey(defs.regions()[*it]));
    return key;
}

std::vector<std::string> splitCallingContextKey(const std::string& key) {
    std::vector<std::string> parts;
    FieldReader reader(key);
    std::string part;
    while (!reader.atEnd() && reader.string(part))
        parts.push_back(part);
    return parts;
}

std::string commKeyBytes(CommKey key) {
    // Big-endian and shifted by 3, so bytes sort like numbers with the predefined
    // communicators (the three highest keys) first: world gets global id 0, self 1.
    CommKey shifted = key + 3;
    std::string out(8, '\0');
    for (int i = 0; i < 8; ++i)
        out[i] = static_cast<char>((shifted >> (56 - 8 * i)) & 0xff);
    return out;
}

std::string commDescription(const CommDefinition& comm) {
    if (!comm.describes)
        return {};
    std::string out;
    putU64(out, comm.parent);
    putString(out, comm.name);
    putU32(out, static_cast<std::uint32_t>(comm.members.size()));
    for (std::uint32_t m : comm.members)
        putU32(out, m);
    return out;
}

CommDefinition commFromEntry(const std::string& key, const std::string& description) {
    CommDefinition comm;
    comm.key = 0;
    for (int i = 0; i < 8 && i < static_cast<int>(key.size()); ++i)
        comm.key = (comm.key << 8) | static_cast<unsigned char>(key[i]);
    comm.key -= 3;
    FieldReader in(description);
    std::uint32_t n = 0;
    if (in.u64(comm.parent) && in.string(comm.name) && in.u32(n)) {
        comm.members.resize(n);
        for (std::uint32_t& m : comm.members)
            in.u32(m);
        comm.describes = true;
    }
    return comm;
}

std::vector<std::uint32_t> commIdsParentsFirst(const DefinitionSet& comms) {
    const std::uint32_t n = static_cast<std::uint32_t>(comms.entries.size());
    std::vector<CommDefinition> defs;
    std::map<CommKey, std::uint32_t> position;
    for (std::uint32_t i = 0; i < n; ++i) {
        defs.push_back(commFromEntry(comms.entries[i].first, comms.entries[i].second));
        position[defs.back().key] = i;
    }
    constexpr std::uint32_t kUnassigned = ~0u;
    std::vector<std::uint32_t> ids(n, kUnassigned);
    std::uint32_t next = 0;
    // Passes in unified order, each taking the communicators whose parent has its id already;
    // a parent that is missing or part of a cycle (damaged input) does not hold a child back.
    for (bool progress = true; progress && next < n;) {
        progress = false;
        for (std::uint32_t i = 0; i < n; ++i) {
            if (ids[i] != kUnassigned)
                continue;
            auto parent = position.find(defs[i].parent);
            if (parent != position.end() && parent->second != i &&
                ids[parent->second] == kUnassigned)
                continue;
            ids[i] = next++;
            progress = true;
        }
    }
    for (std::uint32_t& id : ids)
        if (id == kUnassigned)
            id = next++;
    return ids;
}

std::string rmaWindowKey(const RmaWindowDefinition& window) {
    std::string out = commKeyBytes(window.comm);
    for (int i = 0; i < 4; ++i)
        out += static_cast<char>((window.sequence >> (24 - 8 * i)) & 0xff);
    return out;
}

RmaWindowDefinition rmaWindowFromEntry(const std::string& key, const std::string& description) {
    RmaWindowDefinition window;
    window.comm = commFromEntry(key.substr(0, 8), {}).key;
    for (std::size_t i = 8; i < 12 && i < key.size(); ++i)
        window.sequence = (window.sequence << 8) | static_cast<unsigned char>(key[i]);
    window.name = description;
    return window;
}

std::string rmaGroupKey(const std::vector<std::uint32_t>& worldRanks) {
    std::string out;
    for (std::uint32_t m : worldRanks)
        putU32(out, m);
    return out;
}

std::vector<std::uint32_t> rmaGroupFromKey(const std::string& key) {
    std::vector<std::uint32_t> members(key.size() / 4);
    std::memcpy(members.data(), key.data(), members.size() * 4);
    return members;
}

std::string ioHandleKey(const IoHandleDefinition& handle) {
    std::string out = commKeyBytes(handle.comm);
    putString(out, handle.file);
    putU32(out, handle.sequence);
    return out;
}

IoHandleDefinition ioHandleFromKey(const std::string& key) {
    IoHandleDefinition handle;
    handle.comm = commFromEntry(key.substr(0, 8), {}).key;
    const std::string rest = key.substr(key.size() < 8 ? key.size() : 8); // outlives `in`
    FieldReader in(rest);
    in.string(handle.file);
    in.u32(handle.sequence);
    return handle;
}

} // namespace waitscope::measure
