// Building the timeline from the analysis's own read: each location's events become encoded
// visits per depth and message and collective ends as Timeline::load() reads them; at the end
// the ends are paired (the n-th send of a channel with its n-th receive) and the collectives
// merged across their members in the same order as there, so that the caches are the same bytes.
#include "timeline_collector.h"

#include "direct_file_writer.h"
#include "timeline_store.h"
#include "timeline_summary.h"
#include "waitscope/analysis/wait_instances.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <limits>
#include <memory>
#include <new>
#include <queue>
#include <sys/mman.h>
#include <sys/stat.h>
#include <tuple>
#include <unistd.h>

namespace waitscope::timeline {
namespace {

constexpr char kPartMagic[] = "waitscope timeline part 2\n";
constexpr uint32_t kPartRowsEnd = ~uint32_t{0}; // after the last row

// The partner's world rank, or the communicator rank itself where the definitions do not say.
uint32_t worldRank(const trace::Definitions& definitions, uint32_t comm, uint32_t partner,
                   uint32_t self) {
    const uint32_t world = definitions.worldRank(comm, partner, self);
    return world == trace::kUndefined ? partner : world;
}

// Reads and writes the part file; the first failure is kept.
class PartFile {
public:
    PartFile(const std::string& path, const char* mode)
        : m_file(std::fopen(path.c_str(), mode), &std::fclose) {}
    bool opened() const { return m_file != nullptr; }
    bool ok() const { return m_ok && m_file != nullptr && std::ferror(m_file.get()) == 0; }
    template <typename T> void put(const T& value) { write(&value, sizeof value); }
    template <typename T> void putVector(const std::vector<T>& values) {
        put(static_cast<uint64_t>(values.size()));
        write(values.data(), values.size() * sizeof(T));
    }
    template <typename T> T get() {
        T value{};
        read(&value, sizeof value);
        return value;
    }
    template <typename T> void getVector(std::vector<T>& values) {
        const auto count = get<uint64_t>();
        if (!m_ok || count > (uint64_t{1} << 40) / sizeof(T)) {
            m_ok = false;
            return;
        }
        values.resize(count);
        read(values.data(), count * sizeof(T));
    }
    void write(const void* data, size_t bytes) {
        if (m_ok && bytes > 0 && std::fwrite(data, 1, bytes, m_file.get()) != bytes) {
            m_ok = false;
        }
    }
    void fail() { m_ok = false; }
    /// Where the next read starts.
    uint64_t tell() {
        const long at = m_ok ? std::ftell(m_file.get()) : -1;
        m_ok = m_ok && at >= 0;
        return m_ok ? static_cast<uint64_t>(at) : 0;
    }
    /// Passes over `bytes` (read elsewhere).
    void skip(uint64_t bytes) {
        m_ok = m_ok && bytes <= static_cast<uint64_t>(std::numeric_limits<long>::max()) &&
               std::fseek(m_file.get(), static_cast<long>(bytes), SEEK_CUR) == 0;
    }
    void read(void* data, size_t bytes) {
        if (m_ok && bytes > 0 && std::fread(data, 1, bytes, m_file.get()) != bytes) {
            m_ok = false;
        }
    }
    bool close() {
        const bool closed = std::fclose(m_file.release()) == 0;
        return closed && m_ok;
    }

private:
    std::unique_ptr<FILE, int (*)(FILE*)> m_file;
    bool m_ok = true;
};

// A block of `bytes`; of 2 MiB or more on huge pages where the system has them (a page fault
// per 2 MiB rather than per 4 KiB as the records fill it).
TimelineCollectorBlock allocateBlock(uint64_t bytes) {
    constexpr uint64_t kHuge = uint64_t{2} << 20;
    if (bytes < kHuge) {
        auto* block = static_cast<char*>(std::malloc(bytes));
        if (block == nullptr) {
            throw std::bad_alloc();
        }
        return TimelineCollectorBlock(block);
    }
    // A mapping of its own, 2 MiB-aligned (the ends beyond trimmed).
    const uint64_t rounded = (bytes + kHuge - 1) / kHuge * kHuge;
    void* mapped = ::mmap(nullptr, rounded + kHuge, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) {
        throw std::bad_alloc();
    }
    const auto at = reinterpret_cast<uintptr_t>(mapped);
    const uintptr_t aligned = (at + kHuge - 1) / kHuge * kHuge;
    if (aligned > at) {
        ::munmap(mapped, aligned - at);
    }
    auto* block = static_cast<char*>(mapped) + (aligned - at);
    ::munmap(block + rounded, at + kHuge - aligned); // aligned < at + kHuge: a tail is left
#ifdef MADV_HUGEPAGE
    (void)::madvise(block, rounded, MADV_HUGEPAGE);
#endif
    return TimelineCollectorBlock(block, FreeBlock{rounded});
}

// Asks for huge pages under the 2 MiB-aligned part of [data, data + bytes), memory not touched
// yet (a vector just reserved): fewer page faults as it fills.
void preferHugePages(const void* data, size_t bytes) {
#ifdef MADV_HUGEPAGE
    constexpr uintptr_t kHuge = uintptr_t{2} << 20;
    const auto from = (reinterpret_cast<uintptr_t>(data) + kHuge - 1) / kHuge * kHuge;
    const auto to = (reinterpret_cast<uintptr_t>(data) + bytes) / kHuge * kHuge;
    if (data != nullptr && to > from) {
        char* first = const_cast<char*>(static_cast<const char*>(data)) +
                      (from - reinterpret_cast<uintptr_t>(data));
        (void)::madvise(first, to - from, MADV_HUGEPAGE);
    }
#else
    (void)data;
    (void)bytes;
#endif
}

// The messages by send time, ties in their order in `messages` (a stable sort, as
// Timeline::load() orders them): a merge of its runs already in order (each channel's sends).
void orderBySendTime(std::vector<Message>& messages) {
    std::vector<size_t> runs{0};
    for (size_t k = 1; k < messages.size(); ++k) {
        if (messages[k].sendTime < messages[k - 1].sendTime) {
            runs.push_back(k);
        }
    }
    if (runs.size() == 1) {
        return;
    }
    if (runs.size() > messages.size() / 16) {
        std::stable_sort(messages.begin(), messages.end(), [](const Message& a, const Message& b) {
            return a.sendTime < b.sendTime;
        });
        return;
    }
    runs.push_back(messages.size());
    // A heap of the runs' heads: the least time first, on ties the earlier run.
    using Head = std::pair<double, size_t>; // time, run
    std::vector<size_t> at(runs.begin(), runs.end() - 1);
    std::priority_queue<Head, std::vector<Head>, std::greater<>> heads;
    for (size_t run = 0; run + 1 < runs.size(); ++run) {
        heads.emplace(messages[runs[run]].sendTime, run);
    }
    std::vector<Message> merged;
    merged.reserve(messages.size());
    while (!heads.empty()) {
        const size_t run = heads.top().second;
        heads.pop();
        merged.push_back(messages[at[run]]);
        if (++at[run] < runs[run + 1]) {
            heads.emplace(messages[at[run]].sendTime, run);
        }
    }
    messages = std::move(merged);
}

} // namespace

void FreeBlock::operator()(char* block) const {
    if (borrowed) {
        return;
    }
    if (mapped > 0) {
        ::munmap(block, mapped);
    } else {
        std::free(block);
    }
}

std::vector<std::pair<const char*, uint64_t>> TimelineCollector::RecordBlocks::pieces() const {
    std::vector<std::pair<const char*, uint64_t>> out;
    for (size_t b = 0; b < m_blocks.size(); ++b) {
        const uint64_t used = b + 1 == m_blocks.size() ? m_counts[b] - m_left : m_counts[b];
        if (used > 0) {
            out.emplace_back(m_blocks[b].get(), used);
        }
    }
    return out;
}

void TimelineCollector::RecordBlocks::grow() {
    // 16 KiB, 64 KiB, 256 KiB, then 2 MiB and 4 MiB blocks on huge pages.
    constexpr uint64_t kFirstBytes = uint64_t{16} << 10;
    constexpr uint64_t kLargestBytes = uint64_t{4} << 20;
    const uint64_t last = m_counts.empty() ? 0 : m_counts.back() * m_recordBytes;
    const uint64_t bytes = last == 0                      ? kFirstBytes
                           : last < (uint64_t{256} << 10) ? 4 * last
                           : last < (uint64_t{2} << 20)   ? uint64_t{2} << 20
                                                          : kLargestBytes;
    const uint64_t records = std::max<uint64_t>(1, bytes / m_recordBytes);
    m_blocks.push_back(allocateBlock(records * m_recordBytes));
    m_counts.push_back(records);
    m_at = m_blocks.back().get();
    m_left = records;
}

char* TimelineCollector::RecordBlocks::appendRoom(uint64_t count) {
    if (count == 0) {
        return nullptr;
    }
    // The current block's rest stays unused.
    if (!m_counts.empty()) {
        m_counts.back() -= m_left;
    }
    m_blocks.push_back(allocateBlock(count * m_recordBytes));
    m_counts.push_back(count);
    m_at = m_blocks.back().get() + count * m_recordBytes;
    m_left = 0;
    m_count += count;
    return m_blocks.back().get();
}

void TimelineCollector::RecordBlocks::appendView(const char* records, uint64_t count) {
    if (count == 0) {
        return;
    }
    if (!m_counts.empty()) {
        m_counts.back() -= m_left;
    }
    // Never written through: the records are only read (pieces()) and written out.
    m_blocks.emplace_back(const_cast<char*>(records), FreeBlock{0, true});
    m_counts.push_back(count);
    m_at = nullptr;
    m_left = 0;
    m_count += count;
}

template <typename End>
TimelineCollector::RecordBlocks& TimelineCollector::Channels<End>::of(uint32_t partner,
                                                                      uint32_t comm, uint32_t tag) {
    constexpr size_t kLinear = 16; // channels searched one by one; more are hashed
    const auto matches = [&](uint32_t k) {
        const ChannelEnds<End>& c = list[k];
        return c.partner == partner && c.comm == comm && c.tag == tag;
    };
    if (last < list.size() && matches(last)) {
        return list[last].ends;
    }
    const uint64_t key = ((uint64_t{partner} << 32 | comm) * 0x9E3779B97F4A7C15ull) ^ tag;
    if (list.size() <= kLinear) {
        for (uint32_t k = 0; k < list.size(); ++k) {
            if (matches(k)) {
                last = k;
                return list[k].ends;
            }
        }
    } else if (const auto found = byHash.find(key); found != byHash.end()) {
        for (const uint32_t k : found->second) {
            if (matches(k)) {
                last = k;
                return list[k].ends;
            }
        }
    }
    list.push_back({partner, comm, tag, RecordBlocks(sizeof(End))});
    last = static_cast<uint32_t>(list.size() - 1);
    if (list.size() == kLinear + 1) {
        for (uint32_t k = 0; k < list.size(); ++k) {
            const ChannelEnds<End>& c = list[k];
            byHash[((uint64_t{c.partner} << 32 | c.comm) * 0x9E3779B97F4A7C15ull) ^ c.tag]
                .push_back(k);
        }
    } else if (list.size() > kLinear + 1) {
        byHash[key].push_back(last);
    }
    return list[last].ends;
}

void TimelineCollector::makeRows(const trace::Definitions& definitions) {
    for (uint32_t rank = 0; rank < definitions.rankCount(); ++rank) {
        const std::vector<const trace::Location*> locations = definitions.locationsOfRank(rank);
        for (uint32_t t = 0; t < locations.size(); ++t) {
            m_rowOfLocation.emplace(locations[t]->id, static_cast<uint32_t>(m_rows.size()));
            RowData& row = m_rows.emplace_back();
            row.rank = rank;
            row.thread = t;
        }
    }
}

void TimelineCollector::observe(const trace::Definitions& definitions,
                                const trace::Location& location, const trace::EventStream& events,
                                size_t first, size_t last) {
    std::call_once(m_rowsMade, [&] { makeRows(definitions); });
    const auto found = m_rowOfLocation.find(location.id);
    if (found == m_rowOfLocation.end()) {
        return;
    }
    RowData& row = m_rows[found->second];
    row.seen = true;
    row.events += last - first;
    if (first == last) {
        return;
    }
    // The loop's state in locals: the records are written through char pointers, after which
    // the compiler would load every field of the row again.
    const bool main = row.thread == 0;
    const uint32_t self = row.rank;
    const uint64_t globalOffset = definitions.clock.globalOffset;
    const auto ticksPerSecond = static_cast<double>(definitions.clock.ticksPerSecond);
    // The window's first and last time in ticks since the offset, converted once at the end:
    // the conversion keeps the order, and a division per event costs more than the rest.
    auto earliest = std::numeric_limits<int64_t>::max();
    auto latest = std::numeric_limits<int64_t>::min();
    analysis::VisitStack open = std::move(row.open);
    const auto addVisit = [&row, &definitions](size_t depth, uint64_t from, uint64_t to,
                                               uint32_t region) {
        while (row.depths.size() <= depth) {
            row.depths.emplace_back(TimelineStore::kVisitBytes);
        }
        const double start = definitions.seconds(from);
        const double stop = definitions.seconds(to);
        char* out = row.depths[depth].next();
        std::memcpy(out, &start, 8);
        std::memcpy(out + 8, &stop, 8);
        std::memcpy(out + 16, &region, 4);
    };
    double collectiveBegin = row.collectiveBegin;
    // The last message's communicator and partner, and the partner's world rank.
    bool anyMessage = false;
    uint32_t lastComm = 0;
    uint32_t lastPartner = 0;
    uint32_t lastWorld = 0;
    const auto worldOf = [&](const trace::MessageRecord& m) {
        if (!anyMessage || m.comm != lastComm || m.partner != lastPartner) {
            anyMessage = true;
            lastComm = m.comm;
            lastPartner = m.partner;
            lastWorld = worldRank(definitions, m.comm, m.partner, self);
        }
        return lastWorld;
    };
    for (size_t e = first; e < last; ++e) {
        const auto ticks = static_cast<int64_t>(events.time(e) - globalOffset);
        earliest = std::min(earliest, ticks);
        latest = std::max(latest, ticks);
        if (open.apply(definitions, events, e, addVisit)) {
            continue;
        }
        // As Definitions::seconds() converts; only where a time is kept.
        const auto seconds = [ticks, ticksPerSecond] {
            return static_cast<double>(ticks) / ticksPerSecond;
        };
        switch (events.kind(e)) {
        case trace::EventKind::MpiCollectiveBegin:
            collectiveBegin = seconds();
            break;
        case trace::EventKind::MpiCollectiveEnd: {
            const trace::CollectiveRecord& c = events.collective(e);
            if (!main || (c.comm < definitions.communicators.size() &&
                          definitions.communicators[c.comm].isSelf)) {
                break;
            }
            row.collectives.push_back(
                {c.comm, open.innermost(), row.sequence[c.comm]++, collectiveBegin, seconds()});
            break;
        }
        case trace::EventKind::MpiSend:
        case trace::EventKind::MpiIsend: {
            const trace::MessageRecord m = events.message(e);
            row.sends.add(worldOf(m), m.comm, m.tag, SendEnd{seconds(), m.length});
            break;
        }
        case trace::EventKind::MpiRecv:
        case trace::EventKind::MpiIrecv: {
            const trace::MessageRecord m = events.message(e);
            row.receives.add(worldOf(m), m.comm, m.tag, seconds());
            break;
        }
        default:
            break;
        }
    }
    row.open = std::move(open);
    row.collectiveBegin = collectiveBegin;
    const double begin = static_cast<double>(earliest) / ticksPerSecond;
    const double end = static_cast<double>(latest) / ticksPerSecond;
    row.begin = row.anyTime ? std::min(row.begin, begin) : begin;
    row.end = row.anyTime ? std::max(row.end, end) : end;
    row.anyTime = true;
}

bool TimelineCollector::complete() const {
    return !m_rows.empty() &&
           std::all_of(m_rows.begin(), m_rows.end(), [](const RowData& row) { return row.seen; });
}

TimelineCollector::Span TimelineCollector::span() const {
    Span out;
    for (const RowData& row : m_rows) {
        if (row.seen && row.anyTime) {
            out.begin = out.any ? std::min(out.begin, row.begin) : row.begin;
            out.end = out.any ? std::max(out.end, row.end) : row.end;
            out.any = true;
        }
    }
    return out;
}

Status TimelineCollector::savePart(const std::string& path, const trace::Definitions& definitions,
                                   const Span& run) const {
    PartFile out(path, "wb");
    if (!out.opened()) {
        return Error(path + ": cannot write");
    }
    // The overview's bins are summed over the whole run, as write() sums them.
    Timeline regions;
    for (const trace::Region& region : definitions.regions) {
        regions.addRegion(region.name, kindOfRegion(region));
    }
    regions.setRange(run.any ? run.begin : 0.0, run.any ? run.end : 0.0);
    out.write(kPartMagic, sizeof(kPartMagic) - 1);
    out.put(static_cast<uint32_t>(m_rows.size()));
    const auto putChannels = [&out](const auto& channels) {
        out.put(static_cast<uint64_t>(channels.list.size()));
        for (const auto& channel : channels.list) {
            out.put(channel.partner);
            out.put(channel.comm);
            out.put(channel.tag);
            out.put(channel.ends.count());
            for (const auto& [records, count] : channel.ends.pieces()) {
                out.write(records, count * channel.ends.recordBytes());
            }
        }
    };
    std::vector<EncodedVisits> depths;
    for (uint32_t r = 0; r < m_rows.size(); ++r) {
        const RowData& row = m_rows[r];
        if (!row.seen) {
            continue;
        }
        out.put(r);
        out.put(static_cast<uint8_t>(row.anyTime));
        out.put(row.begin);
        out.put(row.end);
        out.put(row.events);
        out.put(static_cast<uint32_t>(row.depths.size()));
        depths.clear();
        for (const RecordBlocks& depth : row.depths) {
            out.put(depth.count());
            depths.push_back({depth.pieces(), depth.count()});
        }
        putChannels(row.sends);
        putChannels(row.receives);
        out.putVector(row.collectives);
        out.putVector(TimelineSummary::rowFromRecords(regions, depths));
    }
    out.put(kPartRowsEnd);
    if (!out.close()) {
        std::error_code ignored;
        std::filesystem::remove(path, ignored);
        return Error(path + ": cannot write");
    }
    return Status::success();
}

Status TimelineCollector::loadPart(const std::string& path) {
    PartFile in(path, "rb");
    if (!in.opened()) {
        return Error(path + ": cannot open");
    }
    char magic[sizeof(kPartMagic) - 1];
    in.read(magic, sizeof magic);
    const auto rows = in.get<uint32_t>();
    const auto damaged = [&path] { return Error(path + ": not a timeline part (damaged)"); };
    if (!in.ok() || std::memcmp(magic, kPartMagic, sizeof magic) != 0 || rows != m_rows.size() ||
        m_rows.empty()) {
        return damaged();
    }
    // The file mapped, so that the ends stay in the page cache's pages the other process filled
    // (no fresh memory to zero, nothing copied); read into blocks of their own where it cannot
    // be mapped.
    const char* mapped = nullptr;
    uint64_t mappedBytes = 0;
    if (const int file = ::open(path.c_str(), O_RDONLY | O_CLOEXEC); file >= 0) {
        struct stat status {};
        if (::fstat(file, &status) == 0 && status.st_size > 0) {
            void* at = ::mmap(nullptr, static_cast<size_t>(status.st_size), PROT_READ, MAP_PRIVATE,
                              file, 0);
            if (at != MAP_FAILED) {
                mappedBytes = static_cast<uint64_t>(status.st_size);
                m_partFiles.emplace_back(static_cast<char*>(at), FreeBlock{mappedBytes});
                mapped = static_cast<const char*>(at);
            }
        }
        ::close(file);
    }
    const auto getChannels = [&in, mapped, mappedBytes](auto& channels, size_t endBytes) {
        const auto count = in.get<uint64_t>();
        for (uint64_t k = 0; k < count && in.ok(); ++k) {
            const auto partner = in.get<uint32_t>();
            const auto comm = in.get<uint32_t>();
            const auto tag = in.get<uint32_t>();
            const auto ends = in.get<uint64_t>();
            if (!in.ok() || ends > (uint64_t{1} << 40) / endBytes) {
                in.fail();
                return;
            }
            if (mapped == nullptr) {
                // Read straight into the block that keeps them.
                in.read(channels.of(partner, comm, tag).appendRoom(ends), ends * endBytes);
                continue;
            }
            const uint64_t at = in.tell();
            if (!in.ok() || at > mappedBytes || ends * endBytes > mappedBytes - at) {
                in.fail(); // the file ends before its ends do
                return;
            }
            channels.of(partner, comm, tag).appendView(mapped + at, ends);
            in.skip(ends * endBytes);
        }
    };
    for (;;) {
        const auto r = in.get<uint32_t>();
        if (!in.ok()) {
            return damaged();
        }
        if (r == kPartRowsEnd) {
            break;
        }
        if (r >= m_rows.size() || m_rows[r].seen) {
            return damaged();
        }
        RowData& row = m_rows[r];
        row.anyTime = in.get<uint8_t>() != 0;
        row.begin = in.get<double>();
        row.end = in.get<double>();
        row.events = in.get<uint64_t>();
        const auto depths = in.get<uint32_t>();
        if (!in.ok() || depths > (1u << 16)) {
            return damaged();
        }
        row.partCounts.resize(depths);
        for (uint32_t d = 0; d < depths && in.ok(); ++d) {
            row.partCounts[d] = in.get<uint64_t>();
            if (row.partCounts[d] > (uint64_t{1} << 40) / TimelineStore::kVisitBytes) {
                return damaged();
            }
        }
        getChannels(row.sends, sizeof(SendEnd));
        getChannels(row.receives, sizeof(double));
        in.getVector(row.collectives);
        in.getVector(row.bins);
        if (!in.ok() || row.bins.size() != TimelineSummary::kFinest) {
            return damaged();
        }
        row.seen = true;
        row.fromPart = true;
    }
    // Nothing after the rows.
    (void)in.get<uint8_t>();
    if (in.ok()) {
        return damaged();
    }
    return Status::success();
}

double TimelineCollector::asStored(double seconds) {
    // The nearest multiple of 1e-9 to the exact value of `seconds` (ties to even, as printf
    // rounds), then the double nearest to it (as from_chars reads it): x * 1e9 = p + error
    // exactly, and the rounding of p is corrected where the error crosses a half.
    if (!std::isfinite(seconds) || std::abs(seconds) >= 4e6) {
        char text[64];
        std::snprintf(text, sizeof text, "%.9f", seconds);
        return std::strtod(text, nullptr);
    }
    const double p = seconds * 1e9;
    const double error = std::fma(seconds, 1e9, -p);
    double n = std::nearbyint(p);
    const double fraction = p - n; // exact
    if (fraction == 0.5 && error > 0.0) {
        n += 1.0;
    } else if (fraction == -0.5 && error < 0.0) {
        n -= 1.0;
    }
    return n / 1e9;
}

Status TimelineCollector::writeVisitsInto(const std::string& cache,
                                          const std::vector<uint64_t>& rowStarts) {
    if (::access(cache.c_str(), W_OK) != 0) {
        return Error(cache + ": cannot open");
    }
    bool ok = rowStarts.size() == m_rows.size();
    for (uint32_t r = 0; ok && r < m_rows.size(); ++r) {
        if (!m_rows[r].seen || m_rows[r].fromPart) {
            continue;
        }
        // Past the page cache as the process that wrote the rest (DirectFileWriter); the pages
        // the row shares with its neighbours' visits are written with its own bytes only.
        DirectFileWriter out(cache, false, rowStarts[r]);
        if (!out.opened()) {
            return Error(cache + ": cannot open");
        }
        for (RecordBlocks& depth : m_rows[r].depths) {
            for (const auto& [records, count] : depth.pieces()) {
                out.write(records, count * TimelineStore::kVisitBytes);
            }
            depth.release();
        }
        ok = out.close() && ok;
    }
    return ok ? Status::success() : Error(cache + ": cannot write");
}

bool TimelineCollector::awaitsOtherRows() const {
    return std::any_of(m_rows.begin(), m_rows.end(),
                       [](const RowData& row) { return row.fromPart; });
}

std::string TimelineCollector::partialCacheOf(const std::string& anchor) {
    return TimelineStore::partialPath(
        (std::filesystem::path(anchor).parent_path() / TimelineStore::kCacheFile).string());
}

Status TimelineCollector::publish(const std::string& anchor) {
    const std::string partial = partialCacheOf(anchor);
    const std::string cache =
        (std::filesystem::path(anchor).parent_path() / TimelineStore::kCacheFile).string();
    std::error_code failed;
    std::filesystem::rename(partial, cache, failed);
    if (failed) {
        return Error(partial + ": cannot rename to " + cache + ": " + failed.message());
    }
    return Status::success();
}

Status TimelineCollector::write(const std::string& anchor, const trace::Definitions& definitions,
                                const std::vector<analysis::PatternInstance>& instances,
                                std::vector<uint64_t>* rowStarts) {
    namespace fs = std::filesystem;
    if (!complete()) {
        return Error(anchor + ": the timeline's caches need every location's events");
    }
    Timeline timeline;
    timeline.setAnchor(anchor);
    for (const trace::Region& region : definitions.regions) {
        timeline.addRegion(region.name, kindOfRegion(region));
    }
    // Rows, the range and the events as Timeline::load() reads them.
    bool anyTime = false;
    double begin = 0.0;
    double end = 0.0;
    uint64_t events = 0;
    std::vector<std::vector<TimelineStore::EncodedVisits>> visits(m_rows.size());
    std::vector<const Bin*> given(m_rows.size(), nullptr);
    for (uint32_t r = 0; r < m_rows.size(); ++r) {
        const RowData& data = m_rows[r];
        const std::vector<const trace::Location*> locations =
            definitions.locationsOfRank(data.rank);
        const trace::Location& location = *locations.at(data.thread);
        Row row{data.rank, data.thread, location.name, {}, {}};
        if (location.group < definitions.locationGroups.size()) {
            const uint32_t node = definitions.locationGroups[location.group].systemTreeParent;
            if (node < definitions.systemTreeNodes.size()) {
                row.node = definitions.systemTreeNodes[node].name;
            }
        }
        if (data.fromPart) {
            // Taken from a part: its process writes the visits, the bins are given.
            row.depths.resize(data.partCounts.size());
            for (const uint64_t count : data.partCounts) {
                visits[r].push_back({{}, count, true});
            }
            given[r] = data.bins.data();
        } else {
            row.depths.resize(data.depths.size());
            for (const RecordBlocks& depth : data.depths) {
                visits[r].push_back({depth.pieces(), depth.count()});
            }
        }
        timeline.addRow(std::move(row));
        if (data.anyTime) {
            begin = anyTime ? std::min(begin, data.begin) : data.begin;
            end = anyTime ? std::max(end, data.end) : data.end;
            anyTime = true;
        }
        events += data.events;
    }
    timeline.setRange(begin, end);
    timeline.setEvents(events);

    // Messages: the n-th send of a channel (sender, receiver, communicator, tag) with its n-th
    // receive, channels in order (a channel's ends on several rows of a rank in row order),
    // then by send time.
    using Channel = std::tuple<uint32_t, uint32_t, uint32_t, uint32_t>;
    struct Side {
        Channel channel;
        uint32_t row;
        const RecordBlocks* ends;
    };
    std::vector<Side> sendSides;
    std::vector<Side> receiveSides;
    uint64_t sent = 0;
    for (uint32_t r = 0; r < m_rows.size(); ++r) {
        const RowData& row = m_rows[r];
        for (const ChannelEnds<SendEnd>& c : row.sends.list) {
            sendSides.push_back({{row.rank, c.partner, c.comm, c.tag}, r, &c.ends});
            sent += c.ends.count();
        }
        for (const ChannelEnds<double>& c : row.receives.list) {
            receiveSides.push_back({{c.partner, row.rank, c.comm, c.tag}, r, &c.ends});
        }
    }
    const auto byChannel = [](const Side& a, const Side& b) { return a.channel < b.channel; };
    std::stable_sort(sendSides.begin(), sendSides.end(), byChannel);
    std::stable_sort(receiveSides.begin(), receiveSides.end(), byChannel);
    // A channel's ends on its sides one after the other: (records, count, row) pieces.
    struct Piece {
        const char* records;
        uint64_t count;
        uint32_t row;
    };
    const auto piecesOf = [](const std::vector<Side>& sides, size_t from, size_t to) {
        std::vector<Piece> pieces;
        for (size_t k = from; k < to; ++k) {
            for (const auto& [records, count] : sides[k].ends->pieces()) {
                pieces.push_back({records, count, sides[k].row});
            }
        }
        return pieces;
    };
    // Per channel in order: its ends, paired one after the other.
    struct ChannelPairs {
        std::vector<Piece> sends;
        std::vector<Piece> receives;
        size_t send = 0;
        uint64_t sendAt = 0;
        size_t receive = 0;
        uint64_t receiveAt = 0;
        uint64_t left = 0; ///< messages not taken yet

        double nextSendTime() const {
            double time = 0.0;
            std::memcpy(&time, sends[send].records + sendAt * sizeof(SendEnd), sizeof time);
            return time;
        }
        Message take() {
            SendEnd out;
            std::memcpy(&out, sends[send].records + sendAt * sizeof(SendEnd), sizeof out);
            double in = 0.0;
            std::memcpy(&in, receives[receive].records + receiveAt * sizeof(double), sizeof in);
            const Message message{sends[send].row, receives[receive].row, out.time, in, out.bytes};
            --left;
            if (++sendAt == sends[send].count) {
                ++send;
                sendAt = 0;
            }
            if (++receiveAt == receives[receive].count) {
                ++receive;
                receiveAt = 0;
            }
            return message;
        }
    };
    std::vector<ChannelPairs> channels;
    uint64_t paired = 0;
    bool inOrder = true; // every channel's sends by time
    for (size_t s = 0, v = 0; s < sendSides.size() && v < receiveSides.size();) {
        const Channel channel = std::min(sendSides[s].channel, receiveSides[v].channel);
        size_t sendEnd = s;
        while (sendEnd < sendSides.size() && sendSides[sendEnd].channel == channel) {
            ++sendEnd;
        }
        size_t receiveEnd = v;
        while (receiveEnd < receiveSides.size() && receiveSides[receiveEnd].channel == channel) {
            ++receiveEnd;
        }
        ChannelPairs pairs{piecesOf(sendSides, s, sendEnd), piecesOf(receiveSides, v, receiveEnd)};
        uint64_t sends = 0;
        uint64_t receives = 0;
        for (const Piece& piece : pairs.sends) {
            sends += piece.count;
        }
        for (const Piece& piece : pairs.receives) {
            receives += piece.count;
        }
        pairs.left = std::min(sends, receives);
        // Empty pieces skipped up front (take() never leaves the cursor on one).
        pairs.sends.erase(std::remove_if(pairs.sends.begin(), pairs.sends.end(),
                                         [](const Piece& p) { return p.count == 0; }),
                          pairs.sends.end());
        pairs.receives.erase(std::remove_if(pairs.receives.begin(), pairs.receives.end(),
                                            [](const Piece& p) { return p.count == 0; }),
                             pairs.receives.end());
        if (pairs.left > 0) {
            double previous = -std::numeric_limits<double>::infinity();
            uint64_t checked = 0;
            for (const Piece& piece : pairs.sends) {
                for (uint64_t k = 0; k < piece.count && checked < pairs.left; ++k, ++checked) {
                    double time = 0.0;
                    std::memcpy(&time, piece.records + k * sizeof(SendEnd), sizeof time);
                    inOrder = inOrder && !(time < previous);
                    previous = time;
                }
            }
            paired += pairs.left;
            channels.push_back(std::move(pairs));
        }
        s = sendEnd;
        v = receiveEnd;
    }
    // A merge of the channels by send time, ties to the earlier channel: what a stable sort of
    // the messages in channel order by send time gives. Merged as the cache is written, not
    // held; when a channel's sends are out of time order, collected and sorted instead.
    using Head = std::pair<double, size_t>; // send time, channel
    std::priority_queue<Head, std::vector<Head>, std::greater<>> heads;
    TimelineStore::MessageSource merged;
    if (inOrder) {
        for (size_t c = 0; c < channels.size(); ++c) {
            heads.emplace(channels[c].nextSendTime(), c);
        }
        merged = [&heads, &channels](Message& next) {
            if (heads.empty()) {
                return false;
            }
            const size_t c = heads.top().second;
            heads.pop();
            next = channels[c].take();
            if (channels[c].left > 0) {
                heads.emplace(channels[c].nextSendTime(), c);
            }
            return true;
        };
    } else {
        std::vector<Message> messages;
        messages.reserve(paired);
        preferHugePages(messages.data(), paired * sizeof(Message));
        for (ChannelPairs& pairs : channels) {
            while (pairs.left > 0) {
                messages.push_back(pairs.take());
            }
        }
        orderBySendTime(messages);
        std::vector<ChannelPairs>().swap(channels);
        timeline.setMessages(std::move(messages));
    }

    // Collectives by (communicator, sequence number on it), in the order first seen: per
    // communicator a table by sequence number (a row's are 0, 1, ... on each).
    constexpr size_t kUnseen = ~size_t{0};
    std::vector<Collective> collectives;
    std::unordered_map<uint32_t, std::vector<size_t>> collectiveOf;
    for (uint32_t r = 0; r < m_rows.size(); ++r) {
        for (const CollectiveEnd& c : m_rows[r].collectives) {
            std::vector<size_t>& bySequence = collectiveOf[c.comm];
            if (c.sequence >= m_rows[r].collectives.size()) {
                continue; // not a row's count (a damaged part): no member of any
            }
            if (bySequence.size() <= c.sequence) {
                bySequence.resize(c.sequence + 1, kUnseen);
            }
            size_t& at = bySequence[c.sequence];
            if (at == kUnseen) {
                at = collectives.size();
                collectives.push_back({c.begin, c.begin, c.end, c.region, {}});
            }
            Collective& collective = collectives[at];
            collective.start = std::min(collective.start, c.begin);
            collective.lastBegin = std::max(collective.lastBegin, c.begin);
            collective.end = std::max(collective.end, c.end);
            collective.rows.push_back(r);
        }
    }
    for (Collective& collective : collectives) {
        std::sort(collective.rows.begin(), collective.rows.end());
        if (collective.region >= definitions.regions.size()) {
            collective.region = 0;
        }
    }
    std::stable_sort(collectives.begin(), collectives.end(),
                     [](const Collective& a, const Collective& b) { return a.start < b.start; });
    for (Collective& collective : collectives) {
        timeline.addCollective(std::move(collective));
    }

    // The overview first (from the visits, which go once written). Its waiting time from the
    // instances as the GUI reads them: instances.bin, written before the caches (read a block
    // at a time, not copied); without it (a caller that wrote none) the instances given, exact.
    const fs::path dir = fs::path(anchor).parent_path();
    const fs::path indexed = dir / analysis::kInstanceFile;
    if (fs::exists(indexed)) {
        auto opened = analysis::InstanceFile::open(indexed.string());
        if (!opened) {
            return opened.error();
        }
        timeline.setInstanceFile(
            std::make_shared<const analysis::InstanceFile>(std::move(*opened)));
    } else {
        timeline.setInstances(instances);
    }
    const TimelineSummary summary = TimelineSummary::buildFromRecords(timeline, visits, given);

    // With rows of other processes, under another name until they wrote their visits: the
    // cache's holes are never taken for visits.
    const std::string signature = TimelineSummary::signatureOf(anchor);
    const std::string eventsPath =
        awaitsOtherRows() ? partialCacheOf(anchor) : (dir / TimelineStore::kCacheFile).string();
    const auto release = [this](size_t r) {
        for (RecordBlocks& depth : m_rows[r].depths) {
            depth.release();
        }
    };
    if (Status written = TimelineStore::write(eventsPath, signature, timeline, visits, merged,
                                              rowStarts, release);
        !written) {
        return written;
    }
    return summary.save((dir / TimelineSummary::kCacheFile).string(), signature);
}

} // namespace waitscope::timeline
