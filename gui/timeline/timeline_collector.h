// The timeline's caches built from the events the analysis reads anyway: an event observer that
// keeps per location its visits per call depth (encoded as the event cache stores them), the ends
// of its messages and its collectives, and afterwards writes timeline_events.bin and
// timeline_summary.bin byte for byte as TimelineStore::open() builds them from the trace, without
// a second pass over the trace files.
#pragma once

#include "timeline_summary.h"
#include "waitscope/analysis/event_observer.h"
#include "waitscope/analysis/rank_result.h"
#include "waitscope/analysis/visit_stack.h"
#include "waitscope/base/result.h"
#include "waitscope/trace/definitions.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace waitscope::timeline {

/// Frees a block of records: from malloc (`mapped` 0) or its own mapping of `mapped` bytes; a
/// `borrowed` block (records in a mapped part file the collector keeps) is not freed.
struct FreeBlock {
    size_t mapped = 0;
    bool borrowed = false;
    void operator()(char* block) const;
};
using TimelineCollectorBlock = std::unique_ptr<char[], FreeBlock>;

/// Collects the timeline of the locations whose events it is shown (one per row, as
/// Timeline::load() orders them: by rank, then the rank's locations). observe() may be called
/// for different locations from different threads at once.
class TimelineCollector final : public analysis::EventObserver {
public:
    /// The time the rows seen span: none, or [begin, end].
    struct Span {
        bool any = false;
        double begin = 0.0;
        double end = 0.0;
    };

    TimelineCollector() = default;
    TimelineCollector(const TimelineCollector&) = delete;
    TimelineCollector& operator=(const TimelineCollector&) = delete;

    void observe(const trace::Definitions& definitions, const trace::Location& location,
                 const trace::EventStream& events, size_t first, size_t last) override;

    /// What the collector holds per event until the caches are written, at most (charged by
    /// --memory-limit): a visit (20 bytes) per two events, a send's time and bytes (16) or a
    /// receive's time (8) per three (enter, message, leave), and the blocks' unused rest.
    /// Measured (tests/bench/timeline_cost.sh): about 10 bytes per event on its generated trace.
    static constexpr uint64_t kHeldBytesPerEvent = 16;
    uint64_t heldBytesPerEvent() const override { return kHeldBytesPerEvent; }

    /// Whether every location's events were shown; else the caches need a pass over the trace
    /// (a location the analysis does not read, such as a metric location, or an unreadable one).
    bool complete() const;

    /// The time its rows span (each process's, then combined into the run's for savePart()).
    Span span() const;

    /// Writes what this collector holds of its rows to `path` (one analysis process of several;
    /// the process that writes the caches takes it with loadPart()): each row's message and
    /// collective ends, its number of visits per depth and its overview bins over `run` (the
    /// whole run's span, from every process). Not its visits: writeVisitsInto() puts them into
    /// the cache itself. Errors name the file.
    Status savePart(const std::string& path, const trace::Definitions& definitions,
                    const Span& run) const;
    /// Takes the rows saved by another collector of the same trace: their ends and bins; write()
    /// leaves room in the event cache for their visits. The ends are read where the file is
    /// mapped (no copy in fresh memory), so the file must not be cut short while the collector
    /// lives (removing it is fine: waitscope-replay does once taken). Errors name the file.
    Status loadPart(const std::string& path);
    /// Writes its rows' visits into the event cache `cache` that the collector holding every
    /// row's part wrote, at `rowStarts` (write()'s: per row, where its visits begin), handing
    /// back each row's memory once written. Errors name the file.
    Status writeVisitsInto(const std::string& cache, const std::vector<uint64_t>& rowStarts);

    /// Writes timeline_events.bin and timeline_summary.bin beside `anchor` (its traces.otf2), the
    /// summary's waiting time from `instances` (the analysis result's, as instances.txt beside
    /// it, which must already be written, holds them). The visits of rows taken from parts are
    /// left for their processes to write (writeVisitsInto() at `rowStarts`, to be given when
    /// there are such rows): then the event cache is written under
    /// TimelineStore::partialPath() and becomes timeline_events.bin only by publish(), once they
    /// did. Each row's visits are let go once written: the collector writes once. Errors name
    /// the file.
    Status write(const std::string& anchor, const trace::Definitions& definitions,
                 const std::vector<analysis::PatternInstance>& instances,
                 std::vector<uint64_t>* rowStarts = nullptr);
    /// Whether write() leaves rows' visits to other processes (rows taken with loadPart()).
    bool awaitsOtherRows() const;
    /// The event cache beside `anchor` while other processes write into it (write()'s when
    /// awaitsOtherRows()); writeVisitsInto() is given this path.
    static std::string partialCacheOf(const std::string& anchor);
    /// Renames the partial event cache beside `anchor`, every row's visits now in it, to
    /// timeline_events.bin. Errors name the file.
    static Status publish(const std::string& anchor);

    /// `seconds` as instances.txt stores it (rounded to nanoseconds, "%.9f") and reads it back.
    static double asStored(double seconds);

private:
    /// Fixed-size records appended in blocks that never move (each twice the last, up to
    /// 4 MiB): growing copies nothing and touches each page once.
    class RecordBlocks {
    public:
        explicit RecordBlocks(size_t recordBytes = 0) : m_recordBytes(recordBytes) {}
        /// Room for the next record.
        char* next() {
            if (m_left == 0) {
                grow();
            }
            --m_left;
            ++m_count;
            char* at = m_at;
            m_at += m_recordBytes;
            return at;
        }
        uint64_t count() const { return m_count; }
        size_t recordBytes() const { return m_recordBytes; }
        /// The blocks' records in order: (first record, number of records).
        std::vector<std::pair<const char*, uint64_t>> pieces() const;
        /// Room for `count` more records in one block of their own (to read them into).
        char* appendRoom(uint64_t count);
        /// Takes `count` records that stay where they are (in a mapped part file, which must
        /// outlive them) as the next ones.
        void appendView(const char* records, uint64_t count);
        /// Hands the blocks' memory back; count() stays.
        void release() {
            m_blocks.clear();
            m_counts.clear();
            m_at = nullptr;
            m_left = 0;
        }

    private:
        void grow();
        size_t m_recordBytes;
        std::vector<TimelineCollectorBlock> m_blocks;
        std::vector<uint64_t> m_counts; ///< records per block
        char* m_at = nullptr;
        uint64_t m_left = 0;
        uint64_t m_count = 0;
    };
    /// One channel's ends on one row: its partner, communicator and tag, and each message's
    /// time (and for sends, bytes), in the row's order.
    struct SendEnd {
        double time = 0.0;
        uint64_t bytes = 0;
    };
    template <typename End> struct ChannelEnds {
        uint32_t partner = 0;
        uint32_t comm = 0;
        uint32_t tag = 0;
        RecordBlocks ends{sizeof(End)}; ///< End records
    };
    template <typename End> struct Channels {
        std::vector<ChannelEnds<End>> list;
        std::unordered_map<uint64_t, std::vector<uint32_t>> byHash; ///< when there are many
        uint32_t last = 0;
        /// The ends of the channel to or from `partner`, made at the first.
        RecordBlocks& of(uint32_t partner, uint32_t comm, uint32_t tag);
        void add(uint32_t partner, uint32_t comm, uint32_t tag, const End& end) {
            std::memcpy(of(partner, comm, tag).next(), &end, sizeof end);
        }
    };
    struct CollectiveEnd {
        uint32_t comm = 0;
        uint32_t region = 0;
        uint64_t sequence = 0;
        double begin = 0.0;
        double end = 0.0;
    };
    /// One row: what is read so far and the reading's state between windows.
    struct RowData {
        uint32_t rank = 0;
        uint32_t thread = 0;
        bool seen = false;
        bool anyTime = false;
        double begin = 0.0;
        double end = 0.0;
        uint64_t events = 0;
        std::vector<RecordBlocks> depths; ///< encoded visits per depth
        Channels<SendEnd> sends;
        Channels<double> receives;
        std::vector<CollectiveEnd> collectives; ///< the main location's only
        // A row taken from a part file: its visits per depth (written by its process) and its
        // overview bins.
        bool fromPart = false;
        std::vector<uint64_t> partCounts;
        std::vector<Bin> bins;
        // Reading state.
        analysis::VisitStack open; ///< the frames open (visits to come)
        double collectiveBegin = 0.0;
        std::unordered_map<uint32_t, uint64_t> sequence; ///< collectives per communicator
    };

    /// The rows of `definitions`' locations, made at the first observe().
    void makeRows(const trace::Definitions& definitions);

    std::once_flag m_rowsMade;
    /// The part files taken, mapped: the ends read from them stay there (the page cache's
    /// pages, which the process that wrote them filled) rather than in fresh memory.
    std::vector<TimelineCollectorBlock> m_partFiles;
    std::vector<RowData> m_rows;
    std::unordered_map<uint64_t, uint32_t> m_rowOfLocation;
};

} // namespace waitscope::timeline
