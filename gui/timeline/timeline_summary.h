// The timeline's overview: per row and time bin the time spent in each kind of region (the
// innermost visit's, i.e. exclusive) and the time spent waiting in wait states, at several
// resolutions, so that the whole run is drawn from bins and never by scanning events. Cached in
// the experiment directory.
#pragma once

#include "timeline_data.h"

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace waitscope::timeline {

/// One depth of a row's visits as the event cache stores them (20 bytes each: start and end as
/// doubles, the region as uint32, native byte order), in pieces of consecutive records.
struct EncodedVisits {
    std::vector<std::pair<const char*, uint64_t>> pieces; ///< records and their count
    uint64_t count = 0;
    /// The `count` records are not here: another analysis process writes them into the event
    /// cache (TimelineStore::write() leaves room for them).
    bool elsewhere = false;
};

/// One bin of one row: seconds per region kind and seconds waiting.
struct Bin {
    std::array<float, static_cast<size_t>(RegionKind::Count_)> kinds{};
    float waiting = 0.0f;
    uint32_t visits = 0; ///< visits (of any depth) that begin in the bin

    /// The kind with the most time (Computation for an empty bin).
    RegionKind dominant() const;
    /// Seconds in MPI regions (every kind but computation, measurement and OpenMP/threads).
    double mpi() const;
    /// Seconds in any region.
    double covered() const;
};

/// Per bin of a level: min, mean and max over the ranks' main rows of a share (0..1).
struct ShareRange {
    float min = 0.0f;
    float mean = 0.0f;
    float max = 0.0f;
};

/// The bins of every row at resolutions kFinest, kFinest/2, ..., 1 (level 0 the finest).
class TimelineSummary {
public:
    /// The finest level's bins per row.
    static constexpr uint32_t kFinest = 4096;
    /// The cache file's name in the experiment directory.
    static constexpr const char* kCacheFile = "timeline_summary.bin";

    /// Sums the visits (exclusive time per kind) and the instances' waiting intervals of
    /// `timeline` into `bins` bins per row over [begin, end] (a power of two).
    static TimelineSummary build(const Timeline& timeline, uint32_t bins = kFinest);
    /// Reads the visits of row `row` (TimelineStore reads one row at a time from its file).
    using RowSource = std::function<Result<Row>(uint32_t row)>;
    /// As build(), with the rows' visits from `rowAt` rather than from `timeline` (whose rows
    /// then need no visits); errors are rowAt's.
    static Result<TimelineSummary> build(const Timeline& timeline, const RowSource& rowAt,
                                         uint32_t bins = kFinest);
    /// As build(), with the visits of each row's depths (as many as `timeline`'s rows have)
    /// encoded as the event cache stores them (TimelineStore::kVisitBytes each), in pieces:
    /// `visits[row][depth]`; a row `r` with `given[r]` not null takes its `bins` bins from there
    /// (rowFromRecords() of another process; their waiting time is summed here).
    static TimelineSummary buildFromRecords(const Timeline& timeline,
                                            const std::vector<std::vector<EncodedVisits>>& visits,
                                            const std::vector<const Bin*>& given = {},
                                            uint32_t bins = kFinest);
    /// One row's bins over the range of `timeline` (the whole run's; its rows are not used) as
    /// buildFromRecords() sums them from the row's visits per depth, without waiting time: what
    /// the analysis process that read the row hands to the one that writes the caches.
    static std::vector<Bin> rowFromRecords(const Timeline& timeline,
                                           const std::vector<EncodedVisits>& depths,
                                           uint32_t bins = kFinest);
    /// Reads a cache written by save() for a trace of `signature`; an error when the file is
    /// missing, damaged (naming the file) or of another trace.
    static Result<TimelineSummary> load(const std::string& path, const std::string& signature);
    /// The summary of `timeline` from the cache beside its trace when that is of this trace,
    /// else built and cached there (when the directory is writable).
    static TimelineSummary cached(const Timeline& timeline);
    /// Writes the cache; errors name the file.
    Status save(const std::string& path, const std::string& signature) const;
    /// What identifies a trace for the cache: the sizes and times of the files beside
    /// `anchor` (traces.otf2) and of instances.txt.
    static std::string signatureOf(const std::string& anchor);

    uint32_t rows() const { return m_rows; }
    double begin() const { return m_begin; }
    double end() const { return m_end; }
    /// Number of levels (level 0 has bins(), each next half as many).
    size_t levels() const { return m_levels.size(); }
    uint32_t binsAt(size_t level) const { return m_bins >> level; }
    double binWidth(size_t level) const {
        return (m_end - m_begin) / static_cast<double>(binsAt(level));
    }
    /// The bin `bin` of `row` at `level`.
    const Bin& bin(size_t level, uint32_t row, uint32_t bin) const {
        return m_levels[level][static_cast<size_t>(row) * binsAt(level) + bin];
    }
    /// The coarsest level whose bins are at most `width` seconds wide (0 if none).
    size_t levelFor(double width) const;
    /// Per bin of `level`: the MPI share and the waiting share over the rows in `mainRows`.
    std::vector<ShareRange> mpiShare(size_t level, const std::vector<uint32_t>& mainRows) const;
    std::vector<ShareRange> waitingShare(size_t level, const std::vector<uint32_t>& mainRows) const;

private:
    template <typename DepthAt>
    static TimelineSummary sum(const Timeline& timeline, DepthAt depthAt, uint32_t bins,
                               const std::vector<const Bin*>& given = {});
    void buildLevels();
    template <typename Share>
    std::vector<ShareRange> shares(size_t level, const std::vector<uint32_t>& mainRows,
                                   Share share) const;

    uint32_t m_rows = 0;
    uint32_t m_bins = 0;
    double m_begin = 0.0;
    double m_end = 0.0;
    std::vector<std::vector<Bin>> m_levels;
};

} // namespace waitscope::timeline
