// The event cache: a header naming the trace it was built from, then the sections in time order
// (each row's visits per depth, 20 bytes each; the messages by send time, 32 bytes; the
// collectives by start, 40 bytes, and their member rows), then a directory of the sections,
// rows and regions. A window is found per section by binary search on the file (visits at one
// depth do not overlap, so their starts and ends are both in order) and read in one piece.
#include "timeline_store.h"

#include "direct_file_writer.h"
#include "flight_index.h"
#include "waitscope/trace/otf2_archive.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/uio.h>
#include <unistd.h>
#include <vector>

namespace waitscope::timeline {
namespace {

// 2: the program and sampled calling contexts are visits too (visit_stack.h). 3: the messages
// of long flight kept apart too. 4: OpenMP and POSIX threads regions are of kind Threads, not
// MPI management. A cache of an earlier version is built again.
constexpr char kMagic[] = "waitscope timeline events 4\n";
constexpr size_t kVisitBytes = TimelineStore::kVisitBytes;
constexpr size_t kMessageBytes = 32;
// A long message's copy: the message and its position among all messages.
constexpr size_t kLongMessageBytes = kMessageBytes + 8;
// The messages of flight above the bound are kept apart (and held in memory by the reader):
// the bound starts at the run's length / kFlightShare and is raised while more than
// kLongMessages would be kept.
constexpr double kFlightShare = 65536.0;
constexpr size_t kLongMessages = size_t{1} << 16;
constexpr size_t kCollectiveBytes = 40;

template <typename T> void put(std::string& out, const T& value) {
    out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

void putString(std::string& out, const std::string& text) {
    put(out, static_cast<uint32_t>(text.size()));
    out += text;
}

template <typename T> T get(const char* at) {
    T value;
    std::memcpy(&value, at, sizeof value);
    return value;
}

void encodeVisit(const Visit& v, char* out) {
    std::memcpy(out, &v.start, 8);
    std::memcpy(out + 8, &v.end, 8);
    std::memcpy(out + 16, &v.region, 4);
}

Visit decodeVisit(const char* at) {
    return {get<double>(at), get<double>(at + 8), get<uint32_t>(at + 16)};
}

Message decodeMessage(const char* at) {
    return {get<uint32_t>(at), get<uint32_t>(at + 4), get<double>(at + 8), get<double>(at + 16),
            get<uint64_t>(at + 24)};
}

void encodeMessage(const Message& m, char* out) {
    std::memcpy(out, &m.fromRow, 4);
    std::memcpy(out + 4, &m.toRow, 4);
    std::memcpy(out + 8, &m.sendTime, 8);
    std::memcpy(out + 16, &m.receiveTime, 8);
    std::memcpy(out + 24, &m.bytes, 8);
}

double flightOf(const Message& m) {
    return std::abs(m.receiveTime - m.sendTime);
}

// The messages of flight above a bound, in send-time order with their positions among all,
// gathered while the messages are written: when more than kLongMessages would be held, the bound
// rises (at least doubled, at least to their median flight) and those now within it are let go.
class LongFlights {
public:
    explicit LongFlights(double span) : m_bound(std::max(0.0, span / kFlightShare)) {}
    void add(const Message& m, uint64_t position) {
        if (!(flightOf(m) > m_bound)) {
            return;
        }
        m_kept.emplace_back(m, position);
        if (m_kept.size() > kLongMessages) {
            std::vector<double> flights;
            flights.reserve(m_kept.size());
            for (const auto& [kept, at] : m_kept) {
                flights.push_back(flightOf(kept));
            }
            const auto middle = flights.begin() + static_cast<std::ptrdiff_t>(flights.size() / 2);
            std::nth_element(flights.begin(), middle, flights.end());
            m_bound = std::max(2 * m_bound, *middle);
            std::erase_if(m_kept, [this](const auto& k) { return !(flightOf(k.first) > m_bound); });
        }
    }
    double bound() const { return m_bound; }
    const std::vector<std::pair<Message, uint64_t>>& kept() const { return m_kept; }

private:
    double m_bound;
    std::vector<std::pair<Message, uint64_t>> m_kept;
};

// Reads the directory's fields in order; any read past its end marks it damaged.
class Cursor {
public:
    explicit Cursor(const std::string& bytes) : m_bytes(bytes) {}
    template <typename T> T next() {
        if (m_at + sizeof(T) > m_bytes.size()) {
            m_damaged = true;
            return T{};
        }
        const T value = get<T>(m_bytes.data() + m_at);
        m_at += sizeof(T);
        return value;
    }
    std::string text() {
        const auto length = next<uint32_t>();
        if (m_at + length > m_bytes.size()) {
            m_damaged = true;
            return {};
        }
        std::string value = m_bytes.substr(m_at, length);
        m_at += length;
        return value;
    }
    bool damaged() const { return m_damaged; }

private:
    const std::string& m_bytes;
    size_t m_at = 0;
    bool m_damaged = false;
};

// Writes the cache file front to back, past the page cache where the file system allows
// (DirectFileWriter: the analysis never reads the cache back, and copying ~100 MB into the page
// cache cost as much as building it); the first failure is kept and reported at the end.
class Writer {
public:
    explicit Writer(const std::string& path) : m_file(path, true) {}
    bool opened() const { return m_file.opened(); }
    void write(const void* data, size_t bytes) { m_file.write(data, bytes); }
    uint64_t offset() const { return m_file.offset(); }
    // Leaves `bytes` bytes for another process to write (zeros until it does).
    void skip(uint64_t bytes) { m_file.skip(bytes); }
    // Writes `value` at `offset` (the directory's position, known at the end), then closes.
    bool finish(uint64_t offset, uint64_t value) { return m_file.close(offset, value); }

private:
    DirectFileWriter m_file;
};

// The magic and the trace's signature, then room for the directory's offset (at the returned
// offset, filled in by writeTail()).
uint64_t writeHead(Writer& out, const std::string& signature) {
    out.write(kMagic, sizeof(kMagic) - 1);
    const auto length = static_cast<uint32_t>(signature.size());
    out.write(&length, sizeof length);
    out.write(signature.data(), signature.size());
    const uint64_t directoryAt = out.offset();
    const uint64_t placeholder = 0;
    out.write(&placeholder, sizeof placeholder);
    return directoryAt;
}

// After the rows' visits (`sections`: per row and depth their count and offset): the messages,
// the collectives and their members, then the directory; closes the file.
Status writeTail(Writer& out, const std::string& path, uint64_t directoryAt,
                 const Timeline& timeline,
                 const std::vector<std::vector<std::pair<uint64_t, uint64_t>>>& sections,
                 const TimelineStore::MessageSource& source = {}) {
    std::string directory;
    put(directory, timeline.begin());
    put(directory, timeline.end());
    put(directory, timeline.events());

    // Messages by send time: the timeline's, or the source's one after the other; those of long
    // flight again apart after them.
    LongFlights longFlights(timeline.end() - timeline.begin());
    const uint64_t messagesAt = out.offset();
    uint64_t messages = 0;
    size_t next = 0;
    Message m;
    while (source ? source(m) : next < timeline.messages().size()) {
        if (!source) {
            m = timeline.messages()[next++];
        }
        char record[kMessageBytes];
        encodeMessage(m, record);
        out.write(record, sizeof record);
        longFlights.add(m, messages++);
    }
    const uint64_t longAt = out.offset();
    for (const auto& [long_, position] : longFlights.kept()) {
        char record[kLongMessageBytes];
        encodeMessage(long_, record);
        std::memcpy(record + kMessageBytes, &position, 8);
        out.write(record, sizeof record);
    }
    // Collectives by start, then their members.
    double longestCollective = 0.0;
    const uint64_t collectivesAt = out.offset();
    uint64_t member = 0;
    for (const Collective& c : timeline.collectives()) {
        char record[kCollectiveBytes];
        const auto members = static_cast<uint32_t>(c.rows.size());
        std::memcpy(record, &c.start, 8);
        std::memcpy(record + 8, &c.lastBegin, 8);
        std::memcpy(record + 16, &c.end, 8);
        std::memcpy(record + 24, &c.region, 4);
        std::memcpy(record + 28, &members, 4);
        std::memcpy(record + 32, &member, 8);
        out.write(record, sizeof record);
        member += members;
        longestCollective = std::max(longestCollective, c.end - c.start);
    }
    const uint64_t membersAt = out.offset();
    for (const Collective& c : timeline.collectives()) {
        out.write(c.rows.data(), c.rows.size() * sizeof(uint32_t));
    }

    put(directory, messages);
    put(directory, messagesAt);
    put(directory, longFlights.bound());
    put(directory, static_cast<uint64_t>(longFlights.kept().size()));
    put(directory, longAt);
    put(directory, static_cast<uint64_t>(timeline.collectives().size()));
    put(directory, collectivesAt);
    put(directory, longestCollective);
    put(directory, member);
    put(directory, membersAt);
    put(directory, static_cast<uint32_t>(timeline.regions()));
    for (uint32_t r = 0; r < timeline.regions(); ++r) {
        put(directory, static_cast<uint8_t>(timeline.regionKind(r)));
        putString(directory, timeline.regionName(r));
    }
    put(directory, static_cast<uint32_t>(timeline.rows().size()));
    for (uint32_t r = 0; r < timeline.rows().size(); ++r) {
        const Row& row = timeline.rows()[r];
        put(directory, row.rank);
        put(directory, row.thread);
        putString(directory, row.name);
        putString(directory, row.node);
        const std::vector<std::pair<uint64_t, uint64_t>> none;
        const auto& ranges = r < sections.size() ? sections[r] : none;
        put(directory, static_cast<uint32_t>(ranges.size()));
        for (const auto& [count, offset] : ranges) {
            put(directory, count);
            put(directory, offset);
        }
    }
    const uint64_t directoryOffset = out.offset();
    out.write(directory.data(), directory.size());
    if (!out.finish(directoryAt, directoryOffset)) {
        std::error_code ignored;
        std::filesystem::remove(path, ignored);
        return Error(path + ": cannot write");
    }
    return Status::success();
}

} // namespace

TimelineStore::~TimelineStore() {
    if (m_file >= 0) {
        ::close(m_file);
    }
}

Result<std::shared_ptr<const TimelineStore>> TimelineStore::open(const std::string& experiment,
                                                                 const Progress& progress) {
    auto anchor = trace::findAnchorFile(experiment);
    if (!anchor) {
        return anchor.error();
    }
    namespace fs = std::filesystem;
    const fs::path dir = fs::path(*anchor).parent_path();
    const std::string signature = TimelineSummary::signatureOf(*anchor);
    std::shared_ptr<TimelineStore> store(new TimelineStore);
    store->m_path = (dir / kCacheFile).string();
    bool cached = static_cast<bool>(store->readDirectory(signature));
    if (!cached) {
        bool temporary = false;
        if (Status built = store->build(*anchor, store->m_path, signature, progress); !built) {
            // Not writable: a private file in the temporary directory, removed once open.
            static std::atomic<int> serial{0};
            store->m_path =
                (fs::temp_directory_path() / ("waitscope-timeline-" + std::to_string(::getpid()) +
                                              "-" + std::to_string(serial++) + ".bin"))
                    .string();
            temporary = true;
            if (Status again = store->build(*anchor, store->m_path, signature, progress); !again) {
                return again.error();
            }
        }
        if (Status read = store->readDirectory(signature); !read) {
            return read.error();
        }
        if (temporary) {
            std::error_code ignored;
            fs::remove(store->m_path, ignored); // the descriptor stays open
        }
    }
    store->m_skeleton.setAnchor(*anchor);
    const std::string summaryPath = (dir / TimelineSummary::kCacheFile).string();
    if (auto read = TimelineSummary::load(summaryPath, signature);
        read && read->rows() == store->m_skeleton.rows().size()) {
        store->m_summary = std::move(*read);
        store->m_fromCache = cached;
    } else {
        // The overview's waiting time is the instances': read them for it.
        Timeline withFindings = store->m_skeleton;
        if (Status findings = withFindings.loadFindings(); !findings) {
            return findings.error();
        }
        const TimelineStore& self = *store;
        auto built =
            TimelineSummary::build(withFindings, [&self](uint32_t row) { return self.row(row); });
        if (!built) {
            return built.error();
        }
        store->m_summary = std::move(*built);
        (void)store->m_summary.save(summaryPath, signature); // read-only: built again next time
    }
    return std::shared_ptr<const TimelineStore>(std::move(store));
}

Status TimelineStore::build(const std::string& anchor, const std::string& path,
                            const std::string& signature, const Progress& progress) {
    // For the progress: the rows to read (one per location).
    size_t rows = 0;
    if (progress) {
        if (auto archive = trace::readArchiveDefinitions(anchor); archive) {
            for (uint32_t rank = 0; rank < archive->definitions.rankCount(); ++rank) {
                rows += archive->definitions.locationsOfRank(rank).size();
            }
        }
        progress(0);
    }
    Writer out(path);
    if (!out.opened()) {
        return Error(path + ": cannot write");
    }
    const uint64_t directoryAt = writeHead(out, signature);

    // Each row's visits as its location is read, then dropped: memory holds one location.
    std::vector<std::vector<Range>> depths;
    std::vector<char> buffer;
    auto loaded = Timeline::load(anchor, [&](uint32_t row, Row& read) {
        depths.resize(std::max<size_t>(depths.size(), row + 1));
        for (std::vector<Visit>& visits : read.depths) {
            depths[row].push_back({visits.size(), out.offset()});
            buffer.resize(visits.size() * kVisitBytes);
            for (size_t k = 0; k < visits.size(); ++k) {
                encodeVisit(visits[k], buffer.data() + k * kVisitBytes);
            }
            out.write(buffer.data(), buffer.size());
            std::vector<Visit>().swap(visits);
        }
        if (progress && rows > 0) {
            progress(static_cast<int>(100 * std::min<size_t>(row + 1, rows) / rows));
        }
        return Status::success();
    });
    if (!loaded) {
        return loaded.error();
    }
    std::vector<std::vector<std::pair<uint64_t, uint64_t>>> sections(depths.size());
    for (size_t r = 0; r < depths.size(); ++r) {
        for (const Range& range : depths[r]) {
            sections[r].emplace_back(range.count, range.offset);
        }
    }
    return writeTail(out, path, directoryAt, *loaded, sections);
}

Status TimelineStore::write(const std::string& path, const std::string& signature,
                            const Timeline& timeline,
                            const std::vector<std::vector<EncodedVisits>>& visits,
                            const MessageSource& messages, std::vector<uint64_t>* rowStarts,
                            const std::function<void(size_t row)>& rowWritten) {
    Writer out(path);
    if (!out.opened()) {
        return Error(path + ": cannot write");
    }
    const uint64_t directoryAt = writeHead(out, signature);
    std::vector<std::vector<std::pair<uint64_t, uint64_t>>> sections(visits.size());
    if (rowStarts != nullptr) {
        rowStarts->assign(visits.size(), 0);
    }
    for (size_t r = 0; r < visits.size(); ++r) {
        if (rowStarts != nullptr) {
            (*rowStarts)[r] = out.offset();
        }
        for (const EncodedVisits& depth : visits[r]) {
            sections[r].emplace_back(depth.count, out.offset());
            if (depth.elsewhere) {
                out.skip(depth.count * kVisitBytes);
                continue;
            }
            for (const auto& [records, count] : depth.pieces) {
                out.write(records, count * kVisitBytes);
            }
        }
        if (rowWritten) {
            rowWritten(r);
        }
    }
    return writeTail(out, path, directoryAt, timeline, sections, messages);
}
Status TimelineStore::readDirectory(const std::string& signature) {
    if (m_file >= 0) {
        ::close(m_file);
    }
    m_file = ::open(m_path.c_str(), O_RDONLY | O_CLOEXEC);
    if (m_file < 0) {
        return Error(m_path + ": cannot open");
    }
    const auto damaged = [this] {
        return Error(m_path + ": not a timeline event cache (damaged)");
    };
    const off_t size = ::lseek(m_file, 0, SEEK_END);
    std::string head(sizeof(kMagic) - 1 + 4, '\0');
    if (size < 0 || !readRecords(0, head.size(), head.data()) ||
        head.compare(0, sizeof(kMagic) - 1, kMagic) != 0) {
        return damaged();
    }
    const auto length = get<uint32_t>(head.data() + sizeof(kMagic) - 1);
    if (length > (1u << 20)) {
        return damaged();
    }
    std::string stored(length + 8, '\0');
    if (!readRecords(head.size(), stored.size(), stored.data())) {
        return damaged();
    }
    if (stored.compare(0, length, signature) != 0 || length != signature.size()) {
        return Error(m_path + ": of another version of the trace");
    }
    const auto directoryOffset = get<uint64_t>(stored.data() + length);
    if (directoryOffset == 0 || directoryOffset > static_cast<uint64_t>(size)) {
        return damaged();
    }
    std::string bytes(static_cast<size_t>(size) - directoryOffset, '\0');
    if (!readRecords(directoryOffset, bytes.size(), bytes.data())) {
        return damaged();
    }
    Cursor cursor(bytes);
    Timeline skeleton;
    const auto begin = cursor.next<double>();
    const auto end = cursor.next<double>();
    skeleton.setRange(begin, end);
    skeleton.setEvents(cursor.next<uint64_t>());
    m_messages = {cursor.next<uint64_t>(), cursor.next<uint64_t>()};
    m_flightBound = cursor.next<double>();
    const Range longFlights{cursor.next<uint64_t>(), cursor.next<uint64_t>()};
    m_collectives = {cursor.next<uint64_t>(), cursor.next<uint64_t>()};
    m_longestCollective = cursor.next<double>();
    m_members = {cursor.next<uint64_t>(), cursor.next<uint64_t>()};
    const auto regions = cursor.next<uint32_t>();
    for (uint32_t r = 0; r < regions && !cursor.damaged(); ++r) {
        const auto kind = cursor.next<uint8_t>();
        std::string name = cursor.text();
        if (kind >= static_cast<uint8_t>(RegionKind::Count_)) {
            return damaged();
        }
        skeleton.addRegion(std::move(name), static_cast<RegionKind>(kind));
    }
    const auto rows = cursor.next<uint32_t>();
    m_depths.clear();
    for (uint32_t r = 0; r < rows && !cursor.damaged(); ++r) {
        Row row;
        row.rank = cursor.next<uint32_t>();
        row.thread = cursor.next<uint32_t>();
        row.name = cursor.text();
        row.node = cursor.text();
        const auto depths = cursor.next<uint32_t>();
        if (depths > 1u << 16) {
            return damaged();
        }
        std::vector<Range>& ranges = m_depths.emplace_back();
        for (uint32_t d = 0; d < depths && !cursor.damaged(); ++d) {
            const Range range{cursor.next<uint64_t>(), cursor.next<uint64_t>()};
            if (range.offset + range.count * kVisitBytes > directoryOffset) {
                return damaged();
            }
            ranges.push_back(range);
        }
        row.depths.resize(depths);
        skeleton.addRow(std::move(row));
    }
    if (cursor.damaged() ||
        m_messages.offset + m_messages.count * kMessageBytes > directoryOffset ||
        longFlights.count > kLongMessages ||
        longFlights.offset + longFlights.count * kLongMessageBytes > directoryOffset ||
        m_collectives.offset + m_collectives.count * kCollectiveBytes > directoryOffset ||
        m_members.offset + m_members.count * sizeof(uint32_t) > directoryOffset) {
        return damaged();
    }
    // The messages of long flight, held with their index.
    std::vector<char> longBytes(longFlights.count * kLongMessageBytes);
    if (!readRecords(longFlights.offset, longBytes.size(), longBytes.data())) {
        return damaged();
    }
    m_longMessages.clear();
    m_longPositions.clear();
    for (uint64_t k = 0; k < longFlights.count; ++k) {
        const char* record = longBytes.data() + k * kLongMessageBytes;
        m_longMessages.push_back(decodeMessage(record));
        m_longPositions.push_back(get<uint64_t>(record + kMessageBytes));
    }
    m_longFlights = FlightIndex(m_longMessages);
    m_skeleton = std::move(skeleton);
    return Status::success();
}

Status TimelineStore::readRecords(uint64_t offset, size_t bytes, void* out, bool fromMemory) const {
    auto* at = static_cast<char*>(out);
    while (bytes > 0) {
        // RWF_NOWAIT: EAGAIN rather than waiting for a page that is not in the page cache.
        iovec piece{at, bytes};
        const ssize_t got =
            fromMemory ? ::preadv2(m_file, &piece, 1, static_cast<off_t>(offset), RWF_NOWAIT)
                       : ::pread(m_file, at, bytes, static_cast<off_t>(offset));
        if (got < 0 && fromMemory && (errno == EAGAIN || errno == EOPNOTSUPP)) {
            return Error(m_path + ": not in memory");
        }
        if (got <= 0) {
            return Error(m_path + ": cannot read (truncated)");
        }
        at += got;
        offset += static_cast<uint64_t>(got);
        bytes -= static_cast<size_t>(got);
    }
    return Status::success();
}

template <typename Record, typename Key>
Result<uint64_t> TimelineStore::firstWhere(const Range& range, Key key, bool fromMemory) const {
    // The first record of `range` for which key(record) holds (false before it, true after).
    uint64_t low = 0;
    uint64_t high = range.count;
    char record[sizeof(Record)];
    while (low < high) {
        const uint64_t mid = low + (high - low) / 2;
        if (Status read =
                readRecords(range.offset + mid * sizeof(Record), sizeof record, record, fromMemory);
            !read) {
            return read.error();
        }
        if (key(static_cast<const char*>(record))) {
            high = mid;
        } else {
            low = mid + 1;
        }
    }
    return low;
}

namespace {
// Record shapes for firstWhere (only their sizes are used).
struct VisitRecord {
    char bytes[kVisitBytes];
};
struct MessageRecord {
    char bytes[kMessageBytes];
};
struct CollectiveRecord {
    char bytes[kCollectiveBytes];
};
} // namespace

Result<Row> TimelineStore::row(uint32_t row) const {
    Row out = m_skeleton.rows().at(row);
    std::vector<char> bytes;
    for (size_t d = 0; d < m_depths[row].size(); ++d) {
        const Range& range = m_depths[row][d];
        bytes.resize(range.count * kVisitBytes);
        if (Status read = readRecords(range.offset, bytes.size(), bytes.data()); !read) {
            return read.error();
        }
        std::vector<Visit>& visits = out.depths[d];
        visits.resize(range.count);
        for (size_t k = 0; k < range.count; ++k) {
            visits[k] = decodeVisit(bytes.data() + k * kVisitBytes);
        }
    }
    return out;
}

Result<Timeline> TimelineStore::window(double from, double to) const {
    return readWindow(from, to, false);
}

Result<Timeline> TimelineStore::windowInMemory(double from, double to) const {
    return readWindow(from, to, true);
}

Result<Timeline> TimelineStore::readWindow(double from, double to, bool fromMemory) const {
    Timeline window;
    std::vector<char> bytes;
    for (uint32_t r = 0; r < m_skeleton.rows().size(); ++r) {
        Row row{m_skeleton.rows()[r].rank, m_skeleton.rows()[r].thread, {}, {}, {}};
        row.depths.resize(m_depths[r].size());
        for (size_t d = 0; d < m_depths[r].size(); ++d) {
            const Range& range = m_depths[r][d];
            // Ends are in order as the starts are: the first visit ending after `from`, up to
            // the first starting at or after `to`.
            auto first = firstWhere<VisitRecord>(
                range, [from](const char* v) { return get<double>(v + 8) > from; }, fromMemory);
            auto last = firstWhere<VisitRecord>(
                range, [to](const char* v) { return get<double>(v) >= to; }, fromMemory);
            if (!first || !last) {
                return first ? last.error() : first.error();
            }
            if (*last <= *first) {
                continue;
            }
            bytes.resize((*last - *first) * kVisitBytes);
            if (Status read = readRecords(range.offset + *first * kVisitBytes, bytes.size(),
                                          bytes.data(), fromMemory);
                !read) {
                return read.error();
            }
            std::vector<Visit>& visits = row.depths[d];
            visits.resize(*last - *first);
            for (size_t k = 0; k < visits.size(); ++k) {
                visits[k] = decodeVisit(bytes.data() + k * kVisitBytes);
            }
        }
        window.addRow(std::move(row));
    }
    // Messages: those of flight within the bound sent at most the bound before `from` or after
    // `to`, and the longer ones (held apart) from their index, merged in the file's order.
    auto first = firstWhere<MessageRecord>(
        m_messages, [&](const char* m) { return get<double>(m + 8) >= from - m_flightBound; },
        fromMemory);
    auto last = firstWhere<MessageRecord>(
        m_messages, [&](const char* m) { return get<double>(m + 8) > to + m_flightBound; },
        fromMemory);
    if (!first || !last) {
        return first ? last.error() : first.error();
    }
    std::vector<size_t> longOnes;
    uint64_t looked = m_longFlights.find(m_longMessages, from, to, longOnes);
    std::vector<Message> messages;
    size_t nextLong = 0;
    const auto takeLongBefore = [&](uint64_t position) {
        for (; nextLong < longOnes.size() && m_longPositions[longOnes[nextLong]] < position;
             ++nextLong) {
            messages.push_back(m_longMessages[longOnes[nextLong]]);
        }
    };
    if (*last > *first) {
        bytes.resize((*last - *first) * kMessageBytes);
        if (Status read = readRecords(m_messages.offset + *first * kMessageBytes, bytes.size(),
                                      bytes.data(), fromMemory);
            !read) {
            return read.error();
        }
        looked += *last - *first;
        for (size_t k = 0; k < *last - *first; ++k) {
            const Message m = decodeMessage(bytes.data() + k * kMessageBytes);
            if (!(flightOf(m) > m_flightBound) && FlightIndex::inWindow(m, from, to)) {
                takeLongBefore(*first + k);
                messages.push_back(m);
            }
        }
    }
    takeLongBefore(m_messages.count);
    m_messagesLookedAt += looked;
    window.setMessages(std::move(messages));
    // Collectives: started at most the longest collective before `from`, and by `to`.
    first = firstWhere<CollectiveRecord>(
        m_collectives, [&](const char* c) { return get<double>(c) >= from - m_longestCollective; },
        fromMemory);
    last = firstWhere<CollectiveRecord>(
        m_collectives, [&](const char* c) { return get<double>(c) > to; }, fromMemory);
    if (!first || !last) {
        return first ? last.error() : first.error();
    }
    if (*last > *first) {
        bytes.resize((*last - *first) * kCollectiveBytes);
        if (Status read = readRecords(m_collectives.offset + *first * kCollectiveBytes,
                                      bytes.size(), bytes.data(), fromMemory);
            !read) {
            return read.error();
        }
        const char* firstRecord = bytes.data();
        const char* lastRecord = bytes.data() + bytes.size() - kCollectiveBytes;
        const auto memberFrom = get<uint64_t>(firstRecord + 32);
        const auto memberTo = get<uint64_t>(lastRecord + 32) + get<uint32_t>(lastRecord + 28);
        std::vector<uint32_t> members(memberTo - memberFrom);
        if (Status read =
                readRecords(m_members.offset + memberFrom * sizeof(uint32_t),
                            members.size() * sizeof(uint32_t), members.data(), fromMemory);
            !read) {
            return read.error();
        }
        for (size_t k = 0; k < *last - *first; ++k) {
            const char* record = bytes.data() + k * kCollectiveBytes;
            Collective c{get<double>(record),
                         get<double>(record + 8),
                         get<double>(record + 16),
                         get<uint32_t>(record + 24),
                         {}};
            const auto count = get<uint32_t>(record + 28);
            const auto at = get<uint64_t>(record + 32) - memberFrom;
            if (c.end < from || at + count > members.size()) {
                continue;
            }
            c.rows.assign(members.begin() + static_cast<std::ptrdiff_t>(at),
                          members.begin() + static_cast<std::ptrdiff_t>(at + count));
            window.addCollective(std::move(c));
        }
    }
    return window;
}

} // namespace waitscope::timeline
