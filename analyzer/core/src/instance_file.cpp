// The indexed binary wait-state instances file: writing it in time order with its index, and
// reading a record, a range, a time window or the index without reading the rest.
#include "waitscope/analysis/instance_file.h"

#include "waitscope/analysis/metric.h"
#include "waitscope/analysis/wait_instances.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <functional>
#include <limits>
#include <numeric>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include <unordered_map>

namespace waitscope::analysis {

static_assert(std::endian::native == std::endian::little, "the instances file is little-endian");

namespace {

constexpr char kMagic[8] = {'W', 'S', 'I', 'N', 'S', 'T', 'B', '1'};
constexpr uint32_t kVersion = 1;
constexpr uint64_t kHeaderBytes = 64;
constexpr uint64_t kRecordBytes = 40;
constexpr uint64_t kCellBytes = 32;

struct Header {
    char magic[8] = {};
    uint32_t version = 0;
    uint32_t blockRecords = 0;
    uint64_t count = 0;
    uint32_t metrics = 0;
    uint32_t reserved = 0;
    uint64_t blocksOffset = 0;
    uint64_t cellsOffset = 0;
    uint64_t cellCount = 0;
    uint64_t fileSize = 0;
};
static_assert(sizeof(Header) == kHeaderBytes);

struct Record {
    double enter = 0.0;
    double exit = 0.0;
    double severity = 0.0;
    uint32_t rank = 0;
    uint32_t node = 0;
    uint32_t metric = 0;
    uint32_t reserved = 0;
};
static_assert(sizeof(Record) == kRecordBytes);

struct CellRecord {
    uint32_t metric = 0;
    uint32_t node = 0;
    uint64_t count = 0;
    uint64_t worst = 0;
    double worstSeverity = 0.0;
};
static_assert(sizeof(CellRecord) == kCellBytes);

uint64_t blockBytes(uint64_t metrics) {
    return 2 * sizeof(double) + metrics * sizeof(uint32_t);
}

uint64_t blockCountOf(uint64_t records) {
    return (records + InstanceFile::kBlockRecords - 1) / InstanceFile::kBlockRecords;
}

// The start of the waiting interval as the time order compares it: NaN first (the order stays
// strict).
double timeKey(const PatternInstance& instance) {
    const double start = waitingInterval(instance).first;
    return std::isnan(start) ? -std::numeric_limits<double>::infinity() : start;
}

} // namespace

/// The file's sections from instances given in time order: the header first as a placeholder
/// (zeros: a file cut short is no instances file), the records as they come (a block at a
/// time), then the block index and the pattern index kept meanwhile, and the header to put at
/// the start.
class InstanceFileWriter::Encoder {
public:
    using Sink = std::function<bool(const void*, size_t)>;
    explicit Encoder(Sink sink) : m_sink(std::move(sink)) {
        m_chunk.reserve(InstanceFile::kBlockRecords);
    }

    bool begin() {
        const Header placeholder;
        return m_sink(&placeholder, sizeof placeholder);
    }

    bool add(const PatternInstance& i) {
        const auto [start, end] = waitingInterval(i);
        const uint64_t r = m_count++;
        const uint64_t b = r / InstanceFile::kBlockRecords;
        if (r % InstanceFile::kBlockRecords == 0) {
            m_blockRanges.push_back({start, end});
            m_blockCounts.resize(m_blockCounts.size() + kMetricCount, 0);
        }
        m_blockRanges[b].lastEnd = std::max(m_blockRanges[b].lastEnd, end);
        ++m_blockCounts[b * kMetricCount + static_cast<size_t>(i.metric)];
        CellRecord& cell = m_cells[uint64_t{static_cast<uint32_t>(i.metric)} << 32 | i.node];
        if (cell.count == 0 || i.severity > cell.worstSeverity) {
            cell.worst = r;
            cell.worstSeverity = i.severity;
        }
        cell.metric = static_cast<uint32_t>(i.metric);
        cell.node = i.node;
        ++cell.count;
        // Records in chunks of one block: the file is written in a few large writes.
        m_chunk.push_back(
            {i.enter, i.exit, i.severity, i.rank, i.node, static_cast<uint32_t>(i.metric), 0});
        return m_chunk.size() < InstanceFile::kBlockRecords || flushChunk();
    }

    /// Writes the index; `header` is then what belongs at the start.
    bool end(Header& header) {
        if (!flushChunk()) {
            return false;
        }
        const uint64_t blocks = m_blockRanges.size();
        for (uint64_t b = 0; b < blocks; ++b) {
            if (!m_sink(&m_blockRanges[b].firstStart, sizeof(double)) ||
                !m_sink(&m_blockRanges[b].lastEnd, sizeof(double)) ||
                !m_sink(&m_blockCounts[b * kMetricCount], kMetricCount * sizeof(uint32_t))) {
                return false;
            }
        }
        // By pattern, then node.
        std::vector<const CellRecord*> byKey;
        byKey.reserve(m_cells.size());
        for (const auto& entry : m_cells) {
            byKey.push_back(&entry.second);
        }
        std::sort(byKey.begin(), byKey.end(), [](const CellRecord* a, const CellRecord* b) {
            return a->metric != b->metric ? a->metric < b->metric : a->node < b->node;
        });
        for (const CellRecord* cell : byKey) {
            if (!m_sink(cell, sizeof *cell)) {
                return false;
            }
        }
        std::memcpy(header.magic, kMagic, sizeof kMagic);
        header.version = kVersion;
        header.blockRecords = InstanceFile::kBlockRecords;
        header.count = m_count;
        header.metrics = static_cast<uint32_t>(kMetricCount);
        header.blocksOffset = kHeaderBytes + header.count * kRecordBytes;
        header.cellsOffset = header.blocksOffset + blocks * blockBytes(kMetricCount);
        header.cellCount = m_cells.size();
        header.fileSize = header.cellsOffset + header.cellCount * kCellBytes;
        return true;
    }

private:
    bool flushChunk() {
        const bool written =
            m_chunk.empty() || m_sink(m_chunk.data(), m_chunk.size() * sizeof(Record));
        m_chunk.clear();
        return written;
    }

    Sink m_sink;
    uint64_t m_count = 0;
    std::vector<Record> m_chunk;
    std::vector<InstanceFile::Block> m_blockRanges;
    std::vector<uint32_t> m_blockCounts;              // per block x pattern
    std::unordered_map<uint64_t, CellRecord> m_cells; // by pattern << 32 | call node
};

namespace {

// Writes the whole file for `instances` (in any order) to `sink`, then puts the header at the
// start with `patch`; false when either cannot take it.
bool encode(const std::vector<PatternInstance>& instances,
            const InstanceFileWriter::Encoder::Sink& sink,
            const std::function<bool(const Header&)>& patch) {
    // Time order: the waiting start, then rank, pattern and enter, then the order given.
    // The waiting starts computed once (a comparison would compute two), 32-bit positions and
    // an in-place sort with a total order: the caller holds the instances meanwhile, so the
    // sort's own memory is kept to 12 bytes per instance.
    if (instances.size() > std::numeric_limits<uint32_t>::max()) {
        return false;
    }
    std::vector<double> starts(instances.size());
    for (size_t k = 0; k < instances.size(); ++k) {
        starts[k] = timeKey(instances[k]);
    }
    std::vector<uint32_t> order(instances.size());
    std::iota(order.begin(), order.end(), uint32_t{0});
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        if (starts[a] != starts[b]) {
            return starts[a] < starts[b];
        }
        const PatternInstance& x = instances[a];
        const PatternInstance& y = instances[b];
        if (x.rank != y.rank) {
            return x.rank < y.rank;
        }
        if (x.metric != y.metric) {
            return x.metric < y.metric;
        }
        return x.enter != y.enter ? x.enter < y.enter : a < b;
    });
    starts = {}; // freed before the records are written
    InstanceFileWriter::Encoder encoder(sink);
    if (!encoder.begin()) {
        return false;
    }
    for (const uint32_t k : order) {
        if (!encoder.add(instances[k])) {
            return false;
        }
    }
    Header header;
    return encoder.end(header) && patch(header);
}

} // namespace

/// Where the bytes of an instances file come from: the file itself, or memory.
class InstanceFile::Source {
public:
    virtual ~Source() = default;
    virtual uint64_t size() const = 0;
    /// What readAt() got.
    enum class Got { All, Short, NotInMemory };
    /// Reads `bytes` bytes at `offset` into `into`: Short when they are not all there;
    /// NotInMemory when `mode` is FromMemory and a page would have to come from the disk.
    virtual Got readAt(uint64_t offset, void* into, size_t bytes, ReadMode mode) const = 0;
    /// Reads `bytes` bytes at `offset`, waiting for the disk; false when they are not all there.
    bool readAll(uint64_t offset, void* into, size_t bytes) const {
        return readAt(offset, into, bytes, ReadMode::Wait) == Got::All;
    }
};

namespace {

using ReadMode = InstanceFile::ReadMode;

class FileSource final : public InstanceFile::Source {
public:
    FileSource(int fd, uint64_t size) : m_fd(fd), m_size(size) {}
    ~FileSource() override { ::close(m_fd); }
    FileSource(const FileSource&) = delete;
    FileSource& operator=(const FileSource&) = delete;
    uint64_t size() const override { return m_size; }
    Got readAt(uint64_t offset, void* into, size_t bytes, ReadMode mode) const override {
        // pread: readers on several threads share the descriptor without a file position.
        // RWF_NOWAIT: EAGAIN rather than waiting for a page that is not in the page cache.
        auto* at = static_cast<char*>(into);
        while (bytes > 0) {
            iovec piece{at, bytes};
            const ssize_t got =
                mode == ReadMode::FromMemory
                    ? ::preadv2(m_fd, &piece, 1, static_cast<off_t>(offset), RWF_NOWAIT)
                    : ::pread(m_fd, at, bytes, static_cast<off_t>(offset));
            if (got < 0 && mode == ReadMode::FromMemory &&
                (errno == EAGAIN || errno == EOPNOTSUPP)) {
                return Got::NotInMemory;
            }
            if (got <= 0) {
                return Got::Short; // an error, or the end of a file shorter than it said
            }
            at += got;
            offset += static_cast<uint64_t>(got);
            bytes -= static_cast<size_t>(got);
        }
        return Got::All;
    }

private:
    int m_fd;
    uint64_t m_size;
};

class MemorySource final : public InstanceFile::Source {
public:
    explicit MemorySource(std::vector<char> bytes) : m_bytes(std::move(bytes)) {}
    uint64_t size() const override { return m_bytes.size(); }
    Got readAt(uint64_t offset, void* into, size_t bytes, ReadMode /*mode*/) const override {
        if (offset > m_bytes.size() || bytes > m_bytes.size() - offset) {
            return Got::Short;
        }
        if (bytes == 0) {
            return Got::All; // `into` may be null (an empty section)
        }
        std::memcpy(into, m_bytes.data() + offset, bytes);
        return Got::All;
    }

private:
    std::vector<char> m_bytes;
};

} // namespace

Status writeInstanceFile(const std::vector<PatternInstance>& instances, const std::string& path) {
    const std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(path.c_str(), "wb"), &std::fclose);
    if (!file) {
        return Error(path + ": cannot write");
    }
    FILE* out = file.get();
    const bool written = encode(
        instances,
        [out](const void* bytes, size_t size) { return std::fwrite(bytes, 1, size, out) == size; },
        [out](const Header& header) {
            return std::fseek(out, 0, SEEK_SET) == 0 &&
                   std::fwrite(&header, 1, sizeof header, out) == sizeof header;
        });
    if (!written || std::fflush(out) != 0) {
        return Error(path + ": cannot write");
    }
    return Status::success();
}

InstanceFile InstanceFile::fromInstances(const std::vector<PatternInstance>& instances,
                                         const std::string& name) {
    std::vector<char> bytes;
    encode(
        instances,
        [&bytes](const void* data, size_t size) {
            bytes.insert(bytes.end(), static_cast<const char*>(data),
                         static_cast<const char*>(data) + size);
            return true;
        },
        [&bytes](const Header& header) {
            std::memcpy(bytes.data(), &header, sizeof header);
            return true;
        });
    auto parsed = parse(std::make_shared<MemorySource>(std::move(bytes)), name);
    assert(parsed.ok() && "an encoded instances file must parse");
    return std::move(*parsed);
}

Result<InstanceFile> InstanceFile::open(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return Error(path + ": cannot open");
    }
    struct stat status {};
    if (::fstat(fd, &status) != 0 || !S_ISREG(status.st_mode)) {
        ::close(fd);
        return Error(path + ": not a regular file");
    }
    return parse(std::make_shared<FileSource>(fd, static_cast<uint64_t>(status.st_size)), path);
}

bool instanceTimeBefore(const PatternInstance& a, const PatternInstance& b) {
    const double x = timeKey(a);
    const double y = timeKey(b);
    if (x != y) {
        return x < y;
    }
    if (a.rank != b.rank) {
        return a.rank < b.rank;
    }
    if (a.metric != b.metric) {
        return a.metric < b.metric;
    }
    return a.enter < b.enter;
}

InstanceFileWriter::InstanceFileWriter() = default;
InstanceFileWriter::InstanceFileWriter(InstanceFileWriter&&) noexcept = default;
InstanceFileWriter& InstanceFileWriter::operator=(InstanceFileWriter&&) noexcept = default;
InstanceFileWriter::~InstanceFileWriter() = default;

Result<InstanceFileWriter> InstanceFileWriter::create(const std::string& path) {
    InstanceFileWriter writer;
    writer.m_path = path;
    writer.m_file.reset(std::fopen(path.c_str(), "wb"));
    if (!writer.m_file) {
        return Error(path + ": cannot write");
    }
    FILE* out = writer.m_file.get();
    writer.m_encoder = std::make_unique<Encoder>(
        [out](const void* bytes, size_t size) { return std::fwrite(bytes, 1, size, out) == size; });
    if (!writer.m_encoder->begin()) {
        return Error(path + ": cannot write");
    }
    return writer;
}

Status InstanceFileWriter::add(const PatternInstance& instance) {
    if (!m_encoder->add(instance)) {
        return Error(m_path + ": cannot write");
    }
    return Status::success();
}

Status InstanceFileWriter::finish() {
    Header header;
    FILE* out = m_file.get();
    if (!m_encoder->end(header) || std::fseek(out, 0, SEEK_SET) != 0 ||
        std::fwrite(&header, 1, sizeof header, out) != sizeof header || std::fflush(out) != 0) {
        return Error(m_path + ": cannot write");
    }
    m_file.reset();
    return Status::success();
}

void InstanceFileWriter::CloseFile::operator()(FILE* file) const {
    std::fclose(file);
}

Result<InstanceFile> openInstances(const std::string& path) {
    char magic[sizeof kMagic] = {};
    {
        const std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(path.c_str(), "rb"),
                                                         &std::fclose);
        if (!file) {
            return Error(path + ": cannot open");
        }
        if (std::fread(magic, 1, sizeof magic, file.get()) != sizeof magic ||
            std::memcmp(magic, kMagic, sizeof kMagic) != 0) {
            auto text = readWaitInstances(path);
            if (!text) {
                return text.error();
            }
            return InstanceFile::fromInstances(*text, path);
        }
    }
    return InstanceFile::open(path);
}

Result<InstanceFile> InstanceFile::parse(std::shared_ptr<const Source> source, std::string path) {
    Header header;
    if (source->size() < kHeaderBytes || !source->readAll(0, &header, sizeof header) ||
        std::memcmp(header.magic, kMagic, sizeof kMagic) != 0) {
        return Error(path + ": not a waitscope instances file");
    }
    if (header.version != kVersion) {
        return Error(path + ": instances file version " + std::to_string(header.version) +
                     ", this build reads version " + std::to_string(kVersion));
    }
    if (header.metrics != kMetricCount) {
        return Error(path + ": instances file of " + std::to_string(header.metrics) +
                     " patterns, this build has " + std::to_string(kMetricCount) +
                     " (analyze the trace again)");
    }
    if (header.fileSize != source->size()) {
        return Error(path + ": truncated or damaged (" + std::to_string(source->size()) +
                     " bytes, its header says " + std::to_string(header.fileSize) + ")");
    }
    // Every section where the counts put it, within the file (the divisions keep the products
    // from wrapping on a damaged count).
    const uint64_t blocks = blockCountOf(header.count);
    const bool laidOut =
        header.blockRecords == kBlockRecords && header.count <= header.fileSize / kRecordBytes &&
        header.blocksOffset == kHeaderBytes + header.count * kRecordBytes &&
        header.cellCount <= header.fileSize / kCellBytes &&
        header.cellsOffset == header.blocksOffset + blocks * blockBytes(header.metrics) &&
        header.fileSize == header.cellsOffset + header.cellCount * kCellBytes;
    if (!laidOut) {
        return Error(path + ": damaged header (sections do not add up to the file)");
    }
    InstanceFile file;
    file.m_path = std::move(path);
    file.m_count = header.count;
    file.m_recordsOffset = kHeaderBytes;
    file.m_metrics = header.metrics;
    file.m_blocks.resize(blocks);
    file.m_blockCounts.resize(blocks * header.metrics);
    std::vector<char> bytes(blocks * blockBytes(header.metrics));
    if (!source->readAll(header.blocksOffset, bytes.data(), bytes.size())) {
        return Error(file.m_path + ": cannot read its block index");
    }
    for (uint64_t b = 0; b < blocks; ++b) {
        const char* at = bytes.data() + b * blockBytes(header.metrics);
        std::memcpy(&file.m_blocks[b].firstStart, at, sizeof(double));
        std::memcpy(&file.m_blocks[b].lastEnd, at + sizeof(double), sizeof(double));
        std::memcpy(&file.m_blockCounts[b * header.metrics], at + 2 * sizeof(double),
                    header.metrics * sizeof(uint32_t));
        const uint64_t inBlock =
            std::min<uint64_t>(kBlockRecords, header.count - b * kBlockRecords);
        const uint64_t counted = std::accumulate(
            file.m_blockCounts.begin() + static_cast<ptrdiff_t>(b * header.metrics),
            file.m_blockCounts.begin() + static_cast<ptrdiff_t>((b + 1) * header.metrics),
            uint64_t{0});
        // In time order and not NaN (the comparisons fail on NaN).
        const bool ordered =
            b == 0 || file.m_blocks[b].firstStart >= file.m_blocks[b - 1].firstStart;
        if (counted != inBlock || !ordered ||
            !(file.m_blocks[b].lastEnd >= file.m_blocks[b].firstStart)) {
            return Error(file.m_path + ": damaged block index (block " + std::to_string(b) + ")");
        }
    }
    std::vector<CellRecord> cells(header.cellCount);
    if (!source->readAll(header.cellsOffset, cells.data(), cells.size() * kCellBytes)) {
        return Error(file.m_path + ": cannot read its pattern index");
    }
    uint64_t total = 0;
    file.m_cells.reserve(cells.size());
    for (const CellRecord& cell : cells) {
        if (cell.metric >= kMetricCount || cell.worst >= header.count || cell.count == 0 ||
            cell.count > header.count) {
            return Error(file.m_path + ": damaged pattern index");
        }
        total += cell.count;
        file.m_cells.push_back({static_cast<Metric>(cell.metric), cell.node, cell.count, cell.worst,
                                cell.worstSeverity});
    }
    if (total != header.count) {
        return Error(file.m_path + ": damaged pattern index (counts " + std::to_string(total) +
                     " instances of " + std::to_string(header.count) + ")");
    }
    file.m_source = std::move(source);
    return file;
}

Status InstanceFile::readRecords(uint64_t first, uint64_t count, std::vector<PatternInstance>& out,
                                 ReadMode mode) const {
    std::vector<Record> records(count);
    const Source::Got got = count > 0 ? m_source->readAt(m_recordsOffset + first * kRecordBytes,
                                                         records.data(), count * kRecordBytes, mode)
                                      : Source::Got::All;
    if (got == Source::Got::NotInMemory) {
        return Error(m_path + ": not in memory");
    }
    if (got != Source::Got::All) {
        return Error(m_path + ": cannot read records " + std::to_string(first) + " to " +
                     std::to_string(first + count - 1));
    }
    out.reserve(out.size() + count);
    for (uint64_t r = 0; r < count; ++r) {
        const Record& record = records[r];
        if (record.metric >= kMetricCount) {
            return Error(m_path + ": record " + std::to_string(first + r) + ": damaged (pattern " +
                         std::to_string(record.metric) + ")");
        }
        out.push_back({static_cast<Metric>(record.metric), record.node, record.rank, record.enter,
                       record.exit, record.severity});
    }
    return Status::success();
}

Result<PatternInstance> InstanceFile::at(uint64_t index) const {
    if (index >= m_count) {
        return Error(m_path + ": no record " + std::to_string(index) + " (" +
                     std::to_string(m_count) + " instances)");
    }
    std::vector<PatternInstance> one;
    if (Status status = readRecords(index, 1, one); !status) {
        return status.error();
    }
    return one.front();
}

Status InstanceFile::read(uint64_t first, uint64_t count, std::vector<PatternInstance>& out,
                          ReadMode mode) const {
    if (first >= m_count) {
        return Status::success();
    }
    return readRecords(first, std::min(count, m_count - first), out, mode);
}

Status InstanceFile::window(double from, double to,
                            std::vector<std::pair<uint64_t, PatternInstance>>& out,
                            ReadMode mode) const {
    std::vector<PatternInstance> block;
    for (size_t b = 0; b < m_blocks.size() && m_blocks[b].firstStart <= to; ++b) {
        if (m_blocks[b].lastEnd < from) {
            continue; // all of it waited before the window
        }
        block.clear();
        const uint64_t first = uint64_t{b} * kBlockRecords;
        if (Status status = read(first, kBlockRecords, block, mode); !status) {
            return status;
        }
        for (size_t r = 0; r < block.size(); ++r) {
            const auto [start, end] = waitingInterval(block[r]);
            if (start > to) {
                break;
            }
            if (end >= from) {
                out.emplace_back(first + r, block[r]);
            }
        }
    }
    return Status::success();
}

Result<uint64_t> InstanceFile::startsBy(double time) const {
    // The blocks by their first start, then the block's records by theirs.
    const auto after = std::partition_point(
        m_blocks.begin(), m_blocks.end(), [time](const Block& b) { return b.firstStart <= time; });
    if (after == m_blocks.begin()) {
        return uint64_t{0};
    }
    const auto b = static_cast<uint64_t>(after - m_blocks.begin()) - 1;
    std::vector<PatternInstance> block;
    if (Status status = read(b * kBlockRecords, kBlockRecords, block); !status) {
        return status.error();
    }
    const auto in =
        std::partition_point(block.begin(), block.end(), [time](const PatternInstance& i) {
            return waitingInterval(i).first <= time;
        });
    return b * kBlockRecords + static_cast<uint64_t>(in - block.begin());
}

} // namespace waitscope::analysis
