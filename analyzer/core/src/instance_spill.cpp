// Wait-state instances in bounded memory: a rank's buffer written as sorted runs to its
// process's two scratch files, and the k-way merge of all runs into the two instances files.
#include "waitscope/analysis/instance_spill.h"

#include "scratch_io.h"
#include "waitscope/analysis/analysis_result.h"
#include "waitscope/analysis/instance_file.h"
#include "waitscope/analysis/wait_instances.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <functional>
#include <limits>
#include <memory>
#include <queue>
#include <unistd.h>

namespace waitscope::analysis {
namespace {

static_assert(sizeof(SpilledInstance) == 48, "scratch records are 48 bytes");

// The process's budget for its ranks' buffers, in records (8 MiB), and the least a rank gets.
constexpr uint64_t kProcessRecords = (uint64_t{8} << 20) / sizeof(SpilledInstance);
constexpr uint32_t kLeastRecords = 256;
// Records read from a run at a time in the merge (12 KiB).
constexpr size_t kReadRecords = 256;

PatternInstance instanceOf(const SpilledInstance& r) {
    return {static_cast<Metric>(r.metric), r.node, r.rank, r.enter, r.exit, r.severity};
}

// The two orders of the files (instanceTextBefore(), instanceTimeBefore(); spelled out here, for
// a sort and a merge that compare millions of times), with the sequence in the rank's order
// found as the last key (the rank is a key of both before it, so sequences of different ranks
// never meet).
bool textBefore(const SpilledInstance& a, const SpilledInstance& b) {
    if (a.metric != b.metric) {
        return a.metric < b.metric;
    }
    if (a.rank != b.rank) {
        return a.rank < b.rank;
    }
    if (a.enter != b.enter) {
        return a.enter < b.enter;
    }
    return a.sequence < b.sequence;
}

// The start of the waiting interval, NaN first (as the indexed file orders them).
double timeKey(const SpilledInstance& r) {
    const double start = waitingInterval(instanceOf(r)).first;
    return std::isnan(start) ? -std::numeric_limits<double>::infinity() : start;
}

// The time order among records of equal time keys.
bool timeTieBefore(const SpilledInstance& a, const SpilledInstance& b) {
    if (a.rank != b.rank) {
        return a.rank < b.rank;
    }
    if (a.metric != b.metric) {
        return a.metric < b.metric;
    }
    if (a.enter != b.enter) {
        return a.enter < b.enter;
    }
    return a.sequence < b.sequence;
}

// A record with its time key, computed once (the sort and the merge compare each many times).
struct Keyed {
    double key;
    const SpilledInstance* record;
};

bool keyedTimeBefore(const Keyed& a, const Keyed& b) {
    if (a.key != b.key) {
        return a.key < b.key;
    }
    return timeTieBefore(*a.record, *b.record);
}

// An open scratch file, closed with its owner.
struct FileHandle {
    int fd = -1;
    std::string path;
    FileHandle() = default;
    FileHandle(int descriptor, std::string name) : fd(descriptor), path(std::move(name)) {}
    FileHandle(const FileHandle&) = delete;
    FileHandle& operator=(const FileHandle&) = delete;
    ~FileHandle() {
        if (fd >= 0) {
            ::close(fd);
        }
    }
};

// A run in a file: records [first, first + count) of `file`.
struct Run {
    const FileHandle* file = nullptr;
    uint64_t first = 0;
    uint64_t count = 0;
};

// Reads one run a few records at a time.
class RunReader {
public:
    explicit RunReader(const Run& run) : m_run(run) {}
    /// The record at the head (valid while !done()).
    const SpilledInstance& head() const { return m_buffer[m_at]; }
    /// The head with its time key.
    Keyed keyedHead() const { return {m_keys[m_at], &m_buffer[m_at]}; }
    bool done() const { return m_at >= m_buffer.size(); }
    /// Moves to the next record; false when it could not be read.
    bool advance() {
        ++m_at;
        return !done() || fill();
    }
    /// Reads the next records; false when they could not be read.
    bool fill() {
        const uint64_t count = std::min<uint64_t>(kReadRecords, m_run.count - m_read);
        m_buffer.resize(count);
        m_at = 0;
        if (count == 0) {
            return true;
        }
        const uint64_t offset = (m_run.first + m_read) * sizeof(SpilledInstance);
        m_read += count;
        if (!readAt(m_run.file->fd, m_buffer.data(), count * sizeof(SpilledInstance), offset)) {
            return false;
        }
        m_keys.resize(count);
        for (size_t k = 0; k < count; ++k) {
            m_keys[k] = timeKey(m_buffer[k]);
        }
        return true;
    }

private:
    Run m_run;
    uint64_t m_read = 0;
    std::vector<SpilledInstance> m_buffer;
    std::vector<double> m_keys; ///< per record of m_buffer, its time key
    size_t m_at = 0;
};

// Merges `runs` in the time order (`time`) or the text order into `out`, one record at a time;
// errors name the file.
Status mergeRuns(const std::vector<Run>& runs, bool time,
                 const std::function<Status(const SpilledInstance&)>& out) {
    std::vector<RunReader> readers;
    readers.reserve(runs.size());
    for (const Run& run : runs) {
        readers.emplace_back(run);
        if (!readers.back().fill()) {
            return Error(run.file->path + ": cannot read");
        }
    }
    // A min-heap of the readers by their heads (equal heads cannot occur: the sequence and the
    // rank make every record's key unique).
    const auto later = [&readers, time](size_t a, size_t b) {
        return time ? keyedTimeBefore(readers[b].keyedHead(), readers[a].keyedHead())
                    : textBefore(readers[b].head(), readers[a].head());
    };
    std::priority_queue<size_t, std::vector<size_t>, decltype(later)> heads(later);
    for (size_t k = 0; k < readers.size(); ++k) {
        if (!readers[k].done()) {
            heads.push(k);
        }
    }
    while (!heads.empty()) {
        const size_t k = heads.top();
        heads.pop();
        if (Status status = out(readers[k].head()); !status) {
            return status;
        }
        if (!readers[k].advance()) {
            return Error(runs[k].file->path + ": cannot read");
        }
        if (!readers[k].done()) {
            heads.push(k);
        }
    }
    return Status::success();
}

} // namespace

uint32_t InstanceSpill::defaultBufferRecords(uint32_t ranks) {
    return static_cast<uint32_t>(
        std::max<uint64_t>(kLeastRecords, kProcessRecords / std::max<uint32_t>(ranks, 1)));
}

InstanceSpill::InstanceSpill(std::string directory, uint32_t process, uint32_t bufferRecords,
                             uint32_t fanIn)
    : m_directory(std::move(directory)), m_process(process),
      m_bufferRecords(bufferRecords > 0 ? bufferRecords : defaultBufferRecords(1)),
      m_defaultBuffer(bufferRecords == 0), m_fanIn(std::max<uint32_t>(fanIn, 2)) {}

void InstanceSpill::shareAmong(uint32_t ranks) {
    if (m_defaultBuffer) {
        m_bufferRecords = defaultBufferRecords(ranks);
    }
}

InstanceSpill::~InstanceSpill() {
    for (const int fd : {m_text, m_time}) {
        if (fd >= 0) {
            ::close(fd);
        }
    }
}

std::string InstanceSpill::pathOf(const std::string& directory, uint32_t process, bool time) {
    return (std::filesystem::path(directory) /
            ("instances.spill." + std::to_string(process) + (time ? ".time" : ".text")))
        .string();
}

void InstanceSpill::removeFiles(const std::string& directory, uint32_t processes) {
    std::error_code ignored;
    for (uint32_t p = 0; p < processes; ++p) {
        std::filesystem::remove(pathOf(directory, p, false), ignored);
        std::filesystem::remove(pathOf(directory, p, true), ignored);
    }
    std::filesystem::remove(std::filesystem::path(directory) / "instances.spill.merge", ignored);
}

Result<uint64_t> InstanceSpill::append(std::vector<SpilledInstance>& records) {
    uint64_t first = 0;
    {
        // Room in both files under the lock; the writes themselves go on in parallel.
        const std::lock_guard<std::mutex> lock(m_mutex);
        if (m_text < 0) {
            for (const bool time : {false, true}) {
                const std::string path = pathOf(m_directory, m_process, time);
                const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
                if (fd < 0) {
                    return Error(path + ": cannot write (" + std::strerror(errno) + ")");
                }
                (time ? m_time : m_text) = fd;
            }
        }
        first = m_written;
        m_written += records.size();
    }
    const size_t bytes = records.size() * sizeof(SpilledInstance);
    const uint64_t offset = first * sizeof(SpilledInstance);
    std::sort(records.begin(), records.end(), textBefore);
    if (!writeAt(m_text, records.data(), bytes, offset)) {
        return Error(pathOf(m_directory, m_process, false) + ": cannot write");
    }
    // The time order through the keys (16 bytes per record), written a chunk at a time.
    std::vector<Keyed> keyed;
    keyed.reserve(records.size());
    for (const SpilledInstance& record : records) {
        keyed.push_back({timeKey(record), &record});
    }
    std::sort(keyed.begin(), keyed.end(), keyedTimeBefore);
    std::vector<SpilledInstance> chunk;
    chunk.reserve(std::min<size_t>(records.size(), kReadRecords * 16));
    for (size_t k = 0; k < keyed.size();) {
        chunk.clear();
        for (; k < keyed.size() && chunk.size() < chunk.capacity(); ++k) {
            chunk.push_back(*keyed[k].record);
        }
        const uint64_t at = offset + (k - chunk.size()) * sizeof(SpilledInstance);
        if (!writeAt(m_time, chunk.data(), chunk.size() * sizeof(SpilledInstance), at)) {
            return Error(pathOf(m_directory, m_process, true) + ": cannot write");
        }
    }
    return first;
}

InstanceSpill::Buffer::Buffer(InstanceSpill& spill, uint32_t rank) : m_spill(spill), m_rank(rank) {
    m_records.reserve(spill.m_bufferRecords);
}

void InstanceSpill::Buffer::add(const PatternInstance& instance, uint32_t segment) {
    if (segment >= m_next.size()) {
        m_next.resize(segment + 1, 0);
    }
    // Segment in the high 24 bits: a rank's segments follow one another in the order.
    const uint64_t sequence = uint64_t{segment} << 40 | m_next[segment]++;
    m_records.push_back({instance.enter, instance.exit, instance.severity, instance.rank,
                         instance.node, static_cast<uint32_t>(instance.metric), 0, sequence});
    if (m_records.size() >= m_spill.m_bufferRecords) {
        flush();
    }
}

void InstanceSpill::Buffer::flush() {
    if (m_records.empty()) {
        return;
    }
    if (!m_failure) {
        auto first = m_spill.append(m_records);
        if (first) {
            m_runs.push_back({m_spill.m_process, m_rank, *first, m_records.size()});
        } else {
            m_failure = first.error();
        }
    }
    m_records.clear(); // the capacity stays: the buffer is allocated once
}

Status InstanceSpill::Buffer::finish(RankResult& result) {
    flush();
    std::vector<SpilledInstance>().swap(m_records);
    if (m_failure) {
        return *m_failure;
    }
    result.spilledRuns = std::move(m_runs);
    m_runs.clear();
    return Status::success();
}

Status InstanceSpill::writeFiles(const AnalysisResult& result, const std::string& textPath,
                                 const std::string& indexedPath) const {
    // Every process's files that hold runs, opened once.
    std::vector<std::unique_ptr<FileHandle>> files;
    std::vector<int> fileOf; // per process and order: its index in `files`, or -1
    for (const SpilledRun& run : result.spilledRuns()) {
        if (fileOf.size() <= 2 * size_t{run.process} + 1) {
            fileOf.resize(2 * size_t{run.process} + 2, -1);
        }
        for (const bool time : {false, true}) {
            int& index = fileOf[2 * size_t{run.process} + (time ? 1 : 0)];
            if (index >= 0) {
                continue;
            }
            const std::string path = pathOf(m_directory, run.process, time);
            const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
            if (fd < 0) {
                return Error(path + ": cannot open (" + std::strerror(errno) + ")");
            }
            index = static_cast<int>(files.size());
            files.push_back(std::make_unique<FileHandle>(fd, path));
        }
    }
    const std::string mergePath =
        (std::filesystem::path(m_directory) / "instances.spill.merge").string();
    // The runs of one order merged into its output: first groups of m_fanIn runs into longer
    // runs of a scratch file of the merge, until m_fanIn or fewer are left.
    const auto mergeOrder = [&](bool time,
                                const std::function<Status(const SpilledInstance&)>& out) {
        std::vector<Run> runs;
        for (const SpilledRun& run : result.spilledRuns()) {
            const int index = fileOf[2 * size_t{run.process} + (time ? 1 : 0)];
            runs.push_back({files[static_cast<size_t>(index)].get(), run.first, run.count});
        }
        std::vector<std::unique_ptr<FileHandle>> passes; // the last pass's file
        while (runs.size() > m_fanIn) {
            const int fd = ::open(mergePath.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
            if (fd < 0) {
                return Status(Error(mergePath + ": cannot write (" + std::strerror(errno) + ")"));
            }
            // Unlinked at once: the descriptor keeps it while the next pass reads it.
            std::error_code ignored;
            std::filesystem::remove(mergePath, ignored);
            auto pass = std::make_unique<FileHandle>(fd, mergePath);
            std::vector<Run> longer;
            uint64_t written = 0;
            std::vector<SpilledInstance> chunk;
            chunk.reserve(kReadRecords);
            const auto flushChunk = [&]() {
                const bool put = writeAt(fd, chunk.data(), chunk.size() * sizeof(SpilledInstance),
                                         (written - chunk.size()) * sizeof(SpilledInstance));
                chunk.clear();
                return put;
            };
            for (size_t group = 0; group < runs.size(); group += m_fanIn) {
                const size_t end = std::min<size_t>(runs.size(), group + m_fanIn);
                const std::vector<Run> members(runs.begin() + static_cast<ptrdiff_t>(group),
                                               runs.begin() + static_cast<ptrdiff_t>(end));
                const uint64_t first = written;
                Status merged = mergeRuns(members, time, [&](const SpilledInstance& record) {
                    chunk.push_back(record);
                    ++written;
                    if (chunk.size() == kReadRecords && !flushChunk()) {
                        return Status(Error(mergePath + ": cannot write"));
                    }
                    return Status::success();
                });
                if (merged && !flushChunk()) {
                    merged = Error(mergePath + ": cannot write");
                }
                if (!merged) {
                    return merged;
                }
                longer.push_back({pass.get(), first, written - first});
            }
            runs = std::move(longer);
            passes.clear(); // the pass before is read no more
            passes.push_back(std::move(pass));
        }
        return mergeRuns(runs, time, out);
    };

    const auto mapped = [&result](const SpilledInstance& record) {
        PatternInstance instance = instanceOf(record);
        const std::vector<NodeId>& nodes = result.spilledNodes(record.rank);
        instance.node = record.node < nodes.size() ? nodes[record.node] : kNoNode;
        return instance;
    };
    auto text = WaitInstancesWriter::create(textPath);
    if (!text) {
        return text.error();
    }
    if (Status merged = mergeOrder(false,
                                   [&](const SpilledInstance& record) {
                                       text->add(mapped(record));
                                       return Status::success();
                                   });
        !merged) {
        return merged;
    }
    if (Status closed = text->finish(); !closed) {
        return closed;
    }
    auto indexed = InstanceFileWriter::create(indexedPath);
    if (!indexed) {
        return indexed.error();
    }
    if (Status merged = mergeOrder(
            true, [&](const SpilledInstance& record) { return indexed->add(mapped(record)); });
        !merged) {
        return merged;
    }
    return indexed->finish();
}

} // namespace waitscope::analysis
