// The indexed binary wait-state instances file beside the report: the instances in time order
// with an index of time blocks and per-pattern, per-call-path counts, so that a reader fetches
// the instances of a time window, or steps to the next or the worst of a pattern, without
// holding them all.
#pragma once

#include "waitscope/analysis/rank_result.h"
#include "waitscope/base/result.h"

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace waitscope::analysis {

/// The file's name in the experiment directory.
inline constexpr const char* kInstanceFile = "instances.bin";

/// Layout (little-endian): a header of 64 bytes ("WSINSTB1", version, records per block,
/// instances, metrics, section offsets, file size); the instances as records of 40 bytes in
/// time order (start of the waiting interval, see waitingInterval(), then rank, then pattern,
/// then enter); one block entry per kBlockRecords records (the first record's waiting start, the
/// latest waiting end in the block, the number of records of each pattern); and one cell per
/// (pattern, call node) that has instances: their number and the most severe (the earliest of
/// equals). Instance number i is the i-th record: the order a timeline steps through them.
class InstanceFile {
public:
    static constexpr uint32_t kBlockRecords = 4096;

    /// The instances of one (pattern, call node).
    struct Cell {
        Metric metric = Metric::Time;
        NodeId node = 0;
        uint64_t count = 0;
        uint64_t worst = 0; ///< the record of the most severe, the earliest of equals
        double worstSeverity = 0.0;
    };
    /// One block of kBlockRecords records (the last may hold fewer).
    struct Block {
        double firstStart = 0.0; ///< the waiting start of its first record
        double lastEnd = 0.0;    ///< the latest waiting end of its records
    };

    /// Opens a file written by writeInstanceFile(). Errors name the file: cannot open, not an
    /// instances file, another version, truncated or damaged index.
    static Result<InstanceFile> open(const std::string& path);
    /// The same index over `instances` held in memory (for timelines built in tests or read
    /// from the text file); `name` stands for the file in errors.
    static InstanceFile fromInstances(const std::vector<PatternInstance>& instances,
                                      const std::string& name = "instances");
    InstanceFile() = default;

    /// Number of instances.
    uint64_t size() const { return m_count; }
    bool empty() const { return m_count == 0; }
    const std::string& path() const { return m_path; }

    /// How records are read: waiting for the disk, or only from the page cache (an error "not
    /// in memory" rather than a wait: a GUI thread may read what costs no disk access).
    enum class ReadMode { Wait, FromMemory };

    /// Instance number `index` (< size()). Errors name the file and record (unreadable or
    /// damaged record).
    Result<PatternInstance> at(uint64_t index) const;
    /// Appends instances [first, first + count) to `out` (count clamped to the end).
    Status read(uint64_t first, uint64_t count, std::vector<PatternInstance>& out,
                ReadMode mode = ReadMode::Wait) const;
    /// The instances whose waiting interval overlaps [from, to], with their numbers, in order.
    /// Reads only the blocks that start by `to` and end after `from`.
    Status window(double from, double to, std::vector<std::pair<uint64_t, PatternInstance>>& out,
                  ReadMode mode = ReadMode::Wait) const;
    /// How many instances have a waiting start at or before `time` (the first one after it).
    Result<uint64_t> startsBy(double time) const;

    const std::vector<Block>& blocks() const { return m_blocks; }
    /// Records of `metric` in block `block`.
    uint32_t blockCount(size_t block, Metric metric) const {
        return m_blockCounts[block * m_metrics + static_cast<size_t>(metric)];
    }
    /// Every (pattern, call node) with instances, by pattern then node.
    const std::vector<Cell>& cells() const { return m_cells; }

    /// Where the bytes come from (the file, or memory); defined in the source file.
    class Source;

private:
    std::shared_ptr<const Source> m_source;
    std::string m_path;
    uint64_t m_count = 0;
    uint64_t m_recordsOffset = 0;
    size_t m_metrics = 0;
    std::vector<Block> m_blocks;
    std::vector<uint32_t> m_blockCounts; ///< per block x pattern
    std::vector<Cell> m_cells;

    static Result<InstanceFile> parse(std::shared_ptr<const Source> source, std::string path);
    Status readRecords(uint64_t first, uint64_t count, std::vector<PatternInstance>& out,
                       ReadMode mode = ReadMode::Wait) const;
};

/// Writes `instances` to `path` as an indexed instances file (see InstanceFile). Errors name
/// the file.
Status writeInstanceFile(const std::vector<PatternInstance>& instances, const std::string& path);

/// Whether `a` comes before `b` in an instances file's time order: the start of the waiting
/// interval (waitingInterval(); NaN first), then rank, pattern and enter. The file keeps the
/// order given among instances equal in these.
bool instanceTimeBefore(const PatternInstance& a, const PatternInstance& b);

/// Writes an indexed instances file (see InstanceFile) from instances handed over in its time
/// order (instanceTimeBefore()), without holding them: the records are written as they come, the
/// index (per block of records, per pattern and call node) is kept meanwhile, the header last.
/// Errors name the file.
class InstanceFileWriter {
public:
    static Result<InstanceFileWriter> create(const std::string& path);
    InstanceFileWriter(InstanceFileWriter&&) noexcept;
    InstanceFileWriter& operator=(InstanceFileWriter&&) noexcept;
    ~InstanceFileWriter();

    /// Appends the next instance (it must not come before the last one).
    Status add(const PatternInstance& instance);
    /// Writes the index and the header; the file is complete after it.
    Status finish();

    /// The encoding of the sections, shared with writeInstanceFile(); in the source file.
    class Encoder;

private:
    InstanceFileWriter();
    struct CloseFile {
        void operator()(FILE* file) const;
    };
    std::string m_path;
    std::unique_ptr<FILE, CloseFile> m_file;
    std::unique_ptr<Encoder> m_encoder;
};

/// Opens the instances at `path` in either format: an indexed file (InstanceFile::open()), read
/// per block; or a text file of an older experiment (writeWaitInstances()), read whole and
/// indexed in memory, so that both are read in the same order. Errors name the file.
Result<InstanceFile> openInstances(const std::string& path);

} // namespace waitscope::analysis
